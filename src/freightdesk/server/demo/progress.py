"""The demo's preparation: begun before the service answers, finished while it answers.

`freightdesk serve --demo` on an empty database calls `begin_demo` (the demo tenant, its
admin `demo:demo`, the desktop app's client application and a `DemoSeeding` row: a few
milliseconds), prints the credentials and starts answering. The `prepare_demo` worker then
writes the rest in steps (`seed.continue_demo`): the tenant's setup, the shipments in batches
(the first batch small, so the list has something to show at once), the commercial data
(`commerce`: rate requests, bookings, packages, rail legs), then the documents and the
planning tools' data. Each step advances the `DemoSeeding` row in the transaction that
writes it: a service stopped or killed at any point resumes at the next start (with `--demo`)
without writing anything twice. `demo_status` is what `GET /services/demo/v1/status` answers.

Light on purpose: the service's start imports this module, and the seeding only when there is
something to seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
from freightdesk.server.tables.demo import DemoSeeding
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.workers import Worker, at_once

log = logging.getLogger(__name__)

DEMO_TENANT_NAME = "FreightDesk Demo"
DEMO_ADMIN = ("demo", "demo")
# The name the desktop app's service layer looks for when it rotates the sandbox's secret
# (`freightdesk client rotate --demo "FreightDesk desktop"`).
DESKTOP_CLIENT_NAME = "FreightDesk desktop"
# Set by `serve --demo`: the worker finishes a demo whose preparation was begun.
PREPARE_SERVICE = "demo_prepare"
# How often the simulator looks whether the demo is ready.
READY_POLL_SECONDS = 0.5
# The demo's shipments (`portfolio.COUNTS`, too heavy to import before the service answers,
# the shipments of the bookings its carriers accepted, `commerce.BOOKED_SHIPMENTS`, and those
# its partner shares with it, `partners.SHARED_WITH_DEMO`): the progress has its total from
# the first answer; the setup step writes the real count.
DEMO_SHIPMENTS = 302 + 2 + 3


class Stage(StrEnum):
    SETUP = "setup"  # the tenant's stop locations, push configurations, account groups
    SHIPMENTS = "shipments"  # the shipments, in batches
    # rate requests and quotes, bookings (the accepted ones' shipments), packages, rail legs
    COMMERCE = "commerce"
    EXTRAS = "extras"  # documents, the co-op truck pool, yard sites, the partner company
    READY = "ready"


class DemoState(StrEnum):
    NONE = "none"  # no demo prepared by this service
    PREPARING = "preparing"
    READY = "ready"


@dataclass(frozen=True)
class DemoCredentials:
    client_id: str
    client_secret: str


@dataclass(frozen=True)
class DemoStatus:
    state: DemoState
    shipments_ready: int = 0
    shipments_total: int = 0  # 0 while not counted yet

    def wire(self) -> dict[str, object]:
        return {
            "state": self.state.value,
            "shipmentsReady": self.shipments_ready,
            "shipmentsTotal": self.shipments_total,
        }


def begin_demo(
    context: ServiceContext, seed: int = 7, *, now: datetime | None = None
) -> DemoCredentials | None:
    """On an empty database: the demo tenant, its admin, the desktop client application and
    the seeding's progress row, in one transaction; returns the application's credentials.
    None (and no change) when the database already has a tenant. `now` (default: the current
    time) is rounded down to the hour; the shipments are placed around it."""
    anchor = (now or utcnow()).replace(minute=0, second=0, microsecond=0)
    with transaction(context.sessions) as session:
        # A second service started at the same moment may have won the race.
        if session.scalar(select(Tenant.id).limit(1)) is not None:
            return None
        tenant = ensure_tenant(session, DEMO_TENANT_NAME, *DEMO_ADMIN).tenant
        app, secret = create_client_app(session, tenant.id, DESKTOP_CLIENT_NAME)
        session.add(
            DemoSeeding(
                tenant_id=tenant.id,
                seed=seed,
                anchor=anchor,
                shipments_total=DEMO_SHIPMENTS,
                shipments_ready=0,
                stage=Stage.SETUP.value,
            )
        )
        return DemoCredentials(app.id, secret)


def pending(session: Session) -> DemoSeeding | None:
    """The demo's progress row while its preparation is not finished."""
    return session.scalar(select(DemoSeeding).where(DemoSeeding.stage != Stage.READY.value))


def claim(session: Session, tenant_id: int, stage: Stage, ready: int) -> DemoSeeding | None:
    """Lock the progress row for a step of the seeding (first thing in the step's
    transaction: on SQLite the write takes the database's write lock before anything is
    read); None when it is no longer where the caller found it (another seeder moved it)."""
    session.execute(
        update(DemoSeeding)
        .where(DemoSeeding.tenant_id == tenant_id)
        .values(shipments_ready=DemoSeeding.shipments_ready)
    )
    row = session.scalar(
        select(DemoSeeding).where(DemoSeeding.tenant_id == tenant_id).with_for_update()
    )
    if row is None or row.stage != stage.value or row.shipments_ready != ready:
        return None
    return row


def demo_status(context: ServiceContext) -> DemoStatus:
    # The table, not the ORM: the demo worker asks this as the service starts, and the first
    # ORM statement of a process configures every mapper (about 25 ms of CPU), which would
    # slow the first answers; the first request that needs them pays it instead.
    table = DemoSeeding.__table__.c
    with context.engine.connect() as connection:
        row = connection.execute(
            select(table.stage, table.shipments_ready, table.shipments_total).limit(1)
        ).first()
    if row is None:
        return DemoStatus(DemoState.NONE)
    state = DemoState.READY if row.stage == Stage.READY.value else DemoState.PREPARING
    return DemoStatus(state, row.shipments_ready, row.shipments_total)


async def demo_prepared(context: ServiceContext, stop: asyncio.Event) -> None:
    """Return once no demo is being prepared (or the service stops): what reads the whole
    demo (the simulator) waits for it."""
    while not stop.is_set():
        if (await asyncio.to_thread(demo_status, context)).state is not DemoState.PREPARING:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=READY_POLL_SECONDS)


@at_once  # not a second after the start like the other workers: the user waits for it
async def prepare_demo(context: ServiceContext, stop: asyncio.Event) -> None:
    """Finish a demo whose preparation was begun (only with `serve --demo`)."""
    if not context.services.get(PREPARE_SERVICE):
        return
    if (await asyncio.to_thread(demo_status, context)).state is not DemoState.PREPARING:
        return
    halt = threading.Event()

    async def relay() -> None:
        await stop.wait()
        halt.set()

    relaying = asyncio.create_task(relay(), name="demo-stop")
    try:
        await asyncio.to_thread(_continue_demo, context, halt)
    finally:
        relaying.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await relaying


def _continue_demo(context: ServiceContext, halt: threading.Event) -> None:
    # Imported here: the seeding brings the whole demo's world (a part of every start were it
    # imported with this module), and in this thread: on the event loop its import held up
    # the first requests of a first run, the app's, by 25 ms of CPU (0.1 s on a busy machine).
    from freightdesk.server.demo.seed import continue_demo

    continue_demo(context, halt)


WORKERS: list[Worker] = [prepare_demo]
