"""The UI tests' teardown helper close_session: a task stalled by a nested event loop inside
another task is named in a failure (and run again, so the loop can still close) instead of
hanging the run; a close that never ends fails after its bound with the pending stacks."""

from __future__ import annotations

import asyncio

import pytest
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from tests.ui.conftest import bounded, close_session


async def test_a_task_stalled_by_a_nested_event_loop_is_named(
    qtbot: QtBot, session: AppSession
) -> None:
    async def child() -> int:
        await asyncio.sleep(0)
        return 1

    task = asyncio.get_running_loop().create_task(child(), name="the-child")
    qtbot.wait(50)  # a nested event loop inside this test's task: the child's step is refused
    assert not task.done()
    with pytest.raises(pytest.fail.Exception, match=r"tasks stalled:(.|\n)*the-child"):
        await close_session(session)
    await asyncio.wait_for(task, 5)  # stepped again: it ends, and so can the loop
    assert task.result() == 1


async def test_work_that_never_ends_fails_with_the_pending_stacks() -> None:
    forever = asyncio.Event()

    async def stuck() -> None:
        await forever.wait()

    blocker = asyncio.get_running_loop().create_task(stuck(), name="the-blocker")

    async def close() -> None:
        await blocker

    with pytest.raises(pytest.fail.Exception, match=r"close\(\) had not ended after 0.5 s") as err:
        await bounded(close(), 0.5, what="close()")
    assert "--- the-blocker" in str(err.value) and "in stuck" in str(err.value)
    # The close given up is cancelled, and with it what it awaited.
    await asyncio.wait({blocker}, timeout=5)
    assert blocker.cancelled()
