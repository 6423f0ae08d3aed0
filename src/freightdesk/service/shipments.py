"""Shipments for the app: the list (cached, synced incrementally) and one open shipment.

The list uses the local service's search extension when the server has it: a first full sync,
then incremental syncs that cost 1 + ceil(changed / pageSize) requests. They ask for changes
since the last answer's change token (`changesSince`), which the service orders as changes
become visible: a change stamped before one already seen but committed after it is still
found. A service without tokens is asked `lastModifiedAfter` its clock less an overlap
(`CURSOR_OVERLAP`), which misses a change committed longer than the overlap after its stamp.
Against a deployment without the extension it refreshes the shipments it knows (those in the
cache and those created from the app) one by one. Whether the server has it is learned from the
first search itself (a 404 or 405 means it has not), not from the server's OpenAPI document: a
busy local service that has just started takes seconds to build that, and on a first run the
list should fill in meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from freightdesk.models.common import CustomAttribute, TransportationMode
from freightdesk.models.identifier_rules import primary_of
from freightdesk.models.shipment_search import (
    LatestEvent,
    ShipmentSearchRequest,
    ShipmentSort,
    ShipmentSortField,
    ShipmentSummary,
    SortDirection,
)
from freightdesk.models.tracking import (
    ExceptionStatus,
    RouteStop,
    StopType,
    TrackedShipment,
    TrackedShipmentInput,
    TrackingHistory,
)
from freightdesk.service.cache import Cache
from freightdesk.service.coordinator import Coordinator
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, cached_rows

if TYPE_CHECKING:
    # Imported when a sync runs: the window shows the cached list before the client loads.
    from freightdesk.api.client import ApiClient
    from freightdesk.api.tracking import SearchPage

log = logging.getLogger(__name__)

CURSOR_KEY = "shipments:cursor"
TOKEN_KEY = "shipments:change-token"
# What the cached rows hold. Rows cached before their ETA's and latest event's zones (another
# mark or none) show as they are, and the next sync lists every shipment again, so that each
# gets its zones (a sync from the cursor would give them only to the shipments changed since).
ROWS_KEY = "shipments:rows"
ROWS_WITH_ZONES = "eta-and-event-zones"
# Changes committed in the same instant as the newest one we saw may still be arriving.
CURSOR_OVERLAP = timedelta(seconds=2)


@dataclass(frozen=True)
class Delta:
    """How a list was made from another: which shipments changed or went."""

    base: weakref.ref[ShipmentList]  # weak: a list must not keep its predecessors alive
    changed: frozenset[str]
    removed: frozenset[str]


@dataclass(frozen=True)
class ShipmentList:
    summaries: dict[str, SummaryRow]
    cursor: datetime | None = None
    delta: Delta | None = None
    token: str | None = None  # the service's change token for the next sync, when it has them

    def newest(self) -> datetime | None:
        if not self.summaries:
            return None
        return max(s.last_modified for s in self.summaries.values())

    def derived(
        self,
        summaries: dict[str, SummaryRow],
        cursor: datetime | None,
        changed: Iterable[str] = (),
        removed: Iterable[str] = (),
        *,
        token: str | None = None,
    ) -> ShipmentList:
        """A list made from this one by changing and removing the given shipments: telling
        listeners what changed then costs nothing, however long the list. It keeps this
        list's change token unless given another."""
        delta = Delta(weakref.ref(self), frozenset(changed), frozenset(removed))
        return ShipmentList(summaries, cursor, delta, token if token is not None else self.token)


@dataclass(frozen=True)
class ShipmentsChange:
    changed: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()
    full: bool = False  # the whole list was (re)loaded


def diff_lists(old: ShipmentList | None, new: ShipmentList) -> ShipmentsChange | None:
    if old is None:
        return ShipmentsChange(frozenset(new.summaries), full=True)
    if old.summaries is new.summaries:
        return None
    delta = new.delta
    if delta is not None and delta.base() is old:
        if not delta.changed and not delta.removed:
            return None
        return ShipmentsChange(delta.changed, delta.removed)
    if not old.summaries:
        # A first sync into an empty list: every row is new. Saying so costs one pass over the
        # keys; comparing 20,000 rows with nothing held the GUI thread for tens of ms.
        return ShipmentsChange(frozenset(new.summaries)) if new.summaries else None
    removed = frozenset(old.summaries.keys() - new.summaries.keys())
    before_of = old.summaries.get
    # A sync keeps the row objects of unchanged shipments: identity settles nearly all of a
    # 100,000-row list without comparing fields.
    changed = frozenset(
        key
        for key, summary in new.summaries.items()
        if (before := before_of(key)) is not summary and before != summary
    )
    if not removed and not changed:
        return None
    return ShipmentsChange(changed, removed)


