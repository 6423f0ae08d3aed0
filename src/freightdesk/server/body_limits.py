"""Bounded requests: body sizes per operation, NUL characters, stalled bodies.

`BodyLimits` is a pure ASGI middleware, inside `RequestPlumbing` (so its answers carry the
support reference id and are logged):

- a body larger than its operation's limit (`limit_for`) is answered 413 with the Error
  body: up front when its `Content-Length` says so, before any of it is read; as soon as the
  count passes the limit when it is chunked. Document uploads keep the documents router's own
  limit (`upload_limit_bytes`, checked as the file streams to disk);
- a NUL character in a JSON string (value or key), a form field, a path or a query parameter
  is answered 400 naming the field or parameter, on every operation alike (PostgreSQL cannot
  store or compare one, SQLite would); Basic credentials are checked where they are read;
- a query parameter longer than MAX_PARAMETER_STRING is answered 400 naming it (the OpenAPI
  document states that bound on every parameter without its own);
- a body that arrives slower than `body_min_bytes_per_second` after a grace of
  `body_timeout_seconds` is answered 408 and its connection closed.

Every answer of this module closes the connection: the rest of the body is never read.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from freightdesk.models.common import MAX_JSON_STRING, MAX_PARAMETER_STRING
from freightdesk.server.domain.documents import DOCUMENTS_PATH
from freightdesk.server.errors import (
    ApiError,
    error_response,
    field_error,
    field_errors,
    loc_to_path,
)
from freightdesk.server.settings import ServerSettings

MIB = 1024 * 1024

# The operations whose bodies have a limit of their own, by (method, path): the name of the
# settings field that holds it. Every other body has `json_body_limit_bytes`.
ROUTE_LIMITS: dict[tuple[str, str], str] = {
    ("POST", "/api/v4/capacityproviders/parcel/shipments/statusupdates"): "push_body_limit_bytes",
    ("POST", "/services/carrier-push/v1/tracking-updates"): "push_body_limit_bytes",
    # A document upload: the documents router counts the file against upload_limit_bytes.
    ("POST", DOCUMENTS_PATH): "",
}

_NUL_ESCAPE = re.compile(rb"\\u0000")


class BodyRefused(ApiError):
    """A body this module does not let through (raised from `receive` inside the app, too)."""


def limit_for(settings: ServerSettings, method: str, path: str) -> int | None:
    """The most bytes a body of this operation may have; None: the operation counts itself."""
    name = ROUTE_LIMITS.get((method, path.rstrip("/") or "/"))
    if name is None:
        return settings.json_body_limit_bytes
    return int(getattr(settings, name)) if name else None


def too_large(limit: int) -> BodyRefused:
    message = f"is larger than the limit of {limit} bytes"
    return BodyRefused(413, f"body: {message}", errors=field_error("body", message).errors)


def too_slow(settings: ServerSettings) -> BodyRefused:
    return BodyRefused(
        408,
        f"The request body did not arrive in time (at least {settings.body_min_bytes_per_second}"
        f" bytes a second after {settings.body_timeout_seconds:g} s)",
    )


def nul_fields(data: object) -> list[str]:
    """The paths of the strings of parsed JSON (values or keys) holding a NUL, every one of
    them, so that a form can mark each field."""
    return [loc_to_path(("body", *where)).replace("\x00", "\\u0000") for where in _nul_paths(data)]


def _nul_paths(value: object, path: tuple[int | str, ...] = ()) -> Iterator[tuple[int | str, ...]]:
    if isinstance(value, str):
        if "\x00" in value:
            yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in str(key):
                yield (*path, str(key))
            else:
                yield from _nul_paths(item, (*path, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nul_paths(item, (*path, index))


_NUL_MESSAGE = "must not contain NUL characters"


def _form_pairs(data: bytes) -> list[tuple[str, str]]:
    """The names and values of a URL-encoded form or query string, as Starlette reads them."""
    return parse_qsl(data.decode("latin-1"), keep_blank_values=True, encoding="utf-8")


def _nul_refusal(fields: list[str]) -> ApiError | None:
    return field_errors((field, _NUL_MESSAGE) for field in fields) if fields else None


def _nul_in_form(data: bytes, prefix: str = "") -> list[str]:
    """The names of the fields of a URL-encoded form (a query string, a form body) with a NUL in
    their name or value."""
    if b"%00" not in data and b"\x00" not in data:
        return []
    pairs = _form_pairs(data)
    return [
        prefix + name.replace("\x00", "\\u0000") for name, value in pairs if "\x00" in name + value
    ]


def nul_in_parameters(scope: Scope) -> ApiError | None:
    """400 naming each path or query parameter of the request that holds a NUL, or None."""
    fields: list[str] = []
    if "\x00" in scope["path"]:
        app = scope.get("app")
        for route in getattr(getattr(app, "router", None), "routes", []):
            match, child = route.matches(scope)
            if match is not Match.NONE:
                params = child.get("path_params", {})
                fields = [name for name, value in params.items() if "\x00" in str(value)]
                break
        fields = fields or ["path"]  # no operation there: the path itself
    fields += _nul_in_form(scope.get("query_string", b""))
    return _nul_refusal(fields)


def _too_long_strings(data: bytes) -> ApiError | None:
    """400 naming every string longer than MAX_JSON_STRING (only a body longer than that can
    hold one, so smaller bodies are not parsed here)."""
    try:
        parsed = json.loads(data)
    except ValueError:
        return None  # not JSON: the app says so
    found: list[str] = []
    pending: list[tuple[object, tuple[int | str, ...]]] = [(parsed, ())]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str) and len(value) > MAX_JSON_STRING:
            found.append(loc_to_path(("body", *path)))
        elif isinstance(value, dict):
            pending.extend((item, (*path, str(key))) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend((item, (*path, index)) for index, item in enumerate(value))
    message = f"must be at most {MAX_JSON_STRING} characters long"
    return field_errors((field, message) for field in sorted(found)) if found else None


def _too_long_parameters(query: bytes) -> ApiError | None:
    """400 naming every query parameter longer than MAX_PARAMETER_STRING (the bound the OpenAPI
    document states for parameters, so that a value it calls invalid is refused)."""
    if len(query) <= MAX_PARAMETER_STRING:
        return None
    pairs = _form_pairs(query)
    found = sorted({name for name, value in pairs if len(value) > MAX_PARAMETER_STRING})
    message = f"must be at most {MAX_PARAMETER_STRING} characters long"
    return field_errors((name, message) for name in found) if found else None


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {key.lower(): value for key, value in scope.get("headers", [])}


def _is_json(content_type: bytes) -> bool:
    # FastAPI reads a body without a content type as JSON too.
    return not content_type or b"json" in content_type.split(b";")[0].lower()


def _is_form(content_type: bytes) -> bool:
    return content_type.split(b";")[0].strip().lower() == b"application/x-www-form-urlencoded"


class BodyLimits:
    def __init__(self, app: ASGIApp, settings: ServerSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if (too_long := _too_long_parameters(scope.get("query_string", b""))) is not None:
            await _refuse(scope, receive, send, too_long)
            return
        headers = _headers(scope)
        declared = headers.get(b"content-length")
        chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
        has_body = not ((declared is None or declared == b"0") and not chunked)
        if (nul := nul_in_parameters(scope)) is not None:
            await _refuse(scope, receive, send, nul, close=has_body)
            return
        if not has_body:
            await self.app(scope, receive, send)  # no body: nothing to bound
            return
        content_type = headers.get(b"content-type", b"")
        is_json, is_form = _is_json(content_type), _is_form(content_type)
        limit = limit_for(self.settings, scope["method"], scope["path"])
        if limit is None and (is_json or is_form):  # read whole here: never without a limit
            limit = self.settings.json_body_limit_bytes
        if limit is not None and declared is not None and int(declared) > limit:
            await _refuse(scope, receive, send, too_large(limit))
            return
        body = _BoundedBody(receive, limit, self.settings)
        if is_json:
            await self._json(scope, body, send)
        elif is_form:
            await self._form(scope, body, send)
        else:
            await self._streamed(scope, body, send)

    async def _form(self, scope: Scope, body: _BoundedBody, send: Send) -> None:
        """Read whole here (Starlette would too), checked for NUL, then given to the app."""
        if (data := await _read_whole(scope, body, send)) is None:
            return
        if (nul := _nul_refusal(_nul_in_form(data))) is not None:
            await _refuse(scope, body.receive, send, nul, close=False)
            return
        await self.app(scope, _replay(data, body), send)

    async def _json(self, scope: Scope, body: _BoundedBody, send: Send) -> None:
        """Read whole here (FastAPI would too), checked for NUL, then given to the app."""
        if (data := await _read_whole(scope, body, send)) is None:
            return
        if len(data) > MAX_JSON_STRING and (too_long := _too_long_strings(data)) is not None:
            await _refuse(scope, body.receive, send, too_long, close=False)
            return
        if _NUL_ESCAPE.search(data):
            try:
                fields = nul_fields(json.loads(data))
            except ValueError:
                fields = []  # not JSON: the app says so
            if (nul := _nul_refusal(fields)) is not None:
                await _refuse(scope, body.receive, send, nul, close=False)
                return
        await self.app(scope, _replay(data, body), send)

    async def _streamed(self, scope: Scope, body: _BoundedBody, send: Send) -> None:
        """Streamed to the app as it comes; a refusal replaces whatever the app answers."""
        started = False

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if body.refusal is not None and not started:
                return
            started = True
            await send(message)

        try:
            await self.app(scope, body.next, guarded_send)
        except Exception:  # the app's own handling of the refusal (or of what it caused)
            if started or body.refusal is None:
                raise
        if body.refusal is not None and not started:
            await _refuse(scope, body.receive, send, body.refusal)


class _BoundedBody:
    """The request's body messages, counted against the limit and the minimum rate."""

    def __init__(self, receive: Receive, limit: int | None, settings: ServerSettings) -> None:
        self.receive = receive
        self.limit = limit
        self.settings = settings
        self.started = time.monotonic()
        self.count = 0
        self.done = False
        self.refusal: BodyRefused | None = None

    async def next(self) -> Message:
        if self.refusal is not None:
            raise self.refusal
        if self.done:
            return await self.receive()
        # The body may take the grace period, and a second for each minimum rate's worth.
        rate = self.settings.body_min_bytes_per_second
        deadline = self.started + self.settings.body_timeout_seconds + self.count / rate
        try:
            async with asyncio.timeout_at(_loop_time(deadline)):
                message = await self.receive()
        except TimeoutError:
            self.refusal = too_slow(self.settings)
            raise self.refusal from None
        if message["type"] == "http.request":
            self.count += len(message.get("body", b""))
            if self.limit is not None and self.count > self.limit:
                self.refusal = too_large(self.limit)
                raise self.refusal
            self.done = not message.get("more_body", False)
        else:
            self.done = True  # disconnected
        return message

    async def read_all(self) -> bytes:
        parts: list[bytes] = []
        while not self.done:
            message = await self.next()
            parts.append(message.get("body", b""))
        return b"".join(parts)


async def _read_whole(scope: Scope, body: _BoundedBody, send: Send) -> bytes | None:
    """The whole body, or None once it has been refused (too large, too slow)."""
    try:
        return await body.read_all()
    except BodyRefused as refusal:
        await _refuse(scope, body.receive, send, refusal)
        return None


def _replay(data: bytes, body: _BoundedBody) -> Receive:
    """The body read whole here, given to the app as one message; then the connection's own."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await body.receive()
        replayed = True
        return {"type": "http.request", "body": data, "more_body": False}

    return replay


def _loop_time(monotonic_deadline: float) -> float:
    """A time.monotonic() deadline on the running loop's clock."""
    loop = asyncio.get_running_loop()
    return loop.time() + (monotonic_deadline - time.monotonic())


async def _refuse(
    scope: Scope, receive: Receive, send: Send, refusal: ApiError, *, close: bool = True
) -> None:
    headers = dict(refusal.headers)
    if close:
        # The rest of the body is not read, so the connection cannot carry another request.
        headers["Connection"] = "close"
    request = Request(scope, receive)
    response = error_response(request, refusal.status, refusal.message, refusal.errors, headers)
    await response(scope, receive, send)
