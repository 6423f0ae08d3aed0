"""Per-request plumbing: support reference ids, the access log line, ETags on GET."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import time
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

access_log = logging.getLogger("freightdesk.server.access")
error_log = logging.getLogger("freightdesk.server")


# Support reference ids: 32 random hex digits, as before. From a generator in the process,
# seeded once from os.urandom (and again in a forked child, which would repeat the parent's):
# os.urandom on every request lets go of the GIL, 3-5% of the event loop's time under push
# load (issue 18). A reference id only has to be unique, not secret: it is sent to the
# client, written in the log, and gives access to nothing.
_references = random.Random(os.urandom(32))
os.register_at_fork(after_in_child=lambda: _references.seed(os.urandom(32)))


def _reference_id() -> str:
    return f"{_references.getrandbits(128):032x}"


class RequestPlumbing:
    """A pure ASGI middleware (cheap enough for the push ingestion rate).

    Every request gets a support reference id, sent back in `x-support-reference-id`, put in
    the Error body, and written in the one access log line of the request. JSON answers to GET
    get a strong ETag, and a matching `If-None-Match` is answered 304 without a body.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reference = _reference_id()
        state: dict[str, Any] = scope.setdefault("state", {})
        state["support_reference_id"] = reference
        started = time.perf_counter()
        status_holder = [0]
        is_get = scope["method"] == "GET"
        if_none_match = _header(scope, b"if-none-match") if is_get else None

        buffered_start: Message | None = None
        body_parts: list[bytes] = []

        async def send_wrapper(message: Message) -> None:
            nonlocal buffered_start
            if message["type"] == "http.response.start":
                status_holder[0] = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-support-reference-id", reference.encode()))
                # The Date header has whole seconds and may lag; incremental sync needs better.
                headers.append((b"x-server-time", _server_time()))
                message = {**message, "headers": headers}
                # Answers that carry their own ETag (file downloads) stream through untouched.
                if (
                    is_get
                    and message["status"] == 200
                    and _is_json(headers)
                    and not any(k.lower() == b"etag" for k, _ in headers)
                ):
                    buffered_start = message
                    return
                await send(message)
                return
            if message["type"] == "http.response.body" and buffered_start is not None:
                body_parts.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = b"".join(body_parts)
                etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
                headers = [h for h in buffered_start["headers"] if h[0].lower() != b"etag"]
                headers.append((b"etag", etag.encode()))
                if if_none_match is not None and _matches(if_none_match, etag):
                    status_holder[0] = 304
                    headers = [
                        h
                        for h in headers
                        if h[0].lower() not in (b"content-length", b"content-type")
                    ]
                    await send({"type": "http.response.start", "status": 304, "headers": headers})
                    await send({"type": "http.response.body", "body": b""})
                    return
                await send({**buffered_start, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            # Answer the Error body here rather than letting the exception reach the server,
            # which would drop the keep-alive connection along with the request.
            error_log.exception(
                "internal error ref=%s %s %s", reference, scope["method"], scope["path"]
            )
            if status_holder[0]:
                raise
            status_holder[0] = 500
            body = json.dumps(
                {
                    "httpStatusCode": 500,
                    "httpMessage": "Internal Server Error",
                    "errorMessage": "The service failed to handle this request; "
                    "quote the support reference id",
                    "errors": [],
                    "supportReferenceId": reference,
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"x-support-reference-id", reference.encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            principal = state.get("principal")
            tenant = getattr(principal, "tenant_name", "-")
            error = state.get("error_message")
            access_log.info(
                "%s %s %s %.1fms ref=%s tenant=%s%s",
                scope["method"],
                scope["path"],
                status_holder[0] or 500,
                elapsed_ms,
                reference,
                tenant,
                f" error={error!r}" if error else "",
            )


def _server_time() -> bytes:
    return datetime.now(UTC).isoformat(timespec="microseconds").encode()


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def _is_json(headers: list[tuple[bytes, bytes]]) -> bool:
    for key, value in headers:
        if key.lower() == b"content-type":
            return value.startswith(b"application/json")
    return False


def _matches(if_none_match: str, etag: str) -> bool:
    candidates = [c.strip().removeprefix("W/") for c in if_none_match.split(",")]
    return "*" in candidates or etag in candidates
