"""The access token kept between runs: an app started again (or a second window on the same
profile) shows its data at once instead of waiting out the service's limit of new tokens a
minute, and a kept token the service refuses, or that is about to expire, gives way to a new
one without the user seeing anything.

Each "start" is a new `AppSession` over the same home directory and the same secret store, as
a new process of the app finds them. The secret store is the session-only one: the machine
that runs the tests has no keyring, and the store stands for it (the app keeps the token
wherever it keeps the client secret)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Protocol

import pytest
from sqlalchemy import func, select

from freightdesk.api.tokens import KeptToken
from freightdesk.server.db import transaction
from freightdesk.server.tables.tenancy import AccessToken
from freightdesk.service.client_applications import ClientApplications
from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.secrets import KeptTokens, MemorySecretStore, kept_token_key
from freightdesk.service.session import AppSession
from tests.support import LiveService, TenantHandle

# One start on a loaded machine takes well under a second; a start that waits out the token
# limit takes up to a minute (the service's Retry-After).
START_SECONDS = 20.0


class Home:
    """A user's home (profiles, cache) and secret store, the active profile the tenant's."""

    def __init__(self, root: Path, tenant: TenantHandle) -> None:
        self.root = root
        self.tenant = tenant
        self.paths = AppPaths.under(root / "home")
        self.secrets = MemorySecretStore()
        profiles = self.profiles()
        profile = profiles.save(
            Profile(
                id="",
                name="Team server",
                kind=ProfileKind.REMOTE,
                base_url=tenant.service.url,
                client_id=tenant.client_id,
            ),
            secret=tenant.client_secret,
        )
        profiles.activate(profile.id)
        self.profile_id = profile.id

    def profiles(self) -> ProfileStore:
        return ProfileStore(self.paths.profiles_file, self.secrets)

    def kept(self) -> KeptTokens:
        return KeptTokens(
            self.secrets, self.profile_id, self.tenant.service.url, self.tenant.client_id
        )

    def kept_value(self) -> str | None:
        kept = self.kept().load()
        return kept.value if kept is not None else None


@pytest.fixture
def home(tmp_path: Path, tenant_: TenantHandle) -> Home:
    return Home(tmp_path, tenant_)


class Start:
    """One start of the app's service layer: connected, the shipment list fetched once."""

    def __init__(self, session: AppSession) -> None:
        self.session = session
        self.statuses: list[ConnectionStatus] = []
        session.listen_status(self.statuses.append)
        self.shipment_ids: set[str] = set()
        self.token: str | None = None

    async def run(self) -> None:
        session = self.session
        async with asyncio.timeout(START_SECONDS):
            client = await session.connect()
            assert session.shipments is not None
            coordinator = session.shipments.coordinator
            assert await coordinator.fetch_now(), coordinator.status.last_error
            assert coordinator.data is not None
            self.shipment_ids = set(coordinator.data.summaries)
        assert client.tokens is not None
        self.token = client.tokens.current

    @property
    def troubles(self) -> list[ConnectionStatus]:
        """What the status bar said other than connecting and online."""
        fine = {ConnectionState.CONNECTING, ConnectionState.ONLINE}
        return [s for s in self.statuses if s.state not in fine]


class StartApp(Protocol):
    async def __call__(self) -> Start: ...


@pytest.fixture
async def start(home: Home) -> AsyncIterator[StartApp]:
    """`await start.run()` of a new start of `home`'s app, closed after the test if not before."""
    sessions: list[AppSession] = []

    async def run() -> Start:
        session = AppSession(home.paths, home.profiles())
        sessions.append(session)
        started = Start(session)
        try:
            await started.run()
        finally:
            await session.close()
        return started

    yield run
    for session in sessions:
        await session.close()


def _track(tenant: TenantHandle) -> str:
    body = {"identifiers": [{"type": "PRO", "value": f"PRO{uuid.uuid4().hex[:8].upper()}"}]}
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code in (200, 201), answer.text
    return str(answer.json()["id"])


def _issued(tenant: TenantHandle) -> int:
    """How many tokens the service has issued to the tenant's client application."""
    with transaction(tenant.service.context.sessions) as session:
        count = session.scalar(
            select(func.count())
            .select_from(AccessToken)
            .where(AccessToken.client_id == tenant.client_id)
        )
    return int(count or 0)


async def test_starts_beyond_the_token_limit_show_data_without_waiting(
    home: Home, tenant_: TenantHandle, start: StartApp, sqlite_service: LiveService
) -> None:
    shipment_id = _track(tenant_)
    issued_before = _issued(tenant_)  # the tenant's own, made by the test's set-up
    limit = sqlite_service.settings.tokens_per_minute

    starts = [await start() for _ in range(limit + 1)]

    for number, started in enumerate(starts, 1):
        assert shipment_id in started.shipment_ids, f"start {number} showed no data"
        assert not started.troubles, f"start {number}: {started.troubles}"
    # The first start asked for a token; every later one used it.
    assert _issued(tenant_) == issued_before + 1
    assert {s.token for s in starts} == {starts[0].token}
    assert home.kept_value() == starts[0].token
    # Kept where the client secret is kept, never in the home's files.
    assert starts[0].token is not None
    token = starts[0].token.encode()
    for path in (home.root).rglob("*"):
        if path.is_file():
            assert token not in path.read_bytes(), f"the token is written in {path}"


