"""The fleet's latest positions for the map, polled against the real local service."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from freightdesk.api.client import ApiClient
from freightdesk.models.tracking import TrackedShipmentPosition
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipments as store
from freightdesk.service.tracks import FleetChange, FleetPositions
from tests.support import TenantHandle, wait_until

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)


def _shipment(tenant: TenantHandle) -> str:
    body = {"identifiers": [{"type": "PRO", "value": f"P{uuid.uuid4().hex[:8]}"}]}
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def _report(tenant: TenantHandle, shipment_id: str, minutes: int, latitude: float) -> None:
    fix = TrackedShipmentPosition(
        date_time=T0 + timedelta(minutes=minutes), latitude=latitude, longitude=-87.6
    )
    with transaction(tenant.service.context.sessions) as session:
        _add(session, shipment_id, fix)


def _add(session: Session, shipment_id: str, fix: TrackedShipmentPosition) -> None:
    store.add_positions(session, shipment_id, [fix], "TL")


async def test_polls_only_newer_fixes_and_tells_what_moved(
    tenant_: TenantHandle, client: ApiClient
) -> None:
    first, second = _shipment(tenant_), _shipment(tenant_)
    _report(tenant_, first, 0, 41.0)
    _report(tenant_, second, 10, 42.0)
    fleet = FleetPositions(lambda: client, interval=3600, full_every=3)
    changes: list[FleetChange] = []
    unlisten = fleet.coordinator.listen(changes.append)  # the first fetch starts at once
    await wait_until(lambda: bool(changes) or fleet.coordinator.status.failures > 0, 60)
    assert fleet.coordinator.status.last_error is None, fleet.coordinator.status.last_error
    data = fleet.coordinator.data
    assert data is not None and data.available
    assert {key: p.latitude for key, p in data.positions.items()} == {first: 41.0, second: 42.0}
    assert data.newest == T0 + timedelta(minutes=10)
    assert changes == [FleetChange(frozenset({first, second}), full=True)]

    # Nothing new: the listeners hear nothing.
    assert await fleet.coordinator.fetch_now()
    assert len(changes) == 1

    _report(tenant_, first, 20, 41.5)
    assert await fleet.coordinator.fetch_now()
    assert changes[-1] == FleetChange(frozenset({first}))
    data = fleet.coordinator.data
    assert data is not None and data.positions[first].latitude == 41.5
    assert data.positions[second].latitude == 42.0

    # A deleted shipment leaves the fleet at the next full read.
    assert tenant_.http.delete(f"/api/v4/shipments/{second}/tracking").status_code == 202
    assert await fleet.coordinator.fetch_now()
    data = fleet.coordinator.data
    assert data is not None and set(data.positions) == {first}
    assert changes[-1].full
    unlisten()
    await fleet.aclose()


async def test_listed_ids_beyond_one_request(tenant_: TenantHandle, client: ApiClient) -> None:
    shipment = _shipment(tenant_)
    _report(tenant_, shipment, 0, 40.0)
    others = [str(uuid.uuid4()) for _ in range(5_200)]
    found = await client.fleet.latest_positions([*others, shipment])
    assert [str(p.shipment_id) for p in found] == [shipment]
    assert await client.fleet.latest_positions([]) == []
