"""The async client of the interface, for the app and for scripts (see docs/scripting.md).

    from freightdesk.api import ApiClient, NotFound

Loaded on first use: importing one module of this package (its errors, say) does not load
the client with every area's models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk._lazy import lazy_exports

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient
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
    from freightdesk.api.transport import RetryPolicy

__all__ = [
    "ApiClient",
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
    "RetryPolicy",
    "ServerError",
    "TimedOut",
]


__getattr__ = lazy_exports(
    __name__,
    __all__,
    (
        "freightdesk.api.errors",
        "freightdesk.api.transport",
        "freightdesk.api.client",
    ),
)
