"""Two windows on one home without a keyring (each window's secrets in its own memory, as on a
machine with "no usable keyring backend"). The second window attached to the first's Local
sandbox service, found no secret and rotated the one client application's: every token request
of the first window was refused from then on ("The client id or secret is not valid"), and it
never recovered. The Local sandbox's secret is now kept in a private file of its data directory,
which both windows read."""

from __future__ import annotations

import asyncio
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.service.first_run import rotate_command
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.secrets import LOCAL_SECRET_FILE, MemorySecretStore
from freightdesk.service.session import AppSession
from tests.service.keyring_store import KeyringStore


def _window(paths: AppPaths) -> AppSession:
    # Each window its own session-only store, as `system_secret_store` gives without a keyring.
    return AppSession(paths, ProfileStore(paths.profiles_file, MemorySecretStore()), simulate=False)


async def _signs_in_anew(client: ApiClient) -> None:
    """A new token, as after the service refused the current one, then a call with it."""
    assert client.tokens is not None
    current = client.tokens.current
    assert current is not None
    client.tokens.invalidate(current)
    assert (await client.tenant.caller()) is not None
    assert client.tokens.current != current


@pytest.mark.timeout(400)
async def test_a_second_window_leaves_the_first_signed_in(tmp_path: Path) -> None:
    paths = AppPaths.under(tmp_path / "home")
    first, second = _window(paths), _window(paths)
    try:
        one = await first.connect()
        two = await second.connect()  # attaches to the first window's service
        assert second.local_service is not None and second.local_service.attached_to is not None
        for client in (one, two):
            await _signs_in_anew(client)
        assert first.profiles.active.client_id == second.profiles.active.client_id
    finally:
        await second.close()
        await first.close()
    kept = paths.local_service_dir / LOCAL_SECRET_FILE
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700


@pytest.mark.timeout(400)
async def test_a_secret_rotated_elsewhere_is_read_again_once_refused(tmp_path: Path) -> None:
    paths = AppPaths.under(tmp_path / "home")
    first = _window(paths)
    try:
        client = await first.connect()
        old = first.profiles.secret(first.profiles.active)
        # Another window (another process) gives the client a new secret and keeps it.
        rotate = await asyncio.create_subprocess_exec(
            *rotate_command(paths.local_service_dir),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await rotate.communicate()
        assert rotate.returncode == 0
        new = out.decode().rsplit("client secret ", 1)[1].split()[0]
        other = ProfileStore(paths.profiles_file, MemorySecretStore())
        other.keep_local_secret_in(paths.local_service_dir / LOCAL_SECRET_FILE)
        other.save(other.active, secret=new)
        assert new != old
        # Refused with the old secret, the first window reads the kept one and goes on.
        await _signs_in_anew(client)
    finally:
        await first.close()


def test_only_the_local_sandbox_secret_goes_to_the_file_and_only_without_a_keyring(
    tmp_path: Path,
) -> None:
    paths = AppPaths.under(tmp_path / "home")
    kept = paths.local_service_dir / LOCAL_SECRET_FILE
    store = ProfileStore(paths.profiles_file, MemorySecretStore())
    store.keep_local_secret_in(kept)
    remote = store.save(
        Profile(id="", name="Team", kind=ProfileKind.REMOTE, base_url="https://h/", client_id="c"),
        secret="remote-secret",
    )
    assert not kept.exists() and store.secret(remote) == "remote-secret"
    local = store.save(replace(store.active, client_id="app"), secret="local-secret")
    assert "remote-secret" not in kept.read_text() and "local-secret" in kept.read_text()
    # Another window's store of this home reads it; a keyring, where there is one, keeps it.
    other = ProfileStore(paths.profiles_file, MemorySecretStore())
    other.keep_local_secret_in(kept)
    assert other.secret(local) == "local-secret" and other.secret(remote) is None
    kept.unlink()
    with_keyring = ProfileStore(paths.profiles_file, KeyringStore())
    with_keyring.keep_local_secret_in(kept)
    with_keyring.save(local, secret="in-the-keyring")
    assert not kept.exists() and with_keyring.secret(local) == "in-the-keyring"
