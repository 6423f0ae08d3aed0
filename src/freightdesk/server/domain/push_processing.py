"""Carrier push: the durable intake queue and the worker that applies pushes to shipments.

Intake is a group commit: each accepted push waits for the commit of the batch it is in, and
one commit carries the payloads of every request that arrived while the previous commit was
being written. A push is answered 202 only once its row is committed, so a crash of the service
(even kill -9) after the 202 cannot lose it.

The worker takes PENDING rows in arrival order and, in one transaction per batch, writes their
data into the shipments through `domain.shipments` and marks the rows done. Marking and applying
commit together, so a crash in between replays the batch from scratch instead of duplicating
its events; event and exception ids are also derived from the ingestion id, so even a replay
that did commit could not add them twice. What each push does to a shipment is decided by
`PushApplier` (see `EFFECTS`).

A push that matches no shipment is kept UNMATCHED and tried again with a growing delay for a
week, so that an update sent before the shipper created the shipment still lands on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Table, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session

from freightdesk.models.common import Address, LogisticsIdentifier
from freightdesk.models.push import (
    IngestionStatus,
    ParcelEventType,
    ParcelStatusUpdate,
    TruckloadTrackingUpdate,
)
from freightdesk.models.tracking import (
    ExceptionSeverity,
    ExceptionStatus,
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentEvent,
    TrackedShipmentPosition,
)
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.identifiers import normalize_value
from freightdesk.server.domain.lifecycle import can_move
from freightdesk.server.errors import ApiError
from freightdesk.server.tables.push import PushIngestion
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentExceptionRow,
    ShipmentIdentifier,
    ShipmentState,
)
from freightdesk.server.workers import Worker

log = logging.getLogger(__name__)

__all__ = ["PARCEL", "TRUCKLOAD", "WORKERS", "IngestionQueue", "ingestion_queue"]

_INGESTIONS: Table = PushIngestion.__table__  # type: ignore[assignment]

PARCEL = "PARCEL"
TRUCKLOAD = "TRUCKLOAD"
# The tracking source (see domain.shipments) each kind of push reports as.
_SOURCE = {PARCEL: "PARCEL", TRUCKLOAD: "TL"}
# Truckload identifiers and the shipment identifier types they are looked up as.
BILL_OF_LADING = "BILL_OF_LADING"
ORDER_NUMBER_TYPE = "PURCHASE_ORDER"
# A carrier identifier of these types must agree with the shipment's carrier, when it has one.
_SCAC_TYPES = frozenset({"SCAC", "CARRIER_SCAC"})

# Rows per intake commit; a larger backlog is committed in several transactions in a row.
MAX_INTAKE_BATCH = 2000
# Pushes claimed per transaction: positions of many pushes to one shipment are written
# together, so big batches cost less per push...
PROCESS_BATCH = 1000
# ...but a batch stops taking pushes after this long (events cost far more than positions),
# so that the intake's commits, which wait for SQLite's one writer, are not held up long.
BATCH_SECONDS = 0.5
# After a wake-up, let a few more pushes arrive so that they are applied in one transaction.
COALESCE_SECONDS = 0.1
# Without a wake-up (pushes accepted by another process on the same database), look anyway.
IDLE_POLL_SECONDS = 1.0
# UNMATCHED pushes are tried again after 2, 4, 8, ... seconds, at most 10 minutes apart,
# for a week after they were received.
RETRY_FIRST = timedelta(seconds=2)
RETRY_LONGEST = timedelta(minutes=10)
RETRY_FOR = timedelta(days=7)
# A transient database failure (locked, connection lost) is retried after this pause.
BACKOFF_SECONDS = 1.0
# Receipts of finished pushes are readable this long after their last attempt, then deleted
# (a live feed pushes millions a month); pruned in batches, at most once per interval.
RECEIPTS_KEPT_FOR = timedelta(days=30)
PRUNE_EVERY_SECONDS = 3600.0
PRUNE_BATCH = 5000


# --- intake --------------------------------------------------------------------------------


@dataclass
class _Waiting:
    row: dict[str, Any]
    accepted: asyncio.Future[None]


class IngestionQueue:
    """Group commit of accepted pushes; lives on the service's event loop."""

    def __init__(self, context: ServiceContext) -> None:
        self._context = context
        self._waiting: list[_Waiting] = []
        self._flusher: asyncio.Task[None] | None = None
        # Set after every commit so the worker starts at once instead of at its next poll.
        self.arrived = asyncio.Event()

    async def accept(self, row: dict[str, Any]) -> None:
        """Return once `row` is committed; raise ApiError(503) if it could not be stored."""
        loop = asyncio.get_running_loop()
        waiting = _Waiting(row, loop.create_future())
        self._waiting.append(waiting)
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush(), name="push-intake")
        await waiting.accepted

    async def _flush(self) -> None:
        try:
            while self._waiting:
                batch = self._waiting[:MAX_INTAKE_BATCH]
                del self._waiting[:MAX_INTAKE_BATCH]
                try:
                    await asyncio.to_thread(self._insert, [w.row for w in batch])
                except asyncio.CancelledError:
                    _fail(batch, _unavailable())
                    raise
                except IntegrityError:
                    # One row is at fault (an ingestion id used twice): store the others.
                    await self._insert_one_by_one(batch)
                    continue
                except Exception:
                    log.exception("could not store %d carrier pushes", len(batch))
                    _fail(batch, _unavailable())
                    continue
                _succeed(batch)
                self.arrived.set()
        finally:
            self._flusher = None
            if self._waiting:  # only when cancelled: the service is stopping
                _fail(self._waiting, _unavailable())
                self._waiting = []

    async def _insert_one_by_one(self, batch: Sequence[_Waiting]) -> None:
        for waiting in batch:
            try:
                await asyncio.to_thread(self._insert, [waiting.row])
            except Exception:
                log.exception("could not store carrier push %s", waiting.row.get("ingestion_id"))
                _fail([waiting], _unavailable())
            else:
                _succeed([waiting])
        self.arrived.set()

    def _insert(self, rows: Sequence[dict[str, Any]]) -> None:
        with transaction(self._context.sessions) as session:
            # Core insert: the ORM's per-row bookkeeping is not needed for rows never read back.
            session.execute(insert(_INGESTIONS), list(rows))


