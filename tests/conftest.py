"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support import (
    DATABASES,
    LiveService,
    PostgresServer,
    TenantHandle,
    machine_zone,
    make_tenant,
    missing,
    new_database,
    running_service,
    tenant_of,
)

# The `namespace` fixture: a network namespace for a service listening off loopback.
pytest_plugins = ["tests.netns"]


@pytest.hookimpl(trylast=True)
def pytest_exception_interact(node: pytest.Item | pytest.Collector) -> None:
    """pytest-timeout stops its timer as soon as a test fails (for the sake of a debugger
    that --pdb would open): armed again here, so that a teardown hanging after a failure
    still ends the run with every thread's stack instead of hanging it, mute."""
    if not isinstance(node, pytest.Item) or node.config.getoption("usepdb", False):
        return
    plugin = node.config.pluginmanager.get_plugin("timeout")
    if plugin is None:
        return
    settings = plugin._get_item_settings(node)  # the item's timeout, as pytest-timeout reads it
    if settings.timeout and settings.timeout > 0 and not settings.func_only:
        node.config.pluginmanager.hook.pytest_timeout_set_timer(item=node, settings=settings)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL for the session; skipped without one, except in CI (the variable CI set)."""
    server = PostgresServer()
    failure = None
    try:
        server.start()
    except (RuntimeError, OSError) as exc:
        failure = f"PostgreSQL cannot be started here: {exc}"
    if failure is not None:
        server.stop()
        missing(failure)
    yield server
    server.stop()


@pytest.fixture(scope="session", params=DATABASES)
def service(request: pytest.FixtureRequest) -> Iterator[LiveService]:
    """The local service over real HTTP, once on SQLite and once on PostgreSQL."""
    with running_service(new_database(request, request.param)) as live:
        yield live


@pytest.fixture(params=DATABASES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database for one test, once on each: a SQLite file in `tmp_path` (where
    `--data-dir tmp_path` keeps it by default), or a new database on the session's PostgreSQL."""
    url = new_database(request, request.param, tmp_path)
    assert url is not None
    return url


@pytest.fixture(scope="session")
def sqlite_service() -> Iterator[LiveService]:
    """The local service on SQLite only, for tests whose subject is not the database."""
    with running_service() as live:
        yield live


@pytest.fixture
def tenant(service: LiveService) -> Iterator[TenantHandle]:
    with tenant_of(service) as handle:
        yield handle


@pytest.fixture
def tenant_factory(service: LiveService) -> Iterator[Callable[..., TenantHandle]]:
    made: list[TenantHandle] = []

    def factory(kind: str = "SHIPPER") -> TenantHandle:
        handle = make_tenant(service, kind)
        made.append(handle)
        return handle

    yield factory
    for handle in made:
        handle.http.close()


@pytest.fixture(autouse=True)
def _clock_reset() -> Iterator[None]:
    """Every test starts and ends with times without a place in the machine's zone (the
    window sets the user's choice from its settings; a test's choice must not leak)."""
    from freightdesk.service.clock import UserZone, set_user_zone

    set_user_zone(UserZone.LOCAL)
    yield
    set_user_zone(UserZone.LOCAL)


@pytest.fixture
def chicago_machine() -> Iterator[None]:
    """The computer's own zone is Chicago's for the test (TZ and tzset, as a user's machine
    set to Central time would be), so local and UTC read differently."""
    with machine_zone("America/Chicago"):
        yield
