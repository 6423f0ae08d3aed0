"""Running the service layer's coroutines from Qt slots without losing errors or tasks, and
their work in worker threads without losing what it saves."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import qasync
import shiboken6
from PySide6.QtCore import QObject

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

_running: set[asyncio.Task[Any]] = set()


def spawn(
    coroutine: Coroutine[Any, Any, T],
    *,
    on_done: Callable[[T], None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
    name: str | None = None,
    owner: QObject | None = None,
) -> asyncio.Task[T]:
    """Start `coroutine` on the running loop; its result or error goes to the callbacks.

    The task is kept referenced until it ends (asyncio holds only weak references), and an
    error nobody handles is logged instead of vanishing. When `owner` (the widget the callbacks
    update) is deleted before the task ends, the callbacks are skipped.
    """
    task = asyncio.get_event_loop().create_task(coroutine, name=name)
    _running.add(task)

    def finished(done: asyncio.Task[T]) -> None:
        _running.discard(done)
        if done.cancelled():
            return
        if owner is not None and not shiboken6.isValid(owner):
            if not done.cancelled() and done.exception() is not None:
                log.info("task %s ended after its window closed", done.get_name())
            return
        error = done.exception()
        if error is not None:
            if on_error is not None:
                on_error(error)
            else:
                log.error("background task %s failed", done.get_name(), exc_info=error)
            return
        if on_done is not None:
            on_done(done.result())

    task.add_done_callback(finished)
    return task


async def cancel_all() -> None:
    """Cancel and await every task started with `spawn` (on quit)."""
    tasks = list(_running)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    _running.clear()


class WorkerThreads(concurrent.futures.Executor):
    """The event loop's worker threads (`asyncio.to_thread`: qasync's QThreads), which can be
    waited for. A save handed to a thread keeps running when the task that asked for it is
    cancelled (`TriageFacts` shields its keep), and on quit it must run before the cache
    closes: `idle` waits for it."""

    def __init__(self) -> None:
        self._threads: Any = qasync.QThreadExecutor()
        self._lock = threading.Lock()
        self._pending: set[concurrent.futures.Future[Any]] = set()

    def submit(
        self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = self._threads.submit(fn, *args, **kwargs)
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._ended)
        return future

    def _ended(self, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._pending.discard(future)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._threads.shutdown(wait)

    async def idle(self) -> None:
        """Return once every job handed over so far has ended (a job cancelled before it
        started never runs, and is not waited for)."""
        while True:
            with self._lock:
                pending = list(self._pending)
            if not pending:
                return
            # asyncio.wait never cancels what it waits for, even when it is cancelled itself.
            await asyncio.wait([asyncio.wrap_future(future) for future in pending])