def _succeed(batch: Sequence[_Waiting]) -> None:
    for waiting in batch:
        if not waiting.accepted.done():
            waiting.accepted.set_result(None)


def _fail(batch: Sequence[_Waiting], error: ApiError) -> None:
    for waiting in batch:
        if not waiting.accepted.done():
            waiting.accepted.set_exception(error)


def _unavailable() -> ApiError:
    return ApiError(
        503,
        "The push could not be stored and was not accepted; send it again",
        headers={"Retry-After": "1"},
    )


def ingestion_queue(context: ServiceContext) -> IngestionQueue:
    queue = context.services.get("push_queue")
    if queue is None:
        queue = context.services.setdefault("push_queue", IngestionQueue(context))
    assert isinstance(queue, IngestionQueue)
    return queue


# --- what a push does to a shipment ---------------------------------------------------------

S = ShipmentStateType


@dataclass(frozen=True)
class Effect:
    """What an event type does besides being recorded as an event."""

    state: ShipmentStateType | None = None
    # Opens an exception of the event's type with this severity.
    exception: ExceptionSeverity | None = None
    # Closes this source's open exceptions of these types (the problem is over).
    resolves: frozenset[str] = frozenset()


_NOTHING = Effect()
_MOVING = Effect(state=S.IN_TRANSIT)
_AT_STOP = Effect(state=S.AT_STOP)
_DELIVERED = Effect(state=S.COMPLETED, resolves=frozenset({"DELIVERY_MISSED"}))

