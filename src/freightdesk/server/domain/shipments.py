"""The one write path to tracked shipments (tables in `server/tables/tracking.py`).

Every function takes a SQLAlchemy `Session` whose transaction the caller owns::

    with transaction(context.sessions) as session:
        ids = find_shipments_by_identifier(session, tenant_id, "BILL_OF_LADING", "BOL123")
        for shipment_id in ids:
            add_event(session, shipment_id, TrackedShipmentEvent(type="ARRIVAL_AT_STOP",
                      date_time=at, stop_id=stop), source=TL)
            add_positions(session, shipment_id, positions, source=TL)

Each write, in the caller's transaction: changes the rows, keeps the shipment's summary columns
(current state, next ETA, latest event, open exception count, last position, primary identifier,
carrier, origin and destination) current, sets `last_modified_at`, and appends what changed to
the `shipment_changes` journal (see `ChangeKind`). Nothing else may write these tables.

Shipments are named by their uuid string (`Shipment.id`). Functions that act for a tenant
(`create_shipment`, `replace_shipment`, `delete_shipment`, sharing, lookups) take its
`tenant_id` and answer 404 for a shipment of another tenant. Functions that record what a
tracking source reported (`add_event`, `add_positions`, `set_state`, `upsert_exception`,
`set_eta`, ...) take a shipment id the caller has already resolved for its tenant, and the
`source`: the transportation mode through which the data arrived (`TL` for truckload pushes,
`PARCEL` for parcel pushes, ...). The source matters: when a PUT changes the identifiers so
that a source can no longer follow the shipment, everything that source reported is removed
(interface rule 4; see `identifiers.py`). `USER` marks events recorded through PUT tracking.

The lifecycle (`set_state`, see `lifecycle.py`): every shipment starts SCHEDULED; a move the
lifecycle does not allow is a 409, setting the current state again is a no-op. An ETA is an
event of type `ETA` per stop (`set_eta`), and the latest one is the shipment's `next_eta`.

Refusals are `ApiError`s (400 with field paths, 404, 409) so routes can let them through; an
unknown `source` is a ValueError (a programming mistake, not client input).

Bulk: `create_shipments`, `add_histories` (events, state moves, exceptions and ETAs of many
shipments, exactly as the one-call functions record them) and `add_positions_bulk` write many
shipments in a handful of statements (positions go to the driver directly). A position at an
instant already stored for the shipment is ignored, so retried pushes are harmless. For
trusted generated data (demo, simulator), pass `Position`s instead of
`TrackedShipmentPosition`s: building and validating the wire model costs more than storing the
position.

`Shipment.data` (the user-provided data as on the wire) is read-only: it lives in
`shipment_documents` and is replaced only here. Reads for the routes live in
`tracking_reads.py` (history, shipment views) and `shipment_search.py` (browsing); webhook
context: `shipment_context`, `share_link`.
"""

from __future__ import annotations

import functools
import secrets
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import UTC, datetime
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from sqlalchemy import Table, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from freightdesk.models.common import LogisticsIdentifier, TransportationMode, utc_datetime
from freightdesk.models.tracking import (
    ExceptionStatus,
    ShipmentException,
    ShipmentStateType,
    SpeedUnit,
    TrackedShipmentEvent,
    TrackedShipmentInput,
    TrackedShipmentState,
)
from freightdesk.server.db import Base, utcnow
from freightdesk.server.domain.identifiers import normalize_value, sources_for
from freightdesk.server.domain.lifecycle import transition_problem
from freightdesk.server.domain.shipment_rules import PreparedShipment, prepare, related_ids
from freightdesk.server.errors import ApiError, conflict, field_error, not_found
from freightdesk.server.tables.tracking import (
    ChangeKind,
    Shipment,
    ShipmentAttributeValue,
    ShipmentChange,
    ShipmentDocument,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentIdentifier,
    ShipmentPosition,
    ShipmentShare,
    ShipmentState,
)

# Sources besides the transportation modes.
USER = "USER"  # events recorded by the user through PUT tracking
SYSTEM = "SYSTEM"  # what the service itself records (the initial SCHEDULED state)
SOURCES = frozenset({USER, SYSTEM, *(mode.value for mode in TransportationMode)})

ETA_EVENT_TYPE = "ETA"

_KMH = {
    SpeedUnit.KILOMETERS_PER_HOUR: 1.0,
    SpeedUnit.MILES_PER_HOUR: 1.609344,
    SpeedUnit.KNOTS: 1.852,
}


