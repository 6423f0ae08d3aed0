"""`freightdesk serve --demo` as the app runs it: a child process on a fresh data directory."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, func, select

from freightdesk.server.db import make_engine
from freightdesk.server.demo import DEMO_TENANT_NAME, commerce, partners
from freightdesk.server.demo.lanes import OWN_SITES
from freightdesk.server.demo.portfolio import ACCOUNT_GROUPS, COUNTS, plan_shipments
from freightdesk.server.demo.progress import DEMO_SHIPMENTS
from freightdesk.server.settings import sqlite_url
from freightdesk.server.tables.account_groups import AccountGroupRow
from freightdesk.server.tables.booking import BookingRow
from freightdesk.server.tables.demo import DemoSeeding
from freightdesk.server.tables.documents import DocumentRow
from freightdesk.server.tables.packaging import PackageRow
from freightdesk.server.tables.rail import RailLegRow
from freightdesk.server.tables.rating import RateRequestRow
from freightdesk.server.tables.stop_locations import StopLocationRow
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment

LISTENING = re.compile(r"listening on (http://\S+)")
CREDENTIALS = re.compile(r"client id (\S+), client secret (\S+)")
DEMO_STATUS = "/services/demo/v1/status"


@dataclass
class Served:
    url: str
    printed: list[str]  # the lines printed before listening
    process: subprocess.Popen[str]
    started: float  # time.monotonic() when the process was started
    answered: float  # ... and when /health first answered


@contextmanager
def serve(data_dir: Path) -> Iterator[Served]:
    """Run the service with --demo on a free port, as the app does, until it answers."""
    started = time.monotonic()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "freightdesk.cli",
            "serve",
            "--demo",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "FREIGHTDESK_DATABASE_URL": ""},
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(
        target=lambda: [lines.put(line) for line in process.stdout or []], daemon=True
    )
    reader.start()
    printed: list[str] = []
    try:
        deadline = time.monotonic() + 180
        while True:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            printed.append(line)
            if match := LISTENING.search(line):
                url = match.group(1)
                _wait_until_answering(url, process)
                yield Served(url, printed, process, started, time.monotonic())
                return
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=5)


def _wait_until_answering(url: str, process: subprocess.Popen[str]) -> None:
    """The port is bound before the server accepts connections; wait as the app does."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise
        time.sleep(0.02)


def demo_status(served: Served) -> dict[str, Any]:
    answer = httpx.get(f"{served.url}{DEMO_STATUS}", timeout=10)
    assert answer.status_code == 200
    found: dict[str, Any] = answer.json()
    return found