def _page_rows(answer: SearchPage) -> list[SummaryRow]:
    """A search page's summaries as rows (in a worker thread)."""
    return [SummaryRow.from_summary(s) for s in answer.summaries()]


class BulkBuild(Protocol):
    """A whole list being built (`ShipmentsService.bulk_build`); `done` says how many
    long-lived rows it made (0 when the build failed)."""

    def done(self, count: int = 0) -> None: ...


class ShipmentsService:
    """Owns the shipment list of one connection."""

    def __init__(
        self,
        client: Callable[[], ApiClient],
        cache: Cache,
        *,
        interval: float = 15.0,
        page_size: int = 500,
        cursor_overlap: timedelta = CURSOR_OVERLAP,
    ) -> None:
        self._client = client
        self.cache = cache
        self.page_size = page_size
        self.cursor_overlap = cursor_overlap
        self.requests_last_sync = 0
        self._searchable: bool | None = None  # None: not known yet (see the module's doc)
        self._tokens: bool | None = None  # whether the search answers change tokens
        self._page_tokens: bool | None = None  # whether it pages by keyset (pageToken)
        # Called when a whole list starts to be built (a first sync): the app holds garbage
        # collections meanwhile, which would walk every row made so far, all alive
        # (ui/garbage.py `bulk_load`; the service layer knows nothing of the GUI).
        self.bulk_build: Callable[[], BulkBuild] | None = None
        self.coordinator: Coordinator[ShipmentList, ShipmentsChange] = Coordinator(
            "shipments", self._fetch, diff_lists, interval=interval
        )

    # --- cache -----------------------------------------------------------------------------

    async def load_cached(self, rows: list[SummaryRow] | None = None) -> ShipmentList:
        """The last known list from disk (in a worker thread); shown before any network.
        `rows` are the cached rows when they were read already (the app's first paint)."""
        if rows is None:
            rows = await asyncio.to_thread(cached_rows, self.cache)
        cursor_text = self.cache.meta(CURSOR_KEY)
        token = self.cache.meta(TOKEN_KEY)
        if self.cache.meta(ROWS_KEY) != ROWS_WITH_ZONES:
            cursor_text = token = None
        cursor = datetime.fromisoformat(cursor_text) if cursor_text else None
        cached = ShipmentList({row.id: row for row in rows}, cursor, token=token)
        if self.coordinator.data is None:
            self.coordinator.apply(cached)
        return cached

    def _save(
        self,
        upserts: Iterable[SummaryRow],
        removed: Iterable[str],
        cursor: datetime | None,
        token: str | None = None,
    ) -> None:
        self.cache.put_summaries(upserts)
        gone = list(removed)
        if gone:
            self.cache.delete_many(SUMMARIES, gone)
        self._save_cursor(cursor, token)

    def _save_cursor(self, cursor: datetime | None, token: str | None) -> None:
        if cursor is not None:
            self.cache.set_meta(CURSOR_KEY, cursor.isoformat())
        if token is not None:
            self.cache.set_meta(TOKEN_KEY, token)

    # --- sync ------------------------------------------------------------------------------

    async def _fetch(self, previous: ShipmentList | None) -> ShipmentList:
        client = self._client()
        if self._searchable is not False:
            from freightdesk.api.errors import ApiError

            try:
                found = await self._sync_with_search(client, previous)
            except ApiError as exc:
                if self._searchable or exc.status not in (404, 405):
                    raise
                log.info("shipments: no search extension (%s); refreshing known ones", exc)
                self._searchable = False
            else:
                self._searchable = True
                return found
        return await self._refresh_known(client, previous)

    async def _sync_with_search(
        self, client: ApiClient, previous: ShipmentList | None
    ) -> ShipmentList:
        incremental = previous is not None and (
            previous.cursor is not None or previous.token is not None
        )
        build = self.bulk_build() if not incremental and self.bulk_build is not None else None
        try:
            found = await self._search(client, previous, incremental)
        except BaseException:
            if build is not None:
                build.done(0)
            raise
        if build is not None:
            build.done(len(found.summaries))
        return found

    async def _search(
        self, client: ApiClient, previous: ShipmentList | None, incremental: bool
    ) -> ShipmentList:
        from freightdesk.api.errors import ApiError

        use_tokens = self._tokens is not False
        if not use_tokens:
            incremental = previous is not None and previous.cursor is not None
        since = previous.token if use_tokens and incremental and previous else None
        # Keyset pages (in change order) with change tokens: a shipment deleted or unshared
        # while the pages are read moves no other past a page boundary, as an offset did.
        by_keyset = use_tokens and self._page_tokens is not False
        request = ShipmentSearchRequest(
            # From the clock only without a token (a cache of an earlier version, or a service
            # that has none): asking since a token needs no other bound.
            last_modified_after=previous.cursor if incremental and previous and not since else None,
            # "" asks for a first token (with every row, or those after the clock).
            changes_since=since or "" if use_tokens else None,
            page_token="" if by_keyset else None,
            # By page numbers (a service without keyset pages), newest first: a shipment that
            # changes while the pages are read moves to the front (read already; its change
            # comes with the next sync), so the others slide to later offsets and a page may
            # repeat one, never skip one. (A shipment deleted meanwhile still slides the others
            # back by one: skipped.)
            sort=ShipmentSort(
                field=ShipmentSortField.LAST_MODIFIED_DATE_TIME, direction=SortDirection.DESC
            ),
        )
        requests = 0
        page = 1
        fetched: list[SummaryRow] = []
        removed: set[str] = set()
        server_time: datetime | None = None
        token: str | None = None
        while True:
            try:
                answer = await client.tracking.search_page_stream(
                    request, page=page, page_size=self.page_size
                )
            except ApiError as exc:
                if (
                    request.page_token is not None
                    and not self._page_tokens
                    and exc.status == 400
                    and "changesSince" not in exc.field_errors()
                ):
                    # A service of an earlier version that knows changesSince, not pageToken
                    # (one that knows neither names changesSince too: that one syncs by the
                    # clock, below).
                    log.info("shipments: no keyset pages (%s); paging by number", exc)
                    self._page_tokens = False
                    return await self._search(client, previous, incremental)
                if request.changes_since is None or self._tokens or exc.status != 400:
                    raise
                # A service of an earlier version refuses the field it does not know.
                log.info("shipments: no change tokens (%s); syncing by the clock", exc)
                self._tokens = False
                return await self._search(client, previous, incremental)
            requests += 1
            server_time = server_time or answer.server_time
            # The first page's: the oldest, so nothing committed while paging is skipped.
            token = token or answer.change_token
            # Validated in a worker thread: the GUI thread gets the GIL back at every switch
            # interval (5 ms; pydantic validates one summary at a time), where validating
            # slices of 100 on the event loop held it 10 to 40 ms a slice on a loaded machine.
            fetched.extend(await asyncio.to_thread(_page_rows, answer))
            removed.update(answer.removed_ids())
            if request.page_token is not None:
                self._page_tokens = True
                following = answer.next_page_token
                if following is None:
                    break
                request = request.model_copy(update={"page_token": following})
                continue
            if page * self.page_size >= answer.pagination.total or not answer.items:
                break
            page += 1
        self.requests_last_sync = requests
        if request.changes_since is not None:
            self._tokens = token is not None
        if incremental and previous is not None:
            known = dict(previous.summaries)
            for rid in removed:
                known.pop(rid, None)
            upserts = []
            for row in fetched:
                listed = known.get(row.id)
                if listed != row and not (listed and fresher(listed, row)):  # see take_fresher
                    upserts.append(row)
                    known[row.id] = row  # an unchanged row keeps its object (see diff_lists)
        else:
            known = {row.id: row for row in fetched}
            upserts = list(known.values())
            removed = set(previous.summaries) - known.keys() if previous else set()
        cursor = self._next_cursor(previous, lambda: ShipmentList(known).newest(), server_time)
        if not incremental:
            await asyncio.to_thread(self._replace_all, upserts, cursor, token)
        elif upserts or removed:
            await asyncio.to_thread(self._save, upserts, removed, cursor, token)
        if incremental and previous is not None:
            if not upserts and not removed:
                if token is None or token == previous.token:
                    return previous  # nothing changed: same object, listeners stay quiet
                # The token moves on (in memory: an older one kept on disk is still safe, it
                # only lists again what did not change), so that what was listed again this
                # time because a transaction was running is not listed at every sync.
                return previous.derived(previous.summaries, previous.cursor, token=token)
            gone = removed & previous.summaries.keys()
            return previous.derived(known, cursor, (r.id for r in upserts), gone, token=token)
        return ShipmentList(known, cursor, token=token)

    def _next_cursor(
        self,
        previous: ShipmentList | None,
        newest: Callable[[], datetime | None],
        server_time: datetime | None,
    ) -> datetime | None:
        """Where the next sync starts. Changes up to the service's clock minus the overlap
        are surely committed and were in this answer, so the next sync asks only for later
        ones; without a server clock, the newest change seen (a pass over the whole list,
        so asked for only then) minus the overlap."""
        before = previous.cursor if previous else None
        newest_change = newest() if server_time is None else None
        if server_time is not None:
            candidate = server_time - self.cursor_overlap
        elif newest_change is not None:
            candidate = newest_change - self.cursor_overlap
        else:
            return before
        return max(before, candidate) if before is not None else candidate

    def _replace_all(
        self, rows: Iterable[SummaryRow], cursor: datetime | None, token: str | None
    ) -> None:
        self.cache.replace_summaries(rows)
        self.cache.set_meta(ROWS_KEY, ROWS_WITH_ZONES)
        self._save_cursor(cursor, token)

    async def _refresh_known(
        self, client: ApiClient, previous: ShipmentList | None
    ) -> ShipmentList:
        from freightdesk.api.errors import NotFound

        known = dict(previous.summaries) if previous else {}
        removed: list[str] = []
        changed: list[SummaryRow] = []
        for shipment_id in list(known):
            try:
                history = await client.tracking.history(shipment_id)
            except NotFound:
                removed.append(shipment_id)
                known.pop(shipment_id)
                continue
            row = SummaryRow.from_summary(summary_from_history(history))
            if known.get(shipment_id) != row:
                changed.append(row)
                known[shipment_id] = row
        self.requests_last_sync = len(known) + len(removed)
        if not changed and not removed and previous is not None:
            return previous
        await asyncio.to_thread(self._save, changed, removed, None)
        if previous is None:
            return ShipmentList(known, None)
        return previous.derived(known, None, (r.id for r in changed), removed)

    def changed(self) -> None:
        """A shipment changed by a write whose result the list does not have (sharing, a
        carrier's push applied, a booking's shipment): the list syncs soon (coalesced, see
        `Coordinator.notify`) instead of at its next poll."""
        self.coordinator.notify()

    # --- writes ----------------------------------------------------------------------------

    async def save(self, shipment: TrackedShipmentInput) -> TrackedShipment:
        """Create or replace a shipment; the list shows the result before this returns."""
        saved = await self._client().tracking.put(shipment)
        await self._show_now(saved.id)
        return saved

    async def delete(self, shipment_id: UUID | str) -> None:
        await self._client().tracking.delete(shipment_id)
        await asyncio.to_thread(self._save, (), [str(shipment_id)], None)
        # Read after the awaits: other writes (a bulk action's, say) may have landed meanwhile.
        current = self.coordinator.data
        if current is not None and str(shipment_id) in current.summaries:
            summaries = {k: v for k, v in current.summaries.items() if k != str(shipment_id)}
            self.coordinator.apply(
                current.derived(summaries, current.cursor, removed=[str(shipment_id)])
            )

    async def current(self, shipment_id: UUID | str) -> TrackedShipment:
        """The shipment as the service has it now (getTrackedShipment): what an edit starts
        from, so that it does not undo a change the detail has not polled yet."""
        return await self._client().tracking.get(shipment_id)

    async def history(self, shipment_id: UUID | str) -> TrackingHistory:
        """The shipment's tracking history as the service has it now (one read, no polling)."""
        return await self._client().tracking.history(shipment_id)

    async def matching_ids(
        self, request: ShipmentSearchRequest, *, limit: int | None = None
    ) -> frozenset[str]:
        """The ids of the shipments `request` finds (at most `limit`), read from the service:
        a filter the cached list cannot answer, such as an attribute's value."""
        tracking = self._client().tracking
        if limit is not None:
            page = await tracking.search_page(request, page_size=limit)
            return frozenset(str(s.id) for s in page.results[:limit])
        return frozenset([str(s.id) async for s in tracking.search(request)])

    async def attributes_changed(
        self, shipment_id: UUID | str, loaded: Iterable[CustomAttribute]
    ) -> dict[str, list[str]] | None:
        """The attributes on the service now (getShipmentAttributes) when they are no longer
        those the user's edits began from (`loaded`), else None: saving would overwrite
        someone else's change."""
        answer = await self._client().tracking.attributes(shipment_id)
        now = {a.attribute_name: list(a.attribute_values) for a in answer}
        return now if now != attribute_values(loaded) else None

    async def take_fresher(self, history: TrackingHistory) -> None:
        """The detail read `history` after the list's last sync: the shipment's row shows what
        the detail shows at once, not at the next poll (one shipment, two states, and a
        dispatcher trusts neither). Only a history `fresher` than the row counts; a shipment
        the list does not have waits for the sync."""
        row = SummaryRow.from_summary(summary_from_history(history))
        known = self.coordinator.data
        if known is None or not fresher(row, known.summaries.get(row.id)):
            return
        await asyncio.to_thread(self._save, [row], (), None)  # a restart shows it too
        # Read after the await: a sync may have landed meanwhile, with this change or a later.
        current = self.coordinator.data
        if current is not None and fresher(row, current.summaries.get(row.id)):
            summaries = {**current.summaries, row.id: row}
            self.coordinator.apply(current.derived(summaries, current.cursor, [row.id]))

    async def _show_now(self, shipment_id: UUID) -> None:
        history = await self._client().tracking.history(shipment_id)
        row = SummaryRow.from_summary(summary_from_history(history))
        await asyncio.to_thread(self._save, [row], (), None)
        # Read after the awaits: other writes (a bulk action's, say) may have landed meanwhile.
        current = self.coordinator.data or ShipmentList({})
        summaries = {**current.summaries, row.id: row}
        changed = [row.id] if current.summaries.get(row.id) != row else []
        self.coordinator.apply(current.derived(summaries, current.cursor, changed))


