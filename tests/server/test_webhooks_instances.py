"""Several service instances on one PostgreSQL database deliver each webhook once, in order
per configuration and shipment, and a dead instance's messages move to a live one
(`server/webhooks/leases.py`).

The instances are real: two in-process services on one database, and `freightdesk serve` as a
child process where one must die by SIGKILL. Receivers listen on 127.0.0.1.
"""

from __future__ import annotations

import base64
import os
import secrets
import signal
import socket
import subprocess
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from freightdesk.server.db import utcnow
from freightdesk.server.settings import listening_url
from freightdesk.server.tables.webhooks import WebhookChainLease, WebhookDeliveryRow
from freightdesk.server.webhooks.leases import RENEW_FRACTION
from freightdesk.server.webhooks.schedule import Pending, Scheduler
from freightdesk.server.webhooks.secret_box import ENVIRONMENT_KEY
from freightdesk.server.webhooks.tuning import ENVIRONMENT_PREFIX
from tests.processes import SERVE, processes, read_until
from tests.server.test_tracking_support import PUT, air_body, create, shipment_path
from tests.server.test_webhooks_delivery import configure, event
from tests.server.test_webhooks_reliability import assert_sent_twice_and_logged_twice
from tests.server.test_webhooks_support import (
    FAST,
    Receiver,
    eventually,
    progress,
    receiver,
    redelivering_once,
    tuned,
)
from tests.support import (
    LiveService,
    PostgresServer,
    TenantHandle,
    make_tenant,
    running_service,
)

ADDED = "shipments.v1.event.added"
# Short leases, so that a dead instance's messages move within seconds.
LEASE = 3.0
TUNING = replace(FAST, lease_seconds=LEASE, per_endpoint_concurrency=8)
TYPES = ["PICKED_UP", "DEPARTURE_FROM_STOP", "ARRIVAL_AT_STOP", "DELIVERED"]


@pytest.fixture
def database(postgres: PostgresServer) -> str:
    return postgres.create_database()


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The webhook secrets key the instances share (each would otherwise make its own in
    its data directory), in the environment for this process's services and the child's."""
    made = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
    monkeypatch.setenv(ENVIRONMENT_KEY, made)
    return made


class At:
    """An instance in another process, as `client_on` needs it: its address."""

    def __init__(self, url: str) -> None:
        self.url = url


def client_on(service: LiveService | At, tenant: TenantHandle) -> httpx.Client:
    """The tenant's client application, signed in on another instance."""
    token = httpx.post(
        f"{service.url}/api/v4/oauth2/token",
        data={
            "grant_type": "client_credentials",
            "client_id": tenant.client_id,
            "client_secret": tenant.client_secret,
        },
    )
    token.raise_for_status()
    return httpx.Client(
        base_url=service.url,
        headers={"Authorization": f"Bearer {token.json()['access_token']}"},
        timeout=30,
    )


def push(http: httpx.Client, shipment_id: str, events: list[dict[str, Any]]) -> None:
    """The shipment's events so far (a PUT replaces them: the new one is added)."""
    answer = http.put(PUT, json=air_body(id=shipment_id, events=events))
    assert answer.status_code == 200, answer.text


def granular(hooks: Receiver, path: str = "/events") -> list[tuple[str, str]]:
    """(webhook-id, event id) of each granular message received, in arrival order."""
    return [
        (r.headers["webhook-id"], r.json()["data"]["eventNotification"]["event"]["id"])
        for r in hooks.received()
        if r.path == path
    ]


def in_order(
    received: list[str], expected: dict[str, list[str]], resent: frozenset[str] = frozenset()
) -> dict[str, list[str]]:
    """Per shipment, its events as they arrived (a repeat right after itself, a resend of a
    message whose answer its sender never stored, counts once; so does any later repeat of
    one of `resent`, the messages in flight when their sender was killed: the survivor sends
    them again in order, after the dead sender may already have sent the next)."""
    shipment_of = {e: s for s, events in expected.items() for e in events}
    arrived: dict[str, list[str]] = {s: [] for s in expected}
    for event_id in received:
        seen = arrived[shipment_of[event_id]]
        if seen and (seen[-1] == event_id or (event_id in resent and event_id in seen)):
            continue
        seen.append(event_id)
    return arrived


