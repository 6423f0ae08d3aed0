"""Shipment documents: creation, visibility, metadata changes, soft deletion and search.

Visibility: a document belongs to the tenant that added it (the only one that may change or
delete it). Every tenant named by one of its `SHIPPER_TENANT_UUID` identifiers may read it,
download its files and find it in search too; that is how a carrier's document reaches the
shipper it is for. Documents are linked to shipments only through identifier values (bill of
lading, PRO number, ...), so nothing here depends on the tracking tables.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from pydantic_core import from_json, to_json
from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Select,
    and_,
    bindparam,
    func,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from freightdesk.models.auth import TenantRole
from freightdesk.models.common import LogisticsIdentifier
from freightdesk.models.documents import (
    MAX_NAME_LENGTH,
    SHIPPER_TENANT_UUID,
    Document,
    DocumentCreate,
    DocumentIdentifier,
    DocumentMode,
    DocumentPatch,
    DocumentSearch,
    DocumentType,
    DocumentUpdate,
    Image,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.driver_statements import Statements
from freightdesk.server.domain.file_store import FileStore, PendingBlob
from freightdesk.server.errors import ApiError, field_error, not_found
from freightdesk.server.tables.documents import DocumentFileRow, DocumentIdentifierRow, DocumentRow
from freightdesk.server.tables.tenancy import Tenant

DOCUMENTS_PATH = "/services/document/v1/documents"
DEFAULT_CONTENT_TYPE = "application/octet-stream"
DEFAULT_FILE_NAME = "document"
MAX_CONTENT_TYPE_LENGTH = 200

_TOKEN = r"[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_MEDIA_TYPE = re.compile(rf"{_TOKEN}/{_TOKEN}")


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a document is visible to its owner and to the shippers it names."""

    tenant_id: int
    tenant_uuid: str


# --- input clean-up ------------------------------------------------------------------------


def clean_file_name(raw: str | None) -> str | None:
    """A file name safe to store and show: no path, no control characters, at most 255 long.

    The name is only ever shown and sent back in Content-Disposition; files are stored by
    content, so nothing a client sends here becomes a path.
    """
    if raw is None:
        return None
    name = re.split(r"[/\\]", raw)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip()
    if name in {"", ".", ".."}:
        return None
    if len(name) > MAX_NAME_LENGTH:
        stem, dot, ext = name.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            name = stem[: MAX_NAME_LENGTH - len(ext) - 1] + "." + ext
        else:
            name = name[:MAX_NAME_LENGTH]
    return name


def clean_content_type(raw: str | None, *, source: str = "upload_file") -> str:
    """The media type of an upload (`type/subtype`, parameters kept), lower-cased."""
    if raw is None or not raw.strip():
        return DEFAULT_CONTENT_TYPE
    value = raw.strip()
    main, sep, params = value.partition(";")
    main = main.strip().lower()
    if (
        not _MEDIA_TYPE.fullmatch(main)
        or len(value) > MAX_CONTENT_TYPE_LENGTH
        or not value.isascii()
        or not value.isprintable()
    ):
        raise field_error(
            f"{source}.contentType", f"{raw!r} is not a media type such as application/pdf"
        )
    return f"{main}; {params.strip()}" if sep and params.strip() else main


def _canonical_uuid(value: str) -> str | None:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def check_identifiers(
    session: Session,
    identifiers: list[DocumentIdentifier],
    role: TenantRole,
    *,
    source: str = "identifiers",
) -> list[tuple[str, str]]:
    """The identifiers to store, as (type, value); refuses what the interface does not allow.

    A carrier must name the shipper tenant (`SHIPPER_TENANT_UUID`); every such value must be
    the uuid of an existing tenant, stored in canonical form so visibility checks can match it.
    """
    checked: list[tuple[str, str]] = []
    shippers: dict[str, str] = {}
    for index, identifier in enumerate(identifiers):
        value = identifier.value
        if identifier.type == SHIPPER_TENANT_UUID:
            canonical = _canonical_uuid(value)
            if canonical is None:
                raise field_error(f"{source}[{index}].value", f"{value!r} is not a tenant uuid")
            shippers.setdefault(canonical, f"{source}[{index}].value")
            value = canonical
        if (identifier.type, value) not in checked:
            checked.append((identifier.type, value))
    if role == TenantRole.CARRIER and not shippers:
        raise field_error(
            source,
            f"a carrier must include an identifier of type {SHIPPER_TENANT_UUID} "
            "naming the shipper tenant the document is for",
        )
    if shippers:
        known = set(session.scalars(select(Tenant.uuid).where(Tenant.uuid.in_(list(shippers)))))
        for value, path in shippers.items():
            if value not in known:
                raise field_error(path, f"no tenant has the uuid {value}")
    return checked


