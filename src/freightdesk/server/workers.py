"""Background work of the local service (push processing, webhook delivery, simulator).

An area registers a worker: an async function that runs until its stop event is set. The app
factory starts every registered worker with the service and stops them when it shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from freightdesk.server.context import ServiceContext

log = logging.getLogger(__name__)

# A worker that waits for work sleeps until woken (an event its producers set, or a database
# wake-up: `db.wakeups`), and looks anyway at least this often.
IDLE_POLL_SECONDS = 10.0

Worker = Callable[[ServiceContext, asyncio.Event], Awaitable[None]]

# Workers that start with the service, without the start's delay (see `at_once`).
_AT_ONCE: set[Worker] = set()


def at_once(worker: Worker) -> Worker:
    """Mark `worker` to start as the service starts, not after the delay `Workers.start` is
    given: work the user waits for (the demo's data on a first run)."""
    _AT_ONCE.add(worker)
    return worker


def setter(event: asyncio.Event) -> Callable[[], None]:
    """A function that sets `event` (of the running loop) from any thread."""
    loop = asyncio.get_running_loop()

    def set_event() -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(event.set)

    return set_event


async def wait_for_any(seconds: float, *events: asyncio.Event) -> None:
    """Until one of `events` is set or `seconds` pass, whichever comes first."""
    waiters = [asyncio.ensure_future(found.wait()) for found in events]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*waiters, return_exceptions=True)


class Workers:
    def __init__(self, context: ServiceContext, workers: list[Worker]) -> None:
        self._context = context
        self._workers = workers
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self, delay: float = 0.0) -> None:
        """Start every worker, `delay` seconds from now (unless the service stops first)."""
        for worker in self._workers:
            name = getattr(worker, "__qualname__", repr(worker))
            self._tasks.append(asyncio.create_task(self._guard(worker, delay), name=name))

    async def _guard(self, worker: Worker, delay: float) -> None:
        if delay > 0 and worker not in _AT_ONCE:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), timeout=delay)
        # A worker that crashes is restarted: losing push processing silently is worse.
        while not self._stop.is_set():
            try:
                await worker(self._context, self._stop)
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("background worker %s failed; restarting in 1 s", worker)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), timeout=1.0)

    async def stop(self) -> None:
        self._stop.set()
        if not self._tasks:
            return
        _done, pending = await asyncio.wait(self._tasks, timeout=5.0)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        self._tasks.clear()