# Parcel event types, and the truckload `shipmentEvent.type` values (an open vocabulary:
# unknown types are recorded as events and change nothing else). Upper-cased keys.
EFFECTS: dict[str, Effect] = {
    ParcelEventType.SHIPMENT_CREATED: _NOTHING,
    ParcelEventType.SHIPMENT_RECEIVED: _MOVING,
    ParcelEventType.PICKED_UP: _MOVING,
    ParcelEventType.DEPARTED_STOP: _MOVING,
    ParcelEventType.LOADED_FOR_DELIVERY: _MOVING,
    ParcelEventType.OUT_FOR_DELIVERY: _MOVING,
    ParcelEventType.ARRIVED_AT_STOP: _AT_STOP,
    # Waiting at a pickup point for the consignee: the parcel is at a stop.
    ParcelEventType.AVAILABLE_FOR_PICKUP: _AT_STOP,
    ParcelEventType.DELIVERED: _DELIVERED,
    ParcelEventType.EXCEPTION: Effect(exception=ExceptionSeverity.MEDIUM),
    ParcelEventType.DELIVERY_MISSED: Effect(exception=ExceptionSeverity.MEDIUM),
    ParcelEventType.RETURN_TO_SENDER: Effect(state=S.IN_TRANSIT, exception=ExceptionSeverity.HIGH),
    # The lifecycle has no cancelled state; the dispatcher must see it, so it is an exception.
    ParcelEventType.CANCELED: Effect(exception=ExceptionSeverity.HIGH),
    # Truckload spellings.
    "ARRIVAL_AT_STOP": _AT_STOP,
    "DEPARTURE_FROM_STOP": _MOVING,
    "PICKUP": _MOVING,
    "IN_TRANSIT": _MOVING,
    "DELIVERY": _DELIVERED,
    "CANCELLED": Effect(exception=ExceptionSeverity.HIGH),
}

# The longest event description a shipment keeps.
_MAX_DESCRIPTION = 1000
# Identifier values per lookup query (SQLite allows a few thousand bound parameters at most).
_LOOKUP_CHUNK = 500


@dataclass(frozen=True)
class Outcome:
    status: IngestionStatus
    matched: list[str]
    error: str | None = None


def _derived_id(shipment_id: str, what: str, *facts: object) -> uuid.UUID:
    """The same id for the same report about this shipment: a push applied again, or sent
    again by a carrier retrying after a lost answer, adds nothing twice."""
    # An instant is the same report whatever offset the carrier wrote it with.
    plain = [f.astimezone(UTC).isoformat() if isinstance(f, datetime) else f for f in facts]
    key = "/".join(str(fact) for fact in (shipment_id, what, *plain))
    return uuid.uuid5(_ID_NAMESPACE, key)


_ID_NAMESPACE = uuid.UUID("6f1d3c1e-9a57-4d0e-8a3b-5c1f0e2d7b44")


