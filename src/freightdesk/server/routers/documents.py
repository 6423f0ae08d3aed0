"""Documents: multipart upload, read, full and partial update, soft delete, search, download.

The upload is parsed as it streams in: the file part goes straight to a temporary file of the
file store (hashed and counted on the way, never held whole in memory) and becomes a
content-addressed blob only when the whole request is accepted.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import datetime
from email.utils import format_datetime
from typing import Annotated, Any
from urllib.parse import quote
from uuid import UUID

from fastapi import APIRouter, Body, Path, Query, Request, Response
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import ValidationError
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from freightdesk.models.common import Int64
from freightdesk.models.documents import (
    Document,
    DocumentCreate,
    DocumentPatch,
    DocumentSearch,
    DocumentSearchResults,
    DocumentUpdate,
)
from freightdesk.models.errors import ErrorBody
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import (
    ContextDep,
    ServiceContext,
    SessionDep,
)
from freightdesk.server.db import transaction
from freightdesk.server.domain.documents import (
    DOCUMENTS_PATH,
    Viewer,
    add_document,
    clean_content_type,
    clean_file_name,
    document_view,
    owned_document,
    patch_metadata,
    replace_metadata,
    soft_delete,
    visible_document,
    visible_file,
)
from freightdesk.server.domain.file_store import DatabaseBlob, FileStore, PendingBlob, file_store
from freightdesk.server.errors import ApiError, field_error, field_errors, validation_details
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.principal import Principal
from freightdesk.server.routers.documents_search import (
    FIRST_PAGE,
    MAX_PAGE_SIZE,
    PAGE_SIZE,
    found,
)

log = logging.getLogger(__name__)

router = APIRouter(prefix=DOCUMENTS_PATH, tags=["Documents"])

DOCUMENT_PART = "document"
FILE_PART = "upload_file"
# The `document` part is metadata; anything this large is a mistake, not a document.
METADATA_LIMIT = 256 * 1024
# Boundaries and part headers around the two parts.
ENVELOPE_SLACK = 64 * 1024
# Received file bytes are written in batches of about this size (one thread hop each).
WRITE_BATCH = 1024 * 1024

_UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": [DOCUMENT_PART, FILE_PART],
                    # Any other part is refused (400 naming it).
                    "additionalProperties": False,
                    "properties": {
                        DOCUMENT_PART: {
                            "type": "string",
                            "description": "The document's metadata as JSON: `type`, `mode`, "
                            "`identifiers` (non-empty) required; `name` (default: the file's "
                            "name) and `parsedData` optional",
                        },
                        FILE_PART: {"type": "string", "format": "binary"},
                    },
                }
            }
        },
    }
}


def _viewer(principal: Principal) -> Viewer:
    return Viewer(principal.tenant_id, principal.tenant_uuid)


# --- upload --------------------------------------------------------------------------------


def _too_large(limit: int) -> ApiError:
    return field_error(FILE_PART, f"is larger than the upload limit of {limit} bytes", status=413)


class _UploadParser:
    """Callbacks of the streaming multipart parser for the two parts of an upload.

    File bytes collect in `pending` until the caller writes them out; the `document` part is
    kept (it is small) and validated as soon as it ends, so a bad one is refused before the
    file is received.
    """

    def __init__(self, file_limit: int) -> None:
        self._file_limit = file_limit
        self._part: str | None = None
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._part_headers: dict[bytes, bytes] = {}
        self._metadata_text = bytearray()
        self.metadata: DocumentCreate | None = None
        self.file_started = False
        self.file_complete = False
        self.file_size = 0
        self.file_name: str | None = None
        self.content_type: str | None = None
        self.pending = bytearray()
        self.ended = False

    def on_part_begin(self) -> None:
        self._part = None
        self._part_headers = {}

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        self._part_headers[bytes(self._header_name).lower()] = bytes(self._header_value)
        self._header_name.clear()
        self._header_value.clear()

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._part_headers.get(b"content-disposition"))
        name = options.get(b"name", b"").decode("utf-8", "replace")
        if name == DOCUMENT_PART:
            if self.metadata is not None or self._metadata_text:
                raise field_error(DOCUMENT_PART, "is given more than once")
        elif name == FILE_PART:
            if self.file_started:
                raise field_error(FILE_PART, "is given more than once; one file per document")
            self.file_started = True
            raw_name = options.get(b"filename")
            self.file_name = raw_name.decode("utf-8", "replace") if raw_name is not None else None
            raw_type = self._part_headers.get(b"content-type")
            self.content_type = raw_type.decode("latin-1") if raw_type is not None else None
        elif not name:
            raise field_error("body", "a multipart part has no name")
        else:
            raise field_error(
                name, f"is not a part of an upload; send {DOCUMENT_PART} and {FILE_PART}"
            )
        self._part = name

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._part == FILE_PART:
            self.file_size += end - start
            if self.file_size > self._file_limit:
                raise _too_large(self._file_limit)
            self.pending += data[start:end]
        elif self._part == DOCUMENT_PART:
            self._metadata_text += data[start:end]
            if len(self._metadata_text) > METADATA_LIMIT:
                raise field_error(
                    DOCUMENT_PART, f"is larger than {METADATA_LIMIT} bytes", status=413
                )

    def on_part_end(self) -> None:
        if self._part == FILE_PART:
            self.file_complete = True
        elif self._part == DOCUMENT_PART:
            self.metadata = _parse_metadata(bytes(self._metadata_text))
        self._part = None

    def on_end(self) -> None:
        self.ended = True


def _parse_metadata(text: bytes) -> DocumentCreate:
    try:
        return DocumentCreate.model_validate_json(text)
    except ValidationError as exc:
        details = [
            detail.model_copy(
                update={
                    "source": DOCUMENT_PART
                    if detail.source == "body"
                    else f"{DOCUMENT_PART}.{detail.source}"
                }
            )
            for detail in validation_details(exc.errors())
        ]
        summary = f"{details[0].source}: {details[0].message}"
        if len(details) > 1:
            summary += f" (and {len(details) - 1} more)"
        raise ApiError(400, summary, errors=details) from None


def _boundary(request: Request) -> bytes:
    content_type = request.headers.get("content-type", "")
    media_type, options = parse_options_header(content_type)
    if media_type != b"multipart/form-data":
        raise ApiError(
            415,
            f"Content type {content_type or '(none)'} is not supported here; send "
            f"multipart/form-data with the parts {DOCUMENT_PART} and {FILE_PART}",
        )
    boundary = options.get(b"boundary")
    if not boundary:
        raise field_error("content-type", "multipart/form-data needs a boundary parameter")
    return boundary


def _check_declared_length(request: Request, body_limit: int, file_limit: int) -> None:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > body_limit:
        raise _too_large(file_limit)


async def _receive(
    request: Request, parser: _UploadParser, pending: PendingBlob, body_limit: int, file_limit: int
) -> None:
    boundary = _boundary(request)
    try:
        multipart = MultipartParser(
            boundary,
            {
                "on_part_begin": parser.on_part_begin,
                "on_part_data": parser.on_part_data,
                "on_part_end": parser.on_part_end,
                "on_header_field": parser.on_header_field,
                "on_header_value": parser.on_header_value,
                "on_header_end": parser.on_header_end,
                "on_headers_finished": parser.on_headers_finished,
                "on_end": parser.on_end,
            },
        )
        received = 0
        async for chunk in request.stream():
            received += len(chunk)
            if received > body_limit:
                raise _too_large(file_limit)
            multipart.write(chunk)
            if len(parser.pending) >= WRITE_BATCH:
                await _flush(parser, pending)
        await _flush(parser, pending)
        multipart.finalize()
    except FormParserError as exc:
        raise field_error("body", f"is not valid multipart/form-data ({exc})") from None
    except ClientDisconnect:
        raise ApiError(400, "The client closed the connection before the upload ended") from None


async def _flush(parser: _UploadParser, pending: PendingBlob) -> None:
    if parser.pending:
        data = bytes(parser.pending)
        parser.pending.clear()
        await run_in_threadpool(pending.write, data)


def _complete(parser: _UploadParser) -> DocumentCreate:
    missing: list[tuple[str, str]] = []
    if parser.metadata is None:
        missing.append((DOCUMENT_PART, "is required"))
    if not parser.file_started:
        missing.append((FILE_PART, "is required"))
    if missing:
        raise field_errors(missing)
    if not (parser.ended and parser.file_complete):
        raise field_error("body", "the multipart body ends before its closing boundary")
    if parser.file_size == 0:
        raise field_error(FILE_PART, "is empty; a document needs the file's content")
    assert parser.metadata is not None
    return parser.metadata


def _record(
    context: ServiceContext,
    principal: Principal,
    metadata: DocumentCreate,
    content: PendingBlob,
    file_name: str | None,
    content_type: str,
) -> Document:
    with transaction(context.sessions) as session:
        return add_document(
            session,
            tenant_id=principal.tenant_id,
            user=principal.user,
            company=principal.tenant_name,
            role=principal.role,
            metadata=metadata,
            content=content,
            file_name=file_name,
            content_type=content_type,
        )


@router.post("", responses=ERRORS, openapi_extra=_UPLOAD_BODY)
async def create_document(
    request: Request, principal: PrincipalDep, context: ContextDep
) -> Document:
    file_limit = context.settings.upload_limit_bytes
    body_limit = file_limit + METADATA_LIMIT + ENVELOPE_SLACK
    _check_declared_length(request, body_limit, file_limit)
    # The first use makes the store's directories and sweeps them: disk work, off the loop.
    store = await run_in_threadpool(file_store, context)
    pending = store.begin()
    try:
        parser = _UploadParser(file_limit)
        await _receive(request, parser, pending, body_limit, file_limit)
        metadata = _complete(parser)
        content_type = clean_content_type(parser.content_type, source=FILE_PART)
        document = await run_in_threadpool(
            _record,
            context,
            principal,
            metadata,
            pending,
            clean_file_name(parser.file_name),
            content_type,
        )
    finally:
        await run_in_threadpool(pending.discard)
    image = document.files[0]
    log.info("document %s added: %d bytes sha256=%s", document.id, image.size, image.sha256)
    return document


# --- read, change, delete ------------------------------------------------------------------


DocumentIdPath = Annotated[UUID, Path(alias="documentId")]


@router.get("/{documentId}", responses=ERRORS)
def get_document(
    document_id: DocumentIdPath, principal: PrincipalDep, session: SessionDep
) -> Document:
    return document_view(visible_document(session, _viewer(principal), document_id))


@router.put("/{documentId}", responses=ERRORS)
def replace_document(
    document_id: DocumentIdPath, body: DocumentUpdate, principal: PrincipalDep, context: ContextDep
) -> None:
    """Replace `identifiers`, `mode`, `name` and `type`; answers 200 with a null body."""
    with transaction(context.sessions) as session:
        row = owned_document(session, _viewer(principal), document_id)
        replace_metadata(session, row, body, principal.role)


@router.patch("/{documentId}", responses=ERRORS)
def patch_document(
    document_id: DocumentIdPath, body: DocumentPatch, principal: PrincipalDep, context: ContextDep
) -> None:
    """Change only the fields given; answers 200 with a null body."""
    with transaction(context.sessions) as session:
        row = owned_document(session, _viewer(principal), document_id)
        patch_metadata(session, row, body, principal.role)


@router.delete("/{documentId}", responses=ERRORS)
def delete_document(
    document_id: DocumentIdPath, principal: PrincipalDep, context: ContextDep
) -> None:
    """Soft delete: afterwards the document answers 404 and search no longer finds it."""
    with transaction(context.sessions) as session:
        soft_delete(session, owned_document(session, _viewer(principal), document_id))


@router.post("/search", responses=ERRORS, response_model=DocumentSearchResults)
async def search(
    principal: PrincipalDep,
    request: Request,
    # Pages past the end are answered empty without a query, so any int64 page is fine.
    page: Annotated[Int64, Query(ge=1)] = FIRST_PAGE,
    size: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = PAGE_SIZE,
    body: Annotated[DocumentSearch | None, Body()] = None,
) -> Response:
    """Documents visible to the caller matching every criterion given, newest first.

    Answers `{paginationInfo: {pageNumber, pageSize, total}, results: [Document]}`.
    """
    return await found(request, principal, body or DocumentSearch(), page, size)


# --- download (an extension: the interface has no operation for a file's bytes) ------------


class _BlobResponse(FileResponse):
    """A stored file, with the byte range we chose (if any) and no other range logic.

    The Range and If-Range headers are decided by the route; Starlette's FileResponse only
    sees the one canonical range (or none) so its plain-text error answers never happen.
    """

    def __init__(self, *args: Any, byte_range: tuple[int, int] | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._byte_range = byte_range

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"range", b"if-range")]
        if self._byte_range is not None:
            first, last = self._byte_range
            headers.append((b"range", f"bytes={first}-{last}".encode()))
        await super().__call__({**scope, "headers": headers}, receive, send)


_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


def _byte_range(request: Request, etag: str, size: int) -> tuple[int, int] | None:
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


def _content_disposition(file_name: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name in RFC 6266 `filename*`."""
    fallback = re.sub(r"[^A-Za-z0-9 ._()+-]", "_", file_name) or "document"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(file_name, safe='')}"


