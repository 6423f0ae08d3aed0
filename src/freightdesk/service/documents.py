"""Documents for the app: a page of search results (polled while shown, cached), metadata
changes, deletes, and local copies of files for preview, "save a copy" and dragging out.

Local copies live in the profile's files directory under the file's sha256, so a file is
downloaded once however often it is previewed, and a copy is known complete by its name.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shutil
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.documents import MAX_SEARCH_SIZE, ProgressCallback
from freightdesk.api.errors import NotFound, ProtocolError
from freightdesk.models.auth import TenantRole
from freightdesk.models.documents import (
    SHIPPER_TENANT_UUID,
    Document,
    DocumentCreate,
    DocumentIdentifier,
    DocumentPatch,
    DocumentSearch,
    DocumentType,
    DocumentUpdate,
    IdentifiersCriterion,
    Image,
    NameCriterion,
    SearchOperator,
    TypeCriterion,
)
from freightdesk.service.cache import Cache
from freightdesk.service.listing import Listing, ListService, Params
from freightdesk.service.validation import problems_of

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 50


@dataclass(frozen=True)
class DocumentQuery:
    """What the Documents pane searches for; empty criteria find every visible document."""

    identifiers: tuple[tuple[str, str], ...] = ()
    name: str = ""
    types: tuple[DocumentType, ...] = ()
    page: int = 1
    size: int = DEFAULT_PAGE_SIZE

    def search(self) -> DocumentSearch:
        return DocumentSearch(
            identifiers=IdentifiersCriterion(
                operator=SearchOperator.EQUALS,
                values=[DocumentIdentifier(type=t, value=v) for t, v in self.identifiers],
            )
            if self.identifiers
            else None,
            name=NameCriterion(operator=SearchOperator.EQUALS, value=self.name)
            if self.name.strip()
            else None,
            type=TypeCriterion(operator=SearchOperator.EQUALS, values=list(self.types))
            if self.types
            else None,
        )

    def matches(self, document: Document) -> bool:
        """The service's semantics: every criterion given, any one value of each."""
        if self.identifiers:
            have = {(i.type, i.value) for i in document.identifiers}
            if not have & set(self.identifiers):
                return False
        if self.name.strip() and document.name != self.name.strip():
            return False
        return not self.types or document.type in self.types

    def params(self) -> Params:
        return {
            "identifiers": [list(pair) for pair in self.identifiers],
            "name": self.name,
            "types": [t.value for t in self.types],
            "page": self.page,
            "size": self.size,
        }

    @classmethod
    def from_params(cls, params: Params) -> DocumentQuery:
        try:
            return cls(
                identifiers=tuple((str(t), str(v)) for t, v in params.get("identifiers", [])),
                name=str(params.get("name", "")),
                types=tuple(DocumentType(t) for t in params.get("types", [])),
                page=max(1, int(params.get("page", 1))),
                size=min(MAX_SEARCH_SIZE, max(1, int(params.get("size", DEFAULT_PAGE_SIZE)))),
            )
        except (ValueError, TypeError):
            return cls()


def check_query(query: DocumentQuery) -> dict[str, str]:
    """Problems with search criteria, keyed `identifiers` and `name` (as the search form)."""
    problems: dict[str, str] = {}
    for kind, value in query.identifiers:
        try:
            DocumentIdentifier(type=kind, value=value)
        except ValidationError as exc:
            problems.setdefault("identifiers", next(iter(problems_of(exc).values())))
    if query.name.strip():
        try:
            NameCriterion(operator=SearchOperator.EQUALS, value=query.name)
        except ValidationError as exc:
            problems["name"] = next(iter(problems_of(exc).values()))
    return problems