# --- reading -------------------------------------------------------------------------------


def download_link(document_uuid: str, file_uuid: str) -> str:
    return f"{DOCUMENTS_PATH}/{document_uuid}/files/{file_uuid}"


def document_view(row: DocumentRow) -> Document:
    return Document(
        id=uuid.UUID(row.uuid),
        name=row.name,
        type=DocumentType(row.type),
        mode=DocumentMode(row.mode),
        identifiers=[LogisticsIdentifier(type=i.type, value=i.value) for i in row.identifiers],
        files=[
            Image(
                id=uuid.UUID(f.uuid),
                file_name=f.file_name,
                content_type=f.content_type,
                size=f.size,
                sha256=f.sha256,
                created_date_time=f.created_at,
                download_link=download_link(row.uuid, f.uuid),
            )
            for f in row.files
        ],
        parsed_data=dict(row.parsed_data or {}),
        added_by_company=row.added_by_company,
        added_by_user=row.added_by_user,
        created_date_time=row.created_at,
        last_modified_date_time=row.modified_at,
        deleted_date_time=row.deleted_at,
    )


def _visible_to(viewer: Viewer) -> ColumnElement[bool]:
    shared = select(DocumentIdentifierRow.document_id).where(
        DocumentIdentifierRow.type == SHIPPER_TENANT_UUID,
        DocumentIdentifierRow.value == viewer.tenant_uuid,
    )
    return and_(
        DocumentRow.deleted_at.is_(None),
        or_(DocumentRow.tenant_id == viewer.tenant_id, DocumentRow.id.in_(shared)),
    )


def visible_document(session: Session, viewer: Viewer, document_id: uuid.UUID) -> DocumentRow:
    """The live document with this id if the viewer may see it; 404 exactly as if absent."""
    row = session.scalar(
        select(DocumentRow).where(DocumentRow.uuid == str(document_id), _visible_to(viewer))
    )
    if row is None:
        raise not_found(f"Document {document_id}")
    return row


def owned_document(session: Session, viewer: Viewer, document_id: uuid.UUID) -> DocumentRow:
    """The document for a change; a shipper it was shared with may read it but not change it."""
    row = visible_document(session, viewer, document_id)
    if row.tenant_id != viewer.tenant_id:
        raise ApiError(
            403,
            f"Document {document_id} was shared with your tenant by {row.added_by_company}; "
            "only that tenant can change or delete it",
        )
    return row


def visible_file(
    session: Session, viewer: Viewer, document_id: uuid.UUID, file_id: uuid.UUID
) -> DocumentFileRow:
    document = visible_document(session, viewer, document_id)
    for file in document.files:
        if file.uuid == str(file_id):
            return file
    raise not_found(f"File {file_id} of document {document_id}")


# --- writing -------------------------------------------------------------------------------


def _identifier_rows(identifiers: list[tuple[str, str]]) -> list[DocumentIdentifierRow]:
    return [
        DocumentIdentifierRow(position=position, type=type_, value=value)
        for position, (type_, value) in enumerate(identifiers)
    ]


def add_document(
    session: Session,
    *,
    tenant_id: int,
    user: str,
    company: str,
    role: TenantRole,
    metadata: DocumentCreate,
    content: PendingBlob,
    file_name: str | None,
    content_type: str,
    created_at: datetime | None = None,
    source: str = "document",
) -> Document:
    """Record a document whose file has been received into `content` (see `create_document`).

    The file becomes a stored blob only once the metadata is accepted, so a refused upload
    leaves nothing in the store.
    """
    identifiers = check_identifiers(
        session, metadata.identifiers, role, source=f"{source}.identifiers"
    )
    blob = content.commit(session)
    when = created_at or utcnow()
    shown_name = file_name or metadata.name or DEFAULT_FILE_NAME
    row = DocumentRow(
        uuid=str(uuid.uuid4()),
        tenant_id=tenant_id,
        name=metadata.name or shown_name,
        type=metadata.type.value,
        mode=metadata.mode.value,
        parsed_data=metadata.parsed_data or {},
        added_by_company=company,
        added_by_user=user,
        created_at=when,
        modified_at=when,
        identifiers=_identifier_rows(identifiers),
        files=[
            DocumentFileRow(
                uuid=str(uuid.uuid4()),
                file_name=shown_name,
                content_type=content_type,
                size=blob.size,
                sha256=blob.sha256,
                created_at=when,
            )
        ],
    )
    session.add(row)
    session.flush()
    return document_view(row)


