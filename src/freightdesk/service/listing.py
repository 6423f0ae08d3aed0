"""A list the app shows (a page of search results, a tenant's configurations): fetched by a
coordinator while someone listens, kept in the profile cache, changed at once by writes.

Each area subclasses `ListService` with what one fetch asks for (`params`, a small JSON
object such as the search criteria and page) and how to fetch it; the base keeps the last
good list on failure, announces only real changes, and stores the list so the pane opens
with it next time.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from freightdesk.service.cache import Cache
from freightdesk.service.coordinator import Coordinator

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

Params = dict[str, Any]


def params_text(params: Params) -> str:
    """The canonical text of `params` (for comparing and for the cache)."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Listing(Generic[M]):
    """What one fetch answered: the items in order, the total that matched, and the params
    (criteria, page) that asked for them."""

    items: tuple[M, ...]
    total: int
    params: str = "{}"
    keys: tuple[str, ...] = field(default=(), compare=False)

    def params_dict(self) -> Params:
        value = json.loads(self.params)
        return value if isinstance(value, dict) else {}

    def index_of(self, key: str) -> int | None:
        try:
            return self.keys.index(key)
        except ValueError:
            return None


@dataclass(frozen=True)
class ListChange:
    """What changed between two listings: `full` when the list was (re)loaded or reordered."""

    changed: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()
    full: bool = False


def diff_listings(old: Listing[Any] | None, new: Listing[Any]) -> ListChange | None:
    if old is None or old.params != new.params:
        return ListChange(frozenset(new.keys), full=True)
    if old is new or (old.items == new.items and old.total == new.total):
        return None
    removed = frozenset(set(old.keys) - set(new.keys))
    before = dict(zip(old.keys, old.items, strict=True))
    changed = frozenset(
        key for key, item in zip(new.keys, new.items, strict=True) if before.get(key) != item
    )
    kept_old = [k for k in old.keys if k not in removed]
    kept_new = [k for k in new.keys if k in before]
    reordered = kept_old != kept_new
    return ListChange(changed, removed, full=reordered or old.total != new.total)


