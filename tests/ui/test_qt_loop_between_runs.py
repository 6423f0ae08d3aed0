"""The UI tests' asyncio loop (conftest's qasync loop) runs its callbacks only while it runs:
Qt events processed between pytest-asyncio's runs of it (pytest-qt after each phase, a sync
fixture's qtbot waits) would otherwise run tasks' steps with no loop running, and they fail."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator
from importlib.metadata import version

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from tests.support import wait_until
from tests.ui.conftest import _qasync_loop

Ticking = tuple[asyncio.Task[None], list[int]]


async def _tick(ticks: list[int]) -> None:
    while True:
        # As the app's polls wait: wait_for asks for the running loop.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.Event().wait(), timeout=0.001)
        ticks.append(len(ticks))


@pytest.fixture
async def ticking() -> AsyncIterator[Ticking]:
    """A task ticking on the loop, and its ticks so far."""
    ticks: list[int] = []
    task = asyncio.get_running_loop().create_task(_tick(ticks), name="ticking")
    yield task, ticks
    task.cancel()
    await asyncio.wait([task])


@pytest.fixture
def events_processed(ticking: Ticking, qapp: QApplication) -> None:
    """A sync fixture waiting on Qt (as qtbot.waitExposed does), between the loop's runs."""
    end = time.monotonic() + 0.2
    while time.monotonic() < end:
        qapp.processEvents()


async def test_steps_due_while_the_loop_is_stopped_wait_for_its_next_run(
    ticking: Ticking, events_processed: None
) -> None:
    task, ticks = ticking
    assert not task.done(), task
    # The step held while the loop was stopped runs now: the task ticks on (twice more, so
    # past the held step), or has ended trying.
    since = len(ticks)
    await wait_until(lambda: task.done() or len(ticks) >= since + 2)
    assert not task.done(), task


# Why the hold above can stop applying silently: conftest's _TestLoop overrides qasync's
# private QEventLoop._add_callback, through which qasync 0.28 schedules every callback
# (call_soon, call_later, call_at). pyproject pins qasync to that range; these say plainly
# when an upgrade moves it.
QASYNC_CHANGED = (
    f"qasync {version('qasync')}: tests/ui/conftest.py's _TestLoop overrides the private "
    "QEventLoop._add_callback(handle, delay) to hold callbacks while the loop is stopped"
)


def test_qasync_still_has_the_method_the_test_loop_overrides() -> None:
    method = getattr(qasync.QEventLoop, "_add_callback", None)

    assert method is not None, f"{QASYNC_CHANGED}, and qasync no longer has it"
    assert list(inspect.signature(method).parameters) == ["self", "handle", "delay"], (
        f"{QASYNC_CHANGED}, and its parameters are now {inspect.signature(method)}"
    )


def test_callbacks_scheduled_while_the_loop_is_stopped_are_held_until_it_runs(
    qapp: QApplication,
) -> None:
    loop = _qasync_loop()
    ran: list[str] = []
    try:
        loop.call_soon(ran.append, "call_soon")
        loop.call_later(0, ran.append, "call_later")
        loop.call_at(loop.time(), ran.append, "call_at")
        end = time.monotonic() + 0.1
        while time.monotonic() < end:
            qapp.processEvents()

        assert ran == [], (
            f"{QASYNC_CHANGED}; Qt ran {ran} with the loop stopped: qasync no longer "
            "schedules them through it"
        )
        loop.run_until_complete(asyncio.sleep(0.01))
        assert sorted(ran) == ["call_at", "call_later", "call_soon"], (
            f"{QASYNC_CHANGED}; held callbacks not run when the loop ran again: only {ran}"
        )
    finally:
        loop.close()