def create_document(
    session: Session,
    store: FileStore,
    *,
    tenant_id: int,
    user: str,
    company: str,
    metadata: DocumentCreate,
    content: bytes,
    file_name: str,
    content_type: str = DEFAULT_CONTENT_TYPE,
    role: TenantRole = TenantRole.SHIPPER,
    created_at: datetime | None = None,
) -> Document:
    """Create a document with the given bytes as its one file, without going through HTTP.

    For the demo generator and tools. `session` must be inside `transaction(...)`; `store` is
    `file_store(context)`. `tenant_id` is the owning tenant, `company` its name (shown as
    `addedByCompany`) and `user` the user shown as `addedByUser`. `metadata` is validated as
    an upload's `document` part would be; with `role=TenantRole.CARRIER` it must include a
    `SHIPPER_TENANT_UUID` identifier of an existing tenant, who will see the document too.
    `file_name` is cleaned as an upload's would be; `created_at` (aware, default now) lets
    demo data look as if it had been added in the past.

    The bytes are stored by content (repeating the same content costs no space) once the
    metadata is accepted. Raises `ApiError` with the field path when the metadata is refused;
    returns the Document as the interface shows it.
    """
    checked_type = clean_content_type(content_type)
    if not content:
        raise field_error("upload_file", "is empty; a document needs the file's content")
    pending = store.begin()
    try:
        pending.write(content)
        return add_document(
            session,
            tenant_id=tenant_id,
            user=user,
            company=company,
            role=role,
            metadata=metadata,
            content=pending,
            file_name=clean_file_name(file_name),
            content_type=checked_type,
            created_at=created_at,
        )
    finally:
        pending.discard()


def replace_metadata(
    session: Session, row: DocumentRow, update: DocumentUpdate, role: TenantRole
) -> None:
    """PUT: every changeable field at once."""
    row.identifiers = _identifier_rows(check_identifiers(session, update.identifiers, role))
    row.mode = update.mode.value
    row.name = update.name
    row.type = update.type.value
    row.modified_at = utcnow()
    session.flush()


def patch_metadata(
    session: Session, row: DocumentRow, patch: DocumentPatch, role: TenantRole
) -> None:
    """PATCH: only the fields given; a carrier that replaces identifiers must keep the shipper."""
    changed = False
    if patch.identifiers is not None:
        identifiers = check_identifiers(session, patch.identifiers, role)
        if identifiers != [(i.type, i.value) for i in row.identifiers]:
            row.identifiers = _identifier_rows(identifiers)
            changed = True
    if patch.mode is not None and row.mode != patch.mode.value:
        row.mode = patch.mode.value
        changed = True
    if patch.name is not None and row.name != patch.name:
        row.name = patch.name
        changed = True
    if patch.type is not None and row.type != patch.type.value:
        row.type = patch.type.value
        changed = True
    if changed:
        row.modified_at = utcnow()
    session.flush()


def soft_delete(session: Session, row: DocumentRow) -> None:
    """Mark deleted; the row and its file stay (audit, undo by an operator) but are hidden."""
    now = utcnow()
    row.deleted_at = now
    row.modified_at = now
    session.flush()


# --- search --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """Which criteria a search uses: how many identifier pairs, a name, types."""

    pairs: int
    name: bool
    types: bool


def _shape(viewer: Viewer, search: DocumentSearch, values: dict[str, Any]) -> _Shape:
    """The search's shape; its values are added to `values` under the parameters' names."""
    values["viewer_tenant"] = viewer.tenant_id
    values["viewer_uuid"] = viewer.tenant_uuid
    pairs = 0
    if search.identifiers is not None:
        for pairs, identifier in enumerate(search.identifiers.values, start=1):
            value = identifier.value
            if identifier.type == SHIPPER_TENANT_UUID:
                value = _canonical_uuid(value) or value
            values[f"identifier_type_{pairs}"] = identifier.type
            values[f"identifier_value_{pairs}"] = value
    if search.name is not None:
        values["name"] = search.name.value
    if search.type is not None:
        values["types"] = [t.value for t in search.type.values]
    return _Shape(pairs, search.name is not None, search.type is not None)


