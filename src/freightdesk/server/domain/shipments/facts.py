"""What tracking sources report for one shipment: events, ETAs, states, exceptions."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.tracking import (
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentEvent,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.shipments.histories import (
    EtaReport,
    History,
    StateMove,
    write_histories,
)
from freightdesk.server.domain.shipments.journal import record_change
from freightdesk.server.domain.shipments.locking import (
    live_shipment,
    no_autoflush,
)
from freightdesk.server.domain.shipments.rows import (
    apply_event,
    check_event_refs,
    check_source,
    event_wire,
    route_ids,
)
from freightdesk.server.domain.shipments.summary import (
    refresh_eta,
    refresh_latest_event,
)
from freightdesk.server.errors import field_error, not_found
from freightdesk.server.tables.tracking import (
    ChangeKind,
    ShipmentEvent,
)


def add_event(session: Session, shipment_id: str, event: TrackedShipmentEvent, source: str) -> str:
    """Record an event reported by `source`; returns its id (the event's own id if it has
    one: 409 when the shipment already has an event with it)."""
    return add_events(session, shipment_id, [event], source)[0]


@no_autoflush
def add_events(
    session: Session, shipment_id: str, events: Sequence[TrackedShipmentEvent], source: str
) -> list[str]:
    """`add_event` for several events of one shipment, in one journal write."""
    if not events:
        check_source(source)
        live_shipment(session, shipment_id).last_modified_at = utcnow()
        return []
    writes = write_histories(session, [History(shipment_id, source, events=events)])
    return [str(i) for i in writes.ids]


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
    # An ETA replaced by another event no longer counts either (`is_estimate`), and any event
    # may say a stop was reached, or no longer say it (`passed_stops`).
    refresh_eta(session, row)
    row.last_modified_at = now
    record_change(session, row, ChangeKind.EVENT_UPDATED, {"event": wire, "source": source}, now)


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
    session.delete(current)
    session.flush()
    refresh_latest_event(session, row)
    # An ETA, or the event that said its stop was reached (`passed_stops`).
    refresh_eta(session, row)
    row.last_modified_at = now
    record_change(session, row, ChangeKind.EVENT_REMOVED, payload, now)


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
    report = EtaReport(eta, stop_id, description)
    writes = write_histories(session, [History(shipment_id, source, etas=[report])])
    return str(writes.ids[0])


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
    move = StateMove(state, at, stop_id)
    writes = write_histories(session, [History(shipment_id, source, states=[move])])
    return writes.ids[0]


@no_autoflush
def upsert_exception(
    session: Session, shipment_id: str, exception: ShipmentException, source: str
) -> str:
    """Add an exception, or update the one with `exception.id`; returns its id.

    Closing sets `resolvedDateTime` (the given one, else now); reopening clears it.
    """
    history = History(shipment_id, source, exceptions=[exception])
    return str(write_histories(session, [history]).ids[0])
