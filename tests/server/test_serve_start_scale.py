"""`freightdesk serve` does nothing in proportion to the database's size before it answers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from freightdesk.models.tracking import TrackedShipmentInput, TrackedShipmentPosition
from freightdesk.server.app import build_context
from freightdesk.server.auth import TokenStore
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
from freightdesk.server.settings import ServerSettings, sqlite_url
from tests.support import free_port

SHIPMENTS = 20_000
BATCH = 2_000
SEARCH = "/api/v4/shipments/search"


def _database(data_dir: Path, shipments: int) -> str:
    """A database with a tenant and `shipments` shipments (3 positions each, journaled as
    the domain does); returns a bearer token of the tenant."""
    settings = ServerSettings(
        data_dir=data_dir, database_url=sqlite_url(data_dir / "freightdesk.sqlite3")
    )
    context = build_context(settings)
    start = datetime(2024, 5, 1, tzinfo=UTC)
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "Acme", "ops", "correct horse battery").tenant
            app, _secret = create_client_app(session, tenant.id, "desk")
            token, _lifetime = TokenStore(context).issue(session, app)
        for first in range(0, shipments, BATCH):
            bodies = [
                TrackedShipmentInput.model_validate(
                    {"identifiers": [{"type": "PRO", "value": f"PRO{n:08d}"}]}
                )
                for n in range(first, min(first + BATCH, shipments))
            ]
            with transaction(context.sessions) as session:
                made = store.create_shipments(session, tenant.id, bodies)
                positions = [
                    TrackedShipmentPosition(
                        date_time=start + timedelta(minutes=15 * k), latitude=40, longitude=-80
                    )
                    for k in range(3)
                ]
                store.add_positions_bulk(session, dict.fromkeys(made, positions), "TL")
    finally:
        context.engine.dispose()
    return token


def _first_answer(data_dir: Path, bearer: str) -> tuple[float, float, int]:
    """Wall seconds from starting `serve --demo` (as the app starts it) to the first 200 of
    an authenticated search, the service's CPU seconds until then and the total found."""
    port = free_port()
    command = [sys.executable, "-m", "freightdesk.cli", "serve", "--demo", "--port", str(port)]
    command += ["--data-dir", str(data_dir), "--log-level", "warning"]
    headers = {"Authorization": f"Bearer {bearer}"}
    started = time.perf_counter()
    with (data_dir / "serve.stderr").open("wb") as stderr:
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env={**os.environ, "FREIGHTDESK_DATABASE_URL": ""},
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                assert process.poll() is None, (data_dir / "serve.stderr").read_text()
                assert time.monotonic() < deadline, "the service never answered"
                try:
                    answer = httpx.post(
                        f"http://127.0.0.1:{port}{SEARCH}", json={}, headers=headers, timeout=30
                    )
                    if answer.status_code == 200:
                        wall = time.perf_counter() - started
                        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)
                        ticks = fields[1].split()
                        cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
                        return wall, cpu, int(answer.json()["paginationInfo"]["total"])
                except httpx.TransportError:
                    pass
                time.sleep(0.01)
        finally:
            process.terminate()
            process.wait(timeout=30)


def test_the_first_answer_does_not_wait_longer_on_a_bigger_database(tmp_path: Path) -> None:
    empty_dir, big_dir = tmp_path / "empty", tmp_path / "big"
    empty_bearer = _database(empty_dir, 0)
    big_bearer = _database(big_dir, SHIPMENTS)
    # Interleaved, best of two, so that a moment of load on the shared machine weighs on
    # neither side alone.
    empty, big = [], []
    for _ in range(2):
        empty.append(_first_answer(empty_dir, empty_bearer))
        big.append(_first_answer(big_dir, big_bearer))
    assert {total for *_, total in empty} == {0}
    assert {total for *_, total in big} == {SHIPMENTS}
    empty_wall, empty_cpu = min(s[0] for s in empty), min(s[1] for s in empty)
    big_wall, big_cpu = min(s[0] for s in big), min(s[1] for s in big)
    # Load-tolerant absolute bounds (the machine is shared), and the ratio that matters.
    assert empty_wall < 30 and big_wall < 30, (empty, big)
    assert big_wall <= 2 * empty_wall, (empty, big)
    # CPU time does not depend on the load: the start's own work, the same on both.
    assert big_cpu <= 1.5 * empty_cpu, (empty, big)