# The statements of each shape, built once with bound parameters: building the criteria and
# their cache key per request was most of a small search's time (issue 18).
_SHARED_WITH_VIEWER = select(DocumentIdentifierRow.document_id).where(
    DocumentIdentifierRow.type == SHIPPER_TENANT_UUID,
    DocumentIdentifierRow.value == bindparam("viewer_uuid"),
)


@lru_cache(maxsize=256)
def _criteria(shape: _Shape) -> tuple[ColumnElement[bool], ...]:
    """The search's own criteria, without its visibility."""
    clauses: list[ColumnElement[bool]] = []
    if shape.pairs:
        pairs = [
            and_(
                DocumentIdentifierRow.type == bindparam(f"identifier_type_{n}"),
                DocumentIdentifierRow.value == bindparam(f"identifier_value_{n}"),
            )
            for n in range(1, shape.pairs + 1)
        ]
        matching = select(DocumentIdentifierRow.document_id).where(or_(*pairs))
        clauses.append(DocumentRow.id.in_(matching))
    if shape.name:
        clauses.append(DocumentRow.name == bindparam("name"))
    if shape.types:
        clauses.append(DocumentRow.type.in_(bindparam("types", expanding=True)))
    return tuple(clauses)


# Which documents the viewer sees: its own and those other tenants shared with it. Where a
# criterion's index finds the few candidates (identifiers, a name), as one condition. Else
# as two parts that share none: asked as one (its own OR shared), SQLite read every live
# document and sorted them all for a page, where each part reads its index and the viewer's
# own come in the page's order from theirs, so a page stops at its last row (issue 18: a
# first page of everything over 300 documents, 163 us in the database, now 23).
_VISIBLE = (
    DocumentRow.deleted_at.is_(None),
    or_(
        DocumentRow.tenant_id == bindparam("viewer_tenant"),
        DocumentRow.id.in_(_SHARED_WITH_VIEWER),
    ),
)
_OWNED = (
    DocumentRow.tenant_id == bindparam("viewer_tenant"),
    DocumentRow.deleted_at.is_(None),
)
_SHARED = (
    DocumentRow.tenant_id != bindparam("viewer_tenant"),
    DocumentRow.deleted_at.is_(None),
    DocumentRow.id.in_(_SHARED_WITH_VIEWER),
)


def _parts(shape: _Shape) -> tuple[tuple[ColumnElement[bool], ...], ...]:
    """The conditions of each part of the search's documents (see `_VISIBLE`)."""
    criteria = _criteria(shape)
    if shape.pairs or shape.name:
        return ((*_VISIBLE, *criteria),)
    return (*_OWNED, *criteria), (*_SHARED, *criteria)


@lru_cache(maxsize=256)
def _page(shape: _Shape) -> Select[Any]:
    parts = [select(*_DOCUMENT_COLUMNS).where(*part) for part in _parts(shape)]
    if len(parts) == 1:
        page = parts[0].order_by(DocumentRow.created_at.desc(), DocumentRow.id.desc())
    else:
        visible = union_all(*parts).subquery()
        page = select(*visible.c).order_by(visible.c.created_at.desc(), visible.c.id.desc())
    return page.offset(bindparam("offset")).limit(bindparam("limit"))


@lru_cache(maxsize=256)
def _count(shape: _Shape) -> Select[Any]:
    counts = [
        select(func.count()).select_from(DocumentRow).where(*part).scalar_subquery()
        for part in _parts(shape)
    ]
    return select(sum(counts[1:], counts[0]))