async def test_a_kept_token_the_service_revoked_is_replaced_unseen(
    home: Home, tenant_: TenantHandle, start: StartApp
) -> None:
    shipment_id = _track(tenant_)
    first = await start()
    # The administrator rotates the secret (every token of the application revoked) and the
    # dispatcher types the new one into Connections.
    answer = tenant_.http.post(
        f"/api/v4/oauth2/client-applications/{tenant_.client_id}/new-secret", auth=tenant_.admin
    )
    assert answer.status_code == 200, answer.text
    profiles = home.profiles()
    profiles.save(profiles.active, secret=answer.json()["secret"])
    assert home.kept_value() == first.token  # still kept: nothing tells the app

    again = await start()

    assert shipment_id in again.shipment_ids
    assert not again.troubles, again.troubles
    assert again.token is not None and again.token != first.token
    assert home.kept_value() == again.token


async def test_a_kept_token_the_service_never_issued_is_replaced_unseen(
    home: Home, tenant_: TenantHandle, start: StartApp
) -> None:
    """As after the service's database was replaced: the token is unknown to it."""
    shipment_id = _track(tenant_)
    unknown = "a-token-of-another-database"
    home.kept().save(KeptToken(unknown, time.time() + 3600))
    issued_before = _issued(tenant_)

    started = await start()

    assert shipment_id in started.shipment_ids
    assert not started.troubles, started.troubles
    assert started.token not in (None, unknown)
    assert home.kept_value() == started.token
    assert _issued(tenant_) == issued_before + 1


@pytest.mark.parametrize(
    "seconds_left",
    [-5.0, 30.0],  # expired; expiring within the margin (a minute)
    ids=["expired", "about-to-expire"],
)
async def test_a_kept_token_past_its_time_is_not_sent(
    home: Home, tenant_: TenantHandle, start: StartApp, seconds_left: float
) -> None:
    # A token the service still accepts, kept as if it ran out: had the app sent it, the
    # service would have taken it and no new token would have been issued.
    first = await start()
    assert first.token is not None
    home.kept().save(KeptToken(first.token, time.time() + seconds_left))
    issued_before = _issued(tenant_)

    again = await start()

    assert again.token is not None and again.token != first.token
    assert _issued(tenant_) == issued_before + 1
    assert home.kept_value() == again.token
    assert not again.troubles, again.troubles


async def test_a_token_is_offered_only_to_its_service_and_client(
    home: Home, tenant_: TenantHandle, start: StartApp
) -> None:
    first = await start()
    assert first.token is not None
    raw = home.secrets.get(kept_token_key(home.profile_id))
    assert raw is not None
    elsewhere = {**json.loads(raw), "serviceUrl": "http://127.0.0.1:9"}
    home.secrets.set(kept_token_key(home.profile_id), json.dumps(elsewhere))

    again = await start()

    assert again.token != first.token
    assert home.kept_value() == again.token


def test_removing_a_profile_drops_its_kept_token(home: Home) -> None:
    home.kept().save(KeptToken("t", time.time() + 3600))
    home.profiles().remove(home.profile_id)
    assert home.secrets.get(kept_token_key(home.profile_id)) is None


async def test_running_windows_take_up_a_secret_made_in_one_of_them(
    home: Home, tenant_: TenantHandle
) -> None:
    """The dispatcher makes a new secret for the app's own application in Client
    applications: every token of the old one is revoked at once, and each window open on the
    profile (this one and another) goes on showing data with the secret kept for it."""
    shipment_id = _track(tenant_)
    windows = [AppSession(home.paths, home.profiles()) for _ in range(2)]
    try:
        runs = [Start(window) for window in windows]
        for run in runs:
            await run.run()
        old_token = runs[0].token
        apps = ClientApplications.of_session(windows[0])
        assert apps is not None
        try:
            await apps.sign_in(*tenant_.admin)
            rotated = await apps.rotate(tenant_.client_id)
        finally:
            await apps.aclose()

        for number, window in enumerate(windows, 1):
            assert window.shipments is not None
            coordinator = window.shipments.coordinator
            async with asyncio.timeout(START_SECONDS):
                fetched = await coordinator.fetch_now()
            assert fetched, f"window {number}: {coordinator.status.last_error}"
            assert coordinator.data is not None and shipment_id in coordinator.data.summaries
            client = window.client
            assert client is not None and client.tokens is not None
            assert client.tokens.current not in (None, old_token)
        assert home.profiles().secret(home.profiles().active) == rotated.secret
    finally:
        for window in windows:
            await window.close()
