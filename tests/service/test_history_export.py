"""A shipment's events and track read for an export from the real local service: the events
with their stops named (getEventHistory with the route), the positions oldest first
(getPositionHistory), times kept as instants for the writer."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from freightdesk.api.client import ApiClient
from freightdesk.service.history_export import EVENT_HEADER, POSITION_HEADER, HistoryExport
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    iso,
    now,
    settled,
    truckload_body,
)
from tests.support import TenantHandle


def report_positions(tenant: TenantHandle, bol: str, fixes: list[tuple[int, float]]) -> None:
    """The carrier reports the truck of `bol` at each (minutes ago, latitude), longitude -88."""
    for minutes, latitude in fixes:
        readings = {
            "dateTime": iso(now() - timedelta(minutes=minutes)),
            "position": {"latitude": latitude, "longitude": -88.0},
        }
        body = truckload_body(bol, readings=readings)
        answer = tenant.http.post(TRUCKLOAD, json=body)
        assert settled(tenant, accepted(answer))["status"] == "PROCESSED"


async def test_events_name_their_stops_and_positions_come_oldest_first(
    client: ApiClient, tenant_: TenantHandle
) -> None:
    bol = f"BOLHX{uuid.uuid4().hex[:8].upper()}"
    pickup, delivery = str(uuid.uuid4()), str(uuid.uuid4())
    arrived = now() - timedelta(hours=3)
    answer = tenant_.http.put(
        "/api/v4/shipments/tracking",
        json={
            "identifiers": [{"type": "BILL_OF_LADING", "value": bol}],
            "routeInfo": {
                "stops": [
                    {"id": pickup, "type": "PICKUP", "name": "Chicago DC"},
                    {"id": delivery, "type": "DELIVERY", "name": "Dallas DC"},
                ]
            },
            "events": [
                {"type": "ARRIVAL_AT_STOP", "dateTime": iso(arrived), "stopId": pickup},
                {"type": "NOTE", "description": "Seal 4411 checked"},
            ],
        },
    )
    assert answer.status_code == 201, answer.text
    shipment_id = answer.json()["id"]
    report_positions(tenant_, bol, [(50, 41.5), (20, 40.9)])
    export = HistoryExport(lambda: client)

    events = await export.events(shipment_id)
    assert events.name == f"{bol} events" and events.header == EVENT_HEADER
    by_type = {row[0]: row for row in events.rows}
    arrival = by_type["ARRIVAL_AT_STOP"]
    assert arrival[2] == "1. Chicago DC"
    assert arrival[3] == arrived  # the instant itself: the writer gives it its offset
    assert by_type["NOTE"][1:3] == ["Seal 4411 checked", ""]

    track = await export.positions(shipment_id)
    assert track.name == f"{bol} positions" and track.header == POSITION_HEADER
    assert [row[1] for row in track.rows] == [41.5, 40.9]
    assert all(isinstance(row[0], datetime) and row[0].tzinfo for row in track.rows)