class PositionLike(Protocol):
    """What the position writers read: a `TrackedShipmentPosition` or a `Position`."""

    @property
    def date_time(self) -> datetime: ...
    @property
    def latitude(self) -> float: ...
    @property
    def longitude(self) -> float: ...
    @property
    def speed(self) -> float | None: ...
    @property
    def speed_unit(self) -> SpeedUnit | None: ...
    @property
    def heading(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class Position:
    """A reported position for bulk writes of trusted, generated data: not validated, so
    `date_time` must be aware and the values in range (TrackedShipmentPosition checks them)."""

    date_time: datetime
    latitude: float
    longitude: float
    speed: float | None = None
    heading: float | None = None
    speed_unit: SpeedUnit | None = None


# --- lookups -------------------------------------------------------------------------------


def find_shipments_by_identifier(
    session: Session, tenant_id: int, type: str | None, value: str
) -> list[str]:
    """Ids of the tenant's own shipments carrying this identifier (value case-insensitive),
    oldest first. `type` None matches any type."""
    query = (
        select(Shipment.pk, Shipment.id)
        .join(ShipmentIdentifier, ShipmentIdentifier.shipment_pk == Shipment.pk)
        .where(
            ShipmentIdentifier.tenant_id == tenant_id,
            ShipmentIdentifier.value_norm == normalize_value(value),
            Shipment.deleted_at.is_(None),
        )
        .distinct()
        .order_by(Shipment.pk)
    )
    if type is not None:
        query = query.where(ShipmentIdentifier.type == type)
    return [shipment_id for _pk, shipment_id in session.execute(query)]


@dataclass(frozen=True)
class Visible:
    """A shipment as one tenant sees it: its own (`owned`) or shared with it."""

    row: Shipment
    owned: bool


def visible_shipment(session: Session, tenant_id: int, shipment_id: str) -> Visible:
    """The live shipment if the tenant owns it or it was shared with the tenant, else 404."""
    row = _by_id(session, shipment_id)
    if row is None:
        raise _missing(shipment_id)
    if row.tenant_id == tenant_id:
        return Visible(row, owned=True)
    shared = session.scalar(
        select(ShipmentShare.shipment_pk).where(
            ShipmentShare.shipment_pk == row.pk,
            ShipmentShare.tenant_id == tenant_id,
            ShipmentShare.revoked_at.is_(None),
        )
    )
    if shared is None:
        raise _missing(shipment_id)
    return Visible(row, owned=False)


def owned_shipment(
    session: Session, tenant_id: int, shipment_id: str, *, lock: bool = False
) -> Shipment:
    """The tenant's own live shipment; 404 otherwise (also when it was only shared with it)."""
    row = _by_id(session, shipment_id, lock=lock)
    if row is None or row.tenant_id != tenant_id:
        raise _missing(shipment_id)
    return row


def visible_ids(session: Session, tenant_id: int, ids: Iterable[str]) -> set[str]:
    """Which of these shipment ids the tenant can see (own or shared, not deleted)."""
    wanted = list({str(i) for i in ids})
    if not wanted:
        return set()
    shared = select(ShipmentShare.shipment_pk).where(
        ShipmentShare.tenant_id == tenant_id, ShipmentShare.revoked_at.is_(None)
    )
    rows = session.scalars(
        select(Shipment.id).where(
            Shipment.id.in_(wanted),
            Shipment.deleted_at.is_(None),
            or_(Shipment.tenant_id == tenant_id, Shipment.pk.in_(shared)),
        )
    )
    return set(rows)


def _by_id(
    session: Session, shipment_id: str | uuid.UUID, *, lock: bool = False
) -> Shipment | None:
    key = _uuid_text(shipment_id)
    if key is None:
        return None
    held = _locked(session) if lock else None
    if held is not None:
        cached = held.get(key)
        if cached is not None and cached.deleted_at is None:
            return cached  # locked earlier in this transaction: no second round trip
    query = select(Shipment).where(Shipment.id == key, Shipment.deleted_at.is_(None))
    if lock:
        # Serializes concurrent writers of one shipment on PostgreSQL (SQLite has one writer).
        query = query.with_for_update()
    row = session.scalar(query)
    if held is not None and row is not None:
        held[key] = row
    return row


# Shipment ids per locking statement (SQLite allows a few thousand bound parameters at most).
_LOCK_CHUNK = 500


def lock_shipments(
    session: Session, shipment_ids: Iterable[str | uuid.UUID]
) -> dict[str, Shipment]:
    """Lock these live shipments for the transaction, in one global order (by id), and return
    them by id in that order; unknown and deleted ones are left out.

    Transactions that lock several shipments one by one, in whatever order their work meets
    them, deadlock each other when the orders differ (two instances applying pushes for the
    same shipments did, issue 22). A writer of several shipments takes them all here first,
    before any other shipment lock; its later single locks of them cost no round trip."""
    keys = sorted({key for key in map(_uuid_text, shipment_ids) if key is not None})
    held = _locked(session)
    wanted = [key for key in keys if key not in held]
    # Byte order, the order `sorted` gave: the chunks then follow one order whatever the
    # database's collation (FOR UPDATE locks rows in the order the query returns them).
    order = Shipment.id.collate("C") if _dialect(session) == "postgresql" else Shipment.id
    for start in range(0, len(wanted), _LOCK_CHUNK):
        query = (
            select(Shipment)
            .where(
                Shipment.id.in_(wanted[start : start + _LOCK_CHUNK]),
                Shipment.deleted_at.is_(None),
            )
            .order_by(order)
            .with_for_update()
        )
        for row in session.scalars(query):
            held[row.id] = row
    return {key: held[key] for key in keys if key in held and held[key].deleted_at is None}


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


def _locked(session: Session) -> dict[str, Shipment]:
    """Shipments this transaction has locked (by id): a seeder or a push makes many calls on
    one shipment in one transaction."""
    transaction = session.get_transaction()
    held = session.info.get("freightdesk.locked_shipments")
    if held is None or held[0] is not transaction:
        held = (transaction, {})
        session.info["freightdesk.locked_shipments"] = held
    locked: dict[str, Shipment] = held[1]
    return locked


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _no_autoflush(
    function: Callable[Concatenate[Session, _P], _R],
) -> Callable[Concatenate[Session, _P], _R]:
    """Run a write without autoflush: its summary-column changes to the shipment then reach
    the database once, at the next flush, however many calls the transaction makes. The
    function flushes itself where a query of its own must see an ORM change."""

    def wrapper(session: Session, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with session.no_autoflush:
            return function(session, *args, **kwargs)

    functools.update_wrapper(wrapper, function)
    return wrapper


def _uuid_text(value: str | uuid.UUID) -> str | None:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return None


def _missing(shipment_id: str | uuid.UUID) -> ApiError:
    return not_found(f"Shipment {shipment_id}")


def _live(session: Session, shipment_id: str | uuid.UUID) -> Shipment:
    row = _by_id(session, shipment_id, lock=True)
    if row is None:
        raise _missing(shipment_id)
    return row


def _check_source(source: str) -> None:
    if source not in SOURCES:
        raise ValueError(f"unknown tracking source {source!r}; use a transportation mode or USER")


# --- create, replace, delete ---------------------------------------------------------------


def create_shipment(session: Session, tenant_id: int, body: TrackedShipmentInput) -> str:
    """Create a tracked shipment from a PUT tracking body (its `id`, if any, is ignored);
    returns the new id. The shipment starts SCHEDULED; body events are recorded as USER."""
    return create_shipments(session, tenant_id, [body])[0]


def create_shipments(
    session: Session,
    tenant_id: int,
    bodies: Sequence[TrackedShipmentInput],
    *,
    created: Sequence[datetime] | None = None,
) -> list[str]:
    """Create many shipments with a handful of statements (demo seeding, imports).

    `created` gives each shipment's creation time (when its initial SCHEDULED state began)
    for shipments whose past is recorded after them; by default, now."""
    if not bodies:
        return []
    if created is not None and len(created) != len(bodies):
        raise ValueError("one creation time per shipment")
    related = {i for body in bodies for i in related_ids(body)}
    can_see = visible_ids(session, tenant_id, related) if related else set()
    prepared = [prepare(body, visible_ids=can_see) for body in bodies]
    latest_events = [_latest_of(item.events) for item in prepared]
    now = utcnow()
    starts = list(created) if created is not None else [now] * len(bodies)
    rows = [
        {
            "id": str(uuid.uuid4()),
            "tenant_id": tenant_id,
            "mode": item.analysis.mode.value,
            "current_state": ShipmentStateType.SCHEDULED.value,
            "state_rank": _STATE_RANK[ShipmentStateType.SCHEDULED],
            "share_token": secrets.token_urlsafe(24),
            "created_at": start,
            "last_modified_at": now,
            "open_exception_count": 0,
            **_data_summary(item),
            **(_latest_values(latest) if latest is not None else {}),
        }
        for item, latest, start in zip(prepared, latest_events, starts, strict=True)
    ]
    session.flush()
    table = _table(Shipment)
    result = session.execute(
        insert(table).returning(table.c.pk, table.c.id, sort_by_parameter_order=True), rows
    ).all()
    document_rows: list[dict[str, Any]] = []
    identifier_rows: list[dict[str, Any]] = []
    attribute_rows: list[dict[str, Any]] = []
    state_rows: list[dict[str, Any]] = []
    event_rows: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for (pk, shipment_id), item, start in zip(result, prepared, starts, strict=True):
        document_rows.append({"shipment_pk": pk, "data": item.data})
        identifier_rows.extend(_identifier_rows(tenant_id, pk, item.data["identifiers"]))
        attribute_rows.extend(_attribute_rows(tenant_id, pk, item.data.get("attributes", [])))
        state = TrackedShipmentState(
            id=uuid.uuid4(), type=ShipmentStateType.SCHEDULED, start_date_time=start
        )
        state_rows.append(_state_row(pk, state, SYSTEM))
        context = {
            "shipmentId": shipment_id,
            "identifiers": item.data["identifiers"],
            "attributes": item.data.get("attributes", []),
            "createdDateTime": start.isoformat(),
            "lastModifiedDateTime": now.isoformat(),
        }
        changes.append(
            _change(tenant_id, shipment_id, ChangeKind.SHIPMENT_CREATED, {"shipment": context}, now)
        )
        changes.append(
            _change(
                tenant_id,
                shipment_id,
                ChangeKind.STATE_ADDED,
                {"state": state.wire(), "source": SYSTEM},
                now,
            )
        )
        for event in item.events:
            wire = _event_wire(event)
            event_rows.append(_event_row(pk, wire, USER))
            changes.append(
                _change(
                    tenant_id,
                    shipment_id,
                    ChangeKind.EVENT_ADDED,
                    {"event": wire, "source": USER},
                    now,
                )
            )
    _insert(session, ShipmentDocument, document_rows)
    _insert(session, ShipmentIdentifier, identifier_rows)
    _insert(session, ShipmentAttributeValue, attribute_rows)
    _insert(session, ShipmentState, state_rows)
    _insert(session, ShipmentEvent, event_rows)
    _insert(session, ShipmentChange, changes)
    return [shipment_id for _pk, shipment_id in result]


def replace_shipment(
    session: Session, tenant_id: int, shipment_id: str, body: TrackedShipmentInput
) -> None:
    """Replace the user-provided data (identifiers, attributes, accessGroups, costs, plan,
    routeInfo, relatedShipments and the USER events) of the tenant's own shipment.

    Data received from tracking sources is kept, except that of a source which can no longer
    follow the shipment with its new identifiers (rule 4). Body events whose id is that of a
    received event are ignored: they are not the user's.
    """
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    can_see = visible_ids(session, tenant_id, related_ids(body))
    item = prepare(body, visible_ids=can_see, self_id=row.id)
    now = utcnow()
    old_types = {identifier["type"] for identifier in row.data.get("identifiers", [])}
    lost = sources_for(old_types) - item.analysis.sources
    changes: list[dict[str, Any]] = []

    _store_data(session, row, item.data)
    row.mode = item.analysis.mode.value
    for key, value in _data_summary(item).items():
        setattr(row, key, value)
    session.execute(delete(ShipmentIdentifier).where(ShipmentIdentifier.shipment_pk == row.pk))
    session.execute(
        delete(ShipmentAttributeValue).where(ShipmentAttributeValue.shipment_pk == row.pk)
    )
    _insert(
        session,
        ShipmentAttributeValue,
        _attribute_rows(tenant_id, row.pk, item.data.get("attributes", [])),
    )
    _insert(
        session, ShipmentIdentifier, _identifier_rows(tenant_id, row.pk, item.data["identifiers"])
    )

    _replace_user_events(session, row, item, changes, now)
    if lost:
        _remove_source_data(session, row, {mode.value for mode in lost}, changes, now)
    _refresh_latest_event(session, row)
    row.last_modified_at = now
    changes.append(
        _change(
            row.tenant_id,
            row.id,
            ChangeKind.SHIPMENT_REPLACED,
            {"shipment": shipment_context(row)},
            now,
        )
    )
    _insert(session, ShipmentChange, changes)


def _replace_user_events(
    session: Session,
    row: Shipment,
    item: PreparedShipment,
    changes: list[dict[str, Any]],
    now: datetime,
) -> None:
    existing = {
        event.id: event
        for event in session.scalars(
            select(ShipmentEvent).where(ShipmentEvent.shipment_pk == row.pk)
        )
    }
    kept: set[str] = set()
    new_rows: list[dict[str, Any]] = []
    for event in item.events:
        key = str(event.id) if event.id is not None else None
        current = existing.get(key) if key is not None else None
        if current is not None and current.source != USER:
            continue  # a received event sent back after a GET: not the user's to change
        wire = _event_wire(event)
        if current is not None:
            kept.add(current.id)
            if current.data != wire:
                _apply_event(current, wire)
                changes.append(
                    _change(
                        row.tenant_id,
                        row.id,
                        ChangeKind.EVENT_UPDATED,
                        {"event": wire, "source": USER},
                        now,
                    )
                )
            continue
        new_rows.append(_event_row(row.pk, wire, USER))
        changes.append(
            _change(
                row.tenant_id, row.id, ChangeKind.EVENT_ADDED, {"event": wire, "source": USER}, now
            )
        )
    for stored in existing.values():
        if stored.source == USER and stored.id not in kept:
            changes.append(
                _change(
                    row.tenant_id,
                    row.id,
                    ChangeKind.EVENT_REMOVED,
                    {"event": stored.data, "source": USER},
                    now,
                )
            )
            session.delete(stored)
    session.flush()
    _insert(session, ShipmentEvent, new_rows)


def _remove_source_data(
    session: Session,
    row: Shipment,
    sources: set[str],
    changes: list[dict[str, Any]],
    now: datetime,
) -> None:
    """Rule 4: drop what these sources reported, journaling each removed event and state."""
    for event in session.scalars(
        select(ShipmentEvent).where(
            ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.source.in_(sources)
        )
    ):
        changes.append(
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.EVENT_REMOVED,
                {"event": event.data, "source": event.source},
                now,
            )
        )
        session.delete(event)
    for state in session.scalars(
        select(ShipmentState).where(
            ShipmentState.shipment_pk == row.pk, ShipmentState.source.in_(sources)
        )
    ):
        changes.append(
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.STATE_REMOVED,
                {"state": state_wire(state), "source": state.source},
                now,
            )
        )
        session.delete(state)
    for problem in session.scalars(
        select(ShipmentExceptionRow).where(
            ShipmentExceptionRow.shipment_pk == row.pk, ShipmentExceptionRow.source.in_(sources)
        )
    ):
        changes.append(
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.EXCEPTION_REMOVED,
                {"exception": exception_wire(problem), "source": problem.source},
                now,
            )
        )
        session.delete(problem)
    session.flush()
    for source in sorted(sources):
        result = session.execute(
            delete(ShipmentPosition).where(
                ShipmentPosition.shipment_pk == row.pk, ShipmentPosition.source == source
            )
        )
        removed = int(getattr(result, "rowcount", 0) or 0)
        if removed:
            changes.append(
                _change(
                    row.tenant_id,
                    row.id,
                    ChangeKind.POSITIONS_REMOVED,
                    {"count": removed, "source": source},
                    now,
                )
            )
    _refresh_state(session, row, changes, now)
    _refresh_exceptions(session, row)
    _refresh_last_position(session, row)
    _refresh_eta(session, row)


