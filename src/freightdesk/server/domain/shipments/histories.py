"""Many shipments' events, state moves, exceptions and ETAs in a few statements."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from freightdesk.models.common import utc_datetime
from freightdesk.models.tracking import (
    ExceptionStatus,
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentEvent,
    TrackedShipmentState,
    happened_at_stop,
    stops_seen,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.lifecycle import transition_problem
from freightdesk.server.domain.shipments.journal import (
    change_entry,
    insert_rows,
    journal,
    table_of,
)
from freightdesk.server.domain.shipments.locking import (
    lock_shipments,
    missing,
    no_autoflush,
    uuid_text,
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
from freightdesk.server.domain.shipments.summary import set_next_eta, stops_seen_stored
from freightdesk.server.domain.shipments.views import (
    exception_wire,
    state_view,
)
from freightdesk.server.errors import conflict, field_error
from freightdesk.server.tables.tracking import (
    ChangeKind,
    Shipment,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentState,
)


@dataclass(frozen=True, slots=True)
class StateMove:
    """A `set_state` call of a `History`."""

    state: ShipmentStateType
    at: datetime
    stop_id: str | None = None


@dataclass(frozen=True, slots=True)
class EtaReport:
    """A `set_eta` call of a `History`."""

    eta: datetime
    stop_id: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class History:
    """What one source reported for one shipment, for `add_histories`."""

    shipment_id: str
    source: str
    events: Sequence[TrackedShipmentEvent] = ()
    states: Sequence[StateMove] = ()
    exceptions: Sequence[ShipmentException] = ()
    etas: Sequence[EtaReport] = ()


@dataclass(slots=True)
class _OpenState:
    """A shipment's open state while a history is applied: stored (`stored`) or added by it
    (`row`, the insert's values)."""

    view: TrackedShipmentState
    source: str
    stored: ShipmentState | None = None
    row: dict[str, Any] | None = None


@dataclass
class _Writes:
    """The rows and journal entries of `add_histories`, written once at the end."""

    events: list[dict[str, Any]] = dataclass_field(default_factory=list)
    states: list[dict[str, Any]] = dataclass_field(default_factory=list)
    closed: list[tuple[ShipmentState, datetime]] = dataclass_field(default_factory=list)
    changes: list[dict[str, Any]] = dataclass_field(default_factory=list)
    counted: list[Shipment] = dataclass_field(default_factory=list)
    # What each call recorded, in order (what the one-call functions return): event ids,
    # the new state's id (None for a move to the current state), exception ids, ETA event ids.
    ids: list[str | None] = dataclass_field(default_factory=list)


@no_autoflush
def add_histories(session: Session, histories: Sequence[History]) -> None:
    """For each history: `add_events` with its events, then `set_state` for each move,
    `upsert_exception` for each exception and `set_eta` for each estimate, as those calls
    would in that order (the same checks and refusals, rows, summary columns and journal
    entries), for many shipments in a few statements: one query per kind of stored row and
    one executemany per table, instead of several round trips per call (demo seeding,
    imports). One history per shipment."""
    write_histories(session, histories)


def write_histories(session: Session, histories: Sequence[History]) -> _Writes:
    """`add_histories`, answering what was written: the one write path of the one-call
    functions (`add_events`, `set_state`, `upsert_exception`, `set_eta`) too."""
    writes = _Writes()
    if not histories:
        return writes
    for history in histories:
        check_source(history.source)
    keys = [uuid_text(history.shipment_id) for history in histories]
    if len(set(keys)) != len(keys):
        raise ValueError("one history per shipment")
    found = lock_shipments(session, [k for k in keys if k])
    rows: list[Shipment] = []
    for history, key in zip(histories, keys, strict=True):
        row = found.get(key or "")
        if row is None:
            raise missing(history.shipment_id)
        rows.append(row)
    session.flush()
    pks = [row.pk for row in rows]
    open_states: dict[int, _OpenState] = {}
    for state in session.scalars(
        select(ShipmentState)
        .where(ShipmentState.shipment_pk.in_(pks), ShipmentState.end_at.is_(None))
        .order_by(ShipmentState.start_at, ShipmentState.pk)
    ):  # the latest open state of each shipment last
        open_states[state.shipment_pk] = _OpenState(state_view(state), state.source, stored=state)
    event_ids = {str(e.id) for h in histories for e in h.events if e.id is not None}
    taken: set[tuple[int, str]] = (
        {
            (pk, event_id)
            for pk, event_id in session.execute(
                select(ShipmentEvent.shipment_pk, ShipmentEvent.id).where(
                    ShipmentEvent.shipment_pk.in_(pks), ShipmentEvent.id.in_(event_ids)
                )
            )
        }
        if event_ids
        else set()
    )
    # Each shipment's ETA events, stored or added (`etas`: the one `set_eta` keeps per stop;
    # `all_etas`: every one, the candidates for nextEta).
    etas: dict[int, dict[str | None, ShipmentEvent | dict[str, Any]]] = {pk: {} for pk in pks}
    all_etas: dict[int, list[ShipmentEvent | dict[str, Any]]] = {pk: [] for pk in pks}
    # Each shipment's stops something happened at, stored or added: their ETAs are over.
    seen: dict[int, set[str]] = {pk: set() for pk in pks}
    if any(_sets_eta(h) for h in histories):
        seen = stops_seen_stored(session, pks)
        for event in session.scalars(
            select(ShipmentEvent)
            .where(ShipmentEvent.shipment_pk.in_(pks), ShipmentEvent.type == ETA_EVENT_TYPE)
            .order_by(ShipmentEvent.pk)
        ):
            etas[event.shipment_pk].setdefault(event.data.get("stopId"), event)
            all_etas[event.shipment_pk].append(event)
    exception_ids = {str(x.id) for h in histories for x in h.exceptions if x.id is not None}
    stored_exceptions = (
        {
            (x.shipment_pk, x.id): x
            for x in session.scalars(
                select(ShipmentExceptionRow).where(
                    ShipmentExceptionRow.shipment_pk.in_(pks),
                    ShipmentExceptionRow.id.in_(exception_ids),
                )
            )
        }
        if exception_ids
        else {}
    )
    now = utcnow()
    for history, row in zip(histories, rows, strict=True):
        stops, segments = route_ids(row)
        if history.events:
            _history_events(
                history, row, stops, segments, taken, etas[row.pk], all_etas[row.pk], writes, now
            )
        for move in history.states:
            _history_state(history.source, move, row, stops, open_states, writes, now)
        for exception in history.exceptions:
            if exception.stop_id is not None and str(exception.stop_id) not in stops:
                raise field_error(
                    "exception.stopId", f"shipment {row.id} has no stop {exception.stop_id}"
                )
            key = str(exception.id) if exception.id is not None else str(uuid.uuid4())
            current = exception_row(
                session,
                stored_exceptions.get((row.pk, key)),
                row.pk,
                key,
                exception,
                history.source,
                now,
            )
            stored_exceptions[(row.pk, key)] = current
            row.last_modified_at = now
            payload = {"exception": exception_wire(current), "source": history.source}
            writes.changes.append(
                change_entry(
                    row.tenant_id, row.id, ChangeKind.EXCEPTION_ADDED_OR_UPDATED, payload, now
                )
            )
            writes.counted.append(row)
            writes.ids.append(key)
        for report in history.etas:
            _history_eta(
                history.source, report, row, stops, etas[row.pk], all_etas[row.pk], writes, now
            )
        if _sets_eta(history):
            # Once the history is applied: its estimates share one calculation time.
            reached = seen[row.pk]
            reached.update(stops_seen(history.events, (move.stop_id for move in history.states)))
            set_next_eta(
                row,
                (e["data"] if isinstance(e, dict) else e.data for e in all_etas[row.pk]),
                reached,
            )
    session.flush()
    insert_rows(session, ShipmentEvent, writes.events)
    insert_rows(session, ShipmentState, writes.states)
    if writes.closed:
        table = table_of(ShipmentState)
        session.connection().execute(
            update(table)
            .where(table.c.pk == bindparam("closed_pk"))
            .values(end_at=bindparam("end")),
            [{"closed_pk": state.pk, "end": end} for state, end in writes.closed],
        )
        for state, end in writes.closed:
            # The loaded row as the database now has it, as `close_state` leaves it.
            set_committed_value(state, "end_at", end)
    if writes.counted:
        counted = {row.pk: row for row in writes.counted}
        open_counts: dict[int, int] = {
            pk: count
            for pk, count in session.execute(
                select(ShipmentExceptionRow.shipment_pk, func.count())
                .where(
                    ShipmentExceptionRow.shipment_pk.in_(list(counted)),
                    ShipmentExceptionRow.status == ExceptionStatus.OPEN.value,
                )
                .group_by(ShipmentExceptionRow.shipment_pk)
            )
        }
        for pk, row in counted.items():
            row.open_exception_count = open_counts.get(pk, 0)
    journal(session, writes.changes)
    return writes


def _history_events(
    history: History,
    row: Shipment,
    stops: set[str],
    segments: set[str],
    taken: set[tuple[int, str]],
    etas: dict[str | None, ShipmentEvent | dict[str, Any]],
    all_etas: list[ShipmentEvent | dict[str, Any]],
    writes: _Writes,
    now: datetime,
) -> None:
    """`add_events` of one history."""
    events = history.events
    wires: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        check_event_refs(event, stops, segments, f"events[{index}]" if len(events) > 1 else "event")
        wires.append(event_wire(event))
    ids = [wire["id"] for wire in wires]
    if len(set(ids)) != len(ids):
        raise conflict("Two of the events have the same id", source="id")
    writes.ids.extend(ids)
    clash = next((i for i in ids if (row.pk, i) in taken), None)
    if clash is not None:
        raise conflict(f"Shipment {row.id} already has an event {clash}", source="id")
    for wire in wires:
        record = event_row(row.pk, wire, history.source)
        writes.events.append(record)
        if wire["type"] == ETA_EVENT_TYPE:
            etas.setdefault(wire.get("stopId"), record)
            all_etas.append(record)
        payload = {"event": wire, "source": history.source}
        writes.changes.append(
            change_entry(row.tenant_id, row.id, ChangeKind.EVENT_ADDED, payload, now)
        )
    latest = latest_of(events)
    if latest is not None and (
        row.latest_event_at is None or event_time(latest) >= row.latest_event_at
    ):
        for key, value in latest_values(latest, row.data).items():
            setattr(row, key, value)
    row.last_modified_at = now


def _sets_eta(history: History) -> bool:
    """Whether applying `history` may change its shipment's nextEta: an estimate, or a stop
    reached (whose estimate is then over)."""
    return (
        bool(history.etas)
        or any(e.type == ETA_EVENT_TYPE or happened_at_stop(e) for e in history.events)
        or any(move.stop_id is not None for move in history.states)
    )


def _history_state(
    source: str,
    move: StateMove,
    row: Shipment,
    stops: set[str],
    open_states: dict[int, _OpenState],
    writes: _Writes,
    now: datetime,
) -> None:
    """One `set_state` of a history."""
    stop_key = str(move.stop_id) if move.stop_id is not None else None
    if stop_key is not None and stop_key not in stops:
        raise field_error("stopId", f"shipment {row.id} has no stop {move.stop_id}")
    at = utc_datetime(move.at)
    current_type = ShipmentStateType(row.current_state) if row.current_state else None
    open_state = open_states.get(row.pk)
    open_stop = None
    if open_state is not None and open_state.view.stop_id is not None:
        open_stop = str(open_state.view.stop_id)
    if current_type == move.state and (open_state is None or open_stop == stop_key):
        writes.ids.append(None)
        return
    problem = transition_problem(current_type, move.state)
    if problem is not None:
        raise conflict(f"Shipment {row.id}: {problem}", source="state")
    if open_state is not None:
        view = open_state.view
        end = max(at, utc_datetime(view.start_date_time))
        closed = TrackedShipmentState(
            id=view.id,
            type=view.type,
            start_date_time=view.start_date_time,
            end_date_time=end,
            stop_id=view.stop_id,
        )
        if open_state.row is not None:
            open_state.row["end_at"] = end
        elif open_state.stored is not None:
            writes.closed.append((open_state.stored, end))
        payload = {"state": closed.wire(), "source": open_state.source}
        writes.changes.append(
            change_entry(row.tenant_id, row.id, ChangeKind.STATE_UPDATED, payload, now)
        )
    new = TrackedShipmentState(
        id=uuid.uuid4(),
        type=move.state,
        start_date_time=at,
        stop_id=uuid.UUID(stop_key) if stop_key else None,
    )
    record = state_row(row.pk, new, source)
    writes.states.append(record)
    writes.ids.append(str(new.id))
    open_states[row.pk] = _OpenState(new, source, row=record)
    payload = {"state": new.wire(), "source": source}
    writes.changes.append(change_entry(row.tenant_id, row.id, ChangeKind.STATE_ADDED, payload, now))
    set_current_state(row, move.state)
    if move.state is ShipmentStateType.COMPLETED:
        set_next_eta(row, ())  # none once completed, whatever the estimates
    row.last_modified_at = now


def _history_eta(
    source: str,
    report: EtaReport,
    row: Shipment,
    stops: set[str],
    etas: dict[str | None, ShipmentEvent | dict[str, Any]],
    all_etas: list[ShipmentEvent | dict[str, Any]],
    writes: _Writes,
    now: datetime,
) -> None:
    """One `set_eta` of a history (nextEta is set once the history is applied)."""
    if report.stop_id is not None and str(report.stop_id) not in stops:
        raise field_error("stopId", f"shipment {row.id} has no stop {report.stop_id}")
    eta = utc_datetime(report.eta)
    stop_key = str(report.stop_id) if report.stop_id is not None else None
    existing = etas.get(stop_key)
    existing_id = None
    if existing is not None:
        existing_id = str(existing["id"] if isinstance(existing, dict) else existing.id)
    wire = event_wire(eta_event(existing_id, eta, stop_key, report.description, now))
    if existing is None:
        record = event_row(row.pk, wire, source)
        writes.events.append(record)
        etas[stop_key] = record
        all_etas.append(record)
        kind = ChangeKind.EVENT_ADDED
    elif isinstance(existing, dict):
        existing.update(event_row(row.pk, wire, source))
        kind = ChangeKind.EVENT_UPDATED
    else:
        apply_event(existing, wire)
        existing.source = source
        kind = ChangeKind.EVENT_UPDATED
    row.last_modified_at = now
    writes.ids.append(str(wire["id"]))
    writes.changes.append(
        change_entry(row.tenant_id, row.id, kind, {"event": wire, "source": source}, now)
    )
