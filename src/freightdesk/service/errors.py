"""The errors the service layer passes on to the UI.

They are the client's (`freightdesk.api.errors`): named here so that the UI, which talks only to
the service layer, imports nothing of the client (a contract in pyproject.toml).
"""

from __future__ import annotations

from freightdesk.api.errors import (
    ApiError,
    AuthenticationFailed,
    BadRequest,
    Conflict,
    ConnectionFailed,
    FreightDeskError,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    ProtocolError,
    RateLimited,
    ServerError,
    TimedOut,
)

__all__ = [
    "ApiError",
    "AuthenticationFailed",
    "BadRequest",
    "Conflict",
    "ConnectionFailed",
    "FreightDeskError",
    "NotFound",
    "PayloadTooLarge",
    "PermissionDenied",
    "ProtocolError",
    "RateLimited",
    "ServerError",
    "TimedOut",
]
