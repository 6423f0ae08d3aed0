"""Background workers wake when there is work instead of polling the database (`db.wakeups`).

A change committed through the service wakes its webhook delivery at once (SQLite and
PostgreSQL); on PostgreSQL a change or a push accepted by one instance wakes the workers of
another (LISTEN/NOTIFY), and instances that both run workers still send each message once.
The fallback polls are set to a minute here, so a message or push that arrives within
`PROMPT` seconds was woken, not polled for; `PROMPT` leaves room for a machine at load 10.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from freightdesk.server.domain import push_processing
from tests.server import test_webhooks_instances as instances
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    create_shipment,
    settled,
    truckload_body,
    unique,
)
from tests.server.test_tracking_support import PUT, air_body, create
from tests.server.test_webhooks_delivery import configure, event
from tests.server.test_webhooks_support import FAST, Receiver, eventually, receiver, tuned
from tests.support import PostgresServer, TenantHandle, make_tenant, running_service

# The instances' fixtures: a fresh database, the webhook secrets key they share.
database = instances.database
key = instances.key
ADDED = "shipments.v1.event.added"
FALLBACK = 60.0
PROMPT = 10.0
# Retries as in the other delivery tests, but no polling worth the name.
IDLE = replace(FAST, poll_interval_seconds=FALLBACK, lease_seconds=3 * FALLBACK)


def arrivals(hooks: Receiver) -> dict[str, float]:
    """When each event (by id) first arrived, monotonic."""
    found: dict[str, float] = {}
    for request in hooks.received():
        event_id = request.json()["data"]["eventNotification"]["event"]["id"]
        found.setdefault(event_id, request.at)
    return found


def add_event(http: Any, shipment_id: str, events: list[dict[str, Any]], hours: int) -> str:
    """One more event on the shipment (a PUT replaces its events); returns its id."""
    events.append(event("DEPARTURE_FROM_STOP", hours))
    answer = http.put(PUT, json=air_body(id=shipment_id, events=events))
    assert answer.status_code == 200, answer.text
    return str(events[-1]["id"])


def delivered_promptly(hooks: Receiver, event_id: str, sent: float) -> None:
    arrived = eventually(lambda: arrivals(hooks).get(event_id), seconds=FALLBACK / 2)
    assert arrived - sent < PROMPT, f"{arrived - sent:.1f} s: polled for, not woken"


def changes_arrive_promptly(hooks: Receiver, tenant: TenantHandle, through: list[Any]) -> None:
    """Changes made through each client in turn, with idle pauses, each arrive promptly."""
    events: list[dict[str, Any]] = []
    shipment_id = create(tenant, air_body())["id"]
    for hours, http in enumerate(through * 2):
        time.sleep(0.5)  # the workers idle again
        sent = time.monotonic()
        delivered_promptly(hooks, add_event(http, shipment_id, events, hours), sent)


def test_a_change_is_delivered_at_once_on_sqlite() -> None:
    with receiver() as hooks, running_service() as service, tuned(service, IDLE):
        tenant = make_tenant(service)
        configure(tenant, hooks.url("/events"), ADDED)
        changes_arrive_promptly(hooks, tenant, [tenant.http])
        tenant.http.close()


@pytest.mark.usefixtures("key")
def test_a_change_through_one_instance_wakes_the_other_s_delivery(database: str) -> None:
    with (
        receiver() as hooks,
        running_service(database, process_pushes=False) as front,
        running_service(database) as back,
        tuned(back, IDLE),
    ):
        tenant = make_tenant(front)
        configure(tenant, hooks.url("/events"), ADDED)
        changes_arrive_promptly(hooks, tenant, [tenant.http])
        tenant.http.close()


@pytest.mark.usefixtures("key")
def test_instances_both_delivering_send_each_change_once_and_promptly(database: str) -> None:
    with (
        receiver() as hooks,
        running_service(database) as first,
        running_service(database) as second,
        tuned(first, IDLE),
        tuned(second, IDLE),
    ):
        tenant = make_tenant(first)
        configure(tenant, hooks.url("/events"), ADDED)
        other = instances.client_on(second, tenant)
        # Changes alternate: the chain's owner is often not the instance the change came to.
        changes_arrive_promptly(hooks, tenant, [tenant.http, other])
        other.close()
        tenant.http.close()
        time.sleep(1.0)  # a message sent twice would have arrived by now
        ids = [r.headers["webhook-id"] for r in hooks.received()]
        assert [w for w, n in Counter(ids).items() if n > 1] == []


def test_a_push_accepted_by_one_instance_is_applied_by_the_other_at_once(
    postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_processing, "IDLE_POLL_SECONDS", FALLBACK)
    database_url = postgres.create_database()
    with (
        running_service(database_url, process_pushes=False) as front,
        running_service(database_url) as back,
    ):
        tenant = make_tenant(front)
        bol = unique("BOL")
        create_shipment(tenant, [("BILL_OF_LADING", bol)])
        eventually(lambda: back.context.services.get("push_queue"), seconds=30)
        for _ in range(2):
            time.sleep(0.5)  # the worker idles
            sent = time.monotonic()
            ingestion_id = accepted(tenant.http.post(TRUCKLOAD, json=truckload_body(bol)))
            receipt = settled(tenant, ingestion_id, timeout=FALLBACK / 2)
            assert receipt["status"] == "PROCESSED"
            assert time.monotonic() - sent < PROMPT
        tenant.http.close()
