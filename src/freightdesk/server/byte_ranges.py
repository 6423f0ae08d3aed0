"""A stored file's answer with a single byte range (RFC 9110), or the whole file.

The Range and If-Range headers are decided here alone: Starlette's FileResponse only ever
sees the one canonical range (or none), so its plain-text error answers never happen.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.responses import FileResponse, StreamingResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from freightdesk.server.domain.file_store import DatabaseBlob, FileStore
from freightdesk.server.errors import ApiError

_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


def requested_range(request: Request, etag: str, size: int) -> tuple[int, int] | None:
    """The one range to send (inclusive), None for the whole file; 416 when none can be sent.

    Multiple ranges and malformed headers are ignored (the whole file is sent), as RFC 9110
    allows; so is a Range whose If-Range does not match the current ETag.
    """
    header = request.headers.get("range")
    if header is None:
        return None
    if_range = request.headers.get("if-range")
    if if_range is not None and if_range.strip() != etag:
        return None
    match = _RANGE.fullmatch(header.strip())
    if match is None or match.group(1) == match.group(2) == "":
        return None
    first_text, last_text = match.groups()
    if first_text == "":
        suffix = int(last_text)
        if suffix == 0 or size == 0:
            raise _unsatisfiable(size)
        return max(0, size - suffix), size - 1
    first = int(first_text)
    if last_text and int(last_text) < first:
        return None
    if first >= size:
        raise _unsatisfiable(size)
    last = min(int(last_text), size - 1) if last_text else size - 1
    return first, last


def _unsatisfiable(size: int) -> ApiError:
    return ApiError(
        416,
        f"The requested range is outside the file of {size} bytes",
        headers={"Content-Range": f"bytes */{size}"},
    )


class RangedFileResponse(FileResponse):
    """A file on disk, with the byte range chosen by `requested_range` (if any) and no other."""

    def __init__(self, *args: Any, byte_range: tuple[int, int] | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._byte_range = byte_range

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"range", b"if-range")]
        if self._byte_range is not None:
            first, last = self._byte_range
            headers.append((b"range", f"bytes={first}-{last}".encode()))
        await super().__call__({**scope, "headers": headers}, receive, send)


def database_blob_response(
    store: FileStore,
    blob: DatabaseBlob,
    headers: dict[str, str],
    byte_range: tuple[int, int] | None,
) -> Response:
    """A file stored in the database (PostgreSQL), streamed a chunk at a time."""
    first, last = byte_range or (0, blob.size - 1)
    headers = {**headers, "Accept-Ranges": "bytes", "Content-Length": str(last - first + 1)}
    if byte_range is not None:
        headers["Content-Range"] = f"bytes {first}-{last}/{blob.size}"
    return StreamingResponse(
        store.read(blob, first, last),
        status_code=206 if byte_range is not None else 200,
        headers=headers,
        media_type=headers["Content-Type"],
    )
