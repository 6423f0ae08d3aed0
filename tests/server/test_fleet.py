"""The fleet's latest positions (extension) over real HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy.orm import Session

from freightdesk.models.tracking import SpeedUnit, TrackedShipmentPosition
from freightdesk.server.domain import shipments as store
from tests.server.test_tracking_support import air_body, create, receive, shipment_path, sources
from tests.support import TenantHandle

LATEST = "/api/v4/shipments/positions/latest"
T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)


def _fix(minutes: int, latitude: float, longitude: float, **extra: Any) -> TrackedShipmentPosition:
    return TrackedShipmentPosition(
        date_time=T0 + timedelta(minutes=minutes), latitude=latitude, longitude=longitude, **extra
    )


def _report(tenant: TenantHandle, shipment_id: str, *fixes: TrackedShipmentPosition) -> None:
    def work(session: Session) -> None:
        store.add_positions(session, shipment_id, list(fixes), "TL")

    receive(tenant, work)


def _shipment(tenant: TenantHandle, *fixes: TrackedShipmentPosition) -> str:
    shipment_id = str(create(tenant, air_body(f"020-{uuid.uuid4().int % 10**8:08d}"))["id"])
    if fixes:
        _report(tenant, shipment_id, *fixes)
    return shipment_id


def _latest(http: httpx.Client, body: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    answer = http.post(LATEST, json=body) if body is not None else http.post(LATEST)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def test_the_newest_fix_of_each_shipment_with_speed_and_heading(tenant: TenantHandle) -> None:
    moving = _shipment(
        tenant,
        _fix(0, 41.0, -87.9, speed=50, speed_unit=SpeedUnit.MILES_PER_HOUR, heading=90),
        _fix(10, 41.1, -87.8, speed=60, speed_unit=SpeedUnit.MILES_PER_HOUR, heading=95),
    )
    # An older fix arriving late does not replace the newest one.
    _report(tenant, moving, _fix(5, 40.0, -80.0, heading=10))
    parked = _shipment(tenant, _fix(3, 32.7, -96.8))
    _shipment(tenant)  # no position yet: not on the map

    found = {item["shipmentId"]: item for item in _latest(tenant.http)}

    assert set(found) == {moving, parked}
    assert found[moving] == {
        "shipmentId": moving,
        "dateTime": "2024-05-01T08:10:00Z",
        "latitude": 41.1,
        "longitude": -87.8,
        "heading": 95,
        "speed": round(60 * 1.609344, 2),  # stored in km/h
        "speedUnit": "KILOMETERS_PER_HOUR",
    }
    assert found[parked] == {
        "shipmentId": parked,
        "dateTime": "2024-05-01T08:03:00Z",
        "latitude": 32.7,
        "longitude": -96.8,
    }
    # The same answer without a body as with an empty one.
    assert _latest(tenant.http, {}) == _latest(tenant.http)


def test_listed_shipments_and_since(tenant: TenantHandle) -> None:
    first = _shipment(tenant, _fix(0, 41.0, -87.9))
    second = _shipment(tenant, _fix(30, 42.0, -88.0))
    third = _shipment(tenant, _fix(60, 43.0, -89.0))

    listed = _latest(tenant.http, {"shipmentIds": [first, third, str(uuid.uuid4())]})
    assert [item["shipmentId"] for item in listed] == sorted([first, third])
    assert _latest(tenant.http, {"shipmentIds": []}) == []

    later = _latest(tenant.http, {"since": "2024-05-01T10:15:00+02:00"})  # 08:15 UTC
    assert sorted(item["shipmentId"] for item in later) == sorted([second, third])
    # `since` is exclusive: a fix at exactly that instant was already seen.
    assert [i["shipmentId"] for i in _latest(tenant.http, {"since": "2024-05-01T09:00:00Z"})] == []
    _report(tenant, first, _fix(90, 41.5, -87.5))
    moved = _latest(tenant.http, {"since": "2024-05-01T09:00:00Z", "shipmentIds": [first]})
    assert [(i["shipmentId"], i["latitude"]) for i in moved] == [(first, 41.5)]


def test_other_tenants_shipments_stay_hidden_unless_shared(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    theirs = _shipment(other, _fix(0, 50.0, 8.0))
    mine = _shipment(tenant, _fix(0, 41.0, -87.9))

    assert [i["shipmentId"] for i in _latest(tenant.http)] == [mine]
    # Naming a foreign id finds nothing rather than revealing that it exists.
    assert _latest(tenant.http, {"shipmentIds": [theirs]}) == []

    shared = other.http.post(shipment_path(theirs, "shares"), json={"tenantUuid": tenant.uuid})
    assert shared.status_code == 201, shared.text
    assert sorted(i["shipmentId"] for i in _latest(tenant.http)) == sorted([mine, theirs])
    assert [i["shipmentId"] for i in _latest(other.http)] == [theirs]

    assert other.http.delete(shipment_path(theirs, f"shares/{tenant.uuid}")).status_code == 204
    assert [i["shipmentId"] for i in _latest(tenant.http)] == [mine]

    assert tenant.http.delete(shipment_path(mine)).status_code == 202
    assert _latest(tenant.http) == []


def test_bad_requests_name_the_field(tenant: TenantHandle) -> None:
    http = tenant.http
    assert sources(http.post(LATEST, json={"shipmentIds": [str(uuid.uuid4()), "nope"]})) == [
        "shipmentIds[1]"
    ]
    assert sources(http.post(LATEST, json={"shipmentIds": "abc"})) == ["shipmentIds"]
    assert sources(http.post(LATEST, json={"since": "2024-05-01T08:00:00"})) == ["since"]
    assert sources(http.post(LATEST, json={"since": "yesterday"})) == ["since"]
    assert sources(http.post(LATEST, json={"shipmentIDs": []})) == ["shipmentIDs"]
    too_many = [str(uuid.uuid4()) for _ in range(5001)]
    assert sources(http.post(LATEST, json={"shipmentIds": too_many})) == ["shipmentIds"]
    assert http.post(LATEST, json=[1, 2]).status_code == 400
    broken = http.post(LATEST, content=b"{", headers={"content-type": "application/json"})
    assert broken.status_code == 400
    assert broken.json()["httpStatusCode"] == 400
    text = http.post(LATEST, content=b"x", headers={"content-type": "text/plain"})
    assert text.status_code == 415
    anonymous = httpx.post(f"{tenant.service.url}{LATEST}", json={})
    assert anonymous.status_code == 401


def test_marked_as_an_extension(tenant: TenantHandle) -> None:
    document = tenant.http.get("/openapi.json").json()
    operation = document["paths"][LATEST]["post"]
    assert operation["x-freightdesk-extension"] is True
