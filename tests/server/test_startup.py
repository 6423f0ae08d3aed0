"""Start-up of the local service: a restart answers at once and truthfully, and stays cheap."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from sqlalchemy import event, inspect, text

from freightdesk.server.app import build_context
from freightdesk.server.auth import TokenStore
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import make_engine, transaction
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
from freightdesk.server.migrations import SCHEMA_VERSION, upgrade
from freightdesk.server.settings import ServerSettings, sqlite_url
from freightdesk.server.workers import Workers
from tests.support import free_port

ACCOUNT_GROUPS = "/api/v4/capacityprovideraccountgroups"
# Long enough that a worker begun at once (the delay ignored) is not begun that late even on a
# loaded machine; short enough to keep the test quick.
WORKER_DELAY = 0.5


def _used_database(data_dir: Path) -> str:
    """A database with a tenant, as after a first start; returns a bearer token of it."""
    settings = ServerSettings(
        data_dir=data_dir, database_url=sqlite_url(data_dir / "freightdesk.sqlite3")
    )
    context = build_context(settings)
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "Acme", "ops", "correct horse battery").tenant
            app, _secret = create_client_app(session, tenant.id, "desk")
            token, _lifetime = TokenStore(context).issue(session, app)
    finally:
        context.engine.dispose()
    return token


def _wait_for_health(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, "freightdesk serve exited"
        try:
            if httpx.get(f"{url}/health", timeout=10).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.01)
    raise AssertionError("/health never answered")


def test_a_restart_serves_every_area_as_soon_as_health_answers(tmp_path: Path) -> None:
    bearer = _used_database(tmp_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-X", "importtime", "-m", "freightdesk.cli", "serve", "--demo"]
    command += ["--port", str(port), "--data-dir", str(tmp_path), "--log-level", "warning"]
    errors = tmp_path / "serve.stderr"
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env={**os.environ, "FREIGHTDESK_DATABASE_URL": ""},
        )
        try:
            _wait_for_health(url, process)
            # Asked at once: /health answers only when the areas are mounted and served.
            headers = {"Authorization": f"Bearer {bearer}"}
            assert httpx.get(f"{url}{ACCOUNT_GROUPS}", headers=headers).status_code == 200
            document = httpx.get(f"{url}/openapi.json", timeout=60).json()
            assert ACCOUNT_GROUPS in document["paths"]
            assert "/api/v4/shipments/search" in document["paths"]
        finally:
            process.terminate()
            # Background work that has not begun yet is not waited for.
            returncode = process.wait(timeout=15)
    # uvicorn stops gracefully, then ends with the signal it was given.
    assert returncode in (0, -signal.SIGTERM)
    imported = errors.read_text(errors="replace")
    assert "Traceback" not in imported
    assert "freightdesk.models.tracking" in imported
    # A used database is left as it is by --demo: the seeding is never loaded, nor is the
    # simulator's engine without --simulate.
    assert "freightdesk.server.demo.seed" not in imported
    assert "freightdesk.server.simulator.engine" not in imported


def test_a_current_schema_is_left_alone_and_a_missing_table_is_made(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        assert upgrade(engine) == 0  # a fresh database
        statements: list[str] = []

        def record(*args: Any) -> None:
            statements.append(str(args[2]))

        event.listen(engine, "before_cursor_execute", record)
        assert upgrade(engine) == SCHEMA_VERSION
        created = [s for s in statements if "CREATE" in s.upper()]
        assert created == ["CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"]
        # One look at the list of tables, not one question per table.
        assert len(statements) <= 4, statements

        with engine.begin() as conn:
            conn.execute(text("DROP TABLE account_groups"))
        assert upgrade(engine) == SCHEMA_VERSION
        with engine.connect() as conn:
            assert inspect(conn).has_table("account_groups")
            versions = conn.execute(text("SELECT version FROM schema_version")).scalars().all()
        assert versions == [SCHEMA_VERSION]
    finally:
        engine.dispose()


@pytest.fixture
def no_context() -> Iterator[ServiceContext]:
    yield cast(ServiceContext, None)


async def test_workers_begin_after_their_delay(no_context: ServiceContext) -> None:
    # Workers wait on the loop's clock. A loaded machine only makes the loop late, so the
    # start is checked against that clock at the moment the worker began, never by sleeping
    # a fraction of the delay and looking (a late wake-up would see the worker begun).
    loop = asyncio.get_running_loop()
    began: asyncio.Future[float] = loop.create_future()

    async def worker(_context: ServiceContext, stop: asyncio.Event) -> None:
        began.set_result(loop.time())
        await stop.wait()

    workers = Workers(no_context, [worker])
    started = loop.time()
    workers.start(delay=WORKER_DELAY)
    try:
        begun = await asyncio.wait_for(began, timeout=WORKER_DELAY + 20)
    finally:
        await workers.stop()
    assert begun - started >= WORKER_DELAY - 1e-6  # timers fire within the clock's resolution


async def test_a_stop_during_the_delay_starts_no_worker(no_context: ServiceContext) -> None:
    began: list[float] = []

    async def worker(_context: ServiceContext, stop: asyncio.Event) -> None:
        began.append(time.monotonic())

    workers = Workers(no_context, [worker])
    workers.start(delay=30.0)
    await asyncio.sleep(0.05)
    stopping = time.monotonic()
    await workers.stop()
    assert time.monotonic() - stopping < 2.0
    assert began == []


# Libraries the service uses for some requests only (histories, webhook credentials and
# sending), each a noticeable part of a start to import: loaded by the request that needs them.
NOT_FOR_THE_FIRST_ANSWER = ("numpy", "httpx", "cryptography")


def _in_a_fresh_interpreter(code: str) -> str:
    """What `code` prints, run as `freightdesk serve` runs: in a new process (this test
    process has imported everything already)."""
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()


def test_the_start_imports_no_library_only_some_requests_need(tmp_path: Path) -> None:
    code = f"""
import sys
from pathlib import Path

import uvicorn

from freightdesk import cli
from freightdesk.server.app import create_app
from freightdesk.server.connections import connection_protocol
from freightdesk.server.demo.progress import begin_demo
from freightdesk.server.settings import ServerSettings, sqlite_url

data = Path({str(tmp_path)!r})
settings = ServerSettings(data_dir=data, database_url=sqlite_url(data / "start.sqlite3"))
app = create_app(settings)
begin_demo(app.state.context)
print(sorted(name for name in {NOT_FOR_THE_FIRST_ANSWER!r} if name in sys.modules))
"""
    assert _in_a_fresh_interpreter(code) == "[]"


def test_a_restart_with_the_demo_configures_no_mapper_before_answering(tmp_path: Path) -> None:
    # What `serve --demo` asks of a used database before its first answer (whether it has a
    # tenant; the demo worker: whether a demo is being prepared) goes without the ORM, whose
    # first statement configures every mapper: the first request that uses it pays that.
    _used_database(tmp_path)
    code = f"""
from pathlib import Path

from sqlalchemy import inspect

from freightdesk import cli
from freightdesk.server.app import build_context
from freightdesk.server.demo.progress import demo_status
from freightdesk.server.settings import ServerSettings, sqlite_url
from freightdesk.server.tables.tenancy import Tenant

data = Path({str(tmp_path)!r})
context = build_context(
    ServerSettings(data_dir=data, database_url=sqlite_url(data / "freightdesk.sqlite3"))
)
print(cli._has_tenants(context), demo_status(context).state.value, inspect(Tenant).configured)
"""
    assert _in_a_fresh_interpreter(code) == "True none False"
