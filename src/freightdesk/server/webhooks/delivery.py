"""The webhook delivery worker (registered in `app.WORKER_MODULES` through `WORKERS`).

One cycle, every `poll_interval_seconds` or sooner when a request finishes:
1. store the outcomes of finished requests (outbox.record), then let their chains move on,
2. fan out new rows of the shipment change journal (outbox.fan_out),
3. start requests for due messages (schedule.Scheduler), within the concurrency of each
   configuration and in all: a slow receiver fills only its own slots.

Database work runs on one thread of our own, never on the event loop; requests go out through
`sender.Sender` (httpx.AsyncClient). A message stays PENDING in the database until its
outcome is stored, so a restart resends what was in flight (at least once; receivers
deduplicate by `webhook-id`) and never loses anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.webhooks import outbox
from freightdesk.server.webhooks.outbox import Endpoint, Outcome
from freightdesk.server.webhooks.schedule import Pending, Scheduler
from freightdesk.server.webhooks.sender import Result, Sender
from freightdesk.server.webhooks.tuning import Tuning, current
from freightdesk.server.workers import Worker

log = logging.getLogger(__name__)

BASE_URL_KEY = "webhooks.base_url"
# Set (by the redelivery route) to make the worker reload its view of the outbox.
RESYNC_KEY = "webhooks.resync"
_PURGE_EVERY_SECONDS = 600.0
_CLEANUP_EVERY_SECONDS = 60.0
_MIN_CYCLE_SECONDS = 0.01
_SHUTDOWN_GRACE_SECONDS = 1.0

T = TypeVar("T")


def base_url(context: ServiceContext) -> str | None:
    """Where receivers can reach this service, for `shipmentShareLink`."""
    configured = context.settings.extra.get("public_base_url")
    found = configured or context.services.get(BASE_URL_KEY)
    return str(found) if found else None


class DeliveryWorker:
    def __init__(self, context: ServiceContext) -> None:
        self.context = context
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="webhooks-db")
        self.sender = Sender(per_endpoint=current(context).per_endpoint_concurrency)
        self.scheduler = Scheduler()
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._flying: dict[int, Pending] = {}
        self._finished: list[Outcome] = []
        self._endpoints: dict[int, Endpoint] = {}
        self._wake = asyncio.Event()
        self._loaded = False
        self._last_purge = 0.0
        self._last_cleanup = time.monotonic()

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args))

    async def run(self, stop: asyncio.Event) -> None:
        try:
            while not stop.is_set():
                tuning = current(self.context)
                started = time.monotonic()
                try:
                    more = await self._cycle(tuning)
                except Exception:
                    log.exception("webhook delivery cycle failed; retrying shortly")
                    more = False
                    await _wait(stop, asyncio.Event(), tuning.poll_interval_seconds * 10)
                if not more:
                    await _wait(stop, self._wake, self._pause(tuning))
                self._wake.clear()
                # Under load, let outcomes gather a moment: one cycle's database work then
                # serves many messages instead of one.
                rest = _MIN_CYCLE_SECONDS - (time.monotonic() - started)
                if rest > 0 and not stop.is_set():
                    await asyncio.sleep(rest)
        finally:
            await self._shutdown()

    def _pause(self, tuning: Tuning) -> float:
        due = self.scheduler.next_due()
        if due is None:
            return tuning.poll_interval_seconds
        until = (due - utcnow()).total_seconds()
        return max(0.0, min(tuning.poll_interval_seconds, until))

    async def _cycle(self, tuning: Tuning) -> bool:
        """One round; True when more journal rows are waiting to be fanned out."""
        finished, self._finished = self._finished, []
        resync = not self._loaded or bool(self.context.services.pop(RESYNC_KEY, False))
        try:
            read, fresh, loaded, endpoints = await self._db(
                self._sync_cycle, finished, tuning, resync, self.scheduler.configs()
            )
        except BaseException:
            self._finished = finished + self._finished  # stored next time
            raise
        for outcome in finished:
            self.scheduler.settle(outcome.pending, outcome.next_attempt_at)
            self._flying.pop(outcome.pending.message_id, None)
        if loaded is not None:
            self.scheduler.rebuild(loaded, self._flying.values())
            self._loaded = True
        for pending in fresh:
            self.scheduler.add(pending)
        for config_id in self.scheduler.configs() - endpoints.keys():
            self.scheduler.forget_config(config_id)
        self._endpoints = endpoints
        if time.monotonic() - self._last_cleanup > _CLEANUP_EVERY_SECONDS:
            self._last_cleanup = time.monotonic()
            busy = self.scheduler.configs() | {p.config_id for p in self._flying.values()}
            await self.sender.forget(busy)
        free = tuning.total_concurrency - len(self._tasks)
        taken = self.scheduler.take(
            utcnow(),
            per_config=tuning.per_endpoint_concurrency,
            limit=max(0, free),
            usable=lambda config: config in endpoints and endpoints[config].enabled,
        )
        if taken:
            bodies = await self._db(self._bodies, [p.message_id for p in taken])
            for pending in taken:
                body = bodies.get(pending.message_id)
                if body is None:  # deleted with its configuration
                    self.scheduler.settle(pending, None)
                    continue
                self._flying[pending.message_id] = pending
                endpoint = endpoints[pending.config_id]
                task = asyncio.create_task(self._deliver(pending, endpoint, body, tuning))
                self._tasks[pending.message_id] = task
        return read >= tuning.journal_batch

    def _sync_cycle(
        self, finished: list[Outcome], tuning: Tuning, resync: bool, waiting: set[int]
    ) -> tuple[int, list[Pending], list[Pending] | None, dict[int, Endpoint]]:
        sessions = self.context.sessions
        now = utcnow()
        if finished:
            with transaction(sessions) as session:
                outbox.record(session, finished, now)
        with transaction(sessions) as session:
            read, fresh = outbox.fan_out(
                session,
                tuning,
                now,
                base_url=base_url(self.context),
                max_positions=self.context.settings.max_positions_returned,
            )
        if time.monotonic() - self._last_purge > _PURGE_EVERY_SECONDS:
            self._last_purge = time.monotonic()
            with transaction(sessions) as session:
                outbox.purge(session, tuning, now)
        with sessions() as session:
            loaded = outbox.load_pending(session) if resync else None
            configs = set(waiting) | {p.config_id for p in fresh}
            configs |= {p.config_id for p in loaded or ()}
            endpoints = outbox.load_endpoints(session, configs, self._endpoints, now)
        return read, fresh, loaded, endpoints

    def _bodies(self, message_ids: list[int]) -> dict[int, str]:
        with self.context.sessions() as session:
            return outbox.load_bodies(session, message_ids)

    async def _deliver(
        self, pending: Pending, endpoint: Endpoint, body: str, tuning: Tuning
    ) -> None:
        try:
            result = await self.sender.send(endpoint, pending.event_id, body, tuning)
        except Exception as exc:  # a fault of ours: log it, and try again like a failure
            log.exception("webhook message %d could not be sent", pending.message_id)
            result = Result(attempted_at=utcnow(), latency_ms=0.0, error=f"internal: {exc!r}")
        finally:
            self._tasks.pop(pending.message_id, None)
        self._finished.append(
            outbox.decide(
                pending,
                attempted_at=result.attempted_at,
                latency_ms=result.latency_ms,
                status_code=result.status_code,
                error=result.error,
                retry_after=result.retry_after,
                tuning=tuning,
            )
        )
        self._wake.set()

    async def _shutdown(self) -> None:
        tasks = list(self._tasks.values())
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=_SHUTDOWN_GRACE_SECONDS)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        try:
            if self._finished:
                finished, self._finished = self._finished, []
                await self._db(_store, self.context, finished)
        except Exception:
            log.exception("could not store the last webhook outcomes; they will be resent")
        finally:
            self._executor.shutdown(wait=True)
            await self.sender.close()


def _store(context: ServiceContext, finished: list[Outcome]) -> None:
    with transaction(context.sessions) as session:
        outbox.record(session, finished, utcnow())


async def _wait(stop: asyncio.Event, wake: asyncio.Event, seconds: float) -> None:
    """Until stop, wake or the timeout, whichever comes first."""
    waiters = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*waiters, return_exceptions=True)


async def deliver_webhooks(context: ServiceContext, stop: asyncio.Event) -> None:
    await DeliveryWorker(context).run(stop)


WORKERS: list[Worker] = [deliver_webhooks]
