"""The simulator's clock and its writes: what a tick does, and how a restart finds its place.

All of it is blocking database work, called from the worker through `asyncio.to_thread`, one
call at a time.

Restart. Nothing is kept outside the database. The world is rebuilt from the demo tenant (its
seed is `context.services["demo_seed"]`, 7 by default, and the anchor is the hour the tenant
was created in, checked against the stored shipments), and the clock resumes at the moment of
the simulator's last push in the ingestion queue (pushes are committed in time order). What
fell due in the `REPLAY` before it is done again: a push whose deterministic ingestion id is
already stored is skipped, and every direct write is idempotent (events and exceptions have
derived ids, positions of a stored instant are ignored, a state older than the current one is
not set, a booked shipment is created only when its identifier is not found).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from freightdesk.models.push import IngestionStatus, ParcelStatusUpdate, TruckloadTrackingUpdate
from freightdesk.models.tracking import ExceptionStatus, ShipmentStateType
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.demo import DEMO_TENANT_NAME
from freightdesk.server.demo.itineraries import floor_hour
from freightdesk.server.demo.portfolio import iter_plans
from freightdesk.server.demo.seed import saved_locations, shipment_input
from freightdesk.server.domain import shipments as tracking
from freightdesk.server.domain.identifiers import normalize_value
from freightdesk.server.domain.lifecycle import can_move
from freightdesk.server.domain.push_intake import PARCEL, TRUCKLOAD
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.errors import ApiError
from freightdesk.server.simulator.script import (
    PUSHED_MODES,
    Closing,
    Creation,
    Eta,
    Event,
    Item,
    Opening,
    Position,
    Push,
    State,
)
from freightdesk.server.simulator.world import Live, World, WorldSpec
from freightdesk.server.tables.push import PushIngestion
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentIdentifier,
    ShipmentState,
)

log = logging.getLogger(__name__)

# The carriers of the demo push as one carrier tenant for the demo tenant's account.
CARRIER_TENANT_NAME = "FreightDesk Demo Carriers"
_CARRIER_ADMIN = "demo-carriers"
DEFAULT_SEED = 7

# A tick covers at most this much simulated time and this many items...
MAX_TICK_SPAN = timedelta(hours=1)
MAX_ITEMS = 2000
# ...and after a restart the last REPLAY before the last push is done again.
REPLAY = MAX_TICK_SPAN + timedelta(minutes=30)
# Incidents that ended this long before the restart are checked to be closed.
CLOSING_LOOKBACK = timedelta(days=2)
# Routine reports are thinned so that the world makes at most this many a second; more
# would only queue up behind the push worker. At --speed 1 a thousand trucks make about 4.
MAX_REPORTS_PER_SECOND = 120.0
# Further behind than this (a restart after a long stop), routine reports are thinned more.
CATCH_UP = timedelta(hours=6)
CATCH_UP_STRIDE = 8
# More of our pushes than this waiting for the push worker: wait before pushing more.
BACKLOG = 3000
# Attempts at a tick's direct writes (deadlocks on PostgreSQL, a busy SQLite).
RETRIES = 4
# A closing whose exception is not found while none of our pushes wait is given up after
# this many tries (the exception was removed, or the push failed).
CLOSING_TRIES = 3

T = TypeVar("T")

_INGESTION_IDS = uuid.UUID("3c2f9a44-58d1-4f3e-9d0b-6a1e2c7b9f10")
_CHUNK = 500


class NoDemo(Exception):
    """There is no demo tenant to simulate."""


@dataclass(frozen=True)
class Tenants:
    demo_id: int
    demo_uuid: str
    demo_created: datetime
    carrier_id: int


@dataclass
class _Pending:
    live: Live
    closing: Closing
    misses: int = 0


class Engine:
    """The simulated clock over a `World`, and the writes each tick makes."""

    def __init__(
        self,
        context: ServiceContext,
        tenants: Tenants,
        world: World,
        cursor: datetime,
        speed: float,
    ) -> None:
        self.context = context
        self.tenants = tenants
        self.world = world
        self.speed = speed
        # Simulated time up to which everything due has been done.
        self.clock = cursor - REPLAY
        # Pushes due by then may be stored already (from before the restart).
        self.replay_until = cursor
        self._origin = max(utcnow(), cursor)
        self._origin_monotonic = time.monotonic()
        self._locations = self._read(lambda s: saved_locations(s, tenants.demo_id))
        self._pending: list[_Pending] = []
        self._throttled = False
        self.pushed = 0
        # Totals since the start, for the progress log line.
        self.totals: dict[str, int] = defaultdict(int)

    # --- start ----------------------------------------------------------------------------

    @classmethod
    def start(cls, context: ServiceContext, speed: float, halt: threading.Event) -> Engine:
        """Rebuild the world and find where it stands (raises NoDemo, Halted)."""
        tenants = _tenants(context)
        seed = int(context.services.get("demo_seed", DEFAULT_SEED))
        anchor, seeded = _anchor(context, tenants, seed)
        cursor = _last_push(context, tenants.carrier_id) or anchor
        fleet = int(context.services.get("simulate_fleet", 0))
        spec = WorldSpec(seed, anchor, tenants.demo_uuid, seeded, fleet)
        world = World(spec, halt.is_set)
        world.load(cursor - REPLAY)
        engine = cls(context, tenants, world, cursor, speed)
        engine._attach()
        engine._pending = [
            _Pending(live, closing)
            for live, closing in world.closings(cursor - CLOSING_LOOKBACK, cursor - REPLAY)
            if live.shipment_id is not None
        ]
        log.info(
            "simulator: demo seed %d anchored at %s%s, resuming at %s with %d shipments "
            "under way, speed %g",
            seed,
            anchor.isoformat(),
            "" if seeded else " (seeded shipments not recognised: new bookings only)",
            cursor.isoformat(),
            len(world.lives),
            speed,
        )
        return engine

    def _attach(self) -> None:
        """Find each shipment's id by its primary identifier; a seeded shipment not found
        (deleted by a user), or a booked one that should exist by now, is left alone."""
        lives = list(self.world.lives.values())
        found = self._read(lambda s: _ids_by_identifier(s, self.tenants.demo_id, lives))
        for live in lives:
            kind, value = live.primary
            live.shipment_id = found.get((kind, normalize_value(value)))
            booked = live.script.booked_at
            if live.shipment_id is None and (booked is None or booked <= self.clock):
                live.gone = True

    # --- the clock ------------------------------------------------------------------------

    def target(self) -> datetime:
        """Where the simulated clock should be now."""
        elapsed = time.monotonic() - self._origin_monotonic
        return self._origin + timedelta(seconds=elapsed * self.speed)

    @property
    def catching_up(self) -> bool:
        """More than a couple of ticks behind where the clock should be (after a restart, or
        when a tick had more items than it may take)."""
        lag = (self.target() - self.clock).total_seconds()
        return not self._throttled and lag > 3 * self.speed

    def tick(self) -> list[dict[str, Any]]:
        """Do what fell due since the last tick; returns the ingestion rows to accept."""
        if self._throttled or self.pushed:
            self._throttled = self._backlog() > BACKLOG
            if self._throttled:
                return []
        target = self.target()
        until = min(target, self.clock + MAX_TICK_SPAN)
        if until <= self.clock:
            return []
        self.world.book_until(until)
        items = self.world.due(until, MAX_ITEMS, self._stride(until, target - until))
        if len(items) == MAX_ITEMS:
            until = items[-1][1].due
        if self.clock < self.replay_until:
            # Done again after a restart: routine reports are left out, as the speed before
            # the restart may have thinned them otherwise (they would arrive out of order).
            items = [
                (live, item)
                for live, item in items
                if item.routine is None or item.due > self.replay_until
            ]
        rows = self._write(items)
        self.clock = until
        self.pushed = len(rows)
        self.totals["pushes"] += len(rows)
        self.totals["items"] += len(items)
        return rows

    def moving(self) -> int:
        """Shipments between their first departure and their last arrival."""
        clock = self.clock
        return sum(
            1
            for live in self.world.lives.values()
            if not live.gone and live.script.moving_span[0] <= clock < live.script.moving_span[1]
        )

    def progress(self) -> str:
        lag = self.target() - self.clock
        hours = lag.total_seconds() / 3600
        return (
            f"simulated clock at {self.clock:%Y-%m-%d %H:%M} UTC ({hours:.1f} h behind), "
            f"{len(self.world.lives)} shipments under way, {self.totals['items']} reports so "
            f"far ({self.totals['pushes']} pushed)"
        )

    def _stride(self, at: datetime, behind: timedelta) -> int:
        per_second = self.world.reports_per_hour(at) / 3600 * self.speed
        stride = 1
        while per_second / stride > MAX_REPORTS_PER_SECOND:
            stride *= 2
        return max(stride, CATCH_UP_STRIDE) if behind > CATCH_UP else stride

    # --- writes ---------------------------------------------------------------------------

    def _write(self, items: Sequence[tuple[Live, Item]]) -> list[dict[str, Any]]:
        creations = [live for live, item in items if isinstance(item.action, Creation)]
        if creations:
            self._create(creations)
        for attempt in range(RETRIES):
            self._forget_deleted(items)
            try:
                self._direct(items)
                break
            except ApiError as refused:
                # A shipment deleted by a user since the check: check again and retry.
                if refused.status != 404 or attempt == RETRIES - 1:
                    raise
            except OperationalError:
                # PostgreSQL gave up a deadlock with another writer, or SQLite stayed busy:
                # every direct write is idempotent, so the whole batch is done again.
                if attempt == RETRIES - 1:
                    raise
                time.sleep(0.2 * (attempt + 1))
        return self._rows(items)

    def _create(self, lives: list[Live]) -> None:
        """Book new shipments (no push creates a shipment: the tracking domain does)."""
        with transaction(self.context.sessions) as session:
            known = _ids_by_identifier(session, self.tenants.demo_id, lives)
            new = []
            for live in lives:
                kind, value = live.primary
                live.shipment_id = known.get((kind, normalize_value(value)))
                live.gone = False
                if live.shipment_id is None:
                    new.append(live)
            bodies = [
                shipment_input(live.script.plan, self._locations, live.script.begins)
                for live in new
            ]
            ids = tracking.create_shipments(session, self.tenants.demo_id, bodies)
        for live, shipment_id in zip(new, ids, strict=True):
            live.shipment_id = shipment_id

    def _forget_deleted(self, items: Sequence[tuple[Live, Item]]) -> None:
        wanted = {live.shipment_id for live, _ in items if live.shipment_id and not live.gone}
        wanted |= {p.live.shipment_id for p in self._pending if p.live.shipment_id}
        if not wanted:
            return
        alive = self._read(lambda s: _alive(s, wanted))
        for live, _item in items:
            if live.shipment_id is None or live.shipment_id not in alive:
                live.gone = True
        self._pending = [p for p in self._pending if p.live.shipment_id in alive]

    def _direct(self, items: Sequence[tuple[Live, Item]]) -> None:
        """The writes no push can make.

        Rail, ocean and air shipments are written in one transaction: nothing else writes
        them. The ETAs and closed exceptions of pushed shipments are written one shipment per
        transaction, because the push worker writes those shipments at the same time: holding
        one shipment's lock at a time, this side can never be half of a deadlock.
        """
        direct = [
            (live, item)
            for live, item in items
            if not live.gone and not isinstance(item.action, Push | Creation)
        ]
        alone = [(live, item) for live, item in direct if live.mode not in PUSHED_MODES]
        if alone:
            with transaction(self.context.sessions) as session:
                # Every shipment first, in id order: a simulator of another instance on the
                # same database writes them too (see tracking.lock_shipments).
                tracking.lock_shipments(session, {live.shipment_id or "" for live, _ in alone})
                taken = _taken_ids(session, alone)
                tracks: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
                for live, item in alone:
                    self._apply(session, live, item, taken, tracks)
                for source, track in tracks.items():
                    tracking.add_positions_bulk(session, track, source)
        shared: dict[str, list[tuple[Live, Item]]] = defaultdict(list)
        for live, item in direct:
            if live.mode in PUSHED_MODES and live.shipment_id is not None:
                shared[live.shipment_id].append((live, item))
        for group in shared.values():
            with transaction(self.context.sessions) as session:
                for live, item in group:
                    self._apply(session, live, item, set(), {})
        self._retry_closings()

    def _apply(
        self,
        session: Session,
        live: Live,
        item: Item,
        taken: set[str],
        tracks: dict[str, dict[str, list[Any]]],
    ) -> None:
        shipment_id = live.shipment_id
        assert shipment_id is not None
        source = live.mode.value
        action = item.action
        if isinstance(action, Position):
            tracks[source][shipment_id].append(action.position)
        elif isinstance(action, Event):
            if str(action.event.id) not in taken:
                tracking.add_event(session, shipment_id, action.event, source)
        elif isinstance(action, State):
            _move(session, shipment_id, action, item.due, source)
        elif isinstance(action, Opening):
            if str(action.exception.id) not in taken:
                tracking.upsert_exception(session, shipment_id, action.exception, source)
        elif isinstance(action, Closing):
            closed = _close(session, shipment_id, action)
            # Opened by a push the push worker has not applied yet: try again later.
            if (
                not closed
                and live.mode in PUSHED_MODES
                and not any(p.closing is action for p in self._pending)
            ):
                self._pending.append(_Pending(live, action))
        elif isinstance(action, Eta):
            tracking.set_eta(
                session,
                shipment_id,
                action.eta,
                stop_id=action.stop_id,
                source=source,
                description=action.description,
            )

    def _retry_closings(self) -> None:
        if not self._pending:
            return
        waiting = self._backlog() > 0
        kept = []
        for pending in self._pending:
            shipment_id = pending.live.shipment_id
            if shipment_id is None:
                continue
            with transaction(self.context.sessions) as session:
                if _close(session, shipment_id, pending.closing):
                    continue
            if not waiting:
                pending.misses += 1
            if pending.misses < CLOSING_TRIES:
                kept.append(pending)
        self._pending = kept

    def _rows(self, items: Sequence[tuple[Live, Item]]) -> list[dict[str, Any]]:
        """Ingestion rows for the pushes, as the carrier push operations store them: the body
        validated by the operation's model and kept in wire form, PENDING for the push worker.

        Not checked: the rule that a push is at most 5 minutes ahead of the service's clock.
        Under --speed the carriers' clock is the simulated one, ahead of the service's.
        """
        rows: list[dict[str, Any]] = []
        now = utcnow()
        world = self.world.spec.key
        for live, item in items:
            action = item.action
            if live.gone or not isinstance(action, Push):
                continue
            model = TruckloadTrackingUpdate if action.kind == TRUCKLOAD else ParcelStatusUpdate
            body = model.model_validate(action.body)
            rows.append(
                {
                    "ingestion_id": str(
                        uuid.uuid5(_INGESTION_IDS, f"{world}/{live.script.number}/{item.seq}")
                    ),
                    "kind": TRUCKLOAD if action.kind == TRUCKLOAD else PARCEL,
                    "owner_tenant_id": self.tenants.carrier_id,
                    "target_tenant_id": self.tenants.demo_id,
                    "payload": body.wire(),
                    "status": IngestionStatus.PENDING.value,
                    # The carrier sent it when it happened, or now when catching up.
                    "received_at": max(now, item.due),
                    "matched_shipment_ids": [],
                    "attempts": 0,
                }
            )
        if rows and items[0][1].due <= self.replay_until:
            # Done again after a restart: the pushes stored before it are not sent twice.
            ids = [row["ingestion_id"] for row in rows]
            stored = self._read(lambda s: _stored_ingestions(s, ids))
            rows = [row for row in rows if row["ingestion_id"] not in stored]
        return rows

    # --- reads ----------------------------------------------------------------------------

    def _backlog(self, session: Session | None = None) -> int:
        def count(s: Session) -> int:
            return int(
                s.scalar(
                    select(func.count())
                    .select_from(PushIngestion)
                    .where(
                        PushIngestion.status == IngestionStatus.PENDING.value,
                        PushIngestion.owner_tenant_id == self.tenants.carrier_id,
                    )
                )
                or 0
            )

        return count(session) if session is not None else self._read(count)

    def _read(self, reader: Callable[[Session], T]) -> T:
        with self.context.sessions() as session:
            return reader(session)


# --- the database, at start -----------------------------------------------------------------


def _tenants(context: ServiceContext) -> Tenants:
    with transaction(context.sessions) as session:
        demo = session.scalar(select(Tenant).where(Tenant.name == DEMO_TENANT_NAME))
        if demo is None:
            raise NoDemo
        carrier = session.scalar(select(Tenant).where(Tenant.name == CARRIER_TENANT_NAME))
        if carrier is None:
            # Nobody signs in as it: its admin's password is never shown.
            password = uuid.uuid4().hex + uuid.uuid4().hex
            carrier = ensure_tenant(
                session, CARRIER_TENANT_NAME, _CARRIER_ADMIN, password, "CARRIER"
            ).tenant
        return Tenants(demo.id, demo.uuid, demo.created_at, carrier.id)


def _anchor(context: ServiceContext, tenants: Tenants, seed: int) -> tuple[datetime, bool]:
    """The hour the demo was seeded around, and whether the stored shipments are that seed's
    plans (the seeding creates the tenant within minutes of its rounded `now`)."""
    created = floor_hour(tenants.demo_created)
    for anchor in (created, created - timedelta(hours=1)):
        plans = iter_plans(seed, anchor)
        for plan in (next(plans) for _ in range(5)):
            with context.sessions() as session:
                found = _ids_by_identifier_values(session, tenants.demo_id, [plan.identifiers[0]])
                shipment_id = next(iter(found.values()), None)
                if shipment_id is None:
                    continue  # deleted by a user: look at the next one
                data = session.scalar(select(Shipment.data).where(Shipment.id == shipment_id))
            stops = ((data or {}).get("routeInfo") or {}).get("stops") or [{}]
            first = plan.stops[0]
            stored = (stops[0].get("appointmentWindow") or {}).get("startDateTime")
            planned = first.appointment[0] if first.appointment else None
            if (
                stops[0].get("id") == str(first.id)
                and stored
                and datetime.fromisoformat(stored) == planned
            ):
                return anchor, True
            break
    log.warning(
        "simulator: the demo's shipments are not those of seed %d (set demo_seed); "
        "simulating new bookings only",
        seed,
    )
    return created, False


def _last_push(context: ServiceContext, carrier_id: int) -> datetime | None:
    """When the last thing the simulator pushed happened."""
    with context.sessions() as session:
        row = session.execute(
            select(PushIngestion.kind, PushIngestion.payload)
            .where(PushIngestion.owner_tenant_id == carrier_id)
            .order_by(PushIngestion.id.desc())
            .limit(1)
        ).first()
    if row is None:
        return None
    kind, payload = row
    if kind == TRUCKLOAD:
        truckload = payload["truckload"]
        stamp = (truckload.get("shipmentEvent") or truckload.get("readings"))["dateTime"]
        return datetime.fromisoformat(stamp)
    return ParcelStatusUpdate.model_validate(payload).timestamp


def _ids_by_identifier(
    session: Session, tenant_id: int, lives: Iterable[Live]
) -> dict[tuple[str, str], str]:
    return _ids_by_identifier_values(session, tenant_id, [live.primary for live in lives])


def _ids_by_identifier_values(
    session: Session, tenant_id: int, keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """(type, normalized value) -> id of the tenant's live shipment carrying it."""
    values = sorted({normalize_value(value) for _type, value in keys})
    wanted = {(kind, normalize_value(value)) for kind, value in keys}
    found: dict[tuple[str, str], str] = {}
    for start in range(0, len(values), _CHUNK):
        rows = session.execute(
            select(ShipmentIdentifier.type, ShipmentIdentifier.value_norm, Shipment.id)
            .join(Shipment, Shipment.pk == ShipmentIdentifier.shipment_pk)
            .where(
                ShipmentIdentifier.tenant_id == tenant_id,
                ShipmentIdentifier.value_norm.in_(values[start : start + _CHUNK]),
                Shipment.deleted_at.is_(None),
            )
            .order_by(Shipment.pk)
        )
        for kind, value, shipment_id in rows:
            if (kind, value) in wanted:
                found.setdefault((kind, value), shipment_id)
    return found