def attribute_values(attributes: Iterable[CustomAttribute]) -> dict[str, list[str]]:
    """Attributes by name with their values, as getShipmentAttributes gives them (a single
    `value` is a list of one)."""
    return {
        a.name: list(a.values) if a.values else ([a.value] if a.value is not None else [])
        for a in attributes
    }


def with_attributes(
    shipment: TrackedShipment, attributes: list[CustomAttribute]
) -> TrackedShipmentInput:
    """The body that saves `shipment` as it is with other attributes. Its events go back too:
    PUT replaces the user's own events with those sent (received ones are ignored), so leaving
    them out would delete them."""
    return TrackedShipmentInput(
        id=shipment.id,
        identifiers=shipment.identifiers,
        attributes=attributes,
        access_groups=shipment.access_groups,
        costs=shipment.costs,
        plan=shipment.plan,
        route_info=shipment.route_info,
        related_shipments=shipment.related_shipments,
        events=shipment.events,
    )


def fresher(row: SummaryRow, than: SummaryRow | None) -> bool:
    """Whether `row` is a later version of the shipment than the listed `than`: the service
    stamps lastModifiedDateTime on every change (event, state, ETA, exception, edit), so the
    later stamp is the newer version; the one rule for the list and the detail."""
    return than is not None and row.last_modified > than.last_modified