def follow_preparation(
    served: Served, until: Callable[[dict[str, Any]], bool] = lambda _s: False
) -> list[dict[str, Any]]:
    """The demo status read every 50 ms until the demo is ready (or `until` says stop);
    fails once the service has died or after 5 minutes without readiness."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert served.process.poll() is None, "the service exited"
        status = demo_status(served)
        seen.append(status)
        if status["state"] != "preparing" or until(status):
            return seen
        time.sleep(0.05)
    raise AssertionError(f"the demo was not ready after 5 minutes: {seen[-1]}")


def _token(url: str, client_id: str, secret: str) -> str:
    token = httpx.post(
        f"{url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, secret),
    )
    assert token.status_code == 200
    value: str = token.json()["access_token"]
    return value


def test_serve_demo_prints_credentials_once_and_they_work() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-demo-cli-"))
    try:
        with serve(data_dir) as served:
            found = [m for line in served.printed if (m := CREDENTIALS.search(line))]
            assert len(found) == 1
            client_id, secret = found[0].groups()
            bearer = {"Authorization": f"Bearer {_token(served.url, client_id, secret)}"}
            assert follow_preparation(served)[-1]["state"] == "ready"
            shipments = httpx.post(
                f"{served.url}/api/v4/shipments/search?pageSize=1",
                json={"transportationModes": ["OCEAN"]},
                headers=bearer,
            )
            assert shipments.status_code == 200
            assert shipments.json()["paginationInfo"]["total"] >= 20
        # Started again on the same data: nothing new is seeded and no secret is printed.
        with serve(data_dir) as served:
            assert not any(CREDENTIALS.search(line) for line in served.printed)
            assert demo_status(served)["state"] == "ready"
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_a_fresh_start_answers_at_once_and_the_demo_fills_in_while_it_answers() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-demo-cli-"))
    try:
        with serve(data_dir) as served:
            first = demo_status(served)
            # Answering before the demo is written (the old start wrote it first: 25 to 76 s).
            # The start itself is about 2 s of CPU: 10 s ran out at a load of 15 on 2 cores.
            assert served.answered - served.started < 20
            assert first["state"] == "preparing"
            # Counted from the first answer: the app says "0 of 302", not a bare "Preparing".
            assert first["shipmentsTotal"] == DEMO_SHIPMENTS
            assert first["shipmentsReady"] < first["shipmentsTotal"]
            found = CREDENTIALS.search("".join(served.printed))
            assert found is not None
            client_id, secret = found.groups()
            bearer = {"Authorization": f"Bearer {_token(served.url, client_id, secret)}"}
            seen = [first, *follow_preparation(served)]
            search = httpx.post(
                f"{served.url}/api/v4/shipments/search?pageSize=500", json={}, headers=bearer
            )
        total = seen[-1]["shipmentsTotal"]
        assert seen[-1] == {"state": "ready", "shipmentsReady": total, "shipmentsTotal": total}
        # The demo's planned shipments, those its accepted bookings track, and its partner's.
        planned = sum(COUNTS.values()) + commerce.BOOKED_SHIPMENTS + partners.SHARED_WITH_DEMO
        assert total == planned == DEMO_SHIPMENTS
        readies = [s["shipmentsReady"] for s in seen]
        assert readies == sorted(readies)  # never backwards
        assert any(0 < ready < total for ready in readies)  # seen while it filled in
        # Every planned shipment is there, once, besides those of the accepted bookings.
        summaries = search.json()["results"]
        assert len(summaries) == total
        planned = _planned_identifiers(data_dir)
        identifiers = sorted(str(s["primaryIdentifier"]) for s in summaries)
        assert [i for i in identifiers if i in set(planned)] == planned
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_a_seeding_killed_half_way_is_finished_by_the_next_start_without_duplicates() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-demo-cli-"))
    try:
        with serve(data_dir) as served:
            seen = follow_preparation(served, until=lambda s: s["shipmentsReady"] > 0)
            assert seen[-1]["state"] == "preparing", "the demo was ready before it was killed"
            served.process.kill()  # no goodbye: as a crash or SIGKILL
            served.process.wait(timeout=20)
        with serve(data_dir) as served:
            again = follow_preparation(served)
        assert again[0]["shipmentsReady"] >= seen[-1]["shipmentsReady"]
        assert again[-1]["state"] == "ready"
        stored = _stored(data_dir)
        assert stored["identifiers"] == _planned_identifiers(data_dir)
        assert stored["documents"] == stored["planned documents"]
        assert stored["stop locations"] == len(OWN_SITES)
        assert stored["account groups"] == len(ACCOUNT_GROUPS)
        assert stored["tenants"] == [DEMO_TENANT_NAME, partners.PARTNER_NAME]
        assert stored["commerce"] == {
            "rate requests": 10,
            "bookings": 7,
            "packages": commerce.PACKAGES,
            "rail legs": commerce.RAIL_LEGS,
        }
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _database(data_dir: Path) -> Engine:
    return make_engine(sqlite_url(data_dir / "freightdesk.sqlite3"))


def _planned_identifiers(data_dir: Path) -> list[str]:
    """The primary identifiers of the plans of the seed and hour the demo was made with."""
    engine = _database(data_dir)
    try:
        with engine.connect() as connection:
            seed, anchor = connection.execute(select(DemoSeeding.seed, DemoSeeding.anchor)).one()
    finally:
        engine.dispose()
    # The demo's own plans and its partner's moves (shared with the demo).
    plans = plan_shipments(seed, anchor) + partners.partner_plans(seed, anchor)
    return sorted(plan.identifiers[0][1] for plan in plans)


def _stored(data_dir: Path) -> dict[str, Any]:
    engine = _database(data_dir)
    try:
        with engine.connect() as connection:
            seed, anchor = connection.execute(select(DemoSeeding.seed, DemoSeeding.anchor)).one()

            def count(table: Any) -> int:
                return int(connection.execute(select(func.count()).select_from(table)).scalar_one())

            return {
                # The demo's planned shipments: not those its accepted bookings track.
                "identifiers": sorted(
                    connection.execute(
                        select(Shipment.primary_identifier).where(
                            Shipment.id.not_in(
                                select(BookingRow.master_shipment_id).where(
                                    BookingRow.master_shipment_id.is_not(None)
                                )
                            )
                        )
                    ).scalars()
                ),
                "commerce": {
                    "rate requests": count(RateRequestRow),
                    "bookings": count(BookingRow),
                    "packages": count(PackageRow),
                    "rail legs": count(RailLegRow),
                },
                "documents": count(DocumentRow),
                "planned documents": sum(
                    len(plan.documents) for plan in plan_shipments(seed, anchor)
                ),
                "stop locations": count(StopLocationRow),
                "account groups": count(AccountGroupRow),
                "tenants": list(
                    connection.execute(select(Tenant.name).order_by(Tenant.id)).scalars()
                ),
            }
    finally:
        engine.dispose()
