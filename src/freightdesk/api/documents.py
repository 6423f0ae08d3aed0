"""Shipment documents: streamed upload with progress, metadata, search, streamed download.

Uploads never hold the file in memory: httpx's multipart encoder reads the file object in
64 KiB chunks, and `ProgressFile` counts those reads (progress) while keeping the file's
length known (so the request has a Content-Length, which lets the service refuse an
oversized upload before reading it). Cancelling the task that awaits `upload` aborts it.

Downloads use the local service's download extension and stream to a part file that is
renamed into place once complete and checked against the ETag (the file's sha256); a
dropped connection resumes where it stopped with a Range request.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import mimetypes
import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING
from uuid import UUID

import httpx

from freightdesk.api.errors import ConnectionFailed, ProtocolError, error_from_response
from freightdesk.api.parsing import parse
from freightdesk.models.auth import ROLE_HEADER, TenantRole
from freightdesk.models.documents import (
    Document,
    DocumentCreate,
    DocumentPatch,
    DocumentSearch,
    DocumentSearchResults,
    DocumentUpdate,
    Image,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

log = logging.getLogger(__name__)

PATH = "/services/document/v1/documents"
SEARCH_PATH = f"{PATH}/search"
DOWNLOAD_PATH = f"{PATH}/{{documentId}}/files/{{fileId}}"
MAX_SEARCH_SIZE = 500
DOWNLOAD_CHUNK = 256 * 1024
UPLOAD_CHUNK = 256 * 1024
_SHA256 = re.compile(r'"?([0-9a-f]{64})"?')

# (bytes done, bytes in all); called often, so keep it cheap.
ProgressCallback = Callable[[int, int], None]


class ProgressFile:
    """A binary file whose reads are counted, with its length still known to httpx.

    `fileno()` lets httpx take the length from the file system; `seek(0)` (httpx rewinds
    before sending, and again if the request is retried) starts the count over. Reads
    return at least `chunk_size` bytes (httpx asks for 64 KiB): each chunk costs the event
    loop one pass through httpcore and the socket, so fewer, larger chunks leave more of
    the loop to the window while memory stays a few hundred KiB.
    """

    def __init__(
        self,
        handle: IO[bytes],
        progress: ProgressCallback | None = None,
        *,
        chunk_size: int = UPLOAD_CHUNK,
    ) -> None:
        self._handle = handle
        self._progress = progress
        self._chunk_size = chunk_size
        start = handle.tell()
        self.total = handle.seek(0, os.SEEK_END)
        handle.seek(start)
        self.sent = start

    @property
    def name(self) -> str:
        return str(getattr(self._handle, "name", "upload"))

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(max(size, self._chunk_size) if size >= 0 else size)
        if data:
            self.sent += len(data)
            if self._progress is not None:
                self._progress(self.sent, self.total)
        return data

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        position = self._handle.seek(offset, whence)
        self.sent = position
        return position

    def tell(self) -> int:
        return self._handle.tell()

    def fileno(self) -> int:
        return self._handle.fileno()


def guess_content_type(file_name: str) -> str:
    guessed, _encoding = mimetypes.guess_type(file_name)
    return guessed or "application/octet-stream"


def _role_headers(role: TenantRole | str | None) -> dict[str, str] | None:
    return {ROLE_HEADER: str(role)} if role else None


class DocumentsApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    # --- create ----------------------------------------------------------------------------

    async def upload(
        self,
        source: Path | IO[bytes],
        metadata: DocumentCreate,
        *,
        file_name: str | None = None,
        content_type: str | None = None,
        progress: ProgressCallback | None = None,
        role: TenantRole | str | None = None,
    ) -> Document:
        """Create a document from a file (a path, or a binary file object open for reading).

        Not retried blindly: a POST that may have reached the service is not sent again.
        """
        if isinstance(source, Path):
            with source.open("rb") as handle:
                return await self._upload(
                    handle, metadata, file_name or source.name, content_type, progress, role
                )
        name = file_name or Path(str(getattr(source, "name", "upload"))).name
        return await self._upload(source, metadata, name, content_type, progress, role)

    async def _upload(
        self,
        handle: IO[bytes],
        metadata: DocumentCreate,
        file_name: str,
        content_type: str | None,
        progress: ProgressCallback | None,
        role: TenantRole | str | None,
    ) -> Document:
        counted = ProgressFile(handle, progress)
        response = await self._client.request(
            "POST",
            PATH,
            data={"document": json.dumps(metadata.wire())},
            files={
                "upload_file": (
                    file_name,
                    counted,
                    content_type or guess_content_type(file_name),
                )
            },
            headers=_role_headers(role),
        )
        return parse(Document, response)

    # --- read, change, delete --------------------------------------------------------------

    async def get(self, document_id: UUID | str) -> Document:
        response = await self._client.request("GET", f"{PATH}/{document_id}")
        return parse(Document, response)

    async def put(
        self,
        document_id: UUID | str,
        update: DocumentUpdate,
        *,
        role: TenantRole | str | None = None,
    ) -> None:
        """Replace identifiers, mode, name and type (the service answers a null body)."""
        await self._client.request(
            "PUT", f"{PATH}/{document_id}", json=update.wire(), headers=_role_headers(role)
        )

    async def patch(
        self,
        document_id: UUID | str,
        patch: DocumentPatch,
        *,
        role: TenantRole | str | None = None,
    ) -> None:
        """Change only the fields set in `patch`."""
        await self._client.request(
            "PATCH",
            f"{PATH}/{document_id}",
            json=patch.wire(exclude_unset=True),
            headers=_role_headers(role),
            # Setting fields to given values gives the same result however often it is sent.
            idempotent=True,
        )

    async def delete(self, document_id: UUID | str) -> None:
        await self._client.request("DELETE", f"{PATH}/{document_id}")

    # --- search ----------------------------------------------------------------------------

    async def search_page(
        self, search: DocumentSearch | None = None, *, page: int = 1, size: int = 10
    ) -> DocumentSearchResults:
        """One page of the documents visible to the caller, newest first."""
        response = await self._client.request(
            "POST",
            SEARCH_PATH,
            json=(search or DocumentSearch()).wire(),
            params={"page": page, "size": size},
            idempotent=True,  # a read, safe to repeat
        )
        return parse(DocumentSearchResults, response)

    async def search(
        self, search: DocumentSearch | None = None, *, size: int = MAX_SEARCH_SIZE
    ) -> AsyncIterator[Document]:
        """Every matching document, page by page."""
        page = 1
        while True:
            result = await self.search_page(search, page=page, size=size)
            for document in result.results:
                yield document
            if page * size >= result.pagination_info.total or not result.results:
                return
            page += 1

    # --- download (extension) --------------------------------------------------------------

    async def has_download(self) -> bool:
        return await self._client.has_extension("GET", DOWNLOAD_PATH)

    async def download(
        self,
        document: Document,
        destination: Path,
        *,
        file: Image | None = None,
        progress: ProgressCallback | None = None,
    ) -> Path:
        """Stream a file of `document` (its first by default) to `destination`.

        The bytes go to `<destination>.part` and are renamed into place only when complete
        and, when the service gives the sha256 as ETag, verified. Returns `destination`.
        """
        chosen = file or (document.files[0] if document.files else None)
        if chosen is None:
            raise ProtocolError(f"document {document.id} has no file to download")
        path = chosen.download_link or f"{PATH}/{document.id}/files/{chosen.id}"
        destination.parent.mkdir(parents=True, exist_ok=True)
        part = destination.with_name(destination.name + ".part")
        try:
            digest, etag = await self._stream_to(path, part, chosen.size, progress)
            expected = _sha256_of(etag) or chosen.sha256
            if expected and digest != expected:
                raise ProtocolError(
                    f"the downloaded file of document {document.id} does not match its "
                    f"checksum (expected {expected}, got {digest})"
                )
            os.replace(part, destination)
        except BaseException:
            with contextlib.suppress(OSError):
                part.unlink()
            raise
        return destination

    async def _stream_to(
        self, path: str, part: Path, size: int, progress: ProgressCallback | None
    ) -> tuple[str, str | None]:
        """Write the file to `part`, resuming after dropped connections; (sha256, etag)."""
        digest = hashlib.sha256()
        written = 0
        etag: str | None = None
        attempt = 0
        with part.open("wb") as out:
            while True:
                attempt += 1
                headers: dict[str, str] = {}
                if written and etag:
                    headers["Range"] = f"bytes={written}-"
                    headers["If-Range"] = etag
                try:
                    response = await self._open_stream(path, headers)
                    try:
                        if written and response.status_code != 206:
                            # The file changed or ranges are not offered: start over.
                            out.seek(0)
                            out.truncate()
                            digest = hashlib.sha256()
                            written = 0
                        etag = response.headers.get("etag", etag)
                        total = size or int(response.headers.get("content-length", "0"))
                        async for chunk in response.aiter_bytes(DOWNLOAD_CHUNK):
                            out.write(chunk)
                            digest.update(chunk)
                            written += len(chunk)
                            if progress is not None:
                                progress(written, max(total, written))
                    finally:
                        await response.aclose()
                    return digest.hexdigest(), etag
                except httpx.TransportError as exc:
                    retry = self._client.retry
                    if attempt >= retry.attempts or not retry.retry_on_exception(
                        exc, True, resumable=True
                    ):
                        raise ConnectionFailed(
                            f"GET {path}: {exc or type(exc).__name__}", cause=exc
                        ) from exc
                    delay = retry.delay(attempt)
                    log.info("download of %s broke at %d bytes (%s); resuming", path, written, exc)
                    await asyncio.sleep(delay)

    async def _open_stream(self, path: str, headers: dict[str, str]) -> httpx.Response:
        """A streamed GET with the client's bearer token (one refresh on 401)."""
        client = self._client
        refreshed = False
        while True:
            request_headers = dict(headers)
            token: str | None = None
            if client.tokens is not None:
                token = await client.tokens.get()
                request_headers["Authorization"] = f"Bearer {token}"
            request = client.http.build_request("GET", path, headers=request_headers)
            response = await client.http.send(request, stream=True)
            status = response.status_code
            if status == 401 and token is not None and not refreshed and client.tokens:
                await response.aclose()
                client.tokens.invalidate(token)
                refreshed = True
                continue
            if status >= 400:
                await response.aread()
                await response.aclose()
                raise error_from_response(response)
            return response


def _sha256_of(etag: str | None) -> str | None:
    if etag is None:
        return None
    match = _SHA256.fullmatch(etag.strip())
    return match.group(1) if match else None
