"""The async client of the interface, for the app and for scripts (see docs/scripting.md).

    from freightdesk.api import ApiClient, NotFound

Loaded on first use: importing one module of this package (its errors, say) does not load
the client with every area's models.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

_EXPORTS = {
    "ApiClient": "freightdesk.api.client",
    "RetryPolicy": "freightdesk.api.transport",
    **{
        name: "freightdesk.api.errors"
        for name in (
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
        )
    },
}

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'freightdesk.api' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
