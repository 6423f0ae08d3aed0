"""The webhook delivery worker (registered in `app.WORKER_MODULES` through `WORKERS`).

One cycle whenever there is work: a change or a configuration committed (a wake-up,
`db.wakeups`, from this instance or another), a request finished, a retry due, a message
redelivered (a reload of the outbox); and at least every `poll_interval_seconds` (a wake-up
missed):
1. store the outcomes of finished requests (outbox.record; a message redelivered during its
   attempt stays queued, and the cycle reloads the outbox) and fan out new rows of the
   shipment change journal (outbox.fan_out), in one transaction, then let chains move on,
2. start requests for due messages (schedule.Scheduler), within the concurrency of each
   configuration and in all: a slow receiver fills only its own slots.
3. when the fan-out has caught up, every `journal_prune_every_seconds`: delete a batch of
   journal rows no reader needs any more (`journal_prune`), batch after batch, one a cycle.

Database work runs on one thread of our own, never on the event loop; requests go out through
`sender.Sender`. Bodies made by the fan-out stay in memory (`BodyCache`) until sent, so a
change fanned out to many configurations is neither read back nor copied per delivery. A
message stays PENDING in the database until its outcome is stored, so a restart resends what
was in flight (at least once; receivers deduplicate by `webhook-id`) and never loses anything.
At start, `migrate` brings older databases' outbox and clear secrets up to date.

On PostgreSQL several instances may share the database: each sends only the chains it holds a
lease on (`leases`), so a message is sent by one live instance, in order per configuration
and shipment, and a dead instance's messages move to the others. On SQLite the one instance
sends everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeVar

from freightdesk.server.context import ServiceContext
from freightdesk.server.db import (
    WEBHOOKS_CHANNEL,
    WEBHOOKS_RELOAD_CHANNEL,
    transaction,
    utcnow,
    wake_on_commit,
    wakeups,
)
from freightdesk.server.settings import LISTEN_URL_KEY
from freightdesk.server.webhooks import cursor, failures, journal_prune, migrate, outbox, secret_box
from freightdesk.server.webhooks.leases import Key, Leases
from freightdesk.server.webhooks.outbox import Endpoint, Fanned, Outcome
from freightdesk.server.webhooks.schedule import Pending, Scheduler
from freightdesk.server.webhooks.sender import Result, Sender
from freightdesk.server.webhooks.targets import TargetPolicy
from freightdesk.server.webhooks.tuning import Tuning, current
from freightdesk.server.workers import Worker, setter, wait_for_any

log = logging.getLogger(__name__)

BASE_URL_KEY = "webhooks.base_url"
# True while the worker runs (after bringing the database up to date); tests wait for it.
RUNNING_KEY = "webhooks.running"
# The worker's `Progress`, replaced after every cycle.
PROGRESS_KEY = "webhooks.progress"
_PURGE_EVERY_SECONDS = 600.0
_CLEANUP_EVERY_SECONDS = 60.0
# A cycle (one transaction: outcomes stored, new changes fanned out) runs at most this often,
# so that under load one transaction serves many changes and outcomes: a cycle costs about
# 2 ms of CPU whatever it carries. Requests do not wait for cycles (a finished one starts
# the next of its receiver); a change waits at most this long (an idle worker is woken at
# once).
_MIN_CYCLE_SECONDS = 0.05
# After a failed cycle (the database down), the next one waits this long.
_RETRY_AFTER_FAILURE_SECONDS = 1.0
_SHUTDOWN_GRACE_SECONDS = 1.0
# Bodies kept in memory for messages not sent yet; beyond this they are read back when due.
_BODY_CACHE_BYTES = 64 * 1024 * 1024

T = TypeVar("T")


@dataclass(frozen=True)
class Progress:
    """How far the worker got, published after each cycle (`PROGRESS_KEY`), so that a test
    can wait for the pipeline to move past a point instead of sleeping: a cycle that begins
    after a commit fans out the changes it committed, so once two more cycles have ended,
    their messages are queued; a configuration absent from `busy` then has nothing pending
    (waiting, retrying) or in flight, so it gets nothing more of them."""

    cycles: int = 0
    # Configurations with messages pending or in flight when the cycle ended.
    busy: frozenset[int] = frozenset()


def base_url(context: ServiceContext) -> str | None:
    """Where receivers can reach this service, for `shipmentShareLink`: the public URL,
    the same for every instance; else the address this instance listens at, so that a
    message is never given a relative link, even by an instance that has served no request;
    else (a service built in-process, which is not told where it listens) the base URL of
    the last PUT /api/v4/webhooks."""
    found = (
        context.settings.public_url
        or context.services.get(LISTEN_URL_KEY)
        or context.services.get(BASE_URL_KEY)
    )
    return str(found) if found else None


@dataclass(frozen=True)
class Synced:
    """What a cycle's transaction gave: the fan-out, every waiting message (when the
    scheduler starts over) or the messages to add, chains to forget, the endpoints."""

    fanned: Fanned
    loaded: list[Pending] | None
    added: list[Pending]
    lost: set[Key]
    endpoints: dict[int, Endpoint]
    # A full batch of the journal was pruned: the next cycle goes on at once.
    pruning: bool = False


class BodyCache:
    """Payload bodies by id, oldest dropped first beyond a budget of bytes."""

    def __init__(self, budget: int = _BODY_CACHE_BYTES) -> None:
        self._bodies: OrderedDict[int, bytes] = OrderedDict()
        self._size = 0
        self._budget = budget

    def __contains__(self, payload_id: int) -> bool:
        return payload_id in self._bodies

    def get(self, payload_id: int) -> bytes | None:
        return self._bodies.get(payload_id)

    def update(self, bodies: dict[int, bytes]) -> None:
        for payload_id, body in bodies.items():
            if payload_id not in self._bodies:
                self._bodies[payload_id] = body
                self._size += len(body)
        while self._size > self._budget and self._bodies:
            _id, body = self._bodies.popitem(last=False)
            self._size -= len(body)

    def keep_only(self, payload_ids: Iterable[int]) -> None:
        wanted = set(payload_ids)
        for payload_id in [p for p in self._bodies if p not in wanted]:
            self._size -= len(self._bodies.pop(payload_id))


class DeliveryWorker:
    def __init__(self, context: ServiceContext) -> None:
        self.context = context
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="webhooks-db")
        self.sender = Sender(TargetPolicy.of(context.settings))
        self.scheduler = Scheduler()
        self.box = secret_box.box(context)
        self._bodies = BodyCache()
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._flying: dict[int, Pending] = {}
        self._finished: list[Outcome] = []
        self._endpoints: dict[int, Endpoint] = {}
        self._wake = asyncio.Event()
        self._loaded = False
        # Woken on WEBHOOKS_RELOAD_CHANNEL: the next cycle reloads its view of the outbox.
        self._reload = False
        self._stopping = False
        self._last_purge = 0.0
        self._last_prune = 0.0
        self._last_cleanup = time.monotonic()
        self._published = Progress()
        # Several instances may share a PostgreSQL database; one owns a SQLite file.
        self.leases = Leases() if context.engine.dialect.name == "postgresql" else None

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args))

    async def run(self, stop: asyncio.Event) -> None:
        found = wakeups(self.context.engine)
        unsubscribes = [
            found.subscribe(WEBHOOKS_CHANNEL, setter(self._wake)),
            found.subscribe(WEBHOOKS_RELOAD_CHANNEL, self._reloader()),
        ]
        try:
            await self._db(migrate.upgrade, self.context.sessions, self.box)
            self.context.services[RUNNING_KEY] = True
            while not stop.is_set():
                tuning = current(self.context)
                started = time.monotonic()
                try:
                    more = await self._cycle(tuning)
                except Exception:
                    log.exception("webhook delivery cycle failed; retrying shortly")
                    more = False
                    await wait_for_any(_RETRY_AFTER_FAILURE_SECONDS, stop)
                if not more:
                    await wait_for_any(self._pause(tuning), stop, self._wake)
                self._wake.clear()
                rest = _MIN_CYCLE_SECONDS - (time.monotonic() - started)
                if rest > 0 and not stop.is_set():
                    await asyncio.sleep(rest)
        finally:
            for unsubscribe in unsubscribes:
                unsubscribe()
            self.context.services.pop(RUNNING_KEY, None)
            await self._shutdown()

    def _reloader(self) -> Callable[[], None]:
        """The wake-up (from any thread) that makes the next cycle reload the outbox."""
        loop = asyncio.get_running_loop()

        def reload() -> None:
            self._reload = True
            self._wake.set()

        def from_any_thread() -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(reload)

        return from_any_thread

    def _pause(self, tuning: Tuning) -> float:
        """How long an idle worker sleeps unless woken: until the next retry is due, the
        leases are to be renewed (and expired ones taken over), or the fallback poll."""
        pause = tuning.poll_interval_seconds
        if self.leases is not None:
            pause = min(pause, self.leases.renewal_due_in(tuning.lease_seconds))
        due = self.scheduler.next_due()
        if due is not None:
            pause = min(pause, (due - utcnow()).total_seconds())
        return max(0.0, pause)

    async def _cycle(self, tuning: Tuning) -> bool:
        """One round; True when more journal rows are waiting to be fanned out."""
        finished, self._finished = self._finished, []
        resync, self._reload = not self._loaded or self._reload, False
        waiting = self.scheduler.configs()
        idle = self.leases.owned - self.scheduler.chains() if self.leases is not None else set()
        try:
            synced = await self._db(self._sync_cycle, finished, tuning, resync, waiting, idle)
        except BaseException:
            self._finished = finished + self._finished  # stored next time
            self._reload |= resync  # asked for, not done
            if self.leases is not None:
                self._loaded = False  # the leases' view may be ahead of the rollback
            raise
        fanned, loaded, added, endpoints = (
            synced.fanned,
            synced.loaded,
            synced.added,
            synced.endpoints,
        )
        for key in synced.lost:
            # Taken over by another instance (this one could not renew in time), or its
            # configuration was deleted.
            log.info("webhook chain %s is no longer this instance's to send", key)
            self.scheduler.forget_chain(key)
        self._bodies.update(fanned.bodies)
        if loaded is not None:
            # Read after this cycle's commit (so it holds the new messages too); outcomes
            # that came in since are not in it yet.
            unstored = self._finished
            self.scheduler.rebuild(
                loaded,
                current=[
                    *self._flying.values(),
                    *(o.pending for o in unstored if o.status == outbox.PENDING),
                ],
                done=[o.pending.message_id for o in unstored if o.status != outbox.PENDING],
            )
            self._loaded = True
        else:
            for pending in added:
                self.scheduler.add(pending)
        configs = waiting | {p.config_id for p in added}
        configs |= {p.config_id for p in loaded or ()}
        for config_id in self.scheduler.configs() - endpoints.keys():
            self.scheduler.forget_config(config_id)
        # Kept beyond the configurations waiting now: the next change of one is likely soon,
        # and an unchanged configuration is then not read (nor its secrets decrypted) again.
        for config_id in configs - endpoints.keys():
            self._endpoints.pop(config_id, None)  # deleted
        self._endpoints.update(endpoints)
        if time.monotonic() - self._last_cleanup > _CLEANUP_EVERY_SECONDS:
            self._last_cleanup = time.monotonic()
            busy = self.scheduler.configs() | {p.config_id for p in self._flying.values()}
            await self.sender.forget(busy)
            self._endpoints = {c: e for c, e in self._endpoints.items() if c in busy}
            waiting = self.scheduler.payloads() | {p.payload_id for p in self._flying.values()}
            self._bodies.keep_only(waiting)
        missing = self._launch(self._take(tuning), tuning)
        if missing:
            self._bodies.update(await self._db(self._load_bodies, {p.payload_id for p in missing}))
            for pending in self._launch(missing, tuning):
                self.scheduler.settle(pending, None)  # deleted meanwhile (its configuration)
        self._published = Progress(
            cycles=self._published.cycles + 1,
            busy=frozenset(self.scheduler.configs() | {p.config_id for p in self._flying.values()}),
        )
        self.context.services[PROGRESS_KEY] = self._published
        return fanned.read >= tuning.journal_batch or synced.pruning

    def _take(self, tuning: Tuning, only: int | None = None) -> list[Pending]:
        if self.leases is not None and not self.leases.usable():
            return []  # its leases may have run out: another instance may send them now
        endpoints = self._endpoints
        return self.scheduler.take(
            utcnow(),
            per_config=tuning.per_endpoint_concurrency,
            limit=max(0, tuning.total_concurrency - len(self._tasks)),
            usable=lambda config: config in endpoints and endpoints[config].enabled,
            only=only,
        )

    def _launch(self, taken: list[Pending], tuning: Tuning) -> list[Pending]:
        """Start requests for these messages; returns those whose body is not at hand."""
        missing: list[Pending] = []
        for pending in taken:
            body = self._bodies.get(pending.payload_id)
            if body is None:
                missing.append(pending)
                continue
            self._flying[pending.message_id] = pending
            endpoint = self._endpoints[pending.config_id]
            task = asyncio.create_task(self._deliver(pending, endpoint, body, tuning))
            self._tasks[pending.message_id] = task
        return missing

    def _sync_cycle(
        self,
        finished: list[Outcome],
        tuning: Tuning,
        resync: bool,
        waiting: set[int],
        idle: set[Key],
    ) -> Synced:
        now = utcnow()
        # One transaction per cycle: the outcomes of the last requests, the new messages, and
        # what the scheduler needs to send them.
        with transaction(self.context.sessions) as session:
            if outbox.record(session, finished, now):
                # Redelivered while in flight: queued again, and only a reload finds them.
                resync = True
            fanned = outbox.fan_out(
                session,
                tuning,
                now,
                base_url=base_url(self.context),
                max_positions=self.context.settings.max_positions_returned,
            )
            added, lost = fanned.pending, set[Key]()
            if self.leases is None:
                loaded = outbox.load_pending(session, now) if resync else None
            else:
                claimed = self.leases.sync(
                    session,
                    seconds=tuning.lease_seconds,
                    fanned={p.key for p in fanned.pending},
                    idle=idle,
                    full=resync,
                    now=now,
                )
                loaded, added = (claimed.pending, []) if resync else (None, claimed.pending)
                lost = claimed.lost
                if {p.key for p in fanned.pending} - self.leases.owned:
                    # Messages of chains another instance sends: wake it up.
                    wake_on_commit(session, WEBHOOKS_CHANNEL)
            configs = set(waiting) | {p.config_id for p in added}
            configs |= {p.config_id for p in loaded or ()}
            endpoints = outbox.load_endpoints(session, configs, self._endpoints, now, self.box)
        if time.monotonic() - self._last_purge > _PURGE_EVERY_SECONDS:
            with transaction(self.context.sessions) as session:
                purged = outbox.purge(session, tuning, now)
            if purged < outbox.PURGE_BATCH:
                self._last_purge = time.monotonic()
        # In the fan-out's idle turns only: a backlog to fan out goes first.
        pruning = fanned.read < tuning.journal_batch and self._prune(tuning, now)
        return Synced(fanned, loaded, added, lost, endpoints, pruning)

    def _prune(self, tuning: Tuning, now: datetime) -> bool:
        """A batch of the journal pruned when due; True when a full one went (more wait)."""
        if time.monotonic() - self._last_prune < tuning.journal_prune_every_seconds:
            return False
        try:
            with transaction(self.context.sessions) as session:
                batch = journal_prune.batch_size(session)
                full = journal_prune.prune(session, tuning, now, batch) >= batch
        except Exception:
            # Not the cycle's failure: its outcomes and fan-out are committed already.
            log.exception("pruning the shipment change journal failed; trying again later")
            full = False
        if not full:
            self._last_prune = time.monotonic()
        return full

    def _load_bodies(self, payload_ids: set[int]) -> dict[int, bytes]:
        with self.context.sessions() as session:
            return outbox.load_bodies(session, payload_ids)

    async def _deliver(
        self, pending: Pending, endpoint: Endpoint, body: bytes, tuning: Tuning
    ) -> None:
        try:
            result = await self.sender.send(endpoint, pending.event_id, body, tuning)
        except Exception as exc:  # a fault of ours: log it, and try again like a failure
            log.exception("webhook message %d could not be sent", pending.message_id)
            failure = failures.of_exception(exc, where="", timeout_seconds=tuning.timeout_seconds)
            result = Result(
                attempted_at=utcnow(), latency_ms=0.0, error=failure.words, detail=failure.detail
            )
        finally:
            self._tasks.pop(pending.message_id, None)
        outcome = outbox.decide(
            pending,
            attempted_at=result.attempted_at,
            latency_ms=result.latency_ms,
            status_code=result.status_code,
            error=result.error,
            detail=result.detail,
            retry_after=result.retry_after,
            tuning=tuning,
        )
        self._finished.append(outcome)  # stored by the next cycle
        self._flying.pop(pending.message_id, None)
        self.scheduler.settle(pending, outcome.next_attempt_at)
        if outcome.gone:
            # Stop at once; the next cycle stores that the configuration is disabled.
            known = self._endpoints.get(pending.config_id)
            if known is not None:
                self._endpoints[pending.config_id] = replace(known, enabled=False)
        elif not self._stopping:
            # The receiver is free again: its next message goes now, not at the next cycle.
            taken = self._take(tuning, only=pending.config_id)
            for waiting in self._launch(taken, tuning):
                self.scheduler.release(waiting)  # its body is read by the next cycle
        self._wake.set()

    async def _shutdown(self) -> None:
        self._stopping = True
        tasks = list(self._tasks.values())
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=_SHUTDOWN_GRACE_SECONDS)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        try:
            finished, self._finished = self._finished, []
            if finished or self.leases is not None:
                await self._db(_store, self.context, finished, self.leases)
        except Exception:
            log.exception("could not store the last webhook outcomes; they will be resent")
        finally:
            self._executor.shutdown(wait=True)
            await self.sender.close()


def _store(context: ServiceContext, finished: list[Outcome], leases: Leases | None) -> None:
    """The last outcomes; the leases are let go, for the other instances to take over now."""
    with transaction(context.sessions) as session:
        outbox.record(session, finished, utcnow())
        if leases is not None:
            cursor.lock_cursor(session)  # lease changes take turns with the others' cycles
            if leases.release_all(session):
                # Without a wake-up they would take over at their next renewal.
                wake_on_commit(session, WEBHOOKS_RELOAD_CHANNEL)


async def deliver_webhooks(context: ServiceContext, stop: asyncio.Event) -> None:
    await DeliveryWorker(context).run(stop)


WORKERS: list[Worker] = [deliver_webhooks]