def summary_from_history(history: TrackingHistory) -> ShipmentSummary:
    """The list row of a shipment, built from its history (when the search extension is absent
    or to show a write at once). Mirrors what the local service computes."""
    shipment = history.shipment
    stops = shipment.route_info.stops if shipment.route_info else []
    pickup = next((s for s in stops if s.type is StopType.PICKUP), stops[0] if stops else None)
    delivery = next(
        (s for s in reversed(stops) if s.type is StopType.DELIVERY), stops[-1] if stops else None
    )
    events = [e for e in history.events if e.date_time is not None]
    latest = events[-1] if events else None
    newest = history.newest_estimate()  # the detail's Latest ETA too
    eta = newest.estimate_date_time if newest is not None else None
    eta_stop = newest.stop_id if newest is not None else None
    carrier = next(
        (i.value for i in shipment.identifiers if i.type in {"CARRIER_SCAC", "SCAC", "FFW_SCAC"}),
        None,
    )
    return ShipmentSummary(
        id=shipment.id,
        identifiers=shipment.identifiers,
        primary_identifier=primary_identifier(shipment),
        mode=_mode_of(shipment),
        current_state=current.type if (current := history.current_state()) else None,
        origin_name=_stop_name(pickup),
        destination_name=_stop_name(delivery),
        next_eta=eta,
        next_eta_time_zone=_stop_zone(stops, eta_stop),
        latest_event=LatestEvent(
            type=latest.type,
            date_time=latest.date_time,
            description=latest.description,
            time_zone=_stop_zone(stops, latest.stop_id),
        )
        if latest
        else None,
        open_exception_count=sum(1 for x in history.exceptions if x.status is ExceptionStatus.OPEN),
        carrier=carrier,
        created_date_time=shipment.created_date_time or shipment.last_modified_date_time,
        last_modified_date_time=shipment.last_modified_date_time or shipment.created_date_time,
    )