def shipments(tenant: TenantHandle, count: int, events: int) -> dict[str, list[str]]:
    """New shipments with events each: their ids and those of their events, in order."""
    made: dict[str, list[str]] = {}
    for _ in range(count):
        found = [event(TYPES[hours % len(TYPES)], hours) for hours in range(events)]
        made[create(tenant, air_body(events=found))["id"]] = [e["id"] for e in found]
    return made


def pending_count(service: LiveService) -> int:
    with service.context.sessions() as session:
        count = session.scalar(
            select(func.count())
            .select_from(WebhookDeliveryRow)
            .where(WebhookDeliveryRow.status == "PENDING")
        )
    return int(count or 0)


def test_a_second_instance_sends_nothing_the_first_is_sending(database: str, key: str) -> None:
    with receiver() as hooks, running_service(database) as first, tuned(first, TUNING):
        hooks.delay = 0.5  # slow: the first instance has a backlog when the second starts
        tenant = make_tenant(first)
        configure(tenant, hooks.url("/events"), ADDED)
        expected = shipments(tenant, 4, 6)
        total = sum(len(e) for e in expected.values())
        hooks.wait_for(1, seconds=30)
        with running_service(database) as second, tuned(second, TUNING):
            # The second instance's worker runs, the first's backlog in the database.
            assert pending_count(first) > 0
            eventually(lambda: len(hooks.received()) >= total, seconds=60)
            eventually(lambda: pending_count(first) == 0, seconds=30)
            assert progress(second).cycles > 10
        tenant.http.close()
        received = granular(hooks)
        assert len(received) == total
        duplicates = [w for w, n in Counter(w for w, _e in received).items() if n > 1]
        assert duplicates == []
        assert in_order([e for _w, e in received], expected) == expected


