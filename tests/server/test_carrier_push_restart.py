"""No accepted push ever disappears: restarts and kill -9 after the 202."""

from __future__ import annotations

import dataclasses
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from freightdesk.server.app import build_context
from freightdesk.server.db import transaction
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
from freightdesk.server.settings import ServerSettings, sqlite_url
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    create_shipment,
    history,
    ingestion,
    iso,
    now,
    settled,
    truckload_body,
    unique,
)
from tests.support import make_tenant, running_service


def _positions(bol: str, count: int) -> list[dict[str, object]]:
    start = now() - timedelta(hours=1)
    return [
        truckload_body(
            bol,
            readings={
                "dateTime": iso(start + timedelta(seconds=i)),
                "position": {"latitude": 41 + i / 1000, "longitude": -87.6},
            },
        )
        for i in range(count)
    ]


def test_pending_pushes_are_processed_after_a_restart(database_url: str) -> None:
    bol = unique("BOL")
    with running_service(database_url, process_pushes=False) as first:
        tenant = make_tenant(first)
        try:
            shipment = create_shipment(tenant, [("BILL_OF_LADING", bol)])
            ids = [accepted(tenant.http.post(TRUCKLOAD, json=body)) for body in _positions(bol, 5)]
            assert {ingestion(tenant, i)["status"] for i in ids} == {"PENDING"}
            assert history(tenant, shipment["id"])["positions"] == []
        finally:
            tenant.http.close()
    with running_service(database_url) as second:
        client = httpx.Client(base_url=second.url, headers=dict(tenant.http.headers), timeout=30)
        again = dataclasses.replace(tenant, http=client, service=second)
        try:
            for ingestion_id in ids:
                receipt = settled(again, ingestion_id)
                assert receipt["status"] == "PROCESSED"
                assert receipt["matchedShipmentIds"] == [shipment["id"]]
            assert len(history(again, shipment["id"])["positions"]) == 5
        finally:
            client.close()


def _database(data_dir: Path) -> str:
    return sqlite_url(data_dir / "freightdesk.sqlite3")


class _Served:
    """`freightdesk serve` as a child process on a data directory."""

    def __init__(self, data_dir: Path) -> None:
        command = [sys.executable, "-m", "freightdesk.cli", "serve", "--port", "0"]
        command += ["--data-dir", str(data_dir), "--database", _database(data_dir)]
        self.process = subprocess.Popen(
            [*command, "--log-level", "warning"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"http://\S+", line)
        if found is None:
            self.process.kill()
            raise AssertionError(f"the service did not start: {line!r}")
        self.url = found.group(0)
        # The socket is bound before uvicorn listens on it: wait until it answers.
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{self.url}/docs", timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise
                time.sleep(0.1)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture
def served_dir(tmp_path: Path) -> Iterator[tuple[Path, str, str]]:
    """A data directory with a tenant and a client application: (dir, client id, secret)."""
    data_dir = tmp_path / "service"
    settings = ServerSettings.from_options(database_url=_database(data_dir), data_dir=data_dir)
    context = build_context(settings)
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "kill-test", "kill-admin", "pw").tenant
            app, secret = create_client_app(session, tenant.id, "kill-test")
            client_id = app.id
    finally:
        context.engine.dispose()
    yield data_dir, client_id, secret


def test_kill_9_after_the_202_loses_nothing(served_dir: tuple[Path, str, str]) -> None:
    data_dir, client_id, secret = served_dir
    bol = unique("BOL")
    count = 40
    served = _Served(data_dir)
    try:
        token = httpx.post(
            f"{served.url}/api/v4/oauth2/token",
            data={
                "grant_type": "client_credentials",
                "client_id": client_id,
                "client_secret": secret,
            },
        ).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=served.url, headers=headers, timeout=30) as http:
            answer = http.put(
                "/api/v4/shipments/tracking",
                json={"identifiers": [{"type": "BILL_OF_LADING", "value": bol}]},
            )
            shipment_id = answer.json()["id"]
            ids = [accepted(http.post(TRUCKLOAD, json=body)) for body in _positions(bol, count)]
        served.kill()  # at once after the last 202: some pushes are still pending
    finally:
        served.stop()

    served = _Served(data_dir)
    try:
        with httpx.Client(base_url=served.url, headers=headers, timeout=30) as http:
            for ingestion_id in ids:
                assert settled(http, ingestion_id)["status"] == "PROCESSED"
            positions = history(http, shipment_id)["positions"]
            assert len(positions) == count
    finally:
        served.stop()