class PushApplier:
    """Applies pushes to the shipments they match, in the caller's transaction.

    Positions are gathered and written for the whole batch at once at the end (they are most
    of the traffic); events, states, exceptions and ETAs are written push by push, in order.
    """

    def __init__(self, session: Session) -> None:
        self._session = session
        self._found: dict[tuple[int, str, str], list[str]] = {}
        self._tracks: dict[str, dict[str, list[TrackedShipmentPosition]]] = {}
        self._held: dict[str, Shipment] = {}

    def apply(self, rows: Sequence[Claimed], seconds: float = BATCH_SECONDS) -> list[Outcome]:
        """Apply the pushes in order, for about `seconds` at most (at least one push).

        Returns what became of each push applied: the first `len(result)` of `rows`.
        """
        deadline = time.monotonic() + seconds
        updates = [_parse(row) for row in rows]
        self._prefetch(
            {
                (row.target_tenant_id, type_, normalize_value(value))
                for row, update in zip(rows, updates, strict=True)
                for type_, value in _wanted(update)
            }
        )
        # Every shipment the batch may write, locked before any write and in id order: a
        # batch taken at the same moment by another instance then waits for this one instead
        # of holding a shipment this one needs next (a deadlock, issue 22).
        self._held = store.lock_shipments(
            self._session, {shipment_id for found in self._found.values() for shipment_id in found}
        )
        outcomes: list[Outcome] = []
        for row, pushed in zip(rows, updates, strict=True):
            if outcomes and time.monotonic() > deadline:
                break
            if isinstance(pushed, TruckloadTrackingUpdate):
                outcomes.append(self._truckload(row, pushed))
            else:
                outcomes.append(self._parcel(row, pushed))
        for source, tracks in self._tracks.items():
            store.add_positions_bulk(self._session, tracks, source)
        self._tracks.clear()
        return outcomes

    # --- the two kinds of push ------------------------------------------------------------

    def _truckload(self, row: Claimed, update: TruckloadTrackingUpdate) -> Outcome:
        truckload = update.truckload
        wanted = _wanted(update)
        ids = self._match(row.target_tenant_id, wanted)
        if not ids:
            return _unmatched(wanted)
        source = _SOURCE[TRUCKLOAD]
        for shipment_id in ids:
            event = truckload.shipment_event
            if event is not None:
                shipment = self._shipment(shipment_id)
                self._event(
                    row,
                    shipment,
                    event.type,
                    event.date_time,
                    stop_id=_stop_id(shipment, event.stop_number),
                    description=None,
                    source=source,
                )
            readings = truckload.readings
            if readings is not None and readings.position is not None:
                position = readings.position
                self._position(
                    shipment_id,
                    source,
                    TrackedShipmentPosition(
                        date_time=readings.date_time,
                        latitude=position.latitude,
                        longitude=position.longitude,
                        speed=position.speed,
                        speed_unit=position.speed_unit,
                        heading=position.heading,
                    ),
                )
            # Sensor readings have no place in a tracked shipment (no telemetry in the
            # interface's history); they stay with the ingestion.
        return Outcome(IngestionStatus.PROCESSED, ids)

    def _parcel(self, row: Claimed, update: ParcelStatusUpdate) -> Outcome:
        wanted = _wanted(update)
        ids = self._of_carrier(self._match(row.target_tenant_id, wanted), update.carrier_identifier)
        if not ids:
            return _unmatched(wanted, update.carrier_identifier)
        source = _SOURCE[PARCEL]
        kind = update.event_type
        location = update.location
        coordinates = location.geo_coordinates if location is not None else None
        for shipment_id in ids:
            shipment = self._shipment(shipment_id)
            if coordinates is not None:
                self._position(
                    shipment_id,
                    source,
                    TrackedShipmentPosition(
                        date_time=update.timestamp,
                        latitude=coordinates.latitude,
                        longitude=coordinates.longitude,
                    ),
                )
            if update.estimated_time_of_arrival is not None:
                # The latest ETA to the final stop (the next stop when there is no route).
                store.set_eta(
                    self._session,
                    shipment_id,
                    update.estimated_time_of_arrival,
                    stop_id=_final_stop_id(shipment),
                    source=source,
                    description=update.description if kind is ParcelEventType.ETA else None,
                )
            if kind is ParcelEventType.ETA:
                continue  # the ETA event is the one set_eta keeps
            if kind is ParcelEventType.POSITION_UPDATE and coordinates is not None:
                continue  # the position is the whole news
            description = update.description
            if kind is ParcelEventType.POSITION_UPDATE and location is not None:
                description = description or _place(location.address)
            self._event(
                row,
                shipment,
                kind.value,
                update.timestamp,
                stop_id=None,
                description=description,
                source=source,
            )
        return Outcome(IngestionStatus.PROCESSED, ids)

    # --- matching --------------------------------------------------------------------------

    def _prefetch(self, keys: set[tuple[int, str, str]]) -> None:
        """Look up every identifier of the batch at once: one query instead of one per push.

        The same lookup as `shipments.find_shipments_by_identifier` (the tenant's own live
        shipments, values compared normalized, oldest first), for many identifiers.
        """
        for key in keys:
            self._found[key] = []
        tenants = sorted({key[0] for key in keys})
        values = sorted({key[2] for key in keys})
        for start in range(0, len(values), _LOOKUP_CHUNK):
            query = (
                select(
                    ShipmentIdentifier.tenant_id,
                    ShipmentIdentifier.type,
                    ShipmentIdentifier.value_norm,
                    Shipment.id,
                )
                .join(Shipment, Shipment.pk == ShipmentIdentifier.shipment_pk)
                .where(
                    ShipmentIdentifier.tenant_id.in_(tenants),
                    ShipmentIdentifier.value_norm.in_(values[start : start + _LOOKUP_CHUNK]),
                    Shipment.deleted_at.is_(None),
                )
                .order_by(Shipment.pk)
            )
            for tenant_id, type_, value, shipment_id in self._session.execute(query):
                found = self._found.get((tenant_id, type_, value))
                if found is not None and shipment_id not in found:
                    found.append(shipment_id)

    def _match(self, tenant_id: int, wanted: Sequence[tuple[str, str]]) -> list[str]:
        """The shipments of the first identifier (in the order given) that any carries."""
        for type_, value in wanted:
            key = (tenant_id, type_, normalize_value(value))
            found = self._found.get(key)
            if found is None:
                found = store.find_shipments_by_identifier(self._session, tenant_id, type_, value)
                self._found[key] = found
            if found:
                return found
        return []

    def _of_carrier(self, ids: list[str], carrier: LogisticsIdentifier) -> list[str]:
        """Drop shipments known to move with another carrier (tracking numbers can repeat
        across carriers)."""
        if not ids or carrier.type.upper() not in _SCAC_TYPES:
            return ids
        scac = normalize_value(carrier.value)
        query = select(Shipment.id, Shipment.carrier).where(Shipment.id.in_(ids))
        known = {shipment_id: carrier for shipment_id, carrier in self._session.execute(query)}
        return [
            shipment_id
            for shipment_id in ids
            if not known.get(shipment_id) or normalize_value(known[shipment_id] or "") == scac
        ]

    def _shipment(self, shipment_id: str) -> Shipment:
        shipment = self._held.get(shipment_id) or self._session.scalar(
            select(Shipment).where(Shipment.id == shipment_id)
        )
        assert shipment is not None  # found in this transaction a moment ago
        return shipment

    # --- effects ---------------------------------------------------------------------------

    def _position(self, shipment_id: str, source: str, position: TrackedShipmentPosition) -> None:
        self._tracks.setdefault(source, {}).setdefault(shipment_id, []).append(position)

    def _event(
        self,
        row: Claimed,
        shipment: Shipment,
        event_type: str,
        at: datetime,
        *,
        stop_id: str | None,
        description: str | None,
        source: str,
    ) -> None:
        effect = EFFECTS.get(event_type.upper(), _NOTHING)
        event = TrackedShipmentEvent(
            id=_derived_id(shipment.id, "event", source, event_type.upper(), at, stop_id),
            type=event_type,
            date_time=at,
            description=description,
            received_date_time=row.received_at,
            stop_id=uuid.UUID(stop_id) if stop_id else None,
        )
        try:
            store.add_event(self._session, shipment.id, event, source)
        except ApiError as refused:
            if refused.status != 409:
                raise
            # This push's event is already there: it was applied before (a replay). add_event
            # refuses before writing anything, so the transaction carries on unharmed.
            return
        if effect.exception is not None:
            store.upsert_exception(
                self._session,
                shipment.id,
                ShipmentException(
                    id=_derived_id(shipment.id, "exception", source, event_type.upper(), at),
                    type=event_type.upper(),
                    severity=effect.exception,
                    description=description or f"{event_type} reported by the carrier",
                    created_date_time=at,
                ),
                source,
            )
        if effect.resolves:
            self._resolve(shipment, effect.resolves, at, source)
        if effect.state is not None:
            self._move(shipment, effect.state, at, stop_id, source)

    def _move(
        self,
        shipment: Shipment,
        target: ShipmentStateType,
        at: datetime,
        stop_id: str | None,
        source: str,
    ) -> None:
        """Follow the lifecycle; a report older than the current state changes nothing.

        The SCHEDULED state the service sets at creation does not count: a carrier's report
        may well be older than the shipment's record here.
        """
        since = self._session.scalar(
            select(func.max(ShipmentState.start_at)).where(
                ShipmentState.shipment_pk == shipment.pk,
                ShipmentState.end_at.is_(None),
                ShipmentState.source != store.SYSTEM,
            )
        )
        if since is not None and at < since:
            return
        current = ShipmentStateType(shipment.current_state) if shipment.current_state else None
        if not can_move(current, target):
            if target is not S.COMPLETED or current not in (None, S.SCHEDULED):
                return  # for example anything after COMPLETED: recorded as an event only
            # Delivered before any movement was reported: it was in transit until now.
            store.set_state(self._session, shipment.id, S.IN_TRANSIT, at, source=source)
        store.set_state(self._session, shipment.id, target, at, stop_id=stop_id, source=source)

    def _resolve(
        self, shipment: Shipment, types: frozenset[str], at: datetime, source: str
    ) -> None:
        for problem in self._session.scalars(
            select(ShipmentExceptionRow).where(
                ShipmentExceptionRow.shipment_pk == shipment.pk,
                ShipmentExceptionRow.source == source,
                ShipmentExceptionRow.status == ExceptionStatus.OPEN.value,
                ShipmentExceptionRow.type.in_(types),
            )
        ).all():
            store.upsert_exception(
                self._session,
                shipment.id,
                store.exception_view(problem).model_copy(
                    update={"status": ExceptionStatus.CLOSED, "resolved_date_time": at}
                ),
                source,
            )


