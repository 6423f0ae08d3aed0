"""CPU cost of the live carrier simulator with a big fleet at --speed 1.

Seeds the demo on a fresh database (SQLite by default, or the URL given) plus N extra shipments
under way at the demo's anchor (`arrivals.moving_fleet`, with their past as the seeding writes
it), then runs the service's workers in this process, as `freightdesk serve` runs them (the
app's lifespan: push processing, webhook delivery, the simulator, ...): first without the
simulator, then with it at the given speed. For each phase it prints the process's CPU time
over the wall time (resource.getrusage), the pushes the simulator made and the push worker
applied, and the machine's load average (the machine is shared: other people's test runs
inflate wall times, not this process's CPU time).

The phase without the simulator is the baseline of the one with it (same process, same
run); the target is the simulator's phase within 25% of one core (performance.md). The figures go
to `bench.report.publish`.

What they showed (28 Nov, SQLite, 1,250 extra shipments, 1,082 moving, load 9 to 13): the
workers alone 3.1% of a core, with the simulator 2.6% (105 pushes in 120 s, all applied; the
idle share varies by a point or two between phases); start-up 6.1 s CPU, 28 s wall.

    python -m bench.bench_simulator [--fleet 1000] [--speed 1] [--seconds 180]
                                    [--baseline 60] [--settle 10] [--database postgresql://...]

Each phase's window starts once the service's start-up work is done: at least `--settle`
seconds after it starts (the quick run's 2), then until a second passes with this process
under 2% of a core (at load 17 the start-up's work went on 12 s in).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, select

from bench.report import Figure, publish
from freightdesk.server.app import build_context, create_app
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.demo import DEMO_TENANT_NAME, seed_demo
from freightdesk.server.demo.arrivals import moving_fleet
from freightdesk.server.demo.itineraries import floor_hour
from freightdesk.server.demo.seed import add_planned_shipments
from freightdesk.server.settings import ServerSettings
from freightdesk.server.simulator.engine import Engine
from freightdesk.server.tables.push import PushIngestion
from freightdesk.server.tables.tenancy import Tenant

SEED = 7
SETTLE_SECONDS = 10.0
# CPU seconds in a second under which the start-up's work is done (the workers alone then
# use under 2 ms a second; the start-up 200 ms and more, from a second in).
QUIET_CPU = 0.02
TARGET_SHARE = 25.0  # percent of one core, with the simulator running


@dataclass
class Phase:
    share: float  # percent of one core over the measured wall time
    seconds: float
    made: int
    applied: int
    load: float
    moving: int = 0
    catch_up_wall: float = float("nan")
    catch_up_cpu: float = float("nan")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def pushes(context: ServiceContext) -> tuple[int, int]:
    """(all pushes, pushes applied) in the ingestion log."""
    with context.sessions() as session:
        total = session.scalar(select(func.count()).select_from(PushIngestion)) or 0
        done = (
            session.scalar(
                select(func.count())
                .select_from(PushIngestion)
                .where(PushIngestion.status != "PENDING")
            )
            or 0
        )
    return total, done


def seed(context: ServiceContext, fleet: int) -> None:
    began = time.perf_counter()
    now = datetime.now(UTC)
    seed_demo(context, seed=SEED, now=now)
    anchor = floor_hour(now)
    plans = moving_fleet(SEED, anchor, fleet)
    with transaction(context.sessions) as session:
        tenant = session.scalar(select(Tenant).where(Tenant.name == DEMO_TENANT_NAME))
        assert tenant is not None
        add_planned_shipments(session, tenant.id, plans, anchor, SEED)
    print(f"seeded the demo and {fleet} moving shipments in {time.perf_counter() - began:.0f} s")


async def settle(least: float) -> None:
    """At least `least` seconds, then until a second passes with this process quiet
    (QUIET_CPU), at most a minute in all."""
    began = time.monotonic()
    await asyncio.sleep(least)
    while time.monotonic() - began < 60:
        cpu = cpu_seconds()
        await asyncio.sleep(1.0)
        if cpu_seconds() - cpu < QUIET_CPU:
            return


async def phase(
    context: ServiceContext, settings: ServerSettings, seconds: float, least: float
) -> Phase:
    app = create_app(settings, context)
    began, began_cpu = time.monotonic(), cpu_seconds()
    catch_up = (float("nan"), float("nan"))
    async with app.router.lifespan_context(app):
        if context.services.get("simulate_speed"):
            while True:
                engine = context.services.get("simulator")
                if isinstance(engine, Engine) and not engine.catching_up:
                    break
                await asyncio.sleep(0.5)
            catch_up = (time.monotonic() - began, cpu_seconds() - began_cpu)
            # Measure the steady state: once what the start-up caught up with is stored (the
            # last catching-up tick's pushes are being accepted) and applied.
            await settle(least)
            while True:
                made, applied = pushes(context)
                if made == applied:
                    break
                await asyncio.sleep(0.5)
            print(
                f"  simulator caught up after {catch_up[0]:.0f} s and "
                f"{catch_up[1]:.0f} s CPU (planning, catching up from the "
                f"anchor); {engine.moving()} shipments moving, {len(engine.world.lives)} open"
            )
        else:
            await settle(least)  # the app's start-up work (OpenAPI document)
        print(f"  settled {time.monotonic() - began:.0f} s after the start")
        before_pushes = pushes(context)
        cpu, wall = cpu_seconds(), time.monotonic()
        load = os.getloadavg()[0]
        await asyncio.sleep(seconds)
        used, elapsed = cpu_seconds() - cpu, time.monotonic() - wall
        after_pushes = pushes(context)
        engine = context.services.get("simulator")
        print(
            f"  {elapsed:.0f} s wall: {used:.1f} s CPU = {100 * used / elapsed:.1f}% of one core; "
            f"pushes made {after_pushes[0] - before_pushes[0]}, applied "
            f"{after_pushes[1] - before_pushes[1]}; load average {load:.1f} to "
            f"{os.getloadavg()[0]:.1f}"
        )
        moving = 0
        if isinstance(engine, Engine):
            moving = engine.moving()
            print(f"  {engine.progress()}; {moving} moving")
    return Phase(
        share=100 * used / elapsed,
        seconds=elapsed,
        made=after_pushes[0] - before_pushes[0],
        applied=after_pushes[1] - before_pushes[1],
        load=(load + os.getloadavg()[0]) / 2,
        moving=moving,
        catch_up_wall=catch_up[0],
        catch_up_cpu=catch_up[1],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # About four in five of them are between their first departure and last arrival at any
    # moment (the others wait at a stop): 1,200 make about 1,000 moving with the demo's own.
    parser.add_argument("--fleet", type=int, default=1200, help="extra shipments under way")
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--seconds", type=float, default=180.0, help="measured wall time")
    parser.add_argument("--baseline", type=float, default=60.0, help="without the simulator")
    parser.add_argument(
        "--settle", type=float, default=SETTLE_SECONDS, help="least seconds before a window"
    )
    parser.add_argument("--database", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="fd-bench-sim-"))
    url = args.database or f"sqlite:///{directory / 'freightdesk.sqlite3'}"
    settings = ServerSettings(data_dir=directory, database_url=url)
    context = build_context(settings)

    async def both() -> tuple[Phase | None, Phase]:
        # One event loop for both phases: the service's helpers keep loop-bound objects.
        idle = None
        if args.baseline:
            print("the service's workers without the simulator:")
            idle = await phase(context, settings, args.baseline, args.settle)
        context.services["simulate_speed"] = args.speed
        context.services["simulate_fleet"] = args.fleet
        print(f"with the simulator at --speed {args.speed:g}:")
        return idle, await phase(context, settings, args.seconds, args.settle)

    try:
        seed(context, args.fleet)
        idle, running = asyncio.run(both())
    finally:
        context.engine.dispose()
        shutil.rmtree(directory, ignore_errors=True)
    fleet = f"demo + {args.fleet:,} extra shipments, {running.moving:,} moving"
    figures = []
    if idle is not None:
        figures.append(
            Figure(
                "simulator",
                f"the service's workers without the simulator, {idle.seconds:.0f} s",
                idle.share,
                unit="% of a core",
                load=idle.load,
            )
        )
    figures += [
        Figure(
            "simulator",
            f"with the simulator at --speed {args.speed:g} ({fleet}), {running.seconds:.0f} s; "
            f"{running.made} pushes made, {running.applied} applied",
            running.share,
            unit="% of a core",
            baseline=idle.share if idle is not None else None,
            baseline_what="the same workers without the simulator",
            limit=TARGET_SHARE,
            load=running.load,
        ),
        Figure(
            "simulator",
            "simulator start-up: rebuilding the world and catching up from the anchor, CPU",
            running.catch_up_cpu,
            unit="s",
            load=running.load,
        ),
        Figure(
            "simulator",
            "simulator start-up: rebuilding the world and catching up from the anchor, wall",
            running.catch_up_wall,
            unit="s",
            load=running.load,
        ),
    ]
    publish(figures)


if __name__ == "__main__":
    main()
