"""Recomputing a shipment's summary columns after rows were changed or removed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, bindparam, func, select, true, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from freightdesk.models.tracking import (
    ExceptionStatus,
    ShipmentStateType,
    TrackedShipmentEvent,
    newest_estimate,
    passed_stops,
)
from freightdesk.server.domain.shipments.journal import change_entry, table_of
from freightdesk.server.domain.shipments.rows import (
    ETA_EVENT_TYPE,
    set_current_state,
    stop_zone,
)
from freightdesk.server.domain.shipments.views import (
    state_wire,
)
from freightdesk.server.tables.tracking import (
    ChangeKind,
    Shipment,
    ShipmentDocument,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentPosition,
    ShipmentState,
)


def refresh_latest_event(session: Session, row: Shipment) -> None:
    """The latest event that happened (has a dateTime); ETA events and plans do not count."""
    latest = session.scalar(
        select(ShipmentEvent)
        .where(ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.date_time.is_not(None))
        .order_by(ShipmentEvent.date_time.desc(), ShipmentEvent.pk.desc())
        .limit(1)
    )
    row.latest_event_type = latest.type if latest else None
    row.latest_event_at = latest.date_time if latest else None
    row.latest_event_description = latest.data.get("description") if latest else None
    row.latest_event_zone = stop_zone(row.data, latest.data.get("stopId")) if latest else None


def refresh_eta(session: Session, row: Shipment) -> None:
    """nextEta and the zone of its stop, from the shipment's stored ETA events and the stops
    it has reached."""
    set_next_eta(
        row,
        session.scalars(
            select(ShipmentEvent.data).where(
                ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.type == ETA_EVENT_TYPE
            )
        ),
        stops_seen_stored(session, [row.pk])[row.pk],
    )


def stops_seen_stored(session: Session, pks: Sequence[int]) -> dict[int, set[str]]:
    """The stops something happened at, of each stored shipment (`models.tracking.stops_seen`:
    its actual events other than ETAs, and its states)."""
    seen: dict[int, set[str]] = {pk: set() for pk in pks}
    for pk, data in session.execute(
        select(ShipmentEvent.shipment_pk, ShipmentEvent.data).where(
            ShipmentEvent.shipment_pk.in_(pks),
            ShipmentEvent.date_time.is_not(None),
            ShipmentEvent.type != ETA_EVENT_TYPE,
        )
    ):
        if data.get("stopId"):
            seen[pk].add(str(data["stopId"]))
    for pk, stop in session.execute(
        select(ShipmentState.shipment_pk, ShipmentState.stop_id).where(
            ShipmentState.shipment_pk.in_(pks), ShipmentState.stop_id.is_not(None)
        )
    ):
        seen[pk].add(str(stop))
    return seen


def set_next_eta(
    row: Shipment, etas: Iterable[Mapping[str, Any]], seen: Iterable[str] = ()
) -> None:
    """nextEta and the zone of its stop from the shipment's ETA events (their wire data) and
    the stops something happened at (`seen`)."""
    events = (TrackedShipmentEvent.model_validate(wire) for wire in etas)
    completed = row.current_state == ShipmentStateType.COMPLETED
    for key, value in next_eta_values(events, row.data, completed=completed, seen=seen).items():
        setattr(row, key, value)


def next_eta_values(
    etas: Iterable[TrackedShipmentEvent],
    data: Mapping[str, Any],
    *,
    completed: bool,
    seen: Iterable[str] = (),
) -> dict[str, Any]:
    """The summary columns of a shipment's ETA (`data`: its wire data, whose route names the
    stop's zone and the stops' order), by the rule the app reads a history with
    (`models.tracking.newest_estimate`, of the stops not reached: `passed_stops`): every write
    of nextEta goes through here, so the list's row agrees with the detail's."""
    route = [str(stop.get("id")) for stop in (data.get("routeInfo") or {}).get("stops", [])]
    newest = newest_estimate(etas, completed=completed, passed=passed_stops(route, seen))
    stop = newest.stop_id if newest is not None else None
    return {
        "next_eta": newest.estimate_date_time if newest is not None else None,
        "next_eta_zone": stop_zone(data, str(stop) if stop is not None else None),
    }


def fill_next_eta_zones(conn: Connection) -> None:
    """The zone of each live shipment's next ETA stop, for shipments stored before
    `next_eta_zone` existed (a migration): the stop of the ETA event at that instant."""
    events = table_of(ShipmentEvent)
    _fill_zones(conn, "next_eta", events.c.occurred_at, events.c.type == ETA_EVENT_TYPE)


def fill_latest_event_zones(conn: Connection) -> None:
    """The zone of each live shipment's latest event stop, for shipments stored before
    `latest_event_zone` existed (a migration): the stop of the event at that instant (the
    last stored of those, as `refresh_latest_event` picks)."""
    _fill_zones(conn, "latest_event_at", table_of(ShipmentEvent).c.date_time, true())


def _fill_zones(
    conn: Connection, column: str, event_time: ColumnElement[Any], which: ColumnElement[bool]
) -> None:
    """Set a summary time's zone column (`column` with `_at` or nothing replaced by `_zone`)
    from the route stop of the event whose `event_time` equals it."""
    shipments, events = table_of(Shipment), table_of(ShipmentEvent)
    documents = table_of(ShipmentDocument)
    moment = shipments.c[column]
    found = conn.execute(
        select(shipments.c.pk, events.c.data, documents.c.data)
        .join(
            events,
            (events.c.shipment_pk == shipments.c.pk) & which & (event_time == moment),
        )
        .join(documents, documents.c.shipment_pk == shipments.c.pk)
        .where(moment.is_not(None), shipments.c.deleted_at.is_(None))
        .order_by(events.c.pk)
    )
    zones = {pk: stop_zone(data, event.get("stopId")) for pk, event, data in found}
    updates = [{"key": pk, "zone": zone} for pk, zone in zones.items() if zone]
    target = column.removesuffix("_at") + "_zone"
    if updates:
        conn.execute(
            update(shipments)
            .where(shipments.c.pk == bindparam("key"))
            .values({target: bindparam("zone")}),
            updates,
        )


def refresh_last_position(session: Session, row: Shipment) -> None:
    last = session.scalar(
        select(ShipmentPosition)
        .where(ShipmentPosition.shipment_pk == row.pk)
        .order_by(ShipmentPosition.date_time.desc())
        .limit(1)
    )
    row.last_latitude = last.latitude if last else None
    row.last_longitude = last.longitude if last else None
    row.last_position_at = last.date_time if last else None


def close_state(session: Session, state: ShipmentState, end: datetime | None) -> None:
    """Set a state's end in the database at once (the next query of open states must see it,
    and writes run without autoflush) and in the loaded object."""
    session.connection().execute(
        update(table_of(ShipmentState))
        .where(table_of(ShipmentState).c.pk == state.pk)
        .values(end_at=end)
    )
    set_committed_value(state, "end_at", end)


def refresh_state(
    session: Session, row: Shipment, changes: list[dict[str, Any]], now: datetime
) -> None:
    """After states were removed: the latest remaining state is the current one, and open."""
    latest = session.scalar(
        select(ShipmentState)
        .where(ShipmentState.shipment_pk == row.pk)
        .order_by(ShipmentState.start_at.desc(), ShipmentState.pk.desc())
        .limit(1)
    )
    if latest is None:
        set_current_state(row, None)
        return
    set_current_state(row, ShipmentStateType(latest.type))
    if latest.end_at is not None:
        close_state(session, latest, None)
        changes.append(
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.STATE_UPDATED,
                {"state": state_wire(latest), "source": latest.source},
                now,
            )
        )


def refresh_exceptions(session: Session, row: Shipment) -> None:
    row.open_exception_count = (
        session.scalar(
            select(func.count())
            .select_from(ShipmentExceptionRow)
            .where(
                ShipmentExceptionRow.shipment_pk == row.pk,
                ShipmentExceptionRow.status == ExceptionStatus.OPEN.value,
            )
        )
        or 0
    )