def _parse(row: Claimed) -> TruckloadTrackingUpdate | ParcelStatusUpdate:
    if row.kind == TRUCKLOAD:
        return TruckloadTrackingUpdate.model_validate(row.payload)
    return ParcelStatusUpdate.model_validate(row.payload)


def _wanted(update: TruckloadTrackingUpdate | ParcelStatusUpdate) -> list[tuple[str, str]]:
    """The (identifier type, value) pairs a push is matched by, most specific first."""
    if isinstance(update, ParcelStatusUpdate):
        return [(identifier.type, identifier.value) for identifier in update.shipment_identifiers]
    identifiers = update.truckload.identifiers
    wanted: list[tuple[str, str]] = []
    if identifiers.bill_of_lading_number is not None:
        wanted.append((BILL_OF_LADING, identifiers.bill_of_lading_number))
    if identifiers.order_number is not None:
        wanted.append((ORDER_NUMBER_TYPE, identifiers.order_number))
    return wanted


def _unmatched(
    wanted: Sequence[tuple[str, str]], carrier: LogisticsIdentifier | None = None
) -> Outcome:
    names = " or ".join(f"{type_} {value}" for type_, value in wanted)
    of_carrier = f" of carrier {carrier.value}" if carrier is not None else ""
    return Outcome(
        IngestionStatus.UNMATCHED,
        [],
        f"No shipment{of_carrier} of the customer carries {names} (yet); tried again for a week",
    )