def _stop_zone(stops: list[RouteStop], stop_id: UUID | None) -> str | None:
    """The IANA zone of a stop (its appointment window's), as the local service finds it."""
    stop = next((s for s in stops if stop_id is not None and s.id == stop_id), None)
    window = stop.appointment_window if stop is not None else None
    return window.local_time_zone_identifier if window is not None else None


def _stop_name(stop: RouteStop | None) -> str | None:
    if stop is None:
        return None
    if stop.name:
        return stop.name
    address = stop.location.address if stop.location else None
    if address and address.city:
        return f"{address.city}, {address.state}" if address.state else address.city
    return None


def primary_identifier(shipment: TrackedShipment) -> str | None:
    """What the list names `shipment` by (its Shipment column, the detail's title): the
    models' rule, as the local service applies it."""
    primary = primary_of(shipment.identifiers, _mode_of(shipment))
    return primary.value if primary is not None else None


def _mode_of(shipment: TrackedShipment) -> TransportationMode | None:
    modes = shipment.plan.expected_transportation_modes if shipment.plan else []
    return modes[0] if modes else _mode_from_identifiers(shipment)


def _mode_from_identifiers(shipment: TrackedShipment) -> TransportationMode | None:
    types = {i.type for i in shipment.identifiers}
    if types & {"AIR_WAYBILL", "HOUSE_AIR_WAYBILL"}:
        return TransportationMode.AIR
    if types & {"WAGON_ID", "TRAIN_NUMBER", "RAIL_CAR_ID"}:
        return TransportationMode.RAIL
    if "TRACKING_NUMBER" in types:
        return TransportationMode.PARCEL
    if types & {"PRO", "PRO_NUMBER"}:
        return TransportationMode.LTL
    if types & {"BOOKING_NUMBER", "CONTAINER_ID"}:
        return TransportationMode.OCEAN
    return None


