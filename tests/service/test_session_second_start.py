"""A second start of the Local sandbox on a home with data, where no keyring kept the secret
(a new user's machine, a container) and its file in the service's data directory is gone
(`LocalSandboxSecrets`): the service's own start gives the app a new secret, so
the session is Online about when the service answers, and the status says what it waits for
meanwhile. It ran `client rotate` once the service answered: a second start of most of the
service, 42 s to Online at load 13 where the service answered after 14 s."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import LOCAL_SECRET_FILE, MemorySecretStore
from freightdesk.service.session import AppSession

# Online within this many times the service's own start (spawn to its first /health answer)
# in the same run: signing in is one token request; a second process's start doubled it.
ONLINE_RATIO = 1.4


def _session(paths: AppPaths) -> AppSession:
    # A new secret store each time: the secret is not kept from one run to the next.
    return AppSession(paths, ProfileStore(paths.profiles_file, MemorySecretStore()), simulate=False)


@pytest.mark.timeout(400)
async def test_a_second_start_is_online_when_its_service_answers(tmp_path: Path) -> None:
    paths = AppPaths.under(tmp_path / "home")
    first = _session(paths)
    try:
        await first.connect()
        client_id = first.profiles.active.client_id
    finally:
        await first.close()
    assert client_id
    (paths.local_service_dir / LOCAL_SECRET_FILE).unlink()  # the secret lost

    second = _session(paths)
    seen: list[ConnectionStatus] = []
    second.listen_status(seen.append)
    try:
        began = time.monotonic()
        await second.start_local_service()  # as the app does once its list is painted
        client = await second.connect()
        online_after = time.monotonic() - began
        service = second.local_service
        assert service is not None and service.started_in is not None
        # The same client application, signed in with its new secret.
        assert second.profiles.active.client_id == client_id
        assert (await client.tenant.caller()) is not None
        ratio = online_after / service.started_in
        assert ratio < ONLINE_RATIO, (
            f"Online after {online_after:.1f} s, the service answered after "
            f"{service.started_in:.1f} s: {ratio:.2f} times"
        )
    finally:
        await second.close()
    # While connecting, the status says what the start waits for, in that order, and never
    # the bare "Connecting to Local sandbox" once the service's start said more.
    said = [s.message for s in seen if s.state is ConnectionState.CONNECTING]
    assert "Starting the local service" in said
    waits = said[said.index("Starting the local service") :]
    assert set(waits) == {"Starting the local service", "Signing in to the local service"}
    assert waits[-1] == "Signing in to the local service"
