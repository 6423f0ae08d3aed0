"""A service that upgrades its database after an update is waited for past the start limit
while it says how the upgrade goes, and the app says so: stopped at the limit, the upgrade
would be rolled back and begun again at every start, never done."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from freightdesk.server.migrations import JOURNAL_COPY_ROWS
from freightdesk.service.local_service import (
    UPGRADING,
    LocalService,
    LocalServiceError,
    ServiceState,
)
from tests.server.test_migrations_schema import older_database
from tests.support import wait_until

# Long enough for `serve` to load and begin its upgrade on a loaded machine; the upgrade is
# held past it.
START_LIMIT = 20.0


@contextmanager
def _held(path: Path) -> Iterator[sqlite3.Connection]:
    """The database's write lock, taken by another program (its upgrade waits for it, as on a
    slow disk it waits for its writes) until the lock's connection rolls back."""
    with closing(sqlite3.connect(path, isolation_level=None)) as lock:
        lock.execute("BEGIN IMMEDIATE")
        try:
            yield lock
        finally:
            if lock.in_transaction:
                lock.execute("ROLLBACK")


def _older(data: Path, journal: int) -> Path:
    """A data directory whose database was made by an earlier release (version 8)."""
    data.mkdir()
    path = data / "freightdesk.sqlite3"
    older_database(f"sqlite:///{path}", journal)
    return path


@pytest.mark.timeout(300)
async def test_an_upgrade_past_the_start_limit_is_waited_for_and_said(tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = _older(data, journal=JOURNAL_COPY_ROWS * 5 // 2)
    service = LocalService(data, demo=False, simulate=False, start_timeout=START_LIMIT)
    heard: list[tuple[ServiceState, str]] = []
    service.listen(lambda state, message: heard.append((state, message)))
    loop = asyncio.get_running_loop()
    with _held(path) as lock:
        release = loop.call_later(START_LIMIT + 2, lock.execute, "ROLLBACK")
        try:
            url = await service.start()
        finally:
            release.cancel()
    try:
        assert service.upgraded
        assert service.started_in is not None and service.started_in > START_LIMIT
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.get("/health")).status_code == 200
    finally:
        await service.stop()
    upgrading = [message for state, message in heard if state is ServiceState.STARTING][1:]
    # Each migration as it begins, the journal's copy as it goes, then its steps after.
    assert upgrading == [
        UPGRADING.format(""),
        UPGRADING.format(""),
        *(UPGRADING.format(f"{done}% ") for done in (20, 40, 50, 65, 80, 95)),
        UPGRADING.format(""),
    ]
    assert upgrading[0] == "Upgrading the local database… (this happens once after an update)"
    assert heard[-2][0] is ServiceState.RUNNING


async def test_an_upgrade_that_says_nothing_for_too_long_is_stopped(tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = _older(data, journal=1)
    service = LocalService(
        data, demo=False, simulate=False, start_timeout=START_LIMIT, upgrade_silence=1
    )
    with _held(path), pytest.raises(LocalServiceError) as failed:
        await service.start()
    assert str(failed.value) == "the local service's database upgrade said nothing for 1 s"
    assert service.returncode is not None  # stopped, not left running
    await service.stop()


# A second window's start limit: short, so that waiting past it costs the test little.
SECOND_LIMIT = 2.0


@dataclass
class _Windows:
    """Two windows on one data directory: the first one's service upgrading its database,
    held by the test (`lock`), the second started meanwhile."""

    lock: sqlite3.Connection
    first: LocalService
    starting: asyncio.Future[str]  # the first window's start
    second: LocalService
    joining: asyncio.Future[str]  # the second window's start
    heard: list[tuple[ServiceState, str]]  # what the second window said

    def said(self, message: str) -> bool:
        return any(said == message for _, said in self.heard)


def _window(data: Path, *, start_timeout: float = 60.0) -> LocalService:
    return LocalService(data, demo=False, simulate=False, start_timeout=start_timeout)


@contextlib.asynccontextmanager
async def _second_window_during_an_upgrade(
    tmp_path: Path, second_limit: float = 60.0
) -> AsyncIterator[_Windows]:
    """The second window has said the first one's upgrade goes on. `second_limit`: its start
    limit, for another window's service and its own."""
    data = tmp_path / "data"
    path = _older(data, journal=1)
    first, second = _window(data), _window(data, start_timeout=second_limit)
    heard: list[tuple[ServiceState, str]] = []
    second.listen(lambda state, message: heard.append((state, message)))
    starts: list[asyncio.Future[str]] = []
    with _held(path) as lock:
        try:
            starts.append(asyncio.ensure_future(first.start()))
            await wait_until(lambda: first.upgraded, seconds=120)
            starts.append(asyncio.ensure_future(second.start()))
            windows = _Windows(lock, first, starts[0], second, starts[1], heard)
            await wait_until(lambda: windows.said(UPGRADING.format("")))
            yield windows
        finally:
            for start in starts:  # ended, their failures retrieved, whatever the test found
                start.cancel()
                with contextlib.suppress(BaseException):
                    await start
            await second.stop()
            await first.stop()


@pytest.mark.timeout(300)
async def test_a_second_window_waits_for_the_first_windows_upgrade_and_says_it(
    tmp_path: Path,
) -> None:
    async with _second_window_during_an_upgrade(tmp_path, SECOND_LIMIT) as windows:
        # Past the second window's start limit, the first one's upgrade still going.
        await asyncio.sleep(SECOND_LIMIT + 1)
        assert not windows.joining.done()
        assert windows.second.state is ServiceState.STARTING
        windows.lock.execute("ROLLBACK")
        url = await windows.starting
        assert await windows.joining == url
        attached = windows.second.attached_to
        assert attached is not None and attached.pid == windows.first.pid
    assert windows.heard[-2] == (
        ServiceState.RUNNING,
        f"Local service running at {url} (started by another FreightDesk window)",
    )


@pytest.mark.timeout(300)
async def test_a_second_window_upgrades_itself_once_the_first_windows_service_dies(
    tmp_path: Path,
) -> None:
    async with _second_window_during_an_upgrade(tmp_path) as windows:
        assert windows.first.pid is not None
        os.kill(windows.first.pid, signal.SIGKILL)
        with pytest.raises(LocalServiceError):
            await windows.starting
        await wait_until(lambda: windows.second.pid is not None, seconds=60)
        windows.lock.execute("ROLLBACK")
        url = await windows.joining
        assert windows.second.attached_to is None and windows.second.upgraded  # its own
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.get("/health")).status_code == 200
    assert windows.said(
        "The local service upgrading the database for another FreightDesk window has "
        "stopped; upgrading it here"
    )


@pytest.mark.timeout(300)
async def test_a_second_window_says_why_the_first_windows_upgrade_failed_and_tries_again(
    tmp_path: Path,
) -> None:
    async with _second_window_during_an_upgrade(tmp_path) as windows:
        # Gone under the first window's upgrade, which fails on it; the second window's
        # service makes it again (a table missing is made as a new database's).
        windows.lock.execute("DROP TABLE webhook_configs")
        windows.lock.execute("COMMIT")
        with pytest.raises(LocalServiceError):
            await windows.starting
        url = await windows.joining
        assert windows.second.attached_to is None and windows.second.upgraded
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.get("/health")).status_code == 200
    assert windows.said(
        "Another FreightDesk window's upgrade of the local database failed (cannot open the "
        "database: (sqlite3.OperationalError) no such table: webhook_configs); trying again here"
    )
