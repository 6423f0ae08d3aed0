"""The webhook fan-out reads a journal row's payload only if some configuration may receive
the change, and a configuration made between two pushes gets the second's change."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event

from freightdesk.server.tables.tracking import ShipmentChange
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    create_shipment,
    iso,
    now,
    settled,
    truckload_body,
    unique,
)
from tests.server.test_webhooks_delivery import configure
from tests.server.test_webhooks_support import Receiver, eventually, fast_delivery, hooks
from tests.server.test_webhooks_support import settled as fanned_out
from tests.support import TenantHandle

__all__ = ["fast_delivery", "hooks"]  # fixtures (tests/server/test_webhooks_support.py)


def _push(tenant: TenantHandle, bol: str, event_type: str, minutes_ago: int) -> None:
    """A truckload push with a stop event and a position, applied before this returns."""
    at = iso(now() - timedelta(minutes=minutes_ago))
    body = truckload_body(
        bol,
        shipmentEvent={"type": event_type, "dateTime": at},
        readings={"dateTime": at, "position": {"latitude": 41.5, "longitude": -87.6}},
    )
    receipt = settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))
    assert receipt["status"] == "PROCESSED", receipt


@contextmanager
def loaded_changes(shipment_id: str) -> Iterator[list[str]]:
    """The kinds of this shipment's journal rows loaded whole (payload included) meanwhile."""
    kinds: list[str] = []

    def on_load(change: ShipmentChange, _context: Any) -> None:
        if change.shipment_id == shipment_id:
            kinds.append(change.kind)

    event.listen(ShipmentChange, "load", on_load)
    try:
        yield kinds
    finally:
        event.remove(ShipmentChange, "load", on_load)


@pytest.mark.parametrize("kind", ["shipments.v1.event.added", None])
def test_a_configuration_made_between_two_pushes_gets_the_second(
    tenant: TenantHandle, hooks: Receiver, kind: str | None
) -> None:
    bol = unique("BOL")
    shipment = create_shipment(tenant, [("BILL_OF_LADING", bol)])
    _push(tenant, bol, "PICKUP", 30)
    fanned_out(tenant.service)  # the first push's changes went to no configuration
    config = configure(tenant, hooks.url(), kind)
    _push(tenant, bol, "DEPARTURE_FROM_STOP", 20)
    fanned_out(tenant.service, config["id"])
    bodies = hooks.bodies()
    if kind is None:  # classic: the history, with both events
        [history] = bodies
        assert history["shipment"]["id"] == shipment["id"]
        types = {e["type"] for e in history["events"]}
        assert types == {"PICKUP", "DEPARTURE_FROM_STOP"}
    else:
        [message] = bodies
        assert message["eventType"] == kind
        assert message["data"]["eventNotification"]["event"]["type"] == "DEPARTURE_FROM_STOP"


def test_changes_no_configuration_may_receive_are_not_loaded(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    bol = unique("BOL")
    shipment = create_shipment(tenant, [("BILL_OF_LADING", bol)])
    fanned_out(tenant.service)
    with loaded_changes(shipment["id"]) as kinds:
        _push(tenant, bol, "PICKUP", 30)
        fanned_out(tenant.service)
        assert kinds == []  # no configuration at all
        # One for another kind: the event and the positions still go nowhere.
        configure(tenant, hooks.url(), "shipments.v1.shipment.deleted")
        _push(tenant, bol, "DEPARTURE_FROM_STOP", 20)
        fanned_out(tenant.service)
        assert kinds == []
        configure(tenant, hooks.url(), "shipments.v1.event.added")
        _push(tenant, bol, "ARRIVAL_AT_STOP", 10)
        fanned_out(tenant.service)
        # Every change of the shipment in the batch is read: they describe it together.
        assert "shipments.v1.event.added" in kinds
        eventually(lambda: len(hooks.received()) == 1)