def _stops(shipment: Shipment) -> list[dict[str, Any]]:
    route = shipment.data.get("routeInfo") or {}
    stops = route.get("stops") or []
    return [stop for stop in stops if isinstance(stop, dict)]


def _stop_id(shipment: Shipment, stop_number: int | None) -> str | None:
    """The id of the shipment's stop with this number (1 is the first stop of its route)."""
    stops = _stops(shipment)
    if stop_number is None or stop_number > len(stops):
        return None
    found = stops[stop_number - 1].get("id")
    return str(found) if found else None


def _final_stop_id(shipment: Shipment) -> str | None:
    stops = _stops(shipment)
    found = stops[-1].get("id") if stops else None
    return str(found) if found else None


def _place(address: Address | None) -> str | None:
    if address is None:
        return None
    parts = [*address.address_lines, address.city, address.state, address.postal_code]
    text = ", ".join(part for part in parts if part)
    return f"Reported at {text}"[:_MAX_DESCRIPTION] if text else None


# --- processing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Claimed:
    """An ingestion row as the worker needs it."""

    id: int
    ingestion_id: str
    kind: str
    target_tenant_id: int
    payload: dict[str, Any]
    received_at: datetime
    attempts: int


_CLAIM_COLUMNS = (
    _INGESTIONS.c.id,
    _INGESTIONS.c.ingestion_id,
    _INGESTIONS.c.kind,
    _INGESTIONS.c.target_tenant_id,
    _INGESTIONS.c.payload,
    _INGESTIONS.c.received_at,
    _INGESTIONS.c.attempts,
)

