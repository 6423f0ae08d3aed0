"""Typed errors of the client: every failure carries what the caller needs to explain it."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import ValidationError

from freightdesk.models.errors import ErrorBody, ErrorDetail

if TYPE_CHECKING:
    # Only for types: the panes import these errors at start, before any request is made,
    # and importing httpx costs about 0.1 s of the app's start.
    import httpx


class FreightDeskError(Exception):
    """Base of every error the client raises."""


class ConnectionFailed(FreightDeskError):
    """The service could not be reached (after the retries the policy allows). `address`:
    the `scheme://host:port` the request went to, when the transport said."""

    address: str | None = None

    def __init__(self, message: str, *, cause: Exception | None = None) -> None:
        super().__init__(message)
        self.address = address_of(cause) if cause is not None else None


def address_of(exc: Exception) -> str | None:
    """The `scheme://host:port` of the request httpx's `exc` failed (None: it does not say)."""
    try:
        url = exc.request.url  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # not httpx's, or raised without its request
        return None
    return f"{url.scheme}://{url.netloc.decode('ascii')}"


class ConnectionLost(ConnectionFailed):
    """The connection broke after the request went out, before the whole answer came: the
    service may have acted on it."""


class TimedOut(ConnectionFailed):
    """The service took longer to answer than the client waits (`seconds`); it may still act
    on the request."""

    def __init__(
        self, message: str, *, seconds: float | None = None, cause: Exception | None = None
    ) -> None:
        super().__init__(message, cause=cause)
        self.seconds = seconds


def transport_failure(
    operation: str, exc: Exception, timeout: float | None = None
) -> ConnectionFailed:
    """The typed error for httpx's failure of `operation` ("GET /path"): not reached at all,
    no answer within `timeout` seconds, or the connection lost halfway."""
    import httpx  # loaded already: it raised `exc`

    text = f"{operation}: {exc or type(exc).__name__}"
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return ConnectionFailed(text, cause=exc)
    if isinstance(exc, httpx.TimeoutException):
        return TimedOut(text, seconds=timeout, cause=exc)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return ConnectionLost(text, cause=exc)
    return ConnectionFailed(text, cause=exc)


class ProtocolError(FreightDeskError):
    """The service answered something the interface does not promise (bad JSON, missing fields).

    Raised instead of passing on data that would corrupt the caller's view.
    """

    def __init__(self, message: str, *, status: int | None = None, body: bytes = b"") -> None:
        super().__init__(message)
        self.status = status
        self.body = body[:2000]


class ApiError(FreightDeskError):
    """An error answer of the service, with its Error body."""

    def __init__(
        self, status: int, body: ErrorBody, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(f"{status} {body.error_message}")
        self.status = status
        self.body = body
        # The answer's headers (httpx's, looked up in any case) or none.
        self.headers: Mapping[str, str] = headers if headers is not None else {}

    @property
    def error_message(self) -> str:
        return self.body.error_message

    @property
    def errors(self) -> list[ErrorDetail]:
        return self.body.errors

    @property
    def support_reference_id(self) -> str | None:
        return self.body.support_reference_id

    def field_errors(self) -> dict[str, str]:
        """Messages by field path (`address.postalCode`), for a form to show beside its fields."""
        found: dict[str, str] = {}
        for detail in self.body.errors:
            if detail.source:
                found.setdefault(detail.source, detail.message)
        return found


class BadRequest(ApiError):
    """400: the request is not valid; `field_errors()` says where."""


class AuthenticationFailed(ApiError):
    """401: missing, invalid or expired credentials."""


class PermissionDenied(ApiError):
    """403: not allowed for this caller (a role or a tenant feature)."""


class NotFound(ApiError):
    """404: not found, or not visible to this tenant."""


class Conflict(ApiError):
    """409: conflicts with the current state (duplicates, limits, versions, state machines)."""


class PayloadTooLarge(ApiError):
    """413: the upload exceeds the service's limit."""


class RateLimited(ApiError):
    """429: too many requests; `retry_after` says how long to wait."""

    @property
    def retry_after(self) -> float | None:
        return parse_retry_after(self.headers.get("retry-after"))


class ServerError(ApiError):
    """5xx: the service failed; quote `support_reference_id` to its operators."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: AuthenticationFailed,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    429: RateLimited,
}


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a Retry-After header asks to wait: delay-seconds or an HTTP-date (RFC 9110).

    A date in the past is 0; an unreadable value is None (the caller's own backoff applies).
    The caller caps the wait (`RetryPolicy.max_retry_after`).
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    from email.utils import parsedate_to_datetime  # here: the panes import this module at start

    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": UTC by RFC 5322
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def error_from_response(response: httpx.Response) -> ApiError:
    """The typed error for an error answer; a body that is not the Error body is still explained."""
    status = response.status_code
    body: ErrorBody
    try:
        body = ErrorBody.model_validate_json(response.content)
    except (ValidationError, ValueError):
        text = response.text.strip()[:300] if response.content else ""
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        message = text if parsed is None else json.dumps(parsed)[:300]
        if parsed is None and _is_html(response):
            # A gateway's or a web server's error page: its title, never its markup.
            message = _html_title(response.text)
        body = ErrorBody(
            http_status_code=status,
            http_message=response.reason_phrase,
            error_message=message or response.reason_phrase or f"HTTP {status}",
            support_reference_id=response.headers.get("x-support-reference-id"),
        )
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return cls(status, body, response.headers)


def _is_html(response: httpx.Response) -> bool:
    kind = response.headers.get("content-type", "").lower()
    return "html" in kind or response.text.lstrip()[:1] == "<"


def _html_title(page: str) -> str:
    import html
    import re

    found = re.search(r"<title[^>]*>(.*?)</title>", page, re.IGNORECASE | re.DOTALL)
    if found is None:
        found = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.IGNORECASE | re.DOTALL)
    if found is None:
        return ""
    text = re.sub(r"<[^>]+>", "", found.group(1))
    return " ".join(html.unescape(text).split())[:300]