@dataclass(frozen=True)
class DetailChange:
    new_event_ids: frozenset[str] = field(default_factory=frozenset)
    positions_added: int = 0
    first: bool = False


def diff_detail(old: TrackingHistory | None, new: TrackingHistory) -> DetailChange | None:
    if old is None:
        return DetailChange(first=True)
    if old is new or old == new:
        return None
    before = {str(e.id) for e in old.events}
    return DetailChange(
        new_event_ids=frozenset(str(e.id) for e in new.events if str(e.id) not in before),
        positions_added=max(0, len(new.positions) - len(old.positions)),
    )


class ShipmentDetail:
    """One open shipment's history, polled with ETags (unchanged polls cost a 304)."""

    def __init__(
        self, client: Callable[[], ApiClient], shipment_id: str, *, interval: float = 10.0
    ) -> None:
        self._client = client
        self.shipment_id = shipment_id
        self._etag: str | None = None
        self.coordinator: Coordinator[TrackingHistory, DetailChange] = Coordinator(
            f"shipment:{shipment_id}", self._fetch, diff_detail, interval=interval
        )

    async def _fetch(self, previous: TrackingHistory | None) -> TrackingHistory:
        answer = await self._client().tracking.history_if_changed(
            self.shipment_id, self._etag if previous is not None else None
        )
        if answer.value is None:
            assert previous is not None
            return previous
        self._etag = answer.etag
        return answer.value