# --- the database, per tick -----------------------------------------------------------------


def _alive(session: Session, ids: set[str]) -> set[str]:
    found: set[str] = set()
    wanted = sorted(ids)
    for start in range(0, len(wanted), _CHUNK):
        found.update(
            session.scalars(
                select(Shipment.id).where(
                    Shipment.id.in_(wanted[start : start + _CHUNK]), Shipment.deleted_at.is_(None)
                )
            )
        )
    return found


def _stored_ingestions(session: Session, ids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        found.update(
            session.scalars(
                select(PushIngestion.ingestion_id).where(
                    PushIngestion.ingestion_id.in_(ids[start : start + _CHUNK])
                )
            )
        )
    return found


def _taken_ids(session: Session, direct: Sequence[tuple[Live, Item]]) -> set[str]:
    """Which of the events and exceptions to add exist already (written before a restart)."""
    events = [str(i.action.event.id) for _l, i in direct if isinstance(i.action, Event)]
    problems = [str(i.action.exception.id) for _l, i in direct if isinstance(i.action, Opening)]
    found: set[str] = set()
    for ids, column in ((events, ShipmentEvent.id), (problems, ShipmentExceptionRow.id)):
        for start in range(0, len(ids), _CHUNK):
            found.update(
                session.scalars(select(column).where(column.in_(ids[start : start + _CHUNK])))
            )
    return found


def _move(session: Session, shipment_id: str, state: State, at: datetime, source: str) -> None:
    """Follow the lifecycle as the push worker does: a move older than the current state
    (a replay) or one the lifecycle does not allow changes nothing."""
    row = session.scalar(select(Shipment).where(Shipment.id == shipment_id))
    assert row is not None
    since = session.scalar(
        select(func.max(ShipmentState.start_at)).where(
            ShipmentState.shipment_pk == row.pk,
            ShipmentState.end_at.is_(None),
            ShipmentState.source != tracking.SYSTEM,
        )
    )
    if since is not None and at <= since:
        return
    current = ShipmentStateType(row.current_state) if row.current_state else None
    if can_move(current, state.type):
        tracking.set_state(
            session, shipment_id, state.type, at, stop_id=state.stop_id, source=source
        )


def _close(session: Session, shipment_id: str, closing: Closing) -> bool:
    """Close the exception the incident opened; False when there is none yet."""
    rows = session.scalars(
        select(ShipmentExceptionRow)
        .join(Shipment, Shipment.pk == ShipmentExceptionRow.shipment_pk)
        .where(
            Shipment.id == shipment_id,
            ShipmentExceptionRow.type.in_(sorted(closing.types)),
            ShipmentExceptionRow.created_at >= closing.opened_at - timedelta(seconds=1),
            ShipmentExceptionRow.created_at <= closing.opened_at + timedelta(seconds=1),
        )
    ).all()
    for row in rows:
        if row.status != ExceptionStatus.OPEN.value:
            continue
        closed = tracking.exception_view(row).model_copy(
            update={"status": ExceptionStatus.CLOSED, "resolved_date_time": closing.resolved_at}
        )
        tracking.upsert_exception(session, shipment_id, closed, row.source)
    return bool(rows)