def _http_date(value: datetime) -> str:
    return format_datetime(value, usegmt=True)


@router.get(
    "/{documentId}/files/{fileId}",
    responses={
        **ERRORS,
        200: {"description": "The file's bytes", "content": {"application/octet-stream": {}}},
        206: {"description": "The requested byte range"},
        304: {"description": "Not modified (If-None-Match)"},
        416: {"model": ErrorBody, "description": "The range is outside the file"},
    },
    response_class=Response,
    openapi_extra=EXTENSION,
)
def download_file(
    document_id: DocumentIdPath,
    file_id: Annotated[UUID, Path(alias="fileId")],
    request: Request,
    principal: PrincipalDep,
    context: ContextDep,
) -> Response:
    """The bytes of one file of a document, with its content type and sha256 as ETag.

    Visible to the same tenants as the document. Supports `If-None-Match` (304) and a single
    `Range` (206; 416 when outside the file).
    """
    with context.sessions() as session:
        file = visible_file(session, _viewer(principal), document_id, file_id)
    etag = f'"{file.sha256}"'
    headers = {
        "ETag": etag,
        "Cache-Control": "private, no-cache",
        "Last-Modified": _http_date(file.created_at),
        # The content type came from the uploader; never let a browser run it as a page.
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
        "Content-Disposition": _content_disposition(file.file_name),
        # Exactly as uploaded: given here, Starlette adds no charset of its own to text/*.
        "Content-Type": file.content_type,
    }
    if_none_match = request.headers.get("if-none-match")
    if if_none_match is not None and etag in [c.strip() for c in if_none_match.split(",")]:
        return Response(status_code=304, headers=headers)
    store = file_store(context)
    stored = store.database_blob(file.sha256)
    if stored is not None:
        return _from_database(store, stored, headers, _byte_range(request, etag, file.size))
    path = store.path_for(file.sha256)
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        log.error("stored file %s of document %s is missing at %s", file.uuid, document_id, path)
        raise ApiError(
            500, "The stored content of this file is missing; quote the support reference id"
        ) from None
    return _BlobResponse(
        path,
        headers=headers,
        media_type=file.content_type,
        stat_result=stat,
        byte_range=_byte_range(request, etag, file.size),
    )


def _from_database(
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
