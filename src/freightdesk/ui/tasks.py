"""Running the service layer's coroutines from Qt slots without losing errors or tasks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject

log = logging.getLogger(__name__)

T = TypeVar("T")

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


def running_count() -> int:
    return len(_running)
