"""Webhooks and shipment sharing: what the tenants a shipment is shared with receive.

A change of a shared shipment reaches the recipient's configurations as well as the owner's,
shaped as the recipient reads the shipment (a carrier sees no attributes); sharing sends the
recipient's classic configurations the history it can now read; after unsharing, nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from freightdesk.models.tracking import TrackedShipmentEvent
from freightdesk.server.domain import shipments as store
from freightdesk.server.tables.webhooks import WebhookDeliveryRow, WebhookPayloadRow
from tests.server.test_tracking_support import air_body, create, receive, shipment_path
from tests.server.test_webhooks_delivery import assert_signed, configure, deliveries
from tests.server.test_webhooks_support import (
    Receiver,
    eventually,
    fast_delivery,
    hooks,
    settled,
)
from tests.support import TenantHandle

__all__ = ["fast_delivery", "hooks"]  # fixtures (tests/server/test_webhooks_support.py)

ADDED = "shipments.v1.event.added"
DELETED = "shipments.v1.shipment.deleted"
T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
ATTRIBUTES = [{"name": "customer", "values": ["ACME"]}]


def _share(owner: TenantHandle, shipment_id: str, recipient: TenantHandle) -> None:
    answer = owner.http.post(
        shipment_path(shipment_id, "shares"), json={"tenantUuid": recipient.uuid}
    )
    assert answer.status_code in (200, 201), answer.text


def _unshare(owner: TenantHandle, shipment_id: str, recipient: TenantHandle) -> None:
    answer = owner.http.delete(shipment_path(shipment_id, f"shares/{recipient.uuid}"))
    assert answer.status_code == 204, answer.text


def _add_event(owner: TenantHandle, shipment_id: str, hours: int) -> str:
    event = TrackedShipmentEvent(type="ARRIVAL_AT_STOP", date_time=T0 + timedelta(hours=hours))
    return receive(owner, lambda s: store.add_event(s, shipment_id, event, "AIR"))


def _at(hooks: Receiver, path: str) -> list[Any]:
    return [r.json() for r in hooks.received() if r.path == path]


def test_changes_of_a_shared_shipment_reach_the_recipients_as_they_see_it(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle], hooks: Receiver
) -> None:
    recipient = tenant_factory()
    carrier = tenant_factory("CARRIER")
    stranger = tenant_factory()
    configs = {
        "/owner": configure(tenant, hooks.url("/owner"), ADDED),
        "/recipient": configure(recipient, hooks.url("/recipient"), ADDED),
        "/carrier": configure(carrier, hooks.url("/carrier"), ADDED),
        "/stranger": configure(stranger, hooks.url("/stranger"), ADDED),
    }
    ids = [c["id"] for c in configs.values()]
    sid = create(tenant, air_body(attributes=ATTRIBUTES))["id"]
    _add_event(tenant, sid, 1)  # before sharing: the owner's alone
    eventually(lambda: _at(hooks, "/owner"))

    _share(tenant, sid, recipient)
    _share(tenant, sid, carrier)
    shared_event = _add_event(tenant, sid, 2)
    eventually(lambda: _at(hooks, "/recipient") and _at(hooks, "/carrier"))
    settled(tenant.service, *ids)  # nothing more arrives
    owner_got, recipient_got, carrier_got = (
        _at(hooks, p) for p in ("/owner", "/recipient", "/carrier")
    )
    assert len(owner_got) == 2 and len(recipient_got) == 1 and len(carrier_got) == 1
    # The same change: the same eventId for every tenant.
    assert recipient_got[0]["eventId"] == carrier_got[0]["eventId"] == owner_got[1]["eventId"]
    for message in (recipient_got[0], carrier_got[0]):
        assert message["eventType"] == ADDED
        assert message["data"]["eventNotification"]["event"]["id"] == shared_event
        assert message["context"]["shipment"]["shipmentId"] == sid
    # Attributes are not shared with carriers.
    assert recipient_got[0]["context"]["shipment"]["attributes"] == ATTRIBUTES
    assert carrier_got[0]["context"]["shipment"]["attributes"] == []
    for request in hooks.received():
        assert_signed(request, configs[request.path]["signingSecret"])
    assert _at(hooks, "/stranger") == []

    # Unshared: the former recipient gets nothing more; the carrier still does.
    _unshare(tenant, sid, recipient)
    _add_event(tenant, sid, 3)
    eventually(lambda: len(_at(hooks, "/carrier")) == 2 and len(_at(hooks, "/owner")) == 3)
    settled(tenant.service, *ids)
    assert len(_at(hooks, "/recipient")) == 1 and _at(hooks, "/stranger") == []


def test_the_recipient_learns_of_the_deletion_and_its_log_shows_its_messages(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle], hooks: Receiver
) -> None:
    recipient = tenant_factory()
    config = configure(recipient, hooks.url("/recipient"), DELETED)
    sid = create(tenant, air_body())["id"]
    _share(tenant, sid, recipient)
    assert tenant.http.delete(shipment_path(sid)).status_code == 202
    message = eventually(lambda: _at(hooks, "/recipient"))[0]
    assert message["data"]["shipmentNotification"]["shipment"]["shipmentId"] == sid
    log = eventually(
        lambda: (
            (found := deliveries(recipient, config["id"])["deliveries"])
            and found[0]["status"] == "DELIVERED"
            and found
        )
    )
    assert [(d["eventType"], d["shipmentId"]) for d in log] == [(DELETED, sid)]


def test_sharing_sends_the_recipients_classic_push_the_history_it_can_read(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle], hooks: Receiver
) -> None:
    recipient = tenant_factory()
    ids = [configure(tenant, hooks.url("/owner"))["id"]]
    ids.append(configure(recipient, hooks.url("/recipient"))["id"])
    sid = create(tenant, air_body(attributes=ATTRIBUTES))["id"]
    eventually(lambda: _at(hooks, "/owner"))
    _share(tenant, sid, recipient)
    history = eventually(lambda: _at(hooks, "/recipient"))[-1]
    assert history == recipient.http.get(shipment_path(sid, "tracking/history")).json()
    # The recipient's view: the owner as data originator, itself as the only recipient.
    context = history["sharingContext"]
    assert [r["tenantUuid"] for r in context["recipients"]] == [recipient.uuid]
    # The owner's classic push is not sent for the sharing itself.
    settled(tenant.service, *ids)
    assert len(_at(hooks, "/owner")) == 1
    # A later change: both get the history, each as they read it.
    _add_event(tenant, sid, 1)
    eventually(lambda: len(_at(hooks, "/recipient")) == 2 and len(_at(hooks, "/owner")) == 2)
    assert _at(hooks, "/recipient")[-1] == (
        recipient.http.get(shipment_path(sid, "tracking/history")).json()
    )
    assert (
        _at(hooks, "/owner")[-1] == tenant.http.get(shipment_path(sid, "tracking/history")).json()
    )
    # Unsharing sends the former recipient nothing (it can no longer read the shipment).
    _unshare(tenant, sid, recipient)
    _add_event(tenant, sid, 2)
    eventually(lambda: len(_at(hooks, "/owner")) == 3)
    settled(tenant.service, *ids)
    assert len(_at(hooks, "/recipient")) == 2


def test_a_change_sent_to_many_configurations_is_stored_once(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    configs = [configure(tenant, hooks.url(f"/{n}"), ADDED) for n in range(3)]
    sid = create(tenant, air_body())["id"]
    event_id = _add_event(tenant, sid, 1)
    hooks.wait_for(3)
    with tenant.service.context.sessions() as session:
        ids = [c["id"] for c in configs]
        rows = session.execute(
            select(WebhookDeliveryRow.payload_id, func.count())
            .where(WebhookDeliveryRow.config_id.in_(ids))
            .group_by(WebhookDeliveryRow.payload_id)
        ).all()
        assert [count for _payload, count in rows] == [3]
        body = session.scalar(
            select(WebhookPayloadRow.body).where(WebhookPayloadRow.id == rows[0][0])
        )
    assert body is not None and event_id in body
    for config in configs:
        log = eventually(
            lambda config=config: (
                (found := deliveries(tenant, config["id"])["deliveries"])
                and found[0]["status"] == "DELIVERED"
                and found
            )
        )
        assert [d["eventType"] for d in log] == [ADDED]
