"""Two `freightdesk serve` processes on one PostgreSQL database apply carrier pushes for the
same shipments at once without deadlocking each other: every transaction that locks several
shipments locks them in one global order, by shipment id (issue 22).

The instances are real child processes; a third, in-process service without a push worker
makes the tenant and reads the outcome. PostgreSQL's own log (the test cluster's) is the
judge: it names every deadlock it broke.
"""

from __future__ import annotations

import random
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import event

from freightdesk.server.db import transaction
from freightdesk.server.domain.shipments import lock_shipments
from freightdesk.server.tables.tracking import Shipment
from tests.processes import SERVE, processes, read_until
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    create_shipment,
    history,
    iso,
    now,
    settled,
    truckload_body,
    unique,
)
from tests.server.test_webhooks_instances import At, client_on
from tests.support import PostgresServer, TenantHandle, make_tenant, running_service

SHIPMENTS = 3
PUSHES_PER_CLIENT = 300


@pytest.fixture
def database(postgres: PostgresServer) -> str:
    return postgres.create_database()


@contextmanager
def served(database: str, tmp_path: Path, count: int) -> Iterator[list[At]]:
    """`count` serve processes on `database`, their logs in `tmp_path`."""
    with processes() as started:
        urls = []
        for n in range(count):
            # Its log goes to its data directory too: an unread pipe would fill and stop it.
            child = started.start(
                [*SERVE, "--data-dir", str(tmp_path / f"i{n}"), "--database", database],
                stderr=subprocess.DEVNULL,
            )
            urls.append(read_until(child, r"http://\S+", 60).group(0))
        for url in urls:
            # The socket listens before the application is up: its first answer is the start.
            assert httpx.get(f"{url}/health", timeout=60).status_code == 200
        yield [At(url) for url in urls]


def deadlocks(log: Path, start: int) -> list[str]:
    text = log.read_bytes()[start:].decode("utf-8", "replace")
    return [line for line in text.splitlines() if "deadlock detected" in line]


def test_two_instances_applying_pushes_to_the_same_shipments_never_deadlock(
    database: str, postgres: PostgresServer, tmp_path: Path
) -> None:
    log = postgres.dir / "log"
    log_start = log.stat().st_size
    with (
        running_service(database, process_pushes=False) as front,
        served(database, tmp_path, 2) as instances,
    ):
        tenant = make_tenant(front)
        bills = [unique("BOL") for _ in range(SHIPMENTS)]
        ids = {bol: create_shipment(tenant, [("BILL_OF_LADING", bol)])["id"] for bol in bills}
        clients = [client_on(instance, tenant) for instance in instances]
        base = now() - timedelta(days=1)
        sent: dict[str, list[str]] = {bol: [] for bol in bills}
        taken: list[str] = []
        failures: list[BaseException] = []
        guard = threading.Lock()

        def pushing(n: int) -> None:
            # Each client its own order of shipments, so that two batches taken at once by
            # the two instances meet the same shipments in different orders.
            chooser = random.Random(n)
            try:
                for k in range(PUSHES_PER_CLIENT):
                    bol = chooser.choice(bills)
                    # A distinct instant: each push is one new event.
                    at = base + timedelta(seconds=2 * k + n)
                    body = truckload_body(
                        bol,
                        shipmentEvent={"type": "CHECK_CALL", "dateTime": iso(at)},
                        readings={
                            "dateTime": iso(at),
                            "position": {"latitude": 41.0 + k / 1000, "longitude": -87.6},
                        },
                    )
                    ingestion = accepted(clients[n].post(TRUCKLOAD, json=body))
                    with guard:
                        sent[bol].append(ingestion)
                        taken.append(ingestion)
            except BaseException as exc:  # the test thread reports it
                failures.append(exc)

        threads = [threading.Thread(target=pushing, args=(n,)) for n in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads)
        assert failures == []
        for ingestion in taken:
            assert settled(clients[0], ingestion, timeout=60)["status"] == "PROCESSED"
        for bol, pushed in sent.items():
            # Every accepted push applied once: one event and one position each (a push is
            # marked PROCESSED in the transaction that applied it).
            found = history(tenant, ids[bol])
            assert len(found["events"]) == len(pushed)
            assert len(found["positions"]) == len(pushed)
        for client in clients:
            client.close()
        tenant.http.close()
    assert deadlocks(log, log_start) == []


def test_shipments_are_locked_in_id_order_whatever_order_they_are_asked_in(
    database: str,
) -> None:
    with running_service(database, process_pushes=False) as service:
        tenant: TenantHandle = make_tenant(service)
        made = [
            create_shipment(tenant, [("BILL_OF_LADING", unique("BOL"))])["id"] for _ in range(5)
        ]
        tenant.http.close()
        statements: list[str] = []
        with transaction(service.context.sessions) as session:

            def seen(*args: object) -> None:
                statements.append(str(args[2]))

            connection = session.connection()
            event.listen(connection, "before_cursor_execute", seen)
            try:
                held = lock_shipments(session, [*reversed(made), made[0]])
                assert set(held) == set(made)
                assert all(isinstance(row, Shipment) for row in held.values())
                assert list(held) == sorted(made)
            finally:
                event.remove(connection, "before_cursor_execute", seen)
        locking = [s for s in statements if "FOR UPDATE" in s]
        assert len(locking) == 1 and "ORDER BY" in locking[0], locking
