"""The list's row takes what the detail read when, and only when, the detail's read is the
newer version of the shipment (its lastModifiedDateTime), and keeps it over a restart."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from freightdesk.api.client import ApiClient
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import ShipmentsService
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
from tests.support import TenantHandle


def report(tenant: TenantHandle, bol: str, event_type: str, minutes_ago: int) -> None:
    """A carrier's truckload report of `event_type`, once the service has applied it."""
    at = now() - timedelta(minutes=minutes_ago)
    body = truckload_body(bol, shipmentEvent={"type": event_type, "dateTime": iso(at)})
    settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))


def _state(service: ShipmentsService, shipment_id: str) -> str | None:
    assert service.coordinator.data is not None
    return service.coordinator.data.summaries[shipment_id].current_state


async def test_the_row_takes_a_newer_read_and_only_a_newer_one(
    client: ApiClient, tenant_: TenantHandle, tmp_path: Path
) -> None:
    bol = unique("BOL")
    shipment_id = str(create_shipment(tenant_, [("BILL_OF_LADING", bol)], stops=2)["id"])
    cache = Cache(tmp_path / "cache.sqlite3")
    service = ShipmentsService(lambda: client, cache, interval=3600)
    try:
        assert await service.coordinator.fetch_now()
        assert _state(service, shipment_id) == "SCHEDULED"
        before = await service.history(shipment_id)

        await asyncio.to_thread(report, tenant_, bol, "ARRIVAL_AT_STOP", 1)
        await service.take_fresher(before)  # what the list has already: nothing moves
        assert _state(service, shipment_id) == "SCHEDULED"
        after = await service.history(shipment_id)
        await service.take_fresher(after)
        assert _state(service, shipment_id) == "AT_STOP"

        # A read older than the row (a detail polled before the list's sync) changes nothing.
        await service.take_fresher(before)
        assert _state(service, shipment_id) == "AT_STOP"
    finally:
        await service.coordinator.aclose()
    # The app opens from its cache with the row as the detail last showed it.
    reopened = ShipmentsService(lambda: client, cache)
    assert (await reopened.load_cached()).summaries[shipment_id].current_state == "AT_STOP"
    cache.close()
