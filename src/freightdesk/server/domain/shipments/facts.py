"""What tracking sources report for one shipment: events, ETAs, states, exceptions."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.common import utc_datetime
from freightdesk.models.tracking import (
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentEvent,
    TrackedShipmentState,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.lifecycle import transition_problem
from freightdesk.server.domain.shipments.journal import change_entry, insert_rows
from freightdesk.server.domain.shipments.locking import (
    live_shipment,
    no_autoflush,
)
from freightdesk.server.domain.shipments.rows import (
    ETA_EVENT_TYPE,
    apply_event,
    check_event_refs,
    check_source,
    eta_event,
    event_row,
    event_time,
    event_wire,
    exception_row,
    latest_of,
    latest_values,
    route_ids,
    set_current_state,
    state_row,
)
from freightdesk.server.domain.shipments.summary import (
    close_state,
    refresh_eta,
    refresh_exceptions,
    refresh_latest_event,
)
from freightdesk.server.domain.shipments.views import (
    exception_wire,
    state_wire,
)
from freightdesk.server.errors import conflict, field_error, not_found
from freightdesk.server.tables.tracking import (
    ChangeKind,
    ShipmentChange,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentState,
)


def add_event(session: Session, shipment_id: str, event: TrackedShipmentEvent, source: str) -> str:
    """Record an event reported by `source`; returns its id (the event's own id if it has
    one: 409 when the shipment already has an event with it)."""
    return add_events(session, shipment_id, [event], source)[0]


@no_autoflush
def add_events(
    session: Session, shipment_id: str, events: Sequence[TrackedShipmentEvent], source: str
) -> list[str]:
    check_source(source)
    row = live_shipment(session, shipment_id)
    stops, segments = route_ids(row)
    now = utcnow()
    wires: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        check_event_refs(event, stops, segments, f"events[{index}]" if len(events) > 1 else "event")
        wires.append(event_wire(event))
    ids = [wire["id"] for wire in wires]
    if len(set(ids)) != len(ids):
        raise conflict("Two of the events have the same id", source="id")
    taken = session.scalar(
        select(ShipmentEvent.id).where(
            ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.id.in_(ids)
        )
    )
    if taken is not None:
        raise conflict(f"Shipment {row.id} already has an event {taken}", source="id")
    session.flush()
    insert_rows(session, ShipmentEvent, [event_row(row.pk, wire, source) for wire in wires])
    latest = latest_of(events)
    if latest is not None and (
        row.latest_event_at is None or event_time(latest) >= row.latest_event_at
    ):
        for key, value in latest_values(latest).items():
            setattr(row, key, value)
    row.last_modified_at = now
    insert_rows(
        session,
        ShipmentChange,
        [
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.EVENT_ADDED,
                {"event": wire, "source": source},
                now,
            )
            for wire in wires
        ],
    )
    return ids


@no_autoflush
def update_event(
    session: Session, shipment_id: str, event: TrackedShipmentEvent, source: str
) -> None:
    """Replace an existing event (found by `event.id`; 404 when there is none)."""
    check_source(source)
    if event.id is None:
        raise field_error("event.id", "is required to update an event")
    row = live_shipment(session, shipment_id)
    stops, segments = route_ids(row)
    check_event_refs(event, stops, segments, "event")
    current = session.scalar(
        select(ShipmentEvent).where(
            ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.id == str(event.id)
        )
    )
    if current is None:
        raise not_found(f"Event {event.id} of shipment {row.id}")
    wire = event_wire(event)
    now = utcnow()
    apply_event(current, wire)
    current.source = source
    session.flush()
    refresh_latest_event(session, row)
    if event.type == ETA_EVENT_TYPE:
        refresh_eta(session, row)
    row.last_modified_at = now
    insert_rows(
        session,
        ShipmentChange,
        [
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.EVENT_UPDATED,
                {"event": wire, "source": source},
                now,
            )
        ],
    )


@no_autoflush
def remove_event(session: Session, shipment_id: str, event_id: str) -> None:
    """Remove an event (404 when there is none); the journal keeps its last value."""
    row = live_shipment(session, shipment_id)
    current = session.scalar(
        select(ShipmentEvent).where(
            ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.id == str(event_id)
        )
    )
    if current is None:
        raise not_found(f"Event {event_id} of shipment {row.id}")
    now = utcnow()
    payload = {"event": current.data, "source": current.source}
    was_eta = current.type == ETA_EVENT_TYPE
    session.delete(current)
    session.flush()
    refresh_latest_event(session, row)
    if was_eta:
        refresh_eta(session, row)
    row.last_modified_at = now
    insert_rows(
        session,
        ShipmentChange,
        [change_entry(row.tenant_id, row.id, ChangeKind.EVENT_REMOVED, payload, now)],
    )


@no_autoflush
def set_eta(
    session: Session,
    shipment_id: str,
    eta: datetime,
    *,
    stop_id: str | None = None,
    source: str,
    description: str | None = None,
) -> str:
    """Record the estimated arrival at a stop (the next one when `stop_id` is None).

    The ETA is kept as one event of type `ETA` per stop with `estimateDateTime`, updated in
    place (journaled as event.added, then event.updated), and becomes the shipment's nextEta.
    Returns the event id.
    """
    check_source(source)
    row = live_shipment(session, shipment_id)
    stops, _segments = route_ids(row)
    if stop_id is not None and str(stop_id) not in stops:
        raise field_error("stopId", f"shipment {row.id} has no stop {stop_id}")
    now = utcnow()
    eta = utc_datetime(eta)
    stop_key = str(stop_id) if stop_id is not None else None
    existing = next(
        (
            event
            for event in session.scalars(
                select(ShipmentEvent).where(
                    ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.type == ETA_EVENT_TYPE
                )
            )
            if event.data.get("stopId") == stop_key
        ),
        None,
    )
    event = eta_event(
        existing.id if existing is not None else None, eta, stop_key, description, now
    )
    wire = event_wire(event)
    if existing is None:
        session.flush()
        insert_rows(session, ShipmentEvent, [event_row(row.pk, wire, source)])
        kind = ChangeKind.EVENT_ADDED
    else:
        apply_event(existing, wire)
        existing.source = source
        kind = ChangeKind.EVENT_UPDATED
    if row.current_state != ShipmentStateType.COMPLETED:
        row.next_eta = eta
    row.last_modified_at = now
    insert_rows(
        session,
        ShipmentChange,
        [change_entry(row.tenant_id, row.id, kind, {"event": wire, "source": source}, now)],
    )
    return str(event.id)


@no_autoflush
def set_state(
    session: Session,
    shipment_id: str,
    state: ShipmentStateType,
    at: datetime,
    *,
    stop_id: str | None = None,
    source: str,
) -> str | None:
    """Move the shipment along its lifecycle (see `lifecycle.py`); 409 for a move it does not
    allow. The open state is closed at `at` (state.updated) and the new one added
    (state.added). Setting the current state again (same stop) changes nothing: None."""
    check_source(source)
    row = live_shipment(session, shipment_id)
    stops, _segments = route_ids(row)
    stop_key = str(stop_id) if stop_id is not None else None
    if stop_key is not None and stop_key not in stops:
        raise field_error("stopId", f"shipment {row.id} has no stop {stop_id}")
    at = utc_datetime(at)
    now = utcnow()
    current_type = ShipmentStateType(row.current_state) if row.current_state else None
    open_state = session.scalar(
        select(ShipmentState)
        .where(ShipmentState.shipment_pk == row.pk, ShipmentState.end_at.is_(None))
        .order_by(ShipmentState.start_at.desc(), ShipmentState.pk.desc())
        .limit(1)
    )
    if current_type == state and (open_state is None or open_state.stop_id == stop_key):
        return None
    problem = transition_problem(current_type, state)
    if problem is not None:
        raise conflict(f"Shipment {row.id}: {problem}", source="state")
    changes: list[dict[str, Any]] = []
    if open_state is not None:
        close_state(session, open_state, max(at, open_state.start_at))
        changes.append(
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.STATE_UPDATED,
                {"state": state_wire(open_state), "source": open_state.source},
                now,
            )
        )
    new = TrackedShipmentState(
        id=uuid.uuid4(),
        type=state,
        start_date_time=at,
        stop_id=uuid.UUID(stop_key) if stop_key else None,
    )
    session.flush()
    insert_rows(session, ShipmentState, [state_row(row.pk, new, source)])
    changes.append(
        change_entry(
            row.tenant_id,
            row.id,
            ChangeKind.STATE_ADDED,
            {"state": new.wire(), "source": source},
            now,
        )
    )
    set_current_state(row, state)
    if state is ShipmentStateType.COMPLETED:
        row.next_eta = None
    row.last_modified_at = now
    insert_rows(session, ShipmentChange, changes)
    return str(new.id)


@no_autoflush
def upsert_exception(
    session: Session, shipment_id: str, exception: ShipmentException, source: str
) -> str:
    """Add an exception, or update the one with `exception.id`; returns its id.

    Closing sets `resolvedDateTime` (the given one, else now); reopening clears it.
    """
    check_source(source)
    row = live_shipment(session, shipment_id)
    stops, _segments = route_ids(row)
    if exception.stop_id is not None and str(exception.stop_id) not in stops:
        raise field_error("exception.stopId", f"shipment {row.id} has no stop {exception.stop_id}")
    now = utcnow()
    key = str(exception.id) if exception.id is not None else str(uuid.uuid4())
    current = session.scalar(
        select(ShipmentExceptionRow).where(
            ShipmentExceptionRow.shipment_pk == row.pk, ShipmentExceptionRow.id == key
        )
    )
    current = exception_row(session, current, row.pk, key, exception, source, now)
    session.flush()
    refresh_exceptions(session, row)
    row.last_modified_at = now
    insert_rows(
        session,
        ShipmentChange,
        [
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.EXCEPTION_ADDED_OR_UPDATED,
                {"exception": exception_wire(current), "source": source},
                now,
            )
        ],
    )
    return key
