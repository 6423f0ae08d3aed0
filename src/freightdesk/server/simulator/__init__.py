"""The live carrier simulator: `freightdesk serve --demo --simulate [--speed N]`.

It keeps the demo moving for days. Every demo shipment was simulated to its end when it was
planned (`server.demo`: real places, road, rail and sea networks, hours-of-service driving,
delays, missed pickups, rolled containers); the simulator reveals those plans as its clock
passes, through the paths a real deployment's data would take (see `script`): trucks push
truckload readings (position, speed, heading, fuel, reefer temperatures) and milestones,
parcel carriers push scans, and rail, ocean and air carriers, which have no push operation,
report through the tracking domain. New shipments are booked at a steady rate (`arrivals`),
so about 300 stay open; delivered ones complete. `--speed N` runs the clock N times faster
than real time (60: an hour a minute); routine reports are thinned when the speed would make
more than the push worker can apply.

Pushes enter the service as a carrier's would: each body is validated by the push
operation's model and handed to the same durable group-commit queue the push operations use
(`push_intake.ingestion_queue(context).accept`), so it is stored before the simulator moves
on and applied by the push worker like any other push, with a receipt in the ingestion log
(owned by the "FreightDesk Demo Carriers" carrier tenant, for the demo tenant's account). The
simulator calls the queue directly rather than posting to its own service over HTTP: it needs
no credentials, cannot be refused by the 5-minutes-ahead clock rule when its clock runs ahead
under --speed, and costs no request per push.

Everything is derived from the database and the clock (see `engine`): the simulator keeps no
state of its own and a restarted service continues where the world stands, without sending
anything twice. It only runs when `context.services["simulate_speed"]` is set (by `serve
--simulate`), and only on a database with the demo tenant.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading

from freightdesk.server.context import ServiceContext
from freightdesk.server.demo.progress import demo_prepared
from freightdesk.server.domain.push_intake import ingestion_queue
from freightdesk.server.workers import Worker

log = logging.getLogger(__name__)

__all__ = ["WORKERS", "simulate"]

# A tick a second; while the clock is behind (catching up), ticks follow each other closely.
TICK_SECONDS = 1.0
CATCH_UP_PAUSE = 0.02
PROGRESS_SECONDS = 60.0


async def simulate(context: ServiceContext, stop: asyncio.Event) -> None:
    """Run the simulator until the service stops (only with `simulate_speed` set)."""
    speed = context.services.get("simulate_speed")
    if not speed:
        return
    if float(speed) <= 0:
        log.warning("simulator: --speed must be above 0 (got %s); not running", speed)
        return
    # The world is rebuilt from the seeded demo: wait until it is all there.
    await demo_prepared(context, stop)
    if stop.is_set():
        return
    # Imported only when simulating: the engine brings the whole demo (a part of every start).
    from freightdesk.server.simulator.engine import Engine, NoDemo
    from freightdesk.server.simulator.world import Halted

    # Planning runs in a thread; this event lets it give up when the service stops.
    halt = threading.Event()
    relay = asyncio.create_task(_relay(stop, halt), name="simulator-stop")
    try:
        try:
            engine = await asyncio.to_thread(Engine.start, context, float(speed), halt)
        except NoDemo:
            log.warning("simulator: there is no demo tenant (start with --demo); not running")
            return
        except Halted:
            return
        # For benchmarks and diagnostics: where the clock stands (`progress()`).
        context.services["simulator"] = engine
        queue = ingestion_queue(context)
        loop = asyncio.get_running_loop()
        next_log = loop.time() + PROGRESS_SECONDS
        while not stop.is_set():
            rows = await asyncio.to_thread(engine.tick)
            if rows:
                await asyncio.gather(*(queue.accept(row) for row in rows))
            if loop.time() >= next_log:
                log.info("simulator: %s", engine.progress())
                next_log = loop.time() + PROGRESS_SECONDS
            await _sleep(stop, CATCH_UP_PAUSE if engine.catching_up else TICK_SECONDS)
        log.info("simulator stopped: %s", engine.progress())
    finally:
        relay.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await relay


async def _relay(stop: asyncio.Event, halt: threading.Event) -> None:
    await stop.wait()
    halt.set()


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


WORKERS: list[Worker] = [simulate]
