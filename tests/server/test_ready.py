"""Readiness and the start of several instances on one PostgreSQL database (issue 22).

`/ready` asks the database (and checks its schema is this release's): 503 with the Error body
while PostgreSQL is stopped under a running instance, 200 again once it is back, while
`/health` (liveness) answers 200 throughout. Two `freightdesk serve` processes started at the
same moment on a fresh database make its schema once: the migrations run under an advisory
lock.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from freightdesk.server.db import make_engine, transaction
from freightdesk.server.migrations import SCHEMA_VERSION
from tests.processes import SERVE, processes, read_until
from tests.support import PostgresServer, missing, running_service


class OwnPostgres(PostgresServer):
    """A cluster of this test's own, which it may stop and start again (the session's
    cluster serves other tests)."""

    def pause(self) -> None:
        self._pg_ctl("-m", "fast", "stop")

    def resume(self) -> None:
        self._pg_ctl(
            "-l",
            str(self.dir / "log"),
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )

    def _pg_ctl(self, *arguments: str) -> None:
        found = self.binaries()
        assert found is not None
        self._run([found[1], "-D", str(self.dir / "data"), "-w", *arguments])


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    server = OwnPostgres()
    try:
        server.start()
    except (RuntimeError, OSError) as exc:
        server.stop()
        missing(f"PostgreSQL cannot be started here: {exc}")
    yield server
    server.stop()


def wait_for_status(url: str, status: int, seconds: float = 60) -> httpx.Response:
    deadline = time.monotonic() + seconds
    answer = httpx.get(url, timeout=30)
    while answer.status_code != status:
        assert time.monotonic() < deadline, f"{url} still answers {answer.status_code}"
        time.sleep(0.1)
        answer = httpx.get(url, timeout=30)
    return answer


def test_ready_answers_503_while_the_database_is_down_and_200_once_it_is_back(
    own_postgres: OwnPostgres,
) -> None:
    with running_service(own_postgres.create_database()) as service:
        ready = httpx.get(f"{service.url}/ready", timeout=30)
        assert ready.status_code == 200, ready.text
        assert ready.json()["status"] == "ready"
        own_postgres.pause()
        try:
            down = wait_for_status(f"{service.url}/ready", 503)
            body = down.json()
            assert body["httpStatusCode"] == 503
            assert "database does not answer" in body["errorMessage"]
            assert down.headers["retry-after"] == "5"
            # Liveness is not readiness: the process is alive and says so.
            assert httpx.get(f"{service.url}/health", timeout=30).status_code == 200
        finally:
            own_postgres.resume()
        back = wait_for_status(f"{service.url}/ready", 200)
        assert back.json()["status"] == "ready"


def test_ready_answers_503_for_a_schema_of_another_release(postgres: PostgresServer) -> None:
    with running_service(postgres.create_database()) as service:
        assert httpx.get(f"{service.url}/ready", timeout=30).status_code == 200
        # A later release migrated the database under this instance.
        with transaction(service.context.sessions) as session:
            session.execute(
                text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": SCHEMA_VERSION + 1}
            )
        answer = httpx.get(f"{service.url}/ready", timeout=30)
        assert answer.status_code == 503
        assert f"version {SCHEMA_VERSION + 1}" in answer.json()["errorMessage"]
        assert httpx.get(f"{service.url}/health", timeout=30).status_code == 200


def test_ready_on_sqlite_tells_nothing_but_its_state_and_version() -> None:
    """No credentials are asked, so the answer says nothing of the tenants or the data."""
    with running_service() as service:
        for path, state in (("/ready", "ready"), ("/health", "ok")):
            answer = httpx.get(f"{service.url}{path}", timeout=30).json()
            assert set(answer) == {"status", "version"}, path
            assert answer["status"] == state


def test_two_instances_started_at_once_on_a_fresh_database_migrate_it_once(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    database = postgres.create_database()
    with processes() as started:
        # Both started before either has read its settings: their schema work overlaps.
        children = [
            started.start(
                [*SERVE, "--data-dir", str(tmp_path / f"i{n}"), "--database", database],
                stderr=subprocess.DEVNULL,
            )
            for n in range(2)
        ]
        urls = [read_until(child, r"http://\S+", 120).group(0) for child in children]
        for url in urls:
            assert httpx.get(f"{url}/ready", timeout=120).status_code == 200
        assert all(child.poll() is None for child in children)
    engine = make_engine(database)
    try:
        with engine.connect() as conn:
            versions = conn.execute(text("SELECT version FROM schema_version")).scalars().all()
    finally:
        engine.dispose()
    assert versions == [SCHEMA_VERSION]
    logs = [(tmp_path / f"i{n}" / "logs" / "service.log").read_text() for n in range(2)]
    assert sum("created database schema" in log for log in logs) == 1