# The database failed, not the push: retry later rather than mark the push FAILED.
_TRANSIENT = (OperationalError, InterfaceError)


def process_pending(context: ServiceContext, limit: int = PROCESS_BATCH) -> int:
    """Apply up to `limit` PENDING pushes in arrival order; returns how many were taken."""
    query = (
        select(*_CLAIM_COLUMNS)
        .where(_INGESTIONS.c.status == IngestionStatus.PENDING.value)
        .order_by(_INGESTIONS.c.id)
        .limit(limit)
    )
    return _process(context, query)


def retry_unmatched(context: ServiceContext, limit: int = PROCESS_BATCH) -> int:
    """Try again the UNMATCHED pushes whose retry is due; returns how many were taken."""
    query = (
        select(*_CLAIM_COLUMNS)
        .where(
            _INGESTIONS.c.status == IngestionStatus.UNMATCHED.value,
            _INGESTIONS.c.retry_at.is_not(None),
            _INGESTIONS.c.retry_at <= utcnow(),
        )
        .order_by(_INGESTIONS.c.retry_at)
        .limit(limit)
    )
    return _process(context, query)


def _process(context: ServiceContext, query: Any) -> int:
    """Apply the pushes `query` selects; returns how many were applied (0: none waiting)."""
    rows: list[Claimed] = []
    try:
        # The fast path: the batch and its marks in one transaction. Pushes left over when
        # the batch ran out of time are not marked and stay for the next batch.
        with transaction(context.sessions) as session:
            # SKIP LOCKED: a second service on the same PostgreSQL database takes other rows.
            found = session.execute(query.with_for_update(skip_locked=True))
            rows = [Claimed(**item._mapping) for item in found]
            if not rows:
                return 0
            outcomes = PushApplier(session).apply(rows)
            _mark(session, rows[: len(outcomes)], outcomes)
        return len(outcomes)
    except _TRANSIENT:
        raise
    except Exception:
        if not rows:
            raise
        log.warning("a batch of %d pushes failed; applying them one by one", len(rows))
    # One push of the batch is at fault: apply each alone so that the others still land.
    for row in rows:
        _process_one(context, row)
    return len(rows)


def _process_one(context: ServiceContext, row: Claimed) -> None:
    try:
        with transaction(context.sessions) as session:
            _mark(session, [row], PushApplier(session).apply([row]))
        return
    except _TRANSIENT:
        raise
    except Exception as exc:
        if isinstance(exc, ApiError):
            log.warning("carrier push %s refused by the shipment: %s", row.ingestion_id, exc)
        else:
            log.exception("carrier push %s could not be applied", row.ingestion_id)
        failure = Outcome(IngestionStatus.FAILED, [], _describe(exc))
    with transaction(context.sessions) as session:
        _mark(session, [row], [failure])


