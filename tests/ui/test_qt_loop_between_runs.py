"""The UI tests' asyncio loop (conftest's qasync loop) runs its callbacks only while it runs:
Qt events processed between pytest-asyncio's runs of it (pytest-qt after each phase, a sync
fixture's qtbot waits) would otherwise run tasks' steps with no loop running, and they fail."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from PySide6.QtWidgets import QApplication


async def _tick() -> int:
    ticks = 0
    while True:
        # As the app's polls wait: wait_for asks for the running loop.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.Event().wait(), timeout=0.001)
        ticks += 1


@pytest.fixture
async def ticking() -> AsyncIterator[asyncio.Task[int]]:
    task = asyncio.get_running_loop().create_task(_tick(), name="ticking")
    yield task
    task.cancel()
    await asyncio.wait([task])


@pytest.fixture
def events_processed(ticking: asyncio.Task[int], qapp: QApplication) -> None:
    """A sync fixture waiting on Qt (as qtbot.waitExposed does), between the loop's runs."""
    end = time.monotonic() + 0.2
    while time.monotonic() < end:
        qapp.processEvents()


async def test_steps_due_while_the_loop_is_stopped_wait_for_its_next_run(
    ticking: asyncio.Task[int], events_processed: None
) -> None:
    assert not ticking.done(), ticking
    await asyncio.sleep(0.05)
    assert not ticking.done(), ticking
