"""Errors explained in words a dispatcher understands (with the reference support needs)."""

from __future__ import annotations

from freightdesk.api.errors import (
    ApiError,
    AuthenticationFailed,
    BadRequest,
    Conflict,
    ConnectionFailed,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    ProtocolError,
    RateLimited,
    ServerError,
)
from freightdesk.service.local_service import LocalServiceError


def explain(exc: BaseException) -> str:
    """One or two sentences for a message box or a status bar."""
    if isinstance(exc, ConnectionFailed):
        return (
            "The freight service cannot be reached. Check the network or the connection's address."
        )
    if isinstance(exc, LocalServiceError):
        return f"The local sandbox could not start: {exc}"
    if isinstance(exc, ProtocolError):
        return (
            "The freight service sent an answer FreightDesk does not understand; "
            "nothing was changed."
        )
    if isinstance(exc, ApiError):
        text = _api_text(exc)
        if exc.support_reference_id:
            text += f" (support reference {exc.support_reference_id})"
        return text
    return str(exc) or type(exc).__name__


def _api_text(exc: ApiError) -> str:
    if isinstance(exc, AuthenticationFailed):
        return "The service did not accept the connection's client id or secret."
    if isinstance(exc, PermissionDenied):
        return f"Not allowed: {exc.error_message}"
    if isinstance(exc, NotFound):
        return "It no longer exists, or your account cannot see it."
    if isinstance(exc, Conflict):
        return exc.error_message
    if isinstance(exc, PayloadTooLarge):
        return "The file is larger than the service accepts."
    if isinstance(exc, RateLimited):
        return "The service is busy; FreightDesk will try again shortly."
    if isinstance(exc, BadRequest):
        return f"The service refused the data: {exc.error_message}"
    if isinstance(exc, ServerError):
        return "The freight service had a problem handling this."
    return exc.error_message
