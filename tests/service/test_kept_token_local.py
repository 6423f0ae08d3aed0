"""A second window on the Local sandbox uses the service the first one started, and the token
the first one kept: opened and closed more times in a minute than the service gives new
tokens, it shows its data each time without waiting; a kept token the service does not know
gives way to a new one unseen."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from freightdesk.api.tokens import KeptToken
from freightdesk.server.app import build_context
from freightdesk.server.db import transaction
from freightdesk.server.demo import DEMO_TENANT_NAME
from freightdesk.server.domain.tenants import ensure_tenant, rotate_secret
from freightdesk.server.settings import ServerSettings
from freightdesk.server.tables.tenancy import ClientApp
from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import LOCAL_PROFILE_ID, ProfileStore
from freightdesk.service.secrets import KeptTokens, MemorySecretStore
from freightdesk.service.session import AppSession

# A window attaching to a running service connects within a second or two; one that waits out
# the token limit waits up to a minute.
CONNECT_SECONDS = 30.0


@contextmanager
def _database(paths: AppPaths) -> Iterator[Session]:
    """The Local sandbox's database, written as the `freightdesk` commands write it."""
    context = build_context(ServerSettings.from_options(data_dir=paths.local_service_dir))
    try:
        with transaction(context.sessions) as session:
            yield session
    finally:
        context.engine.dispose()


def _home(root: Path) -> AppPaths:
    """A home whose Local sandbox database exists (as on every day after the first), so the
    service does not spend a minute writing the demo."""
    paths = AppPaths.under(root / "home")
    with _database(paths) as session:
        ensure_tenant(session, DEMO_TENANT_NAME, "demo", "demo", "SHIPPER")
    return paths


async def _open_window(paths: AppPaths, secrets: MemorySecretStore) -> tuple[str | None, bool]:
    """A second window: connected, its shipment list fetched, closed. Its token, and whether
    the status bar said anything but connecting and online."""
    session = AppSession(paths, ProfileStore(paths.profiles_file, secrets), simulate=False)
    statuses: list[ConnectionStatus] = []
    session.listen_status(statuses.append)
    try:
        async with asyncio.timeout(CONNECT_SECONDS):
            client = await session.connect()
            assert session.local_service is not None
            assert session.local_service.attached_to is not None  # the first window's service
            assert session.shipments is not None
            coordinator = session.shipments.coordinator
            assert await coordinator.fetch_now(), coordinator.status.last_error
        assert client.tokens is not None
        token = client.tokens.current
    finally:
        await session.close()
    fine = {ConnectionState.CONNECTING, ConnectionState.ONLINE}
    return token, any(s.state not in fine for s in statuses)


@pytest.mark.timeout(300)
async def test_a_second_window_reuses_the_first_windows_token(tmp_path: Path) -> None:
    paths = _home(tmp_path)
    secrets = MemorySecretStore()  # the keyring both windows share
    first = AppSession(paths, ProfileStore(paths.profiles_file, secrets), simulate=False)
    try:
        client = await first.connect()
        assert client.tokens is not None and first.local_service is not None
        token = client.tokens.current
        url = first.local_service.url
        assert url is not None

        limit = ServerSettings.from_options(data_dir=paths.local_service_dir).tokens_per_minute
        for _ in range(limit + 1):
            assert await _open_window(paths, secrets) == (token, False)

        # The service's database replaced under the kept token: the window signs in afresh.
        profile = first.profiles.get(LOCAL_PROFILE_ID)
        kept = KeptTokens(secrets, LOCAL_PROFILE_ID, url, profile.client_id)
        kept.save(KeptToken("a-token-of-another-database", time.time() + 3600))
        fresh, troubled = await _open_window(paths, secrets)
        assert not troubled
        assert fresh not in (None, token, "a-token-of-another-database")
        stored = kept.load()
        assert stored is not None and stored.value == fresh

        # And with the secret gone too (someone rotated it by hand): the window gets a new
        # secret from the sandbox, as a first start would, still without a word.
        with _database(paths) as session:
            app = session.get(ClientApp, profile.client_id)
            assert app is not None
            rotate_secret(session, app)
        old_secret = first.profiles.secret(profile)
        kept.save(KeptToken("another-unknown-token", time.time() + 3600))
        renewed, troubled = await _open_window(paths, secrets)
        assert not troubled
        assert renewed not in (None, fresh, "another-unknown-token")
        assert first.profiles.secret(profile) not in (None, old_secret)
    finally:
        await first.close()