def _describe(exc: Exception) -> str:
    if isinstance(exc, ApiError):
        return exc.message
    return f"The update could not be applied ({type(exc).__name__}); it is kept for support"


_MARK = (
    update(_INGESTIONS)
    .where(_INGESTIONS.c.id == bindparam("row_id"))
    .values(
        status=bindparam("status"),
        matched_shipment_ids=bindparam("matched", type_=_INGESTIONS.c.matched_shipment_ids.type),
        error=bindparam("error"),
        processed_at=bindparam("processed_at", type_=_INGESTIONS.c.processed_at.type),
        attempts=bindparam("attempts"),
        retry_at=bindparam("retry_at", type_=_INGESTIONS.c.retry_at.type),
    )
)


def _mark(session: Session, rows: Sequence[Claimed], outcomes: Sequence[Outcome]) -> None:
    now = utcnow()
    values = []
    for row, outcome in zip(rows, outcomes, strict=True):
        attempts = row.attempts + 1
        retry_at = None
        if outcome.status is IngestionStatus.UNMATCHED and now - row.received_at < RETRY_FOR:
            retry_at = now + min(RETRY_FIRST * 2 ** (attempts - 1), RETRY_LONGEST)
        values.append(
            {
                "row_id": row.id,
                "status": outcome.status.value,
                "matched": outcome.matched,
                "error": outcome.error,
                "processed_at": now,
                "attempts": attempts,
                "retry_at": retry_at,
            }
        )
    session.execute(_MARK, values)


def prune_receipts(context: ServiceContext, limit: int = PRUNE_BATCH) -> int:
    """Delete up to `limit` receipts of pushes finished longer than RECEIPTS_KEPT_FOR ago.

    PENDING pushes and UNMATCHED ones still due a retry are never deleted: they are not
    finished. Returns how many were deleted.
    """
    cutoff = utcnow() - RECEIPTS_KEPT_FOR
    expired = (
        select(_INGESTIONS.c.id)
        .where(
            _INGESTIONS.c.status != IngestionStatus.PENDING.value,
            _INGESTIONS.c.retry_at.is_(None),
            _INGESTIONS.c.processed_at < cutoff,
        )
        .limit(limit)
    )
    with transaction(context.sessions) as session:
        ids = list(session.scalars(expired))
        if ids:
            session.execute(delete(_INGESTIONS).where(_INGESTIONS.c.id.in_(ids)))
    return len(ids)


async def process_pushes(context: ServiceContext, stop: asyncio.Event) -> None:
    """Apply accepted pushes to shipments until the service stops.

    Database work runs in a thread, one batch at a time, so the event loop stays free.
    """
    queue = ingestion_queue(context)
    next_retry = 0.0
    loop = asyncio.get_running_loop()
    next_prune = loop.time() + PRUNE_EVERY_SECONDS / 60  # not in the way of the start
    while not stop.is_set():
        queue.arrived.clear()
        try:
            while not stop.is_set():
                applied: int = await asyncio.to_thread(process_pending, context)
                if not applied:
                    break
            if loop.time() >= next_retry:
                await asyncio.to_thread(retry_unmatched, context)
                next_retry = loop.time() + RETRY_FIRST.total_seconds() / 2
            if loop.time() >= next_prune:
                while await asyncio.to_thread(prune_receipts, context) == PRUNE_BATCH:
                    if stop.is_set():
                        break
                next_prune = loop.time() + PRUNE_EVERY_SECONDS
        except _TRANSIENT:
            log.warning("push processing paused: the database failed", exc_info=True)
            await _sleep(stop, BACKOFF_SECONDS)
            continue
        await _wait(stop, queue.arrived, IDLE_POLL_SECONDS)
        await _sleep(stop, COALESCE_SECONDS)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


async def _wait(stop: asyncio.Event, arrived: asyncio.Event, seconds: float) -> None:
    """Until a push arrives, the service stops or `seconds` pass."""
    waiters = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(arrived.wait())]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)


WORKERS: list[Worker] = [process_pushes]