def delete_shipment(session: Session, tenant_id: int, shipment_id: str) -> None:
    """Stop tracking the tenant's own shipment and remove its data (404 for one shared with
    the tenant). A tombstone stays so that incremental sync can report the removal."""
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    now = utcnow()
    context = shipment_context(row)
    for table in (
        ShipmentIdentifier,
        ShipmentAttributeValue,
        ShipmentEvent,
        ShipmentPosition,
        ShipmentState,
        ShipmentExceptionRow,
    ):
        session.execute(delete(table).where(table.shipment_pk == row.pk))
    _store_data(session, row, {})
    row.deleted_at = now
    row.last_modified_at = now
    row.open_exception_count = 0
    _insert(
        session,
        ShipmentChange,
        [_change(row.tenant_id, row.id, ChangeKind.SHIPMENT_DELETED, {"shipment": context}, now)],
    )


# --- sharing -------------------------------------------------------------------------------


def share_shipment(
    session: Session, tenant_id: int, shipment_id: str, recipient_tenant_id: int
) -> bool:
    """Let another tenant read the tenant's own shipment; False when it already could."""
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    if recipient_tenant_id == tenant_id:
        raise field_error("tenantUuid", "a shipment cannot be shared with its own tenant")
    share = session.get(ShipmentShare, (row.pk, recipient_tenant_id))
    now = utcnow()
    if share is not None and share.revoked_at is None:
        return False
    if share is None:
        session.add(
            ShipmentShare(shipment_pk=row.pk, tenant_id=recipient_tenant_id, created_at=now)
        )
    else:
        share.created_at = now
        share.revoked_at = None
    row.last_modified_at = now
    _insert(
        session,
        ShipmentChange,
        [
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.SHIPMENT_SHARED,
                {"recipientTenantId": recipient_tenant_id},
                now,
            )
        ],
    )
    return True


