"""Documents: multipart upload, read, full and partial update, soft delete, search, download.

The upload's body is parsed by `server.uploads` as it streams in; its file becomes a
content-addressed blob only when the whole request is accepted. Byte ranges of a download are
chosen and answered by `server.byte_ranges`.
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
from starlette.concurrency import run_in_threadpool

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
from freightdesk.server.byte_ranges import (
    RangedFileResponse,
    database_blob_response,
    requested_range,
)
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
from freightdesk.server.domain.file_store import PendingBlob, file_store
from freightdesk.server.errors import ApiError
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.principal import Principal
from freightdesk.server.routers.documents_search import (
    FIRST_PAGE,
    MAX_PAGE_SIZE,
    PAGE_SIZE,
    found,
)
from freightdesk.server.uploads import (
    DOCUMENT_PART,
    FILE_PART,
    receive_upload,
    refuse_declared_oversize,
)

log = logging.getLogger(__name__)

router = APIRouter(prefix=DOCUMENTS_PATH, tags=["Documents"])

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
    refuse_declared_oversize(request, file_limit)
    # The first use makes the store's directories and sweeps them: disk work, off the loop.
    store = await run_in_threadpool(file_store, context)
    pending = store.begin()
    try:
        upload = await receive_upload(request, pending, file_limit)
        content_type = clean_content_type(upload.content_type, source=FILE_PART)
        document = await run_in_threadpool(
            _record,
            context,
            principal,
            upload.metadata,
            pending,
            clean_file_name(upload.file_name),
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
        return database_blob_response(
            store, stored, headers, requested_range(request, etag, file.size)
        )
    path = store.path_for(file.sha256)
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        log.error("stored file %s of document %s is missing at %s", file.uuid, document_id, path)
        raise ApiError(
            500, "The stored content of this file is missing; quote the support reference id"
        ) from None
    return RangedFileResponse(
        path,
        headers=headers,
        media_type=file.content_type,
        stat_result=stat,
        byte_range=requested_range(request, etag, file.size),
    )