def check_metadata(
    wire: dict[str, Any], role: TenantRole | None
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """Problems with a document's metadata (upload or edit), by field path.

    With the carrier role a `SHIPPER_TENANT_UUID` identifier (the shipper tenant's uuid)
    is required, as the service requires it. Answers the cleaned wire fields when valid.
    """
    problems: dict[str, str] = {}
    identifiers = wire.get("identifiers") or []
    if not identifiers:
        problems["identifiers"] = "Add at least one identifier"
    for index, identifier in enumerate(identifiers):
        if identifier.get("type") == SHIPPER_TENANT_UUID:
            try:
                uuid.UUID(str(identifier.get("value", "")))
            except ValueError:
                problems[f"identifiers[{index}].value"] = (
                    "Not a company id (they look like 3f2b8c1e-5d4a-…): check it with your partner"
                )
    if role is TenantRole.CARRIER and not any(
        i.get("type") == SHIPPER_TENANT_UUID for i in identifiers
    ):
        problems["shipperTenantUuid"] = (
            "As a carrier, enter the company id of the shipper the document is for"
        )
    try:
        DocumentCreate.model_validate(wire)
    except ValidationError as exc:
        for key, message in problems_of(exc).items():
            problems.setdefault(key, message)
    return (None, problems) if problems else (wire, {})


def default_name(path: Path) -> str:
    """The document name a file suggests: its name without the extension, tidied."""
    stem = path.stem if path.suffix else path.name
    return re.sub(r"[\s_]+", " ", stem).strip()[:255] or path.name[:255]


class DocumentsService(ListService[Document]):
    """Owns the Documents pane's current page of search results."""

    kind = "documents"

    def __init__(
        self,
        client: Callable[[], ApiClient],
        cache: Cache,
        files_dir: Path,
        *,
        interval: float = 30.0,
    ) -> None:
        super().__init__(
            cache, Document, lambda d: str(d.id), params=DocumentQuery().params(), interval=interval
        )
        self._client = client
        self.files_dir = files_dir
        self.role: TenantRole | None = None
        self._copies: dict[str, asyncio.Task[Path]] = {}
        self._showing: set[asyncio.Task[None]] = set()

    @property
    def query(self) -> DocumentQuery:
        return DocumentQuery.from_params(self.params)

    async def search(self, query: DocumentQuery) -> Listing[Document]:
        """Show the page of results for `query` (raises the error and keeps the last page)."""
        return await self.show(query.params())

    async def fetch_items(self, params: Params) -> tuple[Sequence[Document], int]:
        query = DocumentQuery.from_params(params)
        result = await self._client().documents.search_page(
            query.search(), page=query.page, size=query.size
        )
        return result.results, result.pagination_info.total

    def fits(self, item: Document, params: Params) -> bool:
        query = DocumentQuery.from_params(params)
        return query.page == 1 and query.matches(item)

    def page_limit(self, params: Params) -> int | None:
        return DocumentQuery.from_params(params).size

    def sort_key(self, item: Document) -> Any:
        return -item.created_date_time.timestamp()  # the service's order: newest first

    # --- writes ----------------------------------------------------------------------------

    def added(self, document: Document) -> None:
        """An upload finished: show it at the top if it matches the search shown."""
        task = asyncio.get_running_loop().create_task(self.upsert(document))
        self._showing.add(task)  # the loop keeps only a weak reference
        task.add_done_callback(self._showing.discard)

    async def replace(self, document_id: UUID | str, update: DocumentUpdate) -> Document:
        """Full update; answers the document as saved (shown in the list at once)."""
        api = self._client().documents
        await api.put(document_id, update, role=self.role)
        return await self._refetch(document_id)

    async def patch(self, document_id: UUID | str, patch: DocumentPatch) -> Document:
        """Partial update of the fields set in `patch`."""
        api = self._client().documents
        await api.patch(document_id, patch, role=self.role)
        return await self._refetch(document_id)

    async def _refetch(self, document_id: UUID | str) -> Document:
        saved = await self._client().documents.get(document_id)
        await self.upsert(saved, grow=False)
        return saved

    async def delete(self, document_id: UUID | str) -> None:
        with contextlib.suppress(NotFound):  # already gone: the wish is met
            await self._client().documents.delete(document_id)
        await self.remove(str(document_id))

    # --- files -----------------------------------------------------------------------------

    def copy_path(self, document: Document, file: Image | None = None) -> Path | None:
        """Where the local copy of a document's file is (or will be); None without files."""
        chosen = file or (document.files[0] if document.files else None)
        if chosen is None:
            return None
        name = _safe_file_name(chosen.file_name) or f"{document.id}"
        return self.files_dir / chosen.sha256[:2] / chosen.sha256 / name

    def local_copy_ready(self, document: Document) -> Path | None:
        path = self.copy_path(document)
        if path is not None and path.is_file() and path.stat().st_size == document.files[0].size:
            return path
        return None

    async def local_copy(
        self, document: Document, progress: ProgressCallback | None = None
    ) -> Path:
        """The document's (first) file on this computer, downloaded once and verified."""
        path = self.copy_path(document)
        if path is None:
            raise ProtocolError(f"document {document.id} has no file")
        ready = self.local_copy_ready(document)
        if ready is not None:
            return ready
        key = str(path)
        task = self._copies.get(key)
        if task is None or task.done():
            task = asyncio.get_running_loop().create_task(
                self._client().documents.download(document, path, progress=progress)
            )
            self._copies[key] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._copies.pop(key, None)

    async def save_copy(
        self, document: Document, destination: Path, progress: ProgressCallback | None = None
    ) -> Path:
        """Save the document's file at `destination` (from the local copy when there is one)."""
        ready = self.local_copy_ready(document)
        if ready is not None:
            await asyncio.to_thread(shutil.copyfile, ready, destination)
            return destination
        return await self._client().documents.download(document, destination, progress=progress)

    async def aclose(self) -> None:
        for task in self._copies.values():
            task.cancel()
        await asyncio.gather(*self._copies.values(), *self._showing, return_exceptions=True)
        self._copies.clear()
        await super().aclose()


def _safe_file_name(name: str) -> str:
    """A file name that is safe on every desktop: no separators, no reserved characters."""
    cleaned = re.sub(r'[\\/:*?"<>|\x00-\x1f]', "_", name).strip(" .")
    return cleaned[:200]


def identifiers_wire(pairs: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"type": t, "value": v.strip()} for t, v in pairs if t and v.strip()]
