"""A first run's local service, begun before the window (`first_run.begin`), and a later
start's, begun right after its first paint (`first_run.begin_later`): the session's supervisor
takes that very process over (its demo credentials or the app's new secret, its output, its
end), and one begun with another command is stopped, not left holding the data directory."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from freightdesk.service import first_run
from freightdesk.service.local_service import LocalService, ServiceState
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import LOCAL_SANDBOX, ProfileStore
from freightdesk.service.secrets import LOCAL_SECRET_FILE, MemorySecretStore, SecretStore
from freightdesk.service.session import AppSession
from tests.fresh_home import seeded_home
from tests.processes import alive
from tests.service.keyring_store import KeyringStore
from tests.support import wait_until


def _waiting_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "local-service-wait"]


@pytest.fixture(autouse=True)
def nothing_left_begun() -> object:
    yield
    first_run.abandon()


def test_only_a_first_run_begins_a_service(tmp_path: Path) -> None:
    connected = replace(LOCAL_SANDBOX, client_id="desktop")
    assert first_run.begin(tmp_path / "data", connected) is None
    remote = replace(LOCAL_SANDBOX, id="team", kind=LOCAL_SANDBOX.kind.REMOTE)
    assert first_run.begin(tmp_path / "data", remote) is None
    assert not (tmp_path / "data").exists()


@pytest.mark.timeout(300)
async def test_the_session_connects_to_the_service_begun_before_the_window(
    tmp_path: Path,
) -> None:
    paths = AppPaths.under(tmp_path / "home")
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    begun = first_run.begin(paths.local_service_dir, profiles.active)
    assert begun is not None
    pid = begun.process.pid
    session = AppSession(paths, profiles)  # the app's own settings: demo, simulator
    try:
        await session.start_local_service()
        await session.connect()
        service = session.local_service
        assert service is not None and service.pid == pid
        assert service.state is ServiceState.RUNNING
        # The demo's credentials, from the begun process's output: the profile keeps them
        # (no second process was needed to make some).
        assert session.profiles.active.client_id
        assert service.demo_credentials is not None
        assert service.demo_credentials.client_id == session.profiles.active.client_id
    finally:
        await session.close()
    await wait_until(lambda: not alive(pid), seconds=15)
    await wait_until(lambda: not _waiting_threads(), seconds=5)
    assert first_run.take(paths.local_service_dir) is None  # handed over once


@pytest.mark.timeout(300)
async def test_one_begun_with_another_command_is_stopped(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    begun = first_run.begin(data_dir, LOCAL_SANDBOX)
    assert begun is not None
    service = LocalService(data_dir, demo=False, simulate=False)
    try:
        await service.start()
        assert begun.process.returncode is not None  # stopped before this one started
        assert service.pid is not None and service.pid != begun.process.pid
    finally:
        await service.stop()
    assert service.pid is None


def _connected_before(
    paths: AppPaths, kept_in: str | None = None, keyring: KeyringStore | None = None
) -> ProfileStore:
    """The home's profiles, in a new run, once its Local sandbox was connected to (its client
    id kept) and its secret kept `kept_in` the `keyring`, its file (no keyring), or nowhere."""

    def store() -> SecretStore:
        return keyring if keyring is not None and kept_in == "keyring" else MemorySecretStore()

    earlier = ProfileStore(paths.profiles_file, store())
    if kept_in == "file":
        earlier.keep_local_secret_in(paths.local_service_dir / LOCAL_SECRET_FILE)
    earlier.save(replace(earlier.active, client_id="desktop"), secret="kept" if kept_in else None)
    return ProfileStore(paths.profiles_file, store())


@pytest.mark.parametrize("kept_in", [None, "keyring", "file"])
def test_a_later_start_begins_its_service_rotating_the_secret_only_when_none_is_kept(
    tmp_path: Path, kept_in: str | None
) -> None:
    paths = AppPaths.under(tmp_path / "home")
    keyring = KeyringStore()
    profiles = _connected_before(paths, kept_in, keyring)
    keyring.asked = 0
    begun = first_run.begin_later(paths.local_service_dir, profiles)

    assert begun is not None
    rotating = ["--rotate-client", first_run.DESKTOP_CLIENT_NAME]
    assert (begun.command[-2:] == rotating) is (kept_in is None)
    # Told without the keyring (loaded and asked on the GUI thread, it held the start).
    assert keyring.asked == 0


@asynccontextmanager
async def _taken_over(
    paths: AppPaths, profiles: ProfileStore, begun: first_run.Begun
) -> AsyncIterator[tuple[AppSession, LocalService]]:
    """A session on `paths` connected through the service `begun` at the start, which it
    took over (not started again); closed after, the service gone with it."""
    pid = begun.process.pid
    session = AppSession(paths, profiles)
    try:
        await session.start_local_service()
        await session.connect()
        service = session.local_service
        assert service is not None and service.pid == pid  # taken over, not started again
        yield session, service
    finally:
        await session.close()
    await wait_until(lambda: not alive(pid), seconds=15)


@pytest.mark.timeout(300)
async def test_the_session_connects_to_the_service_a_later_start_began(tmp_path: Path) -> None:
    paths = seeded_home(tmp_path / "home")
    profiles = _connected_before(paths)  # no keyring: the secret is not kept
    begun = first_run.begin_later(paths.local_service_dir, profiles)
    assert begun is not None
    async with _taken_over(paths, profiles, begun) as (session, service):
        # The app's new secret came from the begun process (`--rotate-client`): the profile
        # keeps the client it was given.
        assert service.rotated_credentials is not None
        assert session.profiles.active.client_id == service.rotated_credentials.client_id
    assert first_run.take(paths.local_service_dir) is None  # handed over once


@pytest.mark.timeout(300)
async def test_a_later_start_with_the_secret_kept_beside_its_service_takes_that_service_over(
    tmp_path: Path,
) -> None:
    paths = seeded_home(tmp_path / "home")
    first = AppSession(paths, _connected_before(paths))  # no keyring: the secret goes to a file
    try:
        await first.connect()
    finally:
        await first.close()
    # The next start: a new process, its keyring (none) empty, the file there.
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    begun = first_run.begin_later(paths.local_service_dir, profiles)
    assert begun is not None
    assert "--rotate-client" not in begun.command  # the secret is kept: nothing to rotate
    async with _taken_over(paths, profiles, begun) as (_session, service):
        assert service.rotated_credentials is None
