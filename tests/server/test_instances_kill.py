"""Two `freightdesk serve` processes on one PostgreSQL database take carrier pushes at once;
one is killed with SIGKILL halfway and started again on the same data directory. Every push
either instance answered 202 is applied exactly once, and every event the pushes added reaches
the webhook receiver, in order per shipment, twice only if its sender died before storing that
it was delivered (issue 22).

A third, in-process service without workers makes the tenant and reads the outcome.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.server.tables.webhooks import (
    WebhookChainLease,
    WebhookDeliveryRow,
    WebhookPayloadRow,
)
from freightdesk.server.webhooks.outbox import DELIVERED
from freightdesk.server.webhooks.tuning import ENVIRONMENT_PREFIX
from tests.processes import SERVE, Processes, processes, read_until
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
from tests.server.test_webhooks_delivery import configure
from tests.server.test_webhooks_instances import (
    ADDED,
    LEASE,
    At,
    client_on,
    database,
    granular,
    key,
)
from tests.server.test_webhooks_support import eventually, receiver
from tests.support import TenantHandle, make_tenant, running_service

__all__ = ["database", "key"]  # fixtures: a PostgreSQL database, the webhook key both share

SHIPMENTS = 4
PUSHES_PER_CLIENT = 40


class Instance:
    """A `freightdesk serve` child on the shared database, signed in as the tenant."""

    def __init__(self, started: Processes, database: str, data_dir: Path) -> None:
        environment = {**os.environ, f"{ENVIRONMENT_PREFIX}LEASE_SECONDS": str(LEASE)}
        self.process = started.start(
            [*SERVE, "--data-dir", str(data_dir), "--database", database],
            env=environment,
            stderr=subprocess.DEVNULL,  # its log is in its data directory too
        )
        self.url = read_until(self.process, r"http://\S+", 60).group(0)
        # The socket listens before the application is up: its first answer is the start.
        assert httpx.get(f"{self.url}/health", timeout=60).status_code == 200

    def client(self, tenant: TenantHandle) -> httpx.Client:
        return client_on(At(self.url), tenant)


def delivered(session: Session) -> set[str]:
    """The messages (webhook-ids) stored as delivered."""
    return set(
        session.scalars(
            select(WebhookPayloadRow.event_id)
            .join(WebhookDeliveryRow, WebhookDeliveryRow.payload_id == WebhookPayloadRow.id)
            .where(WebhookDeliveryRow.status == DELIVERED)
        )
    )


def chains(session: Session) -> dict[str, tuple[str, int]]:
    """Each message's (webhook-id's) chain (its shipment; one configuration here) and place
    in it."""
    rows = session.execute(
        select(WebhookPayloadRow.event_id, WebhookPayloadRow.shipment_id)
        .join(WebhookDeliveryRow, WebhookDeliveryRow.payload_id == WebhookPayloadRow.id)
        .order_by(WebhookDeliveryRow.id)
    )
    places: Counter[str] = Counter()
    found: dict[str, tuple[str, int]] = {}
    for message_id, shipment_id in rows:
        found[message_id] = (str(shipment_id), places[str(shipment_id)])
        places[str(shipment_id)] += 1
    return found


def runs(received: list[str], chain_of: dict[str, tuple[str, int]]) -> dict[str, list[list[int]]]:
    """Per chain, the places of its messages as they arrived, cut into runs: a run goes on with
    the chain's next message; a message at or before the last one begins a new run (a resend).
    A message further on, skipping one, is kept as a run of its own too, to fail the test."""
    found: dict[str, list[list[int]]] = {}
    for message_id in received:
        chain, place = chain_of[message_id]
        cut = found.setdefault(chain, [])
        if cut and place == cut[-1][-1] + 1:
            cut[-1].append(place)
        else:
            cut.append([place])
    return found


def test_a_killed_and_restarted_instance_loses_no_push_and_no_message(
    database: str, key: str, tmp_path: Path
) -> None:
    with (
        receiver() as hooks,
        running_service(database, process_pushes=False) as front,
        processes() as started,
    ):
        hooks.delay = 0.2  # a backlog of messages on both instances when one dies
        tenant = make_tenant(front)
        configure(tenant, hooks.url("/events"), ADDED)
        first = Instance(started, database, tmp_path / "i0")
        second = Instance(started, database, tmp_path / "i1")
        instances = [first, second]
        bills = [unique("BOL") for _ in range(SHIPMENTS)]
        ids = {bol: create_shipment(tenant, [("BILL_OF_LADING", bol)])["id"] for bol in bills}
        base = now() - timedelta(days=1)
        taken: dict[str, list[str]] = {bol: [] for bol in bills}  # ingestion ids of each 202
        unknown: Counter[str] = Counter()  # pushes cut off by the kill: applied or not
        failures: list[BaseException] = []
        guard = threading.Lock()
        halfway = threading.Event()
        back = threading.Event()

        def pushing(n: int) -> None:
            client = instances[n].client(tenant)
            try:
                for k in range(PUSHES_PER_CLIENT):
                    bol = bills[(k + n) % SHIPMENTS]
                    # A distinct instant per push: each adds one event of its own.
                    at = base + timedelta(seconds=2 * k + n)
                    body = truckload_body(
                        bol,
                        shipmentEvent={"type": "CHECK_CALL", "dateTime": iso(at)},
                        readings={
                            "dateTime": iso(at),
                            "position": {"latitude": 41.0 + k / 1000, "longitude": -87.6},
                        },
                    )
                    try:
                        answer = client.post(TRUCKLOAD, json=body)
                    except httpx.TransportError:
                        # Its instance died under it: the push may or may not be stored.
                        with guard:
                            unknown[bol] += 1
                        assert back.wait(timeout=120)
                        client.close()
                        client = instances[n].client(tenant)
                        continue
                    with guard:
                        taken[bol].append(accepted(answer))
                        if sum(map(len, taken.values())) >= PUSHES_PER_CLIENT:
                            halfway.set()
                    time.sleep(0.02)  # a steady stream, still flowing when one dies
            except BaseException as exc:  # the test thread reports it
                failures.append(exc)
            finally:
                client.close()

        threads = [threading.Thread(target=pushing, args=(n,)) for n in range(2)]
        for thread in threads:
            thread.start()
        # Halfway, once messages flow with a backlog behind them, the instance that sends
        # them (that holds the leases) dies with its queues, and comes back.
        assert halfway.wait(timeout=120)
        hooks.wait_for(4, seconds=90)
        with front.context.sessions() as session:
            owners = Counter(session.scalars(select(WebhookChainLease.owner)))
        owner_pid = int(owners.most_common(1)[0][0].split(":")[1])
        victim = next(n for n, i in enumerate(instances) if i.process.pid == owner_pid)
        instances[victim].process.send_signal(signal.SIGKILL)
        instances[victim].process.wait(timeout=30)
        # Stored as delivered when the sender died: never sent again. (A store the dead
        # instance's connection still commits is not in it: that message may be resent.)
        with front.context.sessions() as session:
            stored = delivered(session)
        stored_at = time.monotonic()
        instances[victim] = Instance(started, database, tmp_path / f"i{victim}")
        back.set()
        for thread in threads:
            thread.join(timeout=240)
        assert not any(thread.is_alive() for thread in threads)
        assert failures == []

        reader = instances[1 - victim].client(tenant)
        for pushed in taken.values():
            for ingestion in pushed:
                assert settled(reader, ingestion, timeout=90)["status"] == "PROCESSED"
        added: set[str] = set()
        for bol, pushed in taken.items():
            # Applied once: one event and one position for each accepted push.
            found = history(reader, ids[bol])
            applied = len(found["events"])
            assert len(pushed) <= applied <= len(pushed) + unknown[bol], bol
            assert len(found["positions"]) == applied, bol
            added |= {e["id"] for e in found["events"]}
        reader.close()

        # Every added event is delivered, the dead instance's backlog by a live one.
        eventually(lambda: {e for _w, e in granular(hooks)} == added, seconds=LEASE + 90)
        received = granular(hooks)
        assert len({w for w, _e in received}) == len(added)  # one message per event
        # A chain's next message is sent once its receiver answered the last one, before that
        # outcome is stored (a cycle later, however long the database takes under load): the
        # messages a killed sender delivered since its last stored outcome are sent again, in
        # order, by the chain's next owner. So each chain arrives as its messages in order,
        # then at most once (the kill) again from an earlier one, never from one stored as
        # delivered: a message sent twice without a kill, or again after its delivery was
        # stored, fails.
        with front.context.sessions() as session:
            chain_of = chains(session)
        for chain, cut in runs([w for w, _e in received], chain_of).items():
            once, *resent = cut
            assert once[0] == 0, (chain, cut)
            assert len(resent) <= 1 and all(r[0] <= once[-1] for r in resent), (chain, cut)
        again = {
            r.headers["webhook-id"]
            for r in hooks.received()
            if r.path == "/events" and r.at > stored_at
        }
        assert again & stored == set()
        tenant.http.close()
