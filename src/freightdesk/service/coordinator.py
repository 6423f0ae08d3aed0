"""One owner per data source: polls while someone listens, tells listeners only of real changes.

The pattern is Home Assistant's DataUpdateCoordinator: the coordinator fetches on a schedule,
keeps the last good data when a fetch fails, backs off with jitter, debounces manual refreshes,
and polls only while it has listeners. Writes made through the service layer hand their result
to `apply()`, so listeners see it at once instead of at the next poll. A change the service
layer hears of without its result (`notify()`) has the poll fetch soon, coalesced: a burst of
notifications makes one fetch, and those arriving during a fetch make one more after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
C = TypeVar("C")

Listener = Callable[[C], None]

MAX_STALE_FETCHES = 3
# A notification waits this long for the rest of its burst before the fetch starts.
NOTIFY_SETTLE = 0.05
# Fetches asked for by notifications start at least this far apart: a steady stream of them
# (a bulk operation's, a busy carrier's) fetches twice a second, not back to back.
NOTIFY_MIN_GAP = 0.5


class StaleFetch(Exception):
    """Every answer of one fetch was older than a write made meanwhile."""


@dataclass(frozen=True)
class CoordinatorStatus:
    """What a status bar needs: is the data current, and how old is it."""

    last_success: float | None  # wall-clock time (time.time()) of the last good fetch
    last_error: Exception | None
    failures: int
    fetching: bool
    # time.monotonic() when the fetch under way began (None when none is): a service that
    # stopped answering is told apart from a slow one by how long its fetch has waited.
    fetching_since: float | None = None

    @property
    def stale(self) -> bool:
        return self.last_error is not None


class Coordinator(Generic[T, C]):
    """Owns the data of one source.

    `fetch(previous)` returns the new data (it may use `previous` for an incremental sync);
    `diff(previous, new)` returns the change to announce, or None when nothing changed.
    """

    def __init__(
        self,
        name: str,
        fetch: Callable[[T | None], Awaitable[T]],
        diff: Callable[[T | None, T], C | None],
        *,
        interval: float = 30.0,
        max_backoff: float = 300.0,
        debounce: float = 0.3,
        rng: random.Random | None = None,
        notify_settle: float = NOTIFY_SETTLE,
        notify_min_gap: float = NOTIFY_MIN_GAP,
    ) -> None:
        self.name = name
        self._fetch = fetch
        self._diff = diff
        self.interval = interval
        self.max_backoff = max_backoff
        self.debounce = debounce
        self._rng = rng or random.Random()
        self.data: T | None = None
        self._listeners: list[Listener[C]] = []
        self._status_listeners: list[Callable[[CoordinatorStatus], None]] = []
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._last_success: float | None = None
        self._last_error: Exception | None = None
        self._failures = 0
        self._fetching = False
        self._fetching_since: float | None = None
        self._refresh_waiters: list[asyncio.Future[None]] = []
        self._writes = 0  # how many writes were applied; a fetch begun before one is stale
        self.notify_settle = notify_settle
        self.notify_min_gap = notify_min_gap
        self._notified: asyncio.TimerHandle | None = None  # the wake-up a notification asked
        self._poll_started: float | None = None  # loop time the poll's last fetch started
        self.notified_fetches = 0  # fetches of the poll that a notification started

    # --- listening -------------------------------------------------------------------------

    def listen(self, listener: Listener[C]) -> Callable[[], None]:
        """Start being told of changes; polling runs while at least one listener is there."""
        self._listeners.append(listener)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._poll(), name=f"coordinator:{self.name}"
            )

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if not self._listeners and self._task is not None:
                self._task.cancel()

        return unsubscribe

    def listen_status(self, listener: Callable[[CoordinatorStatus], None]) -> Callable[[], None]:
        self._status_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._status_listeners:
                self._status_listeners.remove(listener)

        return unsubscribe

    @property
    def status(self) -> CoordinatorStatus:
        return CoordinatorStatus(
            self._last_success,
            self._last_error,
            self._failures,
            self._fetching,
            self._fetching_since if self._fetching else None,
        )

    @property
    def polling(self) -> bool:
        return self._task is not None and not self._task.done()

    # --- refreshing ------------------------------------------------------------------------

    async def refresh(self) -> None:
        """Fetch now (debounced: several calls close together make one fetch)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._refresh_waiters.append(waiter)
        if len(self._refresh_waiters) == 1:
            loop.call_later(self.debounce, self._start_manual_refresh)
        await waiter

    def _start_manual_refresh(self) -> None:
        waiters, self._refresh_waiters = self._refresh_waiters, []

        async def run() -> None:
            try:
                await self.fetch_now()
            finally:
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)

        asyncio.get_running_loop().create_task(run(), name=f"refresh:{self.name}")

    async def fetch_now(self) -> bool:
        """One fetch outside the schedule; returns whether it succeeded."""
        async with self._lock:
            self._fetching = True
            self._fetching_since = time.monotonic()
            self._announce_status()
            try:
                new = await self._fetch_after_writes()
            except asyncio.CancelledError:
                self._fetching = False
                raise
            except Exception as exc:
                self._failures += 1
                self._last_error = exc
                log.info("%s: fetch failed (%d in a row): %s", self.name, self._failures, exc)
                self._fetching = False
                self._announce_status()
                return False
            self._fetching = False
            self._failures = 0
            self._last_error = None
            self._last_success = time.time()
            self._set(new)
            return True

    async def _fetch_after_writes(self) -> T:
        # An answer asked for before a write landed may not contain it; taking it would undo
        # the write on screen until the next poll, so such an answer is asked for again.
        for _ in range(MAX_STALE_FETCHES):
            writes = self._writes
            new = await self._fetch(self.data)
            if writes == self._writes:
                return new
        raise StaleFetch(f"{self.name}: writes kept landing during every fetch")

    @property
    def writes(self) -> int:
        """How many writes were applied so far: a fetch that sees this change while it waits
        gives an answer the coordinator throws away (and asks for again)."""
        return self._writes

    def apply(self, new: T) -> None:
        """Take data produced by a write (already confirmed by the service) at once."""
        self._writes += 1
        self._set(new)

    def _set(self, new: T) -> None:
        change = self._diff(self.data, new)
        self.data = new
        self._announce_status()
        if change is not None:
            for listener in list(self._listeners):
                try:
                    listener(change)
                except Exception:
                    log.exception("%s: a listener failed", self.name)

    def _announce_status(self) -> None:
        status = self.status
        for listener in list(self._status_listeners):
            try:
                listener(status)
            except Exception:
                log.exception("%s: a status listener failed", self.name)

    def next_delay(self) -> float:
        """The pause before the next scheduled fetch: the interval, or a jittered backoff."""
        if self._failures == 0:
            return self.interval
        backoff = min(self.max_backoff, self.interval * (2 ** min(self._failures - 1, 16)))
        jittered = float(backoff * self._rng.uniform(0.5, 1.0))
        return max(jittered, min(self.max_backoff, self._asked_to_wait()))

    def _asked_to_wait(self) -> float:
        """The wait the service asked for with its last refusal (429's Retry-After), or 0."""
        from freightdesk.api.errors import RateLimited  # here: the window opens without it

        error = self._last_error
        return (error.retry_after or 0.0) if isinstance(error, RateLimited) else 0.0

    async def _poll(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._listeners:
                # This fetch covers every change notified so far: a wake-up they asked for
                # would only fetch again.
                self._wake.clear()
                self._cancel_notified()
                self._poll_started = loop.time()
                await self.fetch_now()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=self.next_delay())
        except asyncio.CancelledError:
            pass
        finally:
            self._cancel_notified()

    def poke(self) -> None:
        """Fetch at the next chance instead of waiting out the interval."""
        self._wake.set()

    def notify(self) -> None:
        """Something changed at the source: fetch soon (while polling), coalesced. The first
        notification of a burst wakes the poll `notify_settle` later, and never sooner than
        `notify_min_gap` after its last fetch started; those that arrive meanwhile, or during
        a fetch, ride on the same wake-up, so a fetch under way gets one follow-up."""
        if not self.polling or self._notified is not None:
            return
        loop = asyncio.get_running_loop()
        delay = self.notify_settle
        if self._poll_started is not None:
            delay = max(delay, self._poll_started + self.notify_min_gap - loop.time())
        self._notified = loop.call_later(delay, self._wake_notified)

    def _wake_notified(self) -> None:
        self._notified = None
        if not self._wake.is_set():
            self.notified_fetches += 1
        self._wake.set()

    def _cancel_notified(self) -> None:
        if self._notified is not None:
            self._notified.cancel()
            self._notified = None

    async def aclose(self) -> None:
        self._cancel_notified()
        self._listeners.clear()
        self._status_listeners.clear()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            # Wait for it to end without re-raising what it ended with: closing must not fail.
            await asyncio.wait([task], timeout=5)
        if task is not None and task.done() and not task.cancelled():
            task.exception()
