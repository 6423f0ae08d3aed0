"""Test support: the local service over real HTTP on loopback, PostgreSQL, tenants."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import httpx
import uvicorn

from freightdesk.server.app import build_context, create_app
from freightdesk.server.connections import connection_protocol
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
from freightdesk.server.settings import ServerSettings

if TYPE_CHECKING:  # the benchmarks use this module without pytest
    import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def port_taken(port: int, seconds: float = 30.0) -> Iterator[None]:
    """Another program listening on the loopback `port` during the block, taken as soon as
    the service's process that had it has ended (SIGKILLed: the kernel frees it at once)."""
    holder = socket.socket()
    # Its address may be held by the killed service's closed connections (TIME_WAIT); a
    # listening socket still keeps the service's own bind out (it asks for SO_REUSEADDR too).
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                holder.bind(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        holder.listen(1)
        yield
    finally:
        holder.close()


class LiveService:
    """The real service app under uvicorn on a free loopback port, in a background thread."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.context: ServiceContext = build_context(settings)
        self.app = create_app(settings, self.context)
        # Built here, in the test's thread, and once for the whole run (the app keeps it per
        # process): built by the app's warm-up, in its thread, it would race pytest's warning
        # filters (see server/app.py, openapi_document).
        self.app.openapi()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_config=None,
            access_log=False,
            http=connection_protocol(settings),  # as `serve` has it
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="live-service", daemon=True)

    def start(self) -> LiveService:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the local service did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)
        self.context.engine.dispose()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the service (and its workers) runs on, once started."""
        return self._server.servers[0].get_loop()


@dataclass
class TenantHandle:
    """A tenant of the live service with an admin, a client application and a bearer token."""

    name: str
    uuid: str
    admin: tuple[str, str]
    client_id: str
    client_secret: str
    http: httpx.Client
    service: LiveService

    def as_role(self, role: str) -> httpx.Client:
        client = httpx.Client(base_url=self.service.url, headers=dict(self.http.headers))
        client.headers["x-tenant-role"] = role
        return client


def make_tenant(service: LiveService, kind: str = "SHIPPER") -> TenantHandle:
    name = f"tenant-{uuid.uuid4().hex[:10]}"
    admin = (f"admin-{name}", "correct horse battery")
    with transaction(service.context.sessions) as session:
        tenant = ensure_tenant(session, name, *admin, kind=kind).tenant
        app, secret = create_client_app(session, tenant.id, "tests")
        tenant_uuid, client_id = tenant.uuid, app.id
    token = httpx.post(
        f"{service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    )
    token.raise_for_status()
    http = httpx.Client(
        base_url=service.url,
        headers={"Authorization": f"Bearer {token.json()['access_token']}"},
        timeout=30,
    )
    return TenantHandle(name, tenant_uuid, admin, client_id, secret, http, service)


@contextmanager
def tenant_of(service: LiveService, kind: str = "SHIPPER") -> Iterator[TenantHandle]:
    """A new tenant of `service` (make_tenant) for the block, its HTTP client closed after."""
    handle = make_tenant(service, kind)
    try:
        yield handle
    finally:
        handle.http.close()


WATCH = Path(__file__).with_name("postgres_watch.py")


class PostgresServer:
    """A throwaway PostgreSQL cluster started with initdb/pg_ctl for the test session.

    pg_ctl's server outlives the process that started it: a watcher (postgres_watch.py)
    stops it and removes its directory once this process has ended, however it ended (a
    test run killed by a CI timeout left its servers running)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="fd-pg-"))
        self.port = free_port()
        self._as_user: list[str] = []
        self.watcher: subprocess.Popen[bytes] | None = None
        self._lifeline: int | None = None  # the pipe's write end: closed, the watcher acts

    @staticmethod
    def binaries() -> tuple[str, str] | None:
        initdb = shutil.which("initdb")
        pg_ctl = shutil.which("pg_ctl")
        if initdb is None or pg_ctl is None:
            for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
                if (candidate / "initdb").exists():
                    return str(candidate / "initdb"), str(candidate / "pg_ctl")
            return None
        return initdb, pg_ctl

    def start(self) -> str:
        found = self.binaries()
        if found is None:
            raise RuntimeError("initdb/pg_ctl are not installed (Debian package postgresql)")
        initdb, pg_ctl = found
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root.
            try:
                shutil.chown(self.dir, "postgres")
            except LookupError:
                raise RuntimeError("running as root and there is no postgres user") from None
            self._as_user = ["runuser", "-u", "postgres", "--"]
        self._watch(pg_ctl)
        data = self.dir / "data"
        self._run([initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"])
        for attempt in range(3):
            try:
                self._run(
                    [
                        pg_ctl,
                        "-D",
                        str(data),
                        "-l",
                        str(self.dir / "log"),
                        "-o",
                        f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
                        "-w",
                        "start",
                    ]
                )
                break
            except RuntimeError as exc:
                log = self._log_tail()
                # The free port was taken by another process in between: take another one.
                if "already in use" not in log or attempt == 2:
                    raise RuntimeError(f"{exc}; the server's log ends with: {log}") from None
                self.port = free_port()
                (self.dir / "log").unlink(missing_ok=True)
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def create_database(self) -> str:
        import psycopg

        name = f"fd_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the server and remove its directory: the watcher's work, done now."""
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None
        if self.watcher is not None:
            self.watcher.wait(timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)

    def _watch(self, pg_ctl: str) -> None:
        read_end, self._lifeline = os.pipe()  # neither end inherited by other children
        try:
            self.watcher = subprocess.Popen(
                [sys.executable, "-I", str(WATCH), str(self.dir), pg_ctl, *self._as_user],
                stdin=read_end,
                # Not the run's output: a CI job reading it would wait for the watcher too.
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a signal to the run's process group spares it
            )
        finally:
            os.close(read_end)

    def _run(self, command: list[str]) -> None:
        result = subprocess.run([*self._as_user, *command], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {result.stderr.strip()[-500:]}")

    def _log_tail(self) -> str:
        try:
            return (self.dir / "log").read_text(errors="replace").strip()[-800:]
        except OSError:
            return "(no log)"


# The databases the service runs on; a test whose subject is stored data runs on each.
DATABASES = ["sqlite", "postgresql"]


def new_database(
    request: pytest.FixtureRequest, database: str, directory: Path | None = None
) -> str | None:
    """A fresh database's URL: for "postgresql" a new database on the session's server (the
    `postgres` fixture, so skipped where there is none); for "sqlite" a file in `directory`,
    or None without one (`running_service` then keeps it in its data directory)."""
    if database == "postgresql":
        pg: PostgresServer = request.getfixturevalue("postgres")
        return pg.create_database()
    return None if directory is None else f"sqlite:///{directory / 'freightdesk.sqlite3'}"


def database_option(database_url: str) -> list[str]:
    """The commands' `--database` option as an operator types it (`postgresql://`, no driver
    named); none for SQLite, whose file is the data directory's default."""
    if database_url.startswith("sqlite"):
        return []
    return ["--database", database_url.replace("postgresql+psycopg://", "postgresql://", 1)]


@contextmanager
def running_service(database_url: str | None = None, **overrides: object) -> Iterator[LiveService]:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-svc-"))
    url = database_url or f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    settings = ServerSettings(data_dir=data_dir, database_url=url, **overrides)  # type: ignore[arg-type]
    service = LiveService(settings).start()
    try:
        yield service
    finally:
        service.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


async def wait_until(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    """Poll `predicate` on the running loop until it holds; fail the test after `seconds`."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"condition not reached within {seconds} s")
        await asyncio.sleep(0.01)


def missing(message: str) -> NoReturn:
    """Something the test needs is not on this machine: a skip for a developer, a failure in
    CI (the variable CI set), whose .ci/run installs everything (skips there would pass unseen)."""
    import pytest

    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{message} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(message)


@contextmanager
def machine_zone(name: str) -> Iterator[None]:
    """The process's local zone is `name` (an IANA name) inside the block, then as before."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()