class ListService(Generic[M]):
    """Owns one list of the app (see the module's docstring)."""

    kind = "list"  # the cache kind; subclasses name theirs

    def __init__(
        self,
        cache: Cache,
        model: type[M],
        key: Callable[[M], str],
        *,
        params: Params | None = None,
        interval: float = 30.0,
    ) -> None:
        self.cache = cache
        self.model = model
        self.key = key
        self._params: Params = dict(params or {})
        self._store_lock = asyncio.Lock()
        self.coordinator: Coordinator[Listing[M], ListChange] = Coordinator(
            self.kind, self._fetch, diff_listings, interval=interval
        )

    # --- what to fetch ---------------------------------------------------------------------

    @property
    def params(self) -> Params:
        return dict(self._params)

    async def fetch_items(self, params: Params) -> tuple[Sequence[M], int]:
        """The items and total for `params` (subclasses)."""
        raise NotImplementedError

    async def show(self, params: Params) -> Listing[M]:
        """Fetch the list for `params` now; the error is raised (for the pane) as well as
        recorded, and the last good list stays."""
        self._params = dict(params)
        ok = await self.coordinator.fetch_now()
        if not ok:
            error = self.coordinator.status.last_error
            assert error is not None
            raise error
        data = self.coordinator.data
        assert data is not None
        return data

    def listing(self, items: Sequence[M], total: int, params: Params | None = None) -> Listing[M]:
        chosen = self._params if params is None else params
        return Listing(
            tuple(items), total, params_text(chosen), tuple(self.key(item) for item in items)
        )

    async def _fetch(self, previous: Listing[M] | None) -> Listing[M]:
        params = dict(self._params)
        writes = self.coordinator.writes
        items, total = await self.fetch_items(params)
        new = self.listing(items, total, params)
        if previous is not None and previous == new:
            return previous  # nothing changed: same object, listeners stay quiet
        async with self._store_lock:
            # An answer older than a write is thrown away and asked for again; stored, it
            # would stay on disk without the write when the new answer is the list already
            # shown (not stored again). A write stores its list under this lock too, after this.
            if writes == self.coordinator.writes:
                await asyncio.to_thread(self._store, new)
        return new

    # --- cache -----------------------------------------------------------------------------

    def _store(self, listing: Listing[M]) -> None:
        # Keys by position, so the cache gives the items back in the order they were shown.
        self.cache.replace_kind(
            self.kind,
            (
                (f"{index:06d}", item.model_dump_json(by_alias=True, exclude_none=True).encode())
                for index, item in enumerate(listing.items)
            ),
        )
        self.cache.set_meta(f"{self.kind}:params", listing.params)
        self.cache.set_meta(f"{self.kind}:total", str(listing.total))

    def _load(self) -> Listing[M] | None:
        params = self.cache.meta(f"{self.kind}:params")
        if params is None:
            return None
        try:
            items = self.cache.load_models(self.kind, self.model)
        except ValidationError:
            log.info("%s: the cached list no longer fits the model; ignored", self.kind)
            return None
        total = int(self.cache.meta(f"{self.kind}:total") or len(items))
        return Listing(tuple(items), total, params, tuple(self.key(item) for item in items))

    async def load_cached(self) -> Listing[M] | None:
        """The last known list from disk; shown before any network."""
        cached = await asyncio.to_thread(self._load)
        if cached is not None and self.coordinator.data is None:
            value = json.loads(cached.params)
            if isinstance(value, dict):
                self._params = value
            self.coordinator.apply(cached)
        return cached

    def saved_at(self) -> float | None:
        return self.cache.saved_at(self.kind)

    # --- writes ----------------------------------------------------------------------------

    async def _apply(self, listing: Listing[M]) -> None:
        # Shown at once and without awaiting in between, so writes finishing together each
        # build on the other's result; the cache then gets whatever is newest.
        self.coordinator.apply(listing)
        async with self._store_lock:
            latest = self.coordinator.data
            if latest is not None:
                await asyncio.to_thread(self._store, latest)

    async def upsert(self, item: M, *, first: bool = False, grow: bool = True) -> None:
        """Show a saved item at once: replaced where it is, else added (at the top with
        `first`, else in the order of `sort_key`)."""
        current = self.coordinator.data or self.listing([], 0)
        key = self.key(item)
        items = list(current.items)
        index = current.index_of(key)
        total = current.total
        if index is not None:
            items[index] = item
        elif self.fits(item, current.params_dict()):
            if first:
                items.insert(0, item)
            else:
                items.append(item)
                items.sort(key=self.sort_key)
            if grow:
                total += 1
            limit = self.page_limit(current.params_dict())
            if limit is not None:
                del items[limit:]
        else:
            return
        await self._apply(self._relisted(current, items, total))

    async def remove(self, key: str) -> None:
        current = self.coordinator.data
        if current is None or current.index_of(key) is None:
            return
        items = [item for item in current.items if self.key(item) != key]
        await self._apply(self._relisted(current, items, max(0, current.total - 1)))

    def _relisted(self, current: Listing[M], items: Sequence[M], total: int) -> Listing[M]:
        return Listing(tuple(items), total, current.params, tuple(self.key(item) for item in items))

    def sort_key(self, item: M) -> Any:
        """Where a new item goes in the list (subclasses: the service's order)."""
        return self.key(item)

    def fits(self, item: M, params: Params) -> bool:
        """Whether a new item belongs in the list shown for `params` (its criteria)."""
        return True

    def page_limit(self, params: Params) -> int | None:
        """How many items the list shown for `params` holds at most (a page's size)."""
        return None

    async def aclose(self) -> None:
        await self.coordinator.aclose()
