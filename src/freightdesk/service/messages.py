"""Errors explained in words a dispatcher understands (with the reference support needs)."""

from __future__ import annotations

from freightdesk.api.errors import (
    ApiError,
    AuthenticationFailed,
    BadRequest,
    Conflict,
    ConnectionFailed,
    ConnectionLost,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    ProtocolError,
    RateLimited,
    ServerError,
    TimedOut,
)
from freightdesk.service.local_service import LocalServiceError


def explain(exc: BaseException) -> str:
    """One or two sentences for a message box or a status bar."""
    if isinstance(exc, TimedOut):
        within = f" within {exc.seconds:g} s" if exc.seconds else " in time"
        return f"The freight service did not answer{within}."
    if isinstance(exc, ConnectionLost):
        return "The connection to the freight service broke off before its answer came."
    if isinstance(exc, ConnectionFailed):
        return (
            "The freight service cannot be reached. Check the network or the connection's address."
        )
    if isinstance(exc, LocalServiceError):
        return f"The local sandbox could not start: {exc}"
    if isinstance(exc, ProtocolError):
        return "The freight service sent an answer FreightDesk does not understand."
    if isinstance(exc, ApiError):
        text = _api_text(exc)
        if exc.support_reference_id:
            text += f" (support reference {exc.support_reference_id})"
        return text
    return str(exc) or type(exc).__name__


def refusal(exc: BaseException) -> tuple[dict[str, str], str | None]:
    """An error as a form shows it: the problems the service names by field (each beside its
    field), else, with none named, the error in words under the form."""
    fields = exc.field_errors() if isinstance(exc, ApiError) else {}
    return fields, None if fields else explain(exc)


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
        wait = exc.retry_after
        asked = f" and asked to wait {max(1, round(wait))} s" if wait else ""
        return f"The freight service is busy (too many requests){asked}."
    if isinstance(exc, BadRequest):
        return f"The service refused the data: {exc.error_message}"
    if isinstance(exc, ServerError):
        return "The freight service had a problem handling this."
    return exc.error_message
