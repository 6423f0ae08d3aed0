"""A service that upgrades its database after an update is waited for past the start limit
while it says how the upgrade goes, and the app says so: stopped at the limit, the upgrade
would be rolled back and begun again at every start, never done."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
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
    # Each migration as it begins, the journal's copy as it goes.
    assert upgrading == [
        UPGRADING.format(""),
        UPGRADING.format(""),
        UPGRADING.format("40% "),
        UPGRADING.format("80% "),
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