def unshare_shipment(
    session: Session, tenant_id: int, shipment_id: str, recipient_tenant_id: int
) -> None:
    """Stop sharing the tenant's own shipment with a recipient; 404 when it was not shared."""
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    share = session.get(ShipmentShare, (row.pk, recipient_tenant_id))
    if share is None or share.revoked_at is not None:
        raise not_found(f"A share of shipment {shipment_id} with that tenant")
    now = utcnow()
    share.revoked_at = now
    row.last_modified_at = now
    _insert(
        session,
        ShipmentChange,
        [
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.SHIPMENT_UNSHARED,
                {"recipientTenantId": recipient_tenant_id},
                now,
            )
        ],
    )


# --- events --------------------------------------------------------------------------------


def add_event(session: Session, shipment_id: str, event: TrackedShipmentEvent, source: str) -> str:
    """Record an event reported by `source`; returns its id (the event's own id if it has
    one: 409 when the shipment already has an event with it)."""
    return add_events(session, shipment_id, [event], source)[0]


@_no_autoflush
def add_events(
    session: Session, shipment_id: str, events: Sequence[TrackedShipmentEvent], source: str
) -> list[str]:
    _check_source(source)
    row = _live(session, shipment_id)
    stops, segments = _route_ids(row)
    now = utcnow()
    wires: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        _check_event_refs(
            event, stops, segments, f"events[{index}]" if len(events) > 1 else "event"
        )
        wires.append(_event_wire(event))
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
    _insert(session, ShipmentEvent, [_event_row(row.pk, wire, source) for wire in wires])
    latest = _latest_of(events)
    if latest is not None and (
        row.latest_event_at is None or _event_time(latest) >= row.latest_event_at
    ):
        for key, value in _latest_values(latest).items():
            setattr(row, key, value)
    row.last_modified_at = now
    _insert(
        session,
        ShipmentChange,
        [
            _change(
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


@_no_autoflush
def update_event(
    session: Session, shipment_id: str, event: TrackedShipmentEvent, source: str
) -> None:
    """Replace an existing event (found by `event.id`; 404 when there is none)."""
    _check_source(source)
    if event.id is None:
        raise field_error("event.id", "is required to update an event")
    row = _live(session, shipment_id)
    stops, segments = _route_ids(row)
    _check_event_refs(event, stops, segments, "event")
    current = session.scalar(
        select(ShipmentEvent).where(
            ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.id == str(event.id)
        )
    )
    if current is None:
        raise not_found(f"Event {event.id} of shipment {row.id}")
    wire = _event_wire(event)
    now = utcnow()
    _apply_event(current, wire)
    current.source = source
    session.flush()
    _refresh_latest_event(session, row)
    if event.type == ETA_EVENT_TYPE:
        _refresh_eta(session, row)
    row.last_modified_at = now
    _insert(
        session,
        ShipmentChange,
        [
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.EVENT_UPDATED,
                {"event": wire, "source": source},
                now,
            )
        ],
    )


@_no_autoflush
def remove_event(session: Session, shipment_id: str, event_id: str) -> None:
    """Remove an event (404 when there is none); the journal keeps its last value."""
    row = _live(session, shipment_id)
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
    _refresh_latest_event(session, row)
    if was_eta:
        _refresh_eta(session, row)
    row.last_modified_at = now
    _insert(
        session,
        ShipmentChange,
        [_change(row.tenant_id, row.id, ChangeKind.EVENT_REMOVED, payload, now)],
    )


@_no_autoflush
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
    _check_source(source)
    row = _live(session, shipment_id)
    stops, _segments = _route_ids(row)
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
    event = _eta_event(
        existing.id if existing is not None else None, eta, stop_key, description, now
    )
    wire = _event_wire(event)
    if existing is None:
        session.flush()
        _insert(session, ShipmentEvent, [_event_row(row.pk, wire, source)])
        kind = ChangeKind.EVENT_ADDED
    else:
        _apply_event(existing, wire)
        existing.source = source
        kind = ChangeKind.EVENT_UPDATED
    if row.current_state != ShipmentStateType.COMPLETED:
        row.next_eta = eta
    row.last_modified_at = now
    _insert(
        session,
        ShipmentChange,
        [_change(row.tenant_id, row.id, kind, {"event": wire, "source": source}, now)],
    )
    return str(event.id)


# --- positions -----------------------------------------------------------------------------


def add_positions(
    session: Session, shipment_id: str, positions: Sequence[PositionLike], source: str
) -> int:
    """Record reported positions; a position at an instant already recorded is ignored.
    Returns how many were new. Speeds are converted to km/h."""
    return add_positions_bulk(session, {shipment_id: positions}, source)


@_no_autoflush
def add_positions_bulk(
    session: Session, tracks: Mapping[str, Sequence[PositionLike]], source: str
) -> int:
    """`add_positions` for many shipments in a few statements (seeding, batch pushes)."""
    _check_source(source)
    if not tracks:
        return 0
    keys = {key: _uuid_text(key) for key in tracks}
    found = lock_shipments(session, [k for k in keys.values() if k])
    now = utcnow()
    position_rows: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    wanted: dict[str, tuple[Shipment, dict[datetime, PositionLike]]] = {}
    for given, key in keys.items():
        row = found.get(key or "")
        if row is None:
            raise _missing(given)
        instants = _ordered_instants(tracks[given])
        if instants:
            wanted[given] = (row, instants)
    stored = _stored_instants(session, {row.pk: (min(i), max(i)) for row, i in wanted.values()})
    for row, instants in wanted.values():
        pk = row.pk
        fresh = (
            [(at, p) for at, p in instants.items() if (pk, at) not in stored]
            if stored
            else list(instants.items())
        )
        if not fresh:
            continue
        added, wires = _position_records(pk, fresh, source)
        position_rows.extend(added)
        last_at, last = fresh[-1]
        if row.last_position_at is None or last_at >= row.last_position_at:
            row.last_latitude, row.last_longitude = last.latitude, last.longitude
            row.last_position_at = last_at
        row.last_modified_at = now
        changes.append(
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.POSITIONS_ADDED,
                {"positions": wires, "source": source},
                now,
            )
        )
    session.flush()
    _insert_positions(session, position_rows)
    _insert(session, ShipmentChange, changes)
    return len(position_rows)


_POSITION_COLUMNS = (
    "shipment_pk",
    "date_time",
    "latitude",
    "longitude",
    "speed",
    "heading",
    "source",
)


def _insert_positions(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert position rows, ignoring an instant a concurrent writer stored meanwhile.

    Positions come by the hundred thousand when demo data is seeded, so they go to the driver
    directly: SQLAlchemy's per-value parameter processing would cost more than SQLite's own
    work. The values are exactly what `UtcDateTime` stores (see `sqlite_utc_text`).
    """
    if not rows:
        return
    connection = session.connection()
    dialect = connection.dialect.name
    names = ", ".join(_POSITION_COLUMNS)
    table = ShipmentPosition.__tablename__
    if dialect == "sqlite":
        connection.exec_driver_sql(
            f"INSERT OR IGNORE INTO {table} ({names}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r["shipment_pk"],
                    sqlite_utc_text(r["date_time"]),
                    r["latitude"],
                    r["longitude"],
                    r["speed"],
                    r["heading"],
                    r["source"],
                )
                for r in rows
            ],
        )
    elif dialect == "postgresql":
        connection.exec_driver_sql(
            f"INSERT INTO {table} ({names}) VALUES (%s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            [
                (
                    r["shipment_pk"],
                    r["date_time"].astimezone(UTC).replace(tzinfo=None),
                    r["latitude"],
                    r["longitude"],
                    r["speed"],
                    r["heading"],
                    r["source"],
                )
                for r in rows
            ],
        )
    else:  # pragma: no cover - we run on SQLite and PostgreSQL only
        session.execute(insert(_table(ShipmentPosition)), rows)


def sqlite_utc_text(at: datetime) -> str:
    """How `UtcDateTime` stores an instant on SQLite (SQLAlchemy's DATETIME text format)."""
    at = at.astimezone(UTC)
    return (
        f"{at.year:04d}-{at.month:02d}-{at.day:02d} "
        f"{at.hour:02d}:{at.minute:02d}:{at.second:02d}.{at.microsecond:06d}"
    )


def _ordered_instants(positions: Sequence[PositionLike]) -> dict[datetime, PositionLike]:
    """One position per instant (the first given) keyed by its UTC instant, in time order."""
    by_time: dict[datetime, PositionLike] = {}
    for position in positions:
        at = position.date_time
        if at.tzinfo is not UTC:  # validated models are UTC already
            at = utc_datetime(at)
        by_time.setdefault(at, position)
    return {at: by_time[at] for at in sorted(by_time)}


def _stored_instants(
    session: Session, spans: Mapping[int, tuple[datetime, datetime]]
) -> set[tuple[int, datetime]]:
    """Which (shipment, instant) pairs within these spans are stored already: one query per
    500 shipments rather than one per shipment."""
    stored: set[tuple[int, datetime]] = set()
    items = list(spans.items())
    for start in range(0, len(items), 500):
        chunk = items[start : start + 500]
        rows = session.execute(
            select(ShipmentPosition.shipment_pk, ShipmentPosition.date_time).where(
                ShipmentPosition.shipment_pk.in_([pk for pk, _span in chunk]),
                ShipmentPosition.date_time >= min(span[0] for _pk, span in chunk),
                ShipmentPosition.date_time <= max(span[1] for _pk, span in chunk),
            )
        )
        stored.update((pk, at) for pk, at in rows)
    return stored


# --- states --------------------------------------------------------------------------------


@_no_autoflush
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
    _check_source(source)
    row = _live(session, shipment_id)
    stops, _segments = _route_ids(row)
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
        _close_state(session, open_state, max(at, open_state.start_at))
        changes.append(
            _change(
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
    _insert(session, ShipmentState, [_state_row(row.pk, new, source)])
    changes.append(
        _change(
            row.tenant_id,
            row.id,
            ChangeKind.STATE_ADDED,
            {"state": new.wire(), "source": source},
            now,
        )
    )
    _set_current_state(row, state)
    if state is ShipmentStateType.COMPLETED:
        row.next_eta = None
    row.last_modified_at = now
    _insert(session, ShipmentChange, changes)
    return str(new.id)


def _close_state(session: Session, state: ShipmentState, end: datetime | None) -> None:
    """Set a state's end in the database at once (the next query of open states must see it,
    and writes run without autoflush) and in the loaded object."""
    session.connection().execute(
        update(_table(ShipmentState))
        .where(_table(ShipmentState).c.pk == state.pk)
        .values(end_at=end)
    )
    set_committed_value(state, "end_at", end)


def _refresh_state(
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
        _set_current_state(row, None)
        return
    _set_current_state(row, ShipmentStateType(latest.type))
    if latest.end_at is not None:
        _close_state(session, latest, None)
        changes.append(
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.STATE_UPDATED,
                {"state": state_wire(latest), "source": latest.source},
                now,
            )
        )


# --- exceptions ----------------------------------------------------------------------------


@_no_autoflush
def upsert_exception(
    session: Session, shipment_id: str, exception: ShipmentException, source: str
) -> str:
    """Add an exception, or update the one with `exception.id`; returns its id.

    Closing sets `resolvedDateTime` (the given one, else now); reopening clears it.
    """
    _check_source(source)
    row = _live(session, shipment_id)
    stops, _segments = _route_ids(row)
    if exception.stop_id is not None and str(exception.stop_id) not in stops:
        raise field_error("exception.stopId", f"shipment {row.id} has no stop {exception.stop_id}")
    now = utcnow()
    key = str(exception.id) if exception.id is not None else str(uuid.uuid4())
    current = session.scalar(
        select(ShipmentExceptionRow).where(
            ShipmentExceptionRow.shipment_pk == row.pk, ShipmentExceptionRow.id == key
        )
    )
    current = _exception_row(session, current, row.pk, key, exception, source, now)
    session.flush()
    _refresh_exceptions(session, row)
    row.last_modified_at = now
    _insert(
        session,
        ShipmentChange,
        [
            _change(
                row.tenant_id,
                row.id,
                ChangeKind.EXCEPTION_ADDED_OR_UPDATED,
                {"exception": exception_wire(current), "source": source},
                now,
            )
        ],
    )
    return key


def _exception_row(
    session: Session,
    current: ShipmentExceptionRow | None,
    pk: int,
    key: str,
    exception: ShipmentException,
    source: str,
    now: datetime,
) -> ShipmentExceptionRow:
    """`current` (or a new row added to the session) set to what `exception` says."""
    closed = exception.status is ExceptionStatus.CLOSED
    resolved = (
        (utc_datetime(exception.resolved_date_time) if exception.resolved_date_time else now)
        if closed
        else None
    )
    if current is None:
        current = ShipmentExceptionRow(
            id=key,
            shipment_pk=pk,
            created_at=utc_datetime(exception.created_date_time)
            if exception.created_date_time
            else now,
        )
        session.add(current)
    current.source = source
    current.type = exception.type
    current.status = exception.status.value
    current.severity = exception.severity.value
    current.description = exception.description
    current.stop_id = str(exception.stop_id) if exception.stop_id else None
    current.resolved_at = resolved
    current.last_modified_at = now
    return current


def _refresh_exceptions(session: Session, row: Shipment) -> None:
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


# --- histories in bulk ---------------------------------------------------------------------


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
    """A shipment's open state while a history is applied: stored (`pk`) or added by it
    (`row`, the insert's values)."""

    view: TrackedShipmentState
    source: str
    pk: int | None = None
    row: dict[str, Any] | None = None


@dataclass
class _Writes:
    """The rows and journal entries of `add_histories`, written once at the end."""

    events: list[dict[str, Any]] = dataclass_field(default_factory=list)
    states: list[dict[str, Any]] = dataclass_field(default_factory=list)
    closed: list[dict[str, Any]] = dataclass_field(default_factory=list)
    changes: list[dict[str, Any]] = dataclass_field(default_factory=list)
    counted: list[Shipment] = dataclass_field(default_factory=list)


@_no_autoflush
def add_histories(session: Session, histories: Sequence[History]) -> None:
    """For each history: `add_events` with its events, then `set_state` for each move,
    `upsert_exception` for each exception and `set_eta` for each estimate, as those calls
    would in that order (the same checks and refusals, rows, summary columns and journal
    entries), for many shipments in a few statements: one query per kind of stored row and
    one executemany per table, instead of several round trips per call (demo seeding,
    imports). One history per shipment."""
    if not histories:
        return
    for history in histories:
        _check_source(history.source)
    keys = [_uuid_text(history.shipment_id) for history in histories]
    if len(set(keys)) != len(keys):
        raise ValueError("one history per shipment")
    found = lock_shipments(session, [k for k in keys if k])
    rows: list[Shipment] = []
    for history, key in zip(histories, keys, strict=True):
        row = found.get(key or "")
        if row is None:
            raise _missing(history.shipment_id)
        rows.append(row)
    session.flush()
    pks = [row.pk for row in rows]
    open_states: dict[int, _OpenState] = {}
    for state in session.scalars(
        select(ShipmentState)
        .where(ShipmentState.shipment_pk.in_(pks), ShipmentState.end_at.is_(None))
        .order_by(ShipmentState.start_at, ShipmentState.pk)
    ):  # the latest open state of each shipment last
        open_states[state.shipment_pk] = _OpenState(state_view(state), state.source, state.pk)
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
    etas: dict[int, dict[str | None, ShipmentEvent | dict[str, Any]]] = {pk: {} for pk in pks}
    if any(h.etas for h in histories):
        for event in session.scalars(
            select(ShipmentEvent)
            .where(ShipmentEvent.shipment_pk.in_(pks), ShipmentEvent.type == ETA_EVENT_TYPE)
            .order_by(ShipmentEvent.pk)
        ):
            etas[event.shipment_pk].setdefault(event.data.get("stopId"), event)
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
    writes = _Writes()
    for history, row in zip(histories, rows, strict=True):
        stops, segments = _route_ids(row)
        if history.events:
            _history_events(history, row, stops, segments, taken, etas[row.pk], writes, now)
        for move in history.states:
            _history_state(history.source, move, row, stops, open_states, writes, now)
        for exception in history.exceptions:
            if exception.stop_id is not None and str(exception.stop_id) not in stops:
                raise field_error(
                    "exception.stopId", f"shipment {row.id} has no stop {exception.stop_id}"
                )
            key = str(exception.id) if exception.id is not None else str(uuid.uuid4())
            current = _exception_row(
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
                _change(row.tenant_id, row.id, ChangeKind.EXCEPTION_ADDED_OR_UPDATED, payload, now)
            )
            writes.counted.append(row)
        for report in history.etas:
            _history_eta(history.source, report, row, stops, etas[row.pk], writes, now)
    session.flush()
    _insert(session, ShipmentEvent, writes.events)
    _insert(session, ShipmentState, writes.states)
    if writes.closed:
        table = _table(ShipmentState)
        session.connection().execute(
            update(table)
            .where(table.c.pk == bindparam("closed_pk"))
            .values(end_at=bindparam("end")),
            writes.closed,
        )
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
    _insert(session, ShipmentChange, writes.changes)


def _history_events(
    history: History,
    row: Shipment,
    stops: set[str],
    segments: set[str],
    taken: set[tuple[int, str]],
    etas: dict[str | None, ShipmentEvent | dict[str, Any]],
    writes: _Writes,
    now: datetime,
) -> None:
    """`add_events` of one history."""
    events = history.events
    wires: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        _check_event_refs(
            event, stops, segments, f"events[{index}]" if len(events) > 1 else "event"
        )
        wires.append(_event_wire(event))
    ids = [wire["id"] for wire in wires]
    if len(set(ids)) != len(ids):
        raise conflict("Two of the events have the same id", source="id")
    clash = next((i for i in ids if (row.pk, i) in taken), None)
    if clash is not None:
        raise conflict(f"Shipment {row.id} already has an event {clash}", source="id")
    for wire in wires:
        record = _event_row(row.pk, wire, history.source)
        writes.events.append(record)
        if wire["type"] == ETA_EVENT_TYPE:
            etas.setdefault(wire.get("stopId"), record)
        payload = {"event": wire, "source": history.source}
        writes.changes.append(_change(row.tenant_id, row.id, ChangeKind.EVENT_ADDED, payload, now))
    latest = _latest_of(events)
    if latest is not None and (
        row.latest_event_at is None or _event_time(latest) >= row.latest_event_at
    ):
        for key, value in _latest_values(latest).items():
            setattr(row, key, value)
    row.last_modified_at = now


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
        else:
            writes.closed.append({"closed_pk": open_state.pk, "end": end})
        payload = {"state": closed.wire(), "source": open_state.source}
        writes.changes.append(
            _change(row.tenant_id, row.id, ChangeKind.STATE_UPDATED, payload, now)
        )
    new = TrackedShipmentState(
        id=uuid.uuid4(),
        type=move.state,
        start_date_time=at,
        stop_id=uuid.UUID(stop_key) if stop_key else None,
    )
    record = _state_row(row.pk, new, source)
    writes.states.append(record)
    open_states[row.pk] = _OpenState(new, source, row=record)
    payload = {"state": new.wire(), "source": source}
    writes.changes.append(_change(row.tenant_id, row.id, ChangeKind.STATE_ADDED, payload, now))
    _set_current_state(row, move.state)
    if move.state is ShipmentStateType.COMPLETED:
        row.next_eta = None
    row.last_modified_at = now


def _history_eta(
    source: str,
    report: EtaReport,
    row: Shipment,
    stops: set[str],
    etas: dict[str | None, ShipmentEvent | dict[str, Any]],
    writes: _Writes,
    now: datetime,
) -> None:
    """One `set_eta` of a history."""
    if report.stop_id is not None and str(report.stop_id) not in stops:
        raise field_error("stopId", f"shipment {row.id} has no stop {report.stop_id}")
    eta = utc_datetime(report.eta)
    stop_key = str(report.stop_id) if report.stop_id is not None else None
    existing = etas.get(stop_key)
    existing_id = None
    if existing is not None:
        existing_id = str(existing["id"] if isinstance(existing, dict) else existing.id)
    wire = _event_wire(_eta_event(existing_id, eta, stop_key, report.description, now))
    if existing is None:
        record = _event_row(row.pk, wire, source)
        writes.events.append(record)
        etas[stop_key] = record
        kind = ChangeKind.EVENT_ADDED
    elif isinstance(existing, dict):
        existing.update(_event_row(row.pk, wire, source))
        kind = ChangeKind.EVENT_UPDATED
    else:
        _apply_event(existing, wire)
        existing.source = source
        kind = ChangeKind.EVENT_UPDATED
    if row.current_state != ShipmentStateType.COMPLETED:
        row.next_eta = eta
    row.last_modified_at = now
    writes.changes.append(
        _change(row.tenant_id, row.id, kind, {"event": wire, "source": source}, now)
    )


# --- wire shapes of rows -------------------------------------------------------------------


def state_wire(state: ShipmentState) -> dict[str, Any]:
    return state_view(state).wire()


def state_view(state: ShipmentState) -> TrackedShipmentState:
    return TrackedShipmentState(
        id=uuid.UUID(state.id),
        type=ShipmentStateType(state.type),
        start_date_time=state.start_at,
        end_date_time=state.end_at,
        stop_id=uuid.UUID(state.stop_id) if state.stop_id else None,
    )


def exception_wire(row: ShipmentExceptionRow) -> dict[str, Any]:
    return exception_view(row).wire()


def exception_view(row: ShipmentExceptionRow) -> ShipmentException:
    return ShipmentException.model_validate(
        {
            "id": row.id,
            "type": row.type,
            "status": row.status,
            "severity": row.severity,
            "description": row.description,
            "stopId": row.stop_id,
            "createdDateTime": row.created_at,
            "resolvedDateTime": row.resolved_at,
            "lastModifiedDateTime": row.last_modified_at,
        }
    )


def shipment_context(row: Shipment) -> dict[str, Any]:
    """The shipment part of a webhook message's context (interface, Events, rule 1), without
    `shipmentShareLink`, which needs the service's base URL (see `share_link`)."""
    return {
        "shipmentId": row.id,
        "identifiers": row.data.get("identifiers", []),
        "attributes": row.data.get("attributes", []),
        "createdDateTime": row.created_at.isoformat(),
        "lastModifiedDateTime": row.last_modified_at.isoformat(),
    }


def share_link(base_url: str, row: Shipment) -> str:
    """The public read-only link of a shipment (served by the tracking router)."""
    return f"{base_url.rstrip('/')}/api/v4/public/shipments/{row.share_token}"


# --- helpers -------------------------------------------------------------------------------


_STATE_RANK = {state: rank for rank, state in enumerate(ShipmentStateType)}


def _set_current_state(row: Shipment, state: ShipmentStateType | None) -> None:
    row.current_state = state.value if state is not None else None
    row.state_rank = _STATE_RANK[state] if state is not None else None


def _store_data(session: Session, row: Shipment, data: dict[str, Any]) -> None:
    """Replace the user-provided data (kept in shipment_documents; `Shipment.data` reads it)."""
    session.execute(
        update(ShipmentDocument).where(ShipmentDocument.shipment_pk == row.pk).values(data=data)
    )
    set_committed_value(row, "data", data)


def _table(entity: type[Base]) -> Table:
    table = entity.__table__
    assert isinstance(table, Table)
    return table


def _insert(session: Session, entity: type[Base], rows: list[dict[str, Any]]) -> None:
    """A Core executemany: bulk rows skip the ORM's per-object bookkeeping."""
    if rows:
        # On the connection: a Core insert through the Session would autoflush first.
        session.connection().execute(insert(_table(entity)), rows)


def _change(
    tenant_id: int, shipment_id: str, kind: ChangeKind, payload: dict[str, Any], now: datetime
) -> dict[str, Any]:
    return {
        "tenant_id": tenant_id,
        "shipment_id": shipment_id,
        "kind": kind.value,
        "payload": {"shipmentId": shipment_id, **payload},
        "created_at": now,
    }


def _identifier_rows(
    tenant_id: int, pk: int, identifiers: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return [
        {
            "tenant_id": tenant_id,
            "shipment_pk": pk,
            "type": identifier["type"],
            "value": identifier["value"],
            "value_norm": normalize_value(identifier["value"]),
        }
        for identifier in identifiers
    ]


def _attribute_rows(
    tenant_id: int, pk: int, attributes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    rows = []
    for attribute in attributes:
        name = str(attribute["name"]).strip().casefold()
        values = list(attribute.get("values") or [])
        if attribute.get("value") is not None:
            values.append(attribute["value"])
        for value in dict.fromkeys(v.strip().casefold() for v in values) or [None]:
            rows.append({"tenant_id": tenant_id, "shipment_pk": pk, "name": name, "value": value})
    return rows


def _data_summary(item: PreparedShipment) -> dict[str, Any]:
    stops = item.data.get("routeInfo", {}).get("stops", [])
    return {
        "primary_identifier": item.analysis.primary.value.strip(),
        "primary_sort": normalize_value(item.analysis.primary.value),
        "carrier": item.analysis.carrier,
        "origin_name": _stop_name(stops[0]) if stops else None,
        "destination_name": _stop_name(stops[-1]) if len(stops) > 1 else None,
    }


def _stop_name(stop: dict[str, Any]) -> str | None:
    name = stop.get("name")
    if name:
        return str(name)[:200]
    address = (stop.get("location") or {}).get("address") or {}
    parts = [address.get("city"), address.get("state")]
    text = ", ".join(str(part) for part in parts if part)
    return text[:200] or None


def _route_ids(row: Shipment) -> tuple[set[str], set[str]]:
    route = row.data.get("routeInfo") or {}
    stops = {str(stop["id"]) for stop in route.get("stops", []) if stop.get("id")}
    segments = {str(seg["id"]) for seg in route.get("routeSegments", []) if seg.get("id")}
    return stops, segments


def _check_event_refs(
    event: TrackedShipmentEvent, stops: set[str], segments: set[str], path: str
) -> None:
    if event.stop_id is not None and str(event.stop_id) not in stops:
        raise field_error(f"{path}.stopId", "the shipment has no stop with this id")
    if event.route_segment_id is not None and str(event.route_segment_id) not in segments:
        raise field_error(
            f"{path}.routeSegmentId", "the shipment has no route segment with this id"
        )


def _eta_event(
    event_id: str | None,
    eta: datetime,
    stop_key: str | None,
    description: str | None,
    now: datetime,
) -> TrackedShipmentEvent:
    """The ETA event of one stop (`event_id`: the one it replaces, if any)."""
    return TrackedShipmentEvent(
        id=uuid.UUID(event_id) if event_id is not None else uuid.uuid4(),
        type=ETA_EVENT_TYPE,
        description=description or "Estimated time of arrival",
        estimate_date_time=eta,
        estimate_last_calculated_date_time=now,
        received_date_time=now,
        stop_id=uuid.UUID(stop_key) if stop_key else None,
    )


def _event_wire(event: TrackedShipmentEvent) -> dict[str, Any]:
    if event.id is None:
        event = event.model_copy(update={"id": uuid.uuid4()})
    return event.wire()


def _event_time(event: TrackedShipmentEvent) -> datetime:
    assert event.date_time is not None
    return utc_datetime(event.date_time)


def _occurred_at(wire: Mapping[str, Any]) -> datetime | None:
    for key in ("dateTime", "estimateDateTime", "plannedDateTime"):
        if wire.get(key):
            return _wire_time(wire[key])
    return None


def _wire_time(value: Any) -> datetime:
    return utc_datetime(datetime.fromisoformat(str(value).replace("Z", "+00:00")))


def _event_row(pk: int, wire: dict[str, Any], source: str) -> dict[str, Any]:
    return {
        "id": wire["id"],
        "shipment_pk": pk,
        "source": source,
        "type": wire["type"],
        "occurred_at": _occurred_at(wire),
        "date_time": _wire_time(wire["dateTime"]) if wire.get("dateTime") else None,
        "data": wire,
    }


def _apply_event(row: ShipmentEvent, wire: dict[str, Any]) -> None:
    row.type = wire["type"]
    row.occurred_at = _occurred_at(wire)
    row.date_time = _wire_time(wire["dateTime"]) if wire.get("dateTime") else None
    row.data = wire


def _latest_of(events: Iterable[TrackedShipmentEvent]) -> TrackedShipmentEvent | None:
    happened = [event for event in events if event.date_time is not None]
    return max(happened, key=_event_time) if happened else None


def _latest_values(event: TrackedShipmentEvent) -> dict[str, Any]:
    return {
        "latest_event_type": event.type,
        "latest_event_at": _event_time(event),
        "latest_event_description": event.description,
    }


def _refresh_latest_event(session: Session, row: Shipment) -> None:
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


def _refresh_eta(session: Session, row: Shipment) -> None:
    """nextEta: the most recently calculated remaining ETA (None once COMPLETED)."""
    if row.current_state == ShipmentStateType.COMPLETED:
        row.next_eta = None
        return
    best: tuple[str, datetime] | None = None
    for event in session.scalars(
        select(ShipmentEvent).where(
            ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.type == ETA_EVENT_TYPE
        )
    ):
        calculated = str(event.data.get("estimateLastCalculatedDateTime") or "")
        estimate = event.occurred_at
        if estimate is not None and (best is None or calculated >= best[0]):
            best = (calculated, estimate)
    row.next_eta = best[1] if best else None


def _refresh_last_position(session: Session, row: Shipment) -> None:
    last = session.scalar(
        select(ShipmentPosition)
        .where(ShipmentPosition.shipment_pk == row.pk)
        .order_by(ShipmentPosition.date_time.desc())
        .limit(1)
    )
    row.last_latitude = last.latitude if last else None
    row.last_longitude = last.longitude if last else None
    row.last_position_at = last.date_time if last else None


def _state_row(pk: int, state: TrackedShipmentState, source: str) -> dict[str, Any]:
    return {
        "id": str(state.id),
        "shipment_pk": pk,
        "source": source,
        "type": state.type.value,
        "start_at": utc_datetime(state.start_date_time),
        "end_at": utc_datetime(state.end_date_time) if state.end_date_time else None,
        "stop_id": str(state.stop_id) if state.stop_id else None,
    }


def _position_records(
    pk: int, positions: Sequence[tuple[datetime, PositionLike]], source: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows to store and the same positions as on the wire (speeds in km/h), in one pass:
    seeding runs this for hundreds of thousands of positions."""
    rows: list[dict[str, Any]] = []
    wires: list[dict[str, Any]] = []
    kmh = SpeedUnit.KILOMETERS_PER_HOUR.value
    for at, position in positions:
        speed, heading = position.speed, position.heading
        wire: dict[str, Any] = {
            "dateTime": at.isoformat(),
            "latitude": position.latitude,
            "longitude": position.longitude,
            "source": source,
        }
        if speed is not None:
            unit = position.speed_unit
            speed = round(speed * _KMH[unit], 2) if unit is not None else speed
            wire["speed"] = speed
            wire["speedUnit"] = kmh
        if heading is not None:
            wire["heading"] = heading
        rows.append(
            {
                "shipment_pk": pk,
                "date_time": at,
                "latitude": position.latitude,
                "longitude": position.longitude,
                "speed": speed,
                "heading": heading,
                "source": source,
            }
        )
        wires.append(wire)
    return rows, wires


def identifiers_of(row: Shipment) -> list[LogisticsIdentifier]:
    return [LogisticsIdentifier.model_validate(item) for item in row.data.get("identifiers", [])]


__all__ = [
    "ETA_EVENT_TYPE",
    "SOURCES",
    "SYSTEM",
    "USER",
    "EtaReport",
    "History",
    "Position",
    "PositionLike",
    "StateMove",
    "Visible",
    "add_event",
    "add_events",
    "add_histories",
    "add_positions",
    "add_positions_bulk",
    "create_shipment",
    "create_shipments",
    "delete_shipment",
    "exception_view",
    "find_shipments_by_identifier",
    "lock_shipments",
    "owned_shipment",
    "remove_event",
    "replace_shipment",
    "set_eta",
    "set_state",
    "share_shipment",
    "shipment_context",
    "state_view",
    "unshare_shipment",
    "update_event",
    "upsert_exception",
    "visible_ids",
    "visible_shipment",
]
