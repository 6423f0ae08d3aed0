"""The Local sandbox's service begun before the session connects (the app begins it as soon as
its list is painted): connecting uses that very process, and a session closed before it
connected stops it."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from freightdesk.models.shipment_search import ShipmentSearchRequest
from freightdesk.service.local_service import ServiceState
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession
from tests.support import wait_until


def _session(tmp_path: Path) -> AppSession:
    paths = AppPaths.under(tmp_path / "home")
    return AppSession(paths, ProfileStore(paths.profiles_file, MemorySecretStore()), simulate=False)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.timeout(300)
async def test_connecting_uses_the_service_begun_before(tmp_path: Path) -> None:
    session = _session(tmp_path)
    await session.start_local_service()
    service = session.local_service
    assert service is not None
    # A home that never connected: its service will write the demo, and the app says so
    # before the service answers.
    assert session.demo.message == "Preparing demo data"
    try:
        # Its process runs before anyone connects.
        await wait_until(lambda: service.pid is not None, seconds=60)
        pid = service.pid
        assert pid is not None
        await session.start_local_service()  # asked again: still the one service
        assert session.local_service is service
        client = await session.connect()
        assert session.local_service is service and service.pid == pid
        assert service.state is ServiceState.RUNNING
        # Signed in to it: an authenticated read answers.
        answer = await client.tracking.search_page(ShipmentSearchRequest(), page_size=1)
        assert answer.pagination_info.total >= 0
    finally:
        await session.close()
    assert session.local_service is None
    await wait_until(lambda: _gone(pid), seconds=10)


@pytest.mark.timeout(300)
async def test_a_session_closed_before_connecting_stops_the_service_it_began(
    tmp_path: Path,
) -> None:
    session = _session(tmp_path)
    await session.start_local_service()
    service = session.local_service
    assert service is not None
    await wait_until(lambda: service.pid is not None, seconds=60)
    pid = service.pid
    assert pid is not None
    await session.close()
    assert session.local_service is None
    await wait_until(lambda: _gone(pid), seconds=10)


async def test_nothing_is_begun_for_a_remote_profile(tmp_path: Path) -> None:
    session = _session(tmp_path)
    remote = session.profiles.save(
        Profile(
            id="",
            name="Team",
            kind=ProfileKind.REMOTE,
            base_url="http://127.0.0.1:9",
            client_id="app",
        ),
        secret="s",
    )
    session.profiles.activate(remote.id)
    await session.start_local_service()
    assert session.local_service is None
    assert session.demo.message is None
    await session.close()


@pytest.mark.timeout(300)
async def test_a_home_that_connected_before_expects_no_demo(tmp_path: Path) -> None:
    session = _session(tmp_path)
    local = session.profiles.active
    session.profiles.save(replace(local, client_id="desktop"), secret="s")
    await session.start_local_service()
    try:
        assert session.local_service is not None
        assert session.demo.message is None
    finally:
        await session.close()