def search_documents(
    run: Statements, viewer: Viewer, search: DocumentSearch, *, page: int, size: int
) -> bytes:
    """One page of the viewer's visible documents matching every criterion, newest first,
    as the JSON of `DocumentSearchResults` (by alias, nulls included).

    Read as plain columns on the connection and written as JSON straight from them: loading
    ORM objects with their two collections and building a model per document, file and
    identifier cost several times the queries of a small page, and validating our own rows
    as the answer's model, then dumping it, was most of a large page's time (issue 18).
    The tests hold the bytes to the model's (`DocumentSearchResults`' dump of them).
    """
    # On SQLite on the driver's cursor (see `driver_statements`): SQLAlchemy's execution path
    # was most of what remained of a small page's time.
    values: dict[str, Any] = {}
    shape = _shape(viewer, search, values)
    offset = (page - 1) * size
    values.update(offset=offset, limit=size)
    rows: Sequence[Any] = []
    total: int | None = None
    if offset == 0:
        # A first page that is not full holds every match: its length is the total.
        rows = run.rows(_page(shape), values)
        if len(rows) < size:
            total = len(rows)
    if total is None:
        total = run.scalar(_count(shape), values)
    # Past the end there is nothing to fetch; this also keeps a huge `page` out of the SQL.
    if offset and offset < total:
        rows = run.rows(_page(shape), values)
    ids = [row[0] for row in rows]
    identifiers: dict[int, list[dict[str, str]]] = {key: [] for key in ids}
    files: dict[int, list[dict[str, Any]]] = {key: [] for key in ids}
    if ids:
        for document, type_, value in run.rows(_IDENTIFIERS_OF, {"ids": ids}):
            identifiers[document].append({"type": type_, "value": value})
        for file in run.rows(_FILES_OF, {"ids": ids}):
            files[file[0]].append(_image_wire(file, as_text=run.raw))
    return to_json(
        {
            "paginationInfo": {"pageNumber": page, "pageSize": size, "total": total},
            "results": [_document_wire(row, identifiers, files, as_text=run.raw) for row in rows],
        }
    )


# What `document_view` reads, as columns (the same order as `_document_fields` unpacks).
_DOCUMENT_COLUMNS = (
    DocumentRow.id,
    DocumentRow.uuid,
    DocumentRow.name,
    DocumentRow.type,
    DocumentRow.mode,
    DocumentRow.parsed_data,
    DocumentRow.added_by_company,
    DocumentRow.added_by_user,
    DocumentRow.created_at,
    DocumentRow.modified_at,
    DocumentRow.deleted_at,
)
# The page's identifiers and files in the relationships' orders.
_PAGE_IDS: BindParameter[int] = bindparam("ids", expanding=True)
_IDENTIFIERS_OF = (
    select(
        DocumentIdentifierRow.document_id, DocumentIdentifierRow.type, DocumentIdentifierRow.value
    )
    .where(DocumentIdentifierRow.document_id.in_(_PAGE_IDS))
    .order_by(DocumentIdentifierRow.document_id, DocumentIdentifierRow.position)
)
_FILES_OF = (
    select(
        DocumentFileRow.document_id,
        DocumentRow.uuid,
        DocumentFileRow.uuid,
        DocumentFileRow.file_name,
        DocumentFileRow.content_type,
        DocumentFileRow.size,
        DocumentFileRow.sha256,
        DocumentFileRow.created_at,
    )
    .join(DocumentRow, DocumentRow.id == DocumentFileRow.document_id)
    .where(DocumentFileRow.document_id.in_(_PAGE_IDS))
    .order_by(DocumentFileRow.document_id, DocumentFileRow.id)
)


def _stored_utc(value: str | None) -> datetime | None:
    """A date-time as `UtcDateTime` stores it on SQLite (UTC without an offset), as the type
    reads it."""
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def _image_wire(row: Any, *, as_text: bool) -> dict[str, Any]:
    """An `Image` on the wire, of a `_FILES_OF` row (its date-time as stored text when
    `as_text`)."""
    _document, document_uuid, file_uuid, file_name, content_type, size, sha256, created = row
    return {
        "id": file_uuid,
        "fileName": file_name,
        "contentType": content_type,
        "size": size,
        "sha256": sha256,
        "createdDateTime": _stored_utc(created) if as_text else created,
        "downloadLink": download_link(document_uuid, file_uuid),
    }


def _document_wire(
    row: Any,
    identifiers: dict[int, list[dict[str, str]]],
    files: dict[int, list[dict[str, Any]]],
    *,
    as_text: bool,
) -> dict[str, Any]:
    """A `Document` on the wire as `document_view` makes it, of a `_DOCUMENT_COLUMNS` row
    (date-times and the parsed data as stored text when `as_text`)."""
    (
        key,
        document_uuid,
        name,
        type_,
        mode,
        parsed_data,
        company,
        user,
        created,
        modified,
        deleted,
    ) = row
    if as_text:
        created, modified, deleted = map(_stored_utc, (created, modified, deleted))
        parsed_data = from_json(parsed_data) if parsed_data is not None else None
    return {
        "id": document_uuid,
        "name": name,
        "type": type_,
        "mode": mode,
        "identifiers": identifiers[key],
        "files": files[key],
        "parsedData": dict(parsed_data or {}),
        "addedByCompany": company,
        "addedByUser": user,
        "createdDateTime": created,
        "lastModifiedDateTime": modified,
        "deletedDateTime": deleted,
    }
