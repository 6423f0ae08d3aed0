"""Connected capacity over real HTTP: statistics from the tenant's tracked truckloads."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from freightdesk.models.tracking import TrackedShipmentPosition
from freightdesk.server.db import transaction
from freightdesk.server.domain.shipments import add_positions
from tests.support import TenantHandle

CARRIERS = "/api/v4/tl/connected-capacity/carriers/search"
LANES = "/api/v4/tl/connected-capacity/lanes/search"
NOW = datetime.now(UTC)

CHICAGO = {"city": "Chicago", "state": "IL", "postalCode": "60601", "country": "US"}
DALLAS = {"city": "Dallas", "state": "TX", "postalCode": "75201", "country": "US"}
TORONTO = {"city": "Toronto", "state": "ON", "postalCode": "M5V 3L9", "country": "CA"}


def truckload(
    tenant: TenantHandle,
    scac: str,
    *,
    days_ago: float = 5,
    pickup_late_hours: float | None = 0.5,
    delivery_late_hours: float | None = 0.5,
    origin: dict[str, Any] = CHICAGO,
    destination: dict[str, Any] = DALLAS,
    tracked: bool = False,
    mode: str = "TL",
) -> str:
    """A TL shipment whose pickup window opened `days_ago`; arrivals are relative to the end
    of the pickup window and the start of the delivery appointment (None: no arrival)."""
    pickup_id, delivery_id = str(uuid.uuid4()), str(uuid.uuid4())
    pickup_start = NOW - timedelta(days=days_ago)
    pickup_end = pickup_start + timedelta(hours=2)
    delivery_at = pickup_start + timedelta(days=2)
    events = []
    if pickup_late_hours is not None:
        at = pickup_end + timedelta(hours=pickup_late_hours)
        events.append({"type": "ARRIVAL_AT_STOP", "dateTime": at.isoformat(), "stopId": pickup_id})
    if delivery_late_hours is not None:
        at = delivery_at + timedelta(hours=delivery_late_hours)
        events.append(
            {"type": "ARRIVAL_AT_STOP", "dateTime": at.isoformat(), "stopId": delivery_id}
        )
    body = {
        "identifiers": [
            {"type": "BILL_OF_LADING", "value": f"BOL-{uuid.uuid4().hex[:10]}"},
            {"type": "CARRIER_SCAC", "value": scac},
        ],
        "plan": {"expectedTransportationModes": [mode]} if mode else None,
        "routeInfo": {
            "stops": [
                {
                    "id": pickup_id,
                    "type": "PICKUP",
                    "location": {"address": origin},
                    "appointmentWindow": {
                        "startDateTime": pickup_start.isoformat(),
                        "endDateTime": pickup_end.isoformat(),
                    },
                },
                {
                    "id": delivery_id,
                    "type": "DELIVERY",
                    "location": {"address": destination},
                    "appointmentWindow": {"startDateTime": delivery_at.isoformat()},
                },
            ]
        },
        "events": events,
    }
    if body["plan"] is None:
        del body["plan"]
    response = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert response.status_code in (200, 201), response.text
    shipment_id: str = response.json()["id"]
    if tracked:
        position = TrackedShipmentPosition(date_time=NOW, latitude=41.0, longitude=-88.0)
        with transaction(tenant.service.context.sessions) as session:
            add_positions(session, shipment_id, [position], source="TL")
    return shipment_id


def carriers(tenant: TenantHandle, **body: Any) -> list[dict[str, Any]]:
    response = tenant.http.post(CARRIERS, json=body)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["carrierPerformances"]
    return found


def by_scac(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["carrierIdentifier"]["value"]: item for item in items}


def test_nothing_tracked_means_no_carriers(tenant: TenantHandle) -> None:
    assert tenant.http.post(CARRIERS).json() == {"carrierPerformances": []}
    assert carriers(tenant) == []


def test_statistics_of_a_carrier(tenant: TenantHandle) -> None:
    # Pickups: on time, 1.9 h late (on time), 2.5 h late, 3 h early (before the window opened).
    truckload(tenant, "prlf", pickup_late_hours=0.0, delivery_late_hours=-1.5, tracked=True)
    truckload(tenant, "PRLF", pickup_late_hours=1.9, delivery_late_hours=1.9)
    truckload(tenant, "PRLF", pickup_late_hours=2.5, delivery_late_hours=2.5)
    truckload(tenant, "PRLF", pickup_late_hours=-5.0, delivery_late_hours=None, days_ago=120)
    # Outside the past 365 days: not counted at all.
    truckload(tenant, "PRLF", days_ago=400, tracked=True)
    (item,) = carriers(tenant)
    assert item["carrierIdentifier"] == {"type": "SCAC", "value": "PRLF"}
    assert item["carrierName"]
    assert item["shipmentVolume"] == 4
    assert item["recentShipmentVolume"] == 3
    assert item["volumeBucket"] == "VOLUME_0_TO_10_SHIPMENTS"
    assert item["pickupsMeasured"] == 4 and item["pickupScheduleReliability"] == 50
    assert item["deliveriesMeasured"] == 3 and item["deliveryScheduleReliability"] == 67
    assert item["percentTracked"] == 25
    assert item["recentPercentTracked"] == 33


def test_only_truckloads_count(tenant: TenantHandle) -> None:
    truckload(tenant, "OCNX", mode="")  # a bill of lading without TL planned is ocean
    assert carriers(tenant) == []


def test_volume_buckets_and_minimum_volume(tenant: TenantHandle) -> None:
    for _ in range(11):
        truckload(tenant, "BIGC")
    truckload(tenant, "SMLC")
    found = by_scac(carriers(tenant))
    assert found["BIGC"]["volumeBucket"] == "VOLUME_11_TO_50_SHIPMENTS"
    assert found["SMLC"]["volumeBucket"] == "VOLUME_0_TO_10_SHIPMENTS"
    bigger = carriers(tenant, minimumVolume="VOLUME_11_TO_50_SHIPMENTS")
    assert [c["carrierIdentifier"]["value"] for c in bigger] == ["BIGC"]
    assert carriers(tenant, minimumVolume="VOLUME_51_TO_100_SHIPMENTS") == []
    assert len(carriers(tenant, minimumVolume="VOLUME_0_TO_10_SHIPMENTS")) == 2


def test_minimums_keep_carriers_strictly_above(tenant: TenantHandle) -> None:
    truckload(tenant, "GOOD", tracked=True)
    truckload(tenant, "HALF", tracked=True)
    truckload(tenant, "HALF", pickup_late_hours=4, delivery_late_hours=4)
    truckload(tenant, "NONE", pickup_late_hours=None, delivery_late_hours=None)

    def scacs(**body: Any) -> list[str]:
        return sorted(c["carrierIdentifier"]["value"] for c in carriers(tenant, **body))

    assert scacs() == ["GOOD", "HALF", "NONE"]
    assert scacs(minimumPickupScheduleReliability=50) == ["GOOD"]
    assert scacs(minimumPickupScheduleReliability=49) == ["GOOD", "HALF"]
    assert scacs(minimumDeliveryScheduleReliability=0) == ["GOOD", "HALF"]
    assert scacs(minimumTrackingPercentage=50) == ["GOOD"]
    assert scacs(minimumTrackingPercentage=0) == ["GOOD", "HALF"]
    assert scacs(minimumTrackingPercentage=100) == []
    unmeasured = by_scac(carriers(tenant))["NONE"]
    assert "pickupScheduleReliability" not in unmeasured
    assert unmeasured["percentTracked"] == 0
    assert scacs(carrierIdentifier={"type": "SCAC", "value": "half"}) == ["HALF"]
    assert scacs(carrierIdentifier={"type": "SCAC", "value": "NOPE"}) == []


SORTS = {
    "SHIPMENT_VOLUME": "shipmentVolume",
    "RECENT_SHIPMENT_VOLUME": "recentShipmentVolume",
    "DELIVERY_SCHEDULE_RELIABILITY": "deliveryScheduleReliability",
    "PICKUP_SCHEDULE_RELIABILITY": "pickupScheduleReliability",
    "PERCENT_TRACKED": "percentTracked",
    "RECENT_PERCENT_TRACKED": "recentPercentTracked",
}


def test_every_sort_in_both_directions(tenant: TenantHandle) -> None:
    truckload(tenant, "AAAA", tracked=True)
    truckload(tenant, "AAAA", days_ago=200, pickup_late_hours=5, delivery_late_hours=5)
    truckload(tenant, "BBBB", pickup_late_hours=5, delivery_late_hours=5)
    for _ in range(3):
        truckload(tenant, "CCCC", pickup_late_hours=None, delivery_late_hours=None, tracked=True)
    for sort_by, field in SORTS.items():
        for direction in ("ASC", "DESC"):
            found = carriers(tenant, sortBy=sort_by, sortDirection=direction)
            values = [c.get(field) for c in found]
            measured = [v for v in values if v is not None]
            assert measured == sorted(measured, reverse=direction == "DESC"), sort_by
            assert len(set(measured)) > 1, sort_by  # the data tells the orders apart
            # Carriers that could not be measured come last in either direction.
            assert values[len(measured) :] == [None] * (len(values) - len(measured))
    default = carriers(tenant)
    assert [c["shipmentVolume"] for c in default] == [3, 2, 1]


@pytest.mark.parametrize(
    ("body", "source"),
    [
        ({"minimumDeliveryScheduleReliability": 101}, "minimumDeliveryScheduleReliability"),
        ({"minimumPickupScheduleReliability": -1}, "minimumPickupScheduleReliability"),
        ({"minimumTrackingPercentage": "many"}, "minimumTrackingPercentage"),
        ({"minimumVolume": "LOTS"}, "minimumVolume"),
        ({"sortBy": "NAME"}, "sortBy"),
        ({"sortDirection": "UP"}, "sortDirection"),
        ({"carrierIdentifier": {"type": "DOT_NUMBER", "value": "ABCD"}}, "carrierIdentifier.type"),
        ({"carrierIdentifier": {"type": "SCAC", "value": "TOOLONG"}}, "carrierIdentifier.value"),
        ({"carrier": "PRLF"}, "carrier"),
    ],
)
def test_bad_filters_name_the_field(
    tenant: TenantHandle, body: dict[str, Any], source: str
) -> None:
    for path in (CARRIERS, LANES):
        full = {**body, "origin": CHICAGO, "destination": DALLAS} if path == LANES else body
        response = tenant.http.post(path, json=full)
        assert response.status_code == 400, response.text
        assert response.json()["errors"][0]["source"] == source


def test_lanes(tenant: TenantHandle) -> None:
    truckload(tenant, "LANE", tracked=True)
    truckload(tenant, "LANE", pickup_late_hours=3)
    truckload(tenant, "LANE", origin=TORONTO)
    truckload(tenant, "OTHR", origin=DALLAS, destination=CHICAGO)

    def lane(origin: dict[str, Any], destination: dict[str, Any], **body: Any) -> list[Any]:
        response = tenant.http.post(
            LANES, json={"origin": origin, "destination": destination, **body}
        )
        assert response.status_code == 200, response.text
        found: list[Any] = response.json()["carrierLanePerformances"]
        return found

    (item,) = lane({"city": "chicago", "state": "Illinois"}, {"state": "TX"})
    assert item["carrierIdentifier"]["value"] == "LANE"
    assert item["shipmentVolume"] == 2 and item["percentTracked"] == 50
    assert item["pickupScheduleReliability"] == 50
    assert item["origin"] == {"city": "chicago", "state": "Illinois"}
    assert item["destination"] == {"state": "TX"}
    assert [i["shipmentVolume"] for i in lane({"postalCode": "606"}, {"country": "US"})] == [2]
    assert lane({"country": "CA"}, {"city": "Dallas"})[0]["shipmentVolume"] == 1
    assert lane({"city": "Dallas"}, {"city": "Chicago"})[0]["carrierIdentifier"]["value"] == "OTHR"
    assert lane({"city": "Chicago"}, {"city": "Chicago"}) == []
    assert lane(CHICAGO, DALLAS, minimumPickupScheduleReliability=50) == []


def test_lane_ends_are_required(tenant: TenantHandle) -> None:
    for body, source in [
        ({"destination": DALLAS}, "origin"),
        ({"origin": CHICAGO}, "destination"),
        ({"origin": {}, "destination": DALLAS}, "origin"),
        ({"origin": CHICAGO, "destination": {"addressLines": ["1 Main St"]}}, "destination"),
    ]:
        response = tenant.http.post(LANES, json=body)
        assert response.status_code == 400
        assert response.json()["errors"][0]["source"] == source


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    truckload(tenant, "MINE", tracked=True)
    assert carriers(other) == []
    lanes = other.http.post(LANES, json={"origin": CHICAGO, "destination": DALLAS})
    assert lanes.json() == {"carrierLanePerformances": []}
    assert len(carriers(tenant)) == 1


def test_carrier_names(tenant: TenantHandle) -> None:
    truckload(tenant, "PRLF")  # a built-in carrier
    truckload(tenant, "ZZTC")  # unknown until the tenant names it
    found = by_scac(carriers(tenant))
    assert found["PRLF"]["carrierName"] == "Prairie Line Freight"
    assert "carrierName" not in found["ZZTC"]
    named = tenant.http.put(
        "/services/carriers/v1/profiles/ZZTC", json={"name": "Zig Zag Trucking"}
    )
    assert named.status_code == 200, named.text
    assert by_scac(carriers(tenant))["ZZTC"]["carrierName"] == "Zig Zag Trucking"


def test_statistics_follow_every_change(tenant: TenantHandle) -> None:
    first = truckload(tenant, "MOVE")
    assert by_scac(carriers(tenant))["MOVE"]["shipmentVolume"] == 1
    second = truckload(tenant, "MOVE")
    assert by_scac(carriers(tenant))["MOVE"]["shipmentVolume"] == 2
    assert by_scac(carriers(tenant))["MOVE"]["percentTracked"] == 0
    position = TrackedShipmentPosition(date_time=NOW, latitude=41.0, longitude=-88.0)
    with transaction(tenant.service.context.sessions) as session:
        add_positions(session, second, [position], source="TL")
    assert by_scac(carriers(tenant))["MOVE"]["percentTracked"] == 50
    assert tenant.http.delete(f"/api/v4/shipments/{first}/tracking").status_code == 202
    assert by_scac(carriers(tenant))["MOVE"]["shipmentVolume"] == 1
    assert by_scac(carriers(tenant))["MOVE"]["percentTracked"] == 100