def test_pushes_alternating_between_instances_arrive_in_order(database: str, key: str) -> None:
    with (
        receiver() as hooks,
        running_service(database) as first,
        running_service(database) as second,
        tuned(first, TUNING),
        tuned(second, TUNING),
    ):
        hooks.delay = 0.2  # slower than the pushes: each instance has a queue
        tenant = make_tenant(first)
        configure(tenant, hooks.url("/events"), ADDED)
        configure(tenant, hooks.url("/classic"))
        clients = [tenant.http, client_on(second, tenant)]
        made = [create(tenant, air_body())["id"] for _ in range(3)]
        events: dict[str, list[dict[str, Any]]] = {s: [] for s in made}
        for step in range(8):
            for n, shipment_id in enumerate(made):
                events[shipment_id].append(event(TYPES[step % len(TYPES)], step))
                # Runs of two on one instance, alternating, and shipments out of phase.
                push(clients[(step // 2 + n) % 2], shipment_id, events[shipment_id])
        clients[1].close()
        tenant.http.close()
        expected = {s: [e["id"] for e in found] for s, found in events.items()}
        total = sum(len(e) for e in expected.values())
        eventually(lambda: len(granular(hooks)) >= total, seconds=60)

        def classic() -> list[tuple[str, list[str]]]:
            return [
                (r.json()["shipment"]["id"], [e["id"] for e in r.json()["events"]])
                for r in hooks.received()
                if r.path == "/classic"
            ]

        # Each shipment's last history (all its events) arrives in the end.
        eventually(
            lambda: {s for s, ids in classic() if len(ids) == 8} == set(expected), seconds=60
        )
        received = granular(hooks)
        assert len(received) == total
        assert len({w for w, _e in received}) == total  # none twice
        assert in_order([e for _w, e in received], expected) == expected
        # No classic history older than one that came before it.
        for shipment_id in expected:
            sizes = [len(ids) for s, ids in classic() if s == shipment_id]
            assert sizes == sorted(sizes), (shipment_id, sizes)


def test_a_killed_instance_s_messages_are_sent_by_another_within_a_lease(
    database: str, key: str, tmp_path: Path
) -> None:
    # The shipments are made through an instance without workers, so that the child
    # process fans them out and owns every chain; the live instance starts afterwards.
    with (
        receiver() as hooks,
        running_service(database, process_pushes=False) as front,
        processes() as started,
    ):
        hooks.delay = 0.8
        tenant = make_tenant(front)
        configure(tenant, hooks.url("/events"), ADDED)
        environment = {**os.environ, f"{ENVIRONMENT_PREFIX}LEASE_SECONDS": str(LEASE)}
        child = started.start(
            [*SERVE, "--data-dir", str(tmp_path / "child"), "--database", database],
            env=environment,
        )
        read_until(child, r"http://\S+", 60)
        expected = shipments(tenant, 4, 6)
        tenant.http.close()
        everything = {e for ids in expected.values() for e in ids}
        hooks.wait_for(1, seconds=30)

        def owners() -> set[str]:
            with front.context.sessions() as session:
                return set(session.scalars(select(WebhookChainLease.owner).distinct()))

        assert {owner.split(":")[1] for owner in owners()} == {str(child.pid)}
        with running_service(database) as survivor, tuned(survivor, TUNING):
            eventually(lambda: progress(survivor).cycles > 5, seconds=30)
            assert pending_count(survivor) > 4  # a backlog: more than one message a chain
            killed = time.monotonic()
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            # Its backlog arrives once its leases ran out, each chain's at a receiver's pace.
            eventually(lambda: {e for _w, e in granular(hooks)} == everything, seconds=LEASE + 20)
            eventually(lambda: pending_count(survivor) == 0, seconds=10)
            assert {owner.split(":")[1] for owner in owners()} <= {str(os.getpid())}
        # The child's leases last at least two thirds of a lease past its death: what
        # arrived in the first second after it was sent by the child.
        before = [r for r in hooks.received() if r.at < killed + 1.0]
        after = [r.at for r in hooks.received() if r.at >= killed + 1.0]
        assert after and min(after) - killed < LEASE + 3  # taken over within a lease
        received = [e for _w, e in granular(hooks)]
        # Only a message in flight when its sender died may come twice.
        twice = {e for e, n in Counter(received).items() if n > 1}
        assert twice <= {r.json()["data"]["eventNotification"]["event"]["id"] for r in before}
        assert in_order(received, expected, frozenset(twice)) == expected


def test_a_stopped_instance_lets_its_messages_go_at_once(database: str, key: str) -> None:
    # Long leases: the survivor renews (and would take over) only every 20 s, so what moves
    # sooner moved because the stop let it go and woke the survivor.
    tuning = replace(TUNING, lease_seconds=60.0)
    with receiver() as hooks, ExitStack() as first_scope:
        hooks.delay = 0.4  # each chain takes about 5 s: most is left when the first stops
        first = first_scope.enter_context(running_service(database))
        first_scope.enter_context(tuned(first, tuning))
        tenant = make_tenant(first)
        configure(tenant, hooks.url("/events"), ADDED)
        expected = shipments(tenant, 4, 12)  # fanned out, their chains owned, by the first
        tenant.http.close()
        hooks.wait_for(1, seconds=30)
        with running_service(database) as survivor, tuned(survivor, tuning):
            eventually(lambda: progress(survivor).cycles > 5, seconds=30)
            assert pending_count(survivor) > 4
            stopped = time.monotonic()
            first_scope.close()  # its requests in flight are answered and stored
            assert pending_count(survivor) > 0
            arrived = len(hooks.received())
            eventually(lambda: pending_count(survivor) == 0, seconds=30)
        after = [r.at for r in hooks.received()[arrived:]]
        # Taken over at once, not at the survivor's next renewal (a third of a lease).
        assert after and min(after) - stopped < tuning.lease_seconds * RENEW_FRACTION / 2
        received = granular(hooks)
        assert len({w for w, _e in received}) == len(received)  # none twice
        assert in_order([e for _w, e in received], expected) == expected


def test_a_redelivery_asked_of_another_instance_during_an_attempt_is_sent(
    database: str, key: str
) -> None:
    """The receiver asks an instance that sends nothing (its workers off) for a redelivery
    of the message the first instance is sending it, before answering 200: the first
    instance, woken through PostgreSQL, sends it again."""
    with (
        receiver() as hooks,
        running_service(database) as first,
        tuned(first, TUNING),
        running_service(database, process_pushes=False) as other,
    ):
        tenant = make_tenant(first)
        config = configure(tenant, hooks.url(), "shipments.v1.shipment.created")
        with client_on(other, tenant) as http:
            hooks.answer, asked = redelivering_once(http, config["id"])
            create(tenant, air_body())
            assert_sent_twice_and_logged_twice(hooks, http, config["id"], asked)
        tenant.http.close()


def test_a_chain_taken_over_is_forgotten_and_its_flight_moves_nothing() -> None:
    """What an instance does with a chain another took over (`Scheduler.forget_chain`)."""
    now = utcnow()

    def pending(message_id: int, chain: str) -> Pending:
        return Pending(message_id, 1, message_id, chain, f"e{message_id}", 0, now)

    scheduler = Scheduler()
    for message_id, chain in [(1, "a"), (2, "a"), (3, "b"), (4, "c"), (5, "c")]:
        scheduler.add(pending(message_id, chain))
    flying = scheduler.take(now, per_config=2, limit=10, usable=lambda _c: True)
    assert [p.message_id for p in flying] == [1, 3]
    scheduler.forget_chain((1, "a"))  # message 1 in flight, 2 waiting
    scheduler.forget_chain((1, "c"))  # waiting only
    assert scheduler.chains() == {(1, "b")} and scheduler.payloads() == {3}
    scheduler.settle(flying[0], None)  # its answer: nothing of chain a follows
    assert scheduler.take(now, per_config=8, limit=10, usable=lambda _c: True) == []
    scheduler.settle(flying[1], None)
    assert scheduler.chains() == set() and scheduler.next_due() is None


def link_of(hooks: Receiver, shipment_id: str) -> str:
    """The shipmentShareLink of the first message received about the shipment."""
    for request in hooks.received():
        shipment = request.json()["context"]["shipment"]
        if shipment["shipmentId"] == shipment_id:
            return str(shipment["shipmentShareLink"])
    raise AssertionError(f"no message about {shipment_id}")


def test_an_instance_that_served_no_request_links_to_the_public_url(
    database: str, key: str, tmp_path: Path
) -> None:
    # The configuration and the shipments go through an instance without workers: the
    # messages are built and sent by a serve process that answers no request before.
    public = "https://track.example.com/freightdesk"
    with (
        receiver() as hooks,
        running_service(database, process_pushes=False) as front,
        processes() as started,
    ):
        tenant = make_tenant(front)
        configure(tenant, hooks.url("/events"), ADDED)
        environment = {**os.environ, "FREIGHTDESK_PUBLIC_URL": f"{public}/"}
        child = started.start(
            [*SERVE, "--data-dir", str(tmp_path / "public"), "--database", database],
            env=environment,
            stderr=subprocess.DEVNULL,
        )
        url = read_until(child, r"http://\S+", 60).group(0)
        first = next(iter(shipments(tenant, 1, 1)))
        eventually(lambda: bool(granular(hooks)), seconds=30)
        token = link_of(hooks, first).rsplit("/", 1)[1]
        assert link_of(hooks, first) == f"{public}/api/v4/public/shipments/{token}"
        # Its API answers carry the same link, whichever address the request came to.
        with client_on(At(url), tenant) as http:
            answer = http.get(shipment_path(first))
            assert answer.json()["shipmentShareLink"] == link_of(hooks, first)
        child.terminate()
        child.wait(timeout=30)

        # Without a public URL: a warning at start, and links to the instance's own address.
        errors = tmp_path / "own.stderr"
        with errors.open("wb") as stderr:
            own = started.start(
                [*SERVE, "--data-dir", str(tmp_path / "own"), "--database", database],
                env={k: v for k, v in os.environ.items() if k != "FREIGHTDESK_PUBLIC_URL"},
                stderr=stderr,
            )
        own_url = read_until(own, r"http://\S+", 60).group(0)
        second = next(iter(shipments(tenant, 1, 1)))
        tenant.http.close()
        eventually(lambda: any(second.encode() in r.body for r in hooks.received()), seconds=30)
        assert link_of(hooks, second).startswith(f"{own_url}/api/v4/public/shipments/")
        warning = errors.read_text()
        assert "no public URL (--public-url or FREIGHTDESK_PUBLIC_URL)" in warning
        assert own_url in warning


def test_serve_refuses_a_public_url_that_is_not_absolute(tmp_path: Path) -> None:
    for given in ["track.example.com", "/freightdesk", "ftp://example.com", "https://x.io/?a=1"]:
        refused = subprocess.run(
            [*SERVE, "--data-dir", str(tmp_path / "refused"), "--public-url", given],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode == 2, (given, refused.stderr)
        assert "--public-url" in refused.stderr and repr(given) in refused.stderr


def test_links_without_a_public_url_name_a_reachable_host() -> None:
    assert listening_url("127.0.0.1", 8044) == "http://127.0.0.1:8044"
    assert listening_url("::1", 8044) == "http://[::1]:8044"
    # A wildcard address leads nowhere: the machine's name instead.
    for wildcard in ("0.0.0.0", "::"):
        assert listening_url(wildcard, 8044) == f"http://{socket.gethostname()}:8044"
