"""Rail tracking over real HTTP: creating legs, simulated statuses, lookups, deletion."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.support import TenantHandle

PATH = "/api/v4/rail/shipments"
CONTAINER = "CSQU3054383"


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def leg_body(**extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "equipmentIdentifiers": [{"type": "CONTAINER_ID", "value": CONTAINER}],
        "shipmentIdentifiers": [{"type": "BILL_OF_LADING", "value": f"BOL-{uuid.uuid4().hex[:8]}"}],
    }
    body.update(extra)
    return body


LA_TO_NJ = [
    {
        "stopNumber": 1,
        "stopName": "Vernon warehouse",
        "location": {"address": {"city": "Los Angeles", "state": "CA", "postalCode": "90058"}},
    },
    {
        "stopNumber": 2,
        "stopName": "Edison DC",
        "geoCoordinates": {"latitude": 40.5187, "longitude": -74.4121},
    },
]


def create(tenant: TenantHandle, **extra: Any) -> dict[str, Any]:
    response = tenant.http.post(PATH, json=leg_body(**extra))
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def test_create_answers_the_leg(tenant: TenantHandle) -> None:
    answer = create(tenant)
    shipment = answer["shipment"]
    assert uuid.UUID(shipment["railLegId"]) and uuid.UUID(shipment["masterShipmentId"])
    assert isinstance(shipment["id"], int)
    assert shipment["equipmentIdentifiers"] == [{"type": "CONTAINER_ID", "value": CONTAINER}]
    assert "trackingStartDateTime" not in shipment
    assert {m["severity"] for m in answer["infoMessages"]} <= {"INFO", "WARNING"}


def test_tracking_start_rules(tenant: TenantHandle) -> None:
    now = datetime.now(UTC)
    no_ids = leg_body(shipmentIdentifiers=[])
    missing = tenant.http.post(PATH, json=no_ids)
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["source"] == "trackingStartDateTime"
    started = tenant.http.post(PATH, json={**no_ids, "trackingStartDateTime": iso(now)})
    assert started.status_code == 200
    assert started.json()["shipment"]["trackingStartDateTime"]
    for days in (-91, 91):
        late = tenant.http.post(
            PATH, json={**no_ids, "trackingStartDateTime": iso(now + timedelta(days=days))}
        )
        assert late.status_code == 400
        assert late.json()["errors"][0]["source"] == "trackingStartDateTime"
    for days in (-89, 89):
        ok = tenant.http.post(
            PATH, json=leg_body(trackingStartDateTime=iso(now + timedelta(days=days)))
        )
        assert ok.status_code == 200
    naive = tenant.http.post(PATH, json={**no_ids, "trackingStartDateTime": "2030-01-01T00:00:00"})
    assert naive.status_code == 400


@pytest.mark.parametrize(
    ("change", "source"),
    [
        ({"equipmentIdentifiers": []}, "equipmentIdentifiers"),
        (
            {
                "equipmentIdentifiers": [
                    {"type": "CONTAINER_ID", "value": CONTAINER},
                    {"type": "RAIL_CAR_ID", "value": "TTGX 123456"},
                ]
            },
            "equipmentIdentifiers",
        ),
        ({"equipmentIdentifiers": None}, "equipmentIdentifiers"),
        (
            {"equipmentIdentifiers": [{"type": "WAGON_ID", "value": "1"}]},
            "equipmentIdentifiers[0].type",
        ),
        (
            {"equipmentIdentifiers": [{"type": "CONTAINER_ID", "value": "ABC"}]},
            "equipmentIdentifiers[0]",
        ),
        (
            {"equipmentIdentifiers": [{"type": "RAIL_CAR_ID", "value": "123"}]},
            "equipmentIdentifiers[0]",
        ),
        ({"shipmentIdentifiers": [{"type": "PRO", "value": "1"}]}, "shipmentIdentifiers[0].type"),
        (
            {
                "shipmentIdentifiers": [
                    {"type": "WAYBILL", "value": "1"},
                    {"type": "WAYBILL", "value": "1"},
                ]
            },
            "shipmentIdentifiers",
        ),
        ({"id": 12}, "id"),
        ({"railLegId": str(uuid.uuid4())}, "railLegId"),
        ({"masterShipmentId": "not-a-uuid"}, "masterShipmentId"),
        ({"shipmentStops": [LA_TO_NJ[0]]}, "shipmentStops"),
        (
            {"shipmentStops": [LA_TO_NJ[0], {**LA_TO_NJ[1], "stopNumber": 3}]},
            "shipmentStops[1].stopNumber",
        ),
        ({"shipmentStops": [{**LA_TO_NJ[0], "type": "DESTINATION"}, LA_TO_NJ[1]]}, "shipmentStops"),
        (
            {
                "shipmentStops": [
                    LA_TO_NJ[0],
                    {**LA_TO_NJ[1], "geoCoordinates": {"latitude": 95, "longitude": 0}},
                ]
            },
            "shipmentStops[1].geoCoordinates.latitude",
        ),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_bodies_name_the_field(
    tenant: TenantHandle, change: dict[str, Any], source: str
) -> None:
    response = tenant.http.post(PATH, json=leg_body(**change))
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["source"] == source


def test_a_stops_appointment_window_is_the_tracked_shipment_stops(tenant: TenantHandle) -> None:
    window = {
        "startDateTime": "2030-03-04T08:00:00-06:00",
        "endDateTime": "2030-03-04T10:00:00-06:00",
        "localTimeZoneIdentifier": " America/Chicago ",
    }
    stops = [{**LA_TO_NJ[0], "appointmentWindow": window}, LA_TO_NJ[1]]
    answered = create(tenant, shipmentStops=stops)["shipment"]["shipmentStops"][0]
    assert answered["appointmentWindow"] == {
        "startDateTime": "2030-03-04T14:00:00Z",
        "endDateTime": "2030-03-04T16:00:00Z",
        "localTimeZoneIdentifier": "America/Chicago",
    }
    # A folder of the tz database and a name past any zone's length: refused, named.
    for zone, message in (
        ("America", "'America' is not an IANA time zone such as America/Chicago"),
        ("A" * 65, "String should have at most 64 characters"),
    ):
        stops[0]["appointmentWindow"] = {"localTimeZoneIdentifier": zone}
        response = tenant.http.post(PATH, json=leg_body(shipmentStops=stops))
        assert response.status_code == 400, response.text
        [error] = response.json()["errors"]
        assert error["source"] == "shipmentStops[0].appointmentWindow.localTimeZoneIdentifier"
        assert error["message"] == message


def test_warnings_do_not_refuse(tenant: TenantHandle) -> None:
    bad_digit = create(
        tenant, equipmentIdentifiers=[{"type": "CONTAINER_ID", "value": "csqu 305438-0"}]
    )
    assert bad_digit["shipment"]["equipmentIdentifiers"][0]["value"] == "CSQU3054380"
    warnings = [m for m in bad_digit["infoMessages"] if m["severity"] == "WARNING"]
    assert [w["source"] for w in warnings] == ["equipmentIdentifiers[0].value"]
    nowhere = create(
        tenant,
        shipmentStops=[
            LA_TO_NJ[0],
            {"stopNumber": 2, "location": {"address": {"city": "Atlantis", "state": "ZZ"}}},
        ],
    )
    warning = [m for m in nowhere["infoMessages"] if m["severity"] == "WARNING"]
    assert warning and warning[0]["source"] == "shipmentStops[1]"


def test_master_shipment_links_legs(tenant: TenantHandle) -> None:
    master = str(uuid.uuid4())
    first = create(tenant, masterShipmentId=master)
    assert first["shipment"]["masterShipmentId"] == master
    second = create(
        tenant,
        masterShipmentId=master,
        equipmentIdentifiers=[{"type": "RAIL_CAR_ID", "value": "TTGX 123456"}],
    )
    assert second["shipment"]["masterShipmentId"] == master
    assert second["shipment"]["railLegId"] != first["shipment"]["railLegId"]
    assert any("leg 2" in m["message"] for m in second["infoMessages"])
    generated = create(tenant)
    assert generated["shipment"]["masterShipmentId"] != master


def test_a_retried_create_answers_the_same_leg(tenant: TenantHandle) -> None:
    body = leg_body(shipmentStops=LA_TO_NJ)
    first = tenant.http.post(PATH, json=body).json()
    again = tenant.http.post(PATH, json=body).json()
    assert again["shipment"]["railLegId"] == first["shipment"]["railLegId"]
    assert again["shipment"]["shipmentStops"] == first["shipment"]["shipmentStops"]
    assert any("already tracked" in m["message"] for m in again["infoMessages"])


def test_statuses_replay_the_route(tenant: TenantHandle) -> None:
    started = datetime.now(UTC) - timedelta(days=20)
    leg = create(tenant, shipmentStops=LA_TO_NJ, trackingStartDateTime=iso(started))["shipment"]
    assert [s["type"] for s in leg["shipmentStops"]] == ["ORIGIN", "DESTINATION"]
    assert all(uuid.UUID(s["id"]) for s in leg["shipmentStops"])
    url = f"{PATH}/{leg['railLegId']}/statuses"
    plain = tenant.http.get(url)
    assert plain.status_code == 200
    answer = plain.json()
    assert answer["shipment"] == leg
    status = answer["equipmentStatuses"][0]
    assert "statusUpdates" not in status
    assert status["equipmentIdentifier"]["value"] == CONTAINER
    # Twenty days is long enough to cross the continent and be delivered.
    assert status["currentStatus"]["status"] == "DELIVERED"
    assert status["originRamp"]["state"] == "CA"
    assert status["destinationRamp"]["state"] == "NJ"

    history = tenant.http.get(url, params={"includeStatusHistory": "true"}).json()
    updates = history["equipmentStatuses"][0]["statusUpdates"]
    codes = [u["status"] for u in updates]
    assert codes[0] == "INGATE" and codes[-1] == "DELIVERED"
    assert codes.index("RAMPED") < codes.index("DEPARTED") < codes.index("ARRIVED")
    assert "ARRIVED_AT_INTERCHANGE" in codes  # western and eastern railroads meet
    times = [u["dateTime"] for u in updates]
    assert times == sorted(times)
    assert times[0] >= iso(started)[:16]
    interchange = updates[codes.index("ARRIVED_AT_INTERCHANGE")]
    assert interchange["location"]["geoCoordinates"]["latitude"]
    assert updates[codes.index("DEPARTED_INTERCHANGE")]["railroad"] in {"NS", "CSXT"}
    assert tenant.http.get(url, params={"includeStatusHistory": "maybe"}).status_code == 400


def test_a_future_leg_has_no_status_yet(tenant: TenantHandle) -> None:
    start = datetime.now(UTC) + timedelta(days=3)
    answer = create(tenant, trackingStartDateTime=iso(start))
    assert any(m.get("source") == "trackingStartDateTime" for m in answer["infoMessages"])
    leg_id = answer["shipment"]["railLegId"]
    statuses = tenant.http.get(
        f"{PATH}/{leg_id}/statuses", params={"includeStatusHistory": True}
    ).json()
    status = statuses["equipmentStatuses"][0]
    assert "currentStatus" not in status
    assert status["statusUpdates"] == []
    assert status["estimatedArrivalDateTime"] > iso(start)
    assert statuses["infoMessages"][0]["severity"] == "INFO"


def test_statuses_by_shipment_identifier(tenant: TenantHandle) -> None:
    yesterday = iso(datetime.now(UTC) - timedelta(days=1))
    bol = {"type": "WAYBILL", "value": "WB-778812"}
    older = create(tenant, shipmentIdentifiers=[bol], trackingStartDateTime=yesterday)
    newer = create(
        tenant,
        shipmentIdentifiers=[bol],
        equipmentIdentifiers=[{"type": "TRAILER_ID", "value": "JBHZ 4411"}],
    )
    params = {"shipmentIdentifier.type": "WAYBILL", "shipmentIdentifier.value": "WB-778812"}
    found = tenant.http.get(f"{PATH}/statuses", params=params)
    assert found.status_code == 200
    answer = found.json()
    assert answer["shipment"]["railLegId"] == newer["shipment"]["railLegId"]
    assert older["shipment"]["railLegId"] in answer["infoMessages"][0]["message"]
    with_history = tenant.http.get(
        f"{PATH}/statuses", params={**params, "includeStatusHistory": "true"}
    ).json()
    assert "statusUpdates" in with_history["equipmentStatuses"][0]
    for bad, source in [
        ({"shipmentIdentifier.value": "1"}, "shipmentIdentifier.type"),
        ({"shipmentIdentifier.type": "WAYBILL"}, "shipmentIdentifier.value"),
        (
            {"shipmentIdentifier.type": "PRO", "shipmentIdentifier.value": "1"},
            "shipmentIdentifier.type",
        ),
    ]:
        response = tenant.http.get(f"{PATH}/statuses", params=bad)
        assert response.status_code == 400
        assert response.json()["errors"][0]["source"] == source
    unknown = {"shipmentIdentifier.type": "BILL_OF_LADING", "shipmentIdentifier.value": "WB-778812"}
    assert tenant.http.get(f"{PATH}/statuses", params=unknown).status_code == 404


def test_deprecated_numeric_id_and_delete(tenant: TenantHandle) -> None:
    leg = create(tenant)["shipment"]
    by_number = tenant.http.get(f"{PATH}/{leg['id']}/statuses")
    assert by_number.status_code == 200
    assert by_number.json()["shipment"]["railLegId"] == leg["railLegId"]
    assert tenant.http.get(f"{PATH}/nonsense/statuses").status_code == 404
    deleted = tenant.http.delete(f"{PATH}/{leg['railLegId']}")
    assert deleted.status_code == 200
    assert tenant.http.get(f"{PATH}/{leg['railLegId']}/statuses").status_code == 404
    assert tenant.http.delete(f"{PATH}/{leg['railLegId']}").status_code == 404
    params = {
        "shipmentIdentifier.type": "BILL_OF_LADING",
        "shipmentIdentifier.value": leg["shipmentIdentifiers"][0]["value"],
    }
    assert tenant.http.get(f"{PATH}/statuses", params=params).status_code == 404


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    master = str(uuid.uuid4())
    leg = create(tenant, masterShipmentId=master)["shipment"]
    assert other.http.get(f"{PATH}/{leg['railLegId']}/statuses").status_code == 404
    assert other.http.get(f"{PATH}/{leg['id']}/statuses").status_code == 404
    assert other.http.delete(f"{PATH}/{leg['railLegId']}").status_code == 404
    params = {
        "shipmentIdentifier.type": "BILL_OF_LADING",
        "shipmentIdentifier.value": leg["shipmentIdentifiers"][0]["value"],
    }
    assert other.http.get(f"{PATH}/statuses", params=params).status_code == 404
    # Another tenant's master shipment id links nothing.
    theirs = create(other, masterShipmentId=master)
    assert not any("Linked" in m["message"] for m in theirs["infoMessages"])
    assert tenant.http.get(f"{PATH}/{leg['railLegId']}/statuses").status_code == 200


def test_the_tenants_legs_are_listed_newest_first_in_pages(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    """The listing extension: a client sees legs started elsewhere, its own tenant's only."""
    made = [create(tenant)["shipment"]["railLegId"] for _ in range(3)]
    other = tenant_factory()
    create(other)

    first = tenant.http.get(PATH, params={"pageSize": 2})
    assert first.status_code == 200, first.text
    page = first.json()
    assert page["paginationInfo"] == {"pageNumber": 1, "pageSize": 2, "total": 3}
    second = tenant.http.get(PATH, params={"pageSize": 2, "pageNumber": 2}).json()
    listed = [leg["shipment"]["railLegId"] for leg in page["results"] + second["results"]]
    assert listed == made[::-1]
    # Statuses come as GET by id answers them; their history only when asked.
    one = page["results"][0]
    assert one["equipmentStatuses"] and "statusUpdates" not in one["equipmentStatuses"][0]
    with_history = tenant.http.get(PATH, params={"includeStatusHistory": True}).json()
    assert "statusUpdates" in with_history["results"][0]["equipmentStatuses"][0]

    for bad in ({"pageSize": 0}, {"pageSize": 101}, {"pageNumber": 0}):
        refused = tenant.http.get(PATH, params=bad)
        assert refused.status_code == 400, (bad, refused.text)
        assert refused.json()["errors"]
