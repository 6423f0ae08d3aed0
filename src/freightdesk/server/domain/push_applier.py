"""What a carrier push does to the shipments it matches (see `EFFECTS`), applied in the
caller's transaction by `PushApplier`; the worker in `push_processing` claims the rows."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.code_words import event_text
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
    RouteStop,
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentEvent,
    TrackedShipmentPosition,
    place_name,
)
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.identifiers import normalize_value
from freightdesk.server.domain.lifecycle import can_move
from freightdesk.server.domain.push_intake import PARCEL, TRUCKLOAD
from freightdesk.server.domain.push_stops import (
    NOWHERE,
    Placement,
    final_stop_id,
    numbered_stop_id,
    parcel_placement,
    route_stops,
)
from freightdesk.server.errors import ApiError
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentExceptionRow,
    ShipmentIdentifier,
    ShipmentState,
)

__all__ = ["BATCH_SECONDS", "EFFECTS", "Claimed", "Effect", "Outcome", "PushApplier"]

# The tracking source (see domain.shipments) each kind of push reports as.
_SOURCE = {PARCEL: "PARCEL", TRUCKLOAD: "TL"}
# Truckload identifiers and the shipment identifier types they are looked up as.
BILL_OF_LADING = "BILL_OF_LADING"
ORDER_NUMBER_TYPE = "PURCHASE_ORDER"
# A carrier identifier of these types must agree with the shipment's carrier, when it has one.
_SCAC_TYPES = frozenset({"SCAC", "CARRIER_SCAC"})


# A batch stops taking pushes after this long (events cost far more than positions),
# so that the intake's commits, which wait for SQLite's one writer, are not held up long.
BATCH_SECONDS = 0.5


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
                stop_id = numbered_stop_id(shipment, event.stop_number)
                self._event(
                    row,
                    shipment,
                    event.type,
                    event.date_time,
                    Placement.named_stop(stop_id),
                    # The push has no description: said in words, as the other events read
                    # ("Arrived at Dallas DC"), not left for each reader to make of the code.
                    description=event_text(event.type, _stop_name(shipment, stop_id)),
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
                    stop_id=final_stop_id(shipment),
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
            opens = EFFECTS.get(kind, _NOTHING).exception is not None
            self._event(
                row,
                shipment,
                kind.value,
                update.timestamp,
                parcel_placement(self._session, shipment, kind, location) if opens else NOWHERE,
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
        placed: Placement,
        *,
        description: str | None,
        source: str,
    ) -> None:
        # The ids are the report's: a stop the service inferred is not part of it (a replay
        # after the upgrade, or after the route changed, would infer another).
        stop_id = placed.event
        effect = EFFECTS.get(event_type.upper(), _NOTHING)
        event = TrackedShipmentEvent(
            id=_derived_id(shipment.id, "event", source, event_type.upper(), at, placed.named),
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
                    # Per stop as the event is: a stop's problem is not another stop's.
                    id=_derived_id(
                        shipment.id, "exception", source, event_type.upper(), at, placed.named
                    ),
                    type=event_type.upper(),
                    severity=effect.exception,
                    description=description or event_text(event_type),
                    # Its times read in the stop's zone; triage and webhooks key on it.
                    stop_id=uuid.UUID(placed.problem) if placed.problem else None,
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


def _stop_name(shipment: Shipment, stop_id: str | None) -> str | None:
    """How a dispatcher names the shipment's stop with this id (`place_name`), if it has one."""
    for stop in route_stops(shipment) if stop_id else []:
        if str(stop.get("id")) == stop_id:
            return place_name(RouteStop.model_validate(stop))
    return None


def _place(address: Address | None) -> str | None:
    if address is None:
        return None
    parts = [*address.address_lines, address.city, address.state, address.postal_code]
    text = ", ".join(part for part in parts if part)
    return f"Reported at {text}"[:_MAX_DESCRIPTION] if text else None


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
