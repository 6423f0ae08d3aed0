"""Available vehicles over real HTTP: co-op gate, locating, radius, time, sorting, paging."""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import insert, select

from freightdesk.models.vehicles import TruckType
from freightdesk.server.db import transaction
from freightdesk.server.domain.places import EARTH_RADIUS_KM, PLACES
from freightdesk.server.domain.vehicles import seed_vehicles, vehicle_row
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.vehicles import VehicleRow
from tests.support import TenantHandle

PATH = "/api/v4/tl/available-vehicles/query"
CHICAGO = next(p for p in PLACES if p.city == "Chicago")
NOW = datetime.now(UTC).replace(microsecond=0)
ADDRESS = {
    "addressLines": ["233 S Wacker Dr"],
    "city": "Chicago",
    "state": "IL",
    "postalCode": "60606",
    "country": "US",
}


def join_coop(tenant: TenantHandle, *pools: str, member: bool = True) -> None:
    with transaction(tenant.service.context.sessions) as session:
        row = session.scalar(select(Tenant).where(Tenant.name == tenant.name))
        assert row is not None
        features = dict(row.features or {})
        features["capacityCoop"] = member
        if pools:
            features["capacityCoopPools"] = list(pools)
        row.features = features


def north_of_chicago(km: float) -> tuple[float, float]:
    return (CHICAGO.latitude + math.degrees(km / EARTH_RADIUS_KM), CHICAGO.longitude)


def add_vehicles(
    tenant: TenantHandle, pool: str, specs: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Vehicles at `km` north of Chicago; other keys go to `vehicle_row`."""
    rng = random.Random()
    rows = []
    for spec in specs:
        options = dict(spec)
        km = options.pop("km")
        options.setdefault("available_in_hours", 1.0)
        rows.append(
            vehicle_row(rng, CHICAGO, NOW, pool=pool, position=north_of_chicago(km), **options)
        )
    with transaction(tenant.service.context.sessions) as session:
        session.execute(insert(VehicleRow), rows)
    return rows


@pytest.fixture
def pool(tenant: TenantHandle) -> str:
    """A co-op pool of this test's own, which the tenant is a member of."""
    name = f"POOL-{uuid.uuid4().hex[:8]}"
    join_coop(tenant, name)
    return name


def query(**body: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "geoCoordinates": {"latitude": CHICAGO.latitude, "longitude": CHICAGO.longitude},
        "timeRange": {"startDateTime": NOW.isoformat()},
    }
    base.update(body)
    return {k: v for k, v in base.items() if v is not None}


def found(tenant: TenantHandle, body: dict[str, Any], **params: Any) -> dict[str, Any]:
    response = tenant.http.post(PATH, json=body, params=params)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def distances(answer: dict[str, Any]) -> list[float]:
    return [v["distance"]["value"] for v in answer["results"]]


def test_only_coop_members(tenant_factory: Callable[[], TenantHandle]) -> None:
    outsider = tenant_factory()
    refused = outsider.http.post(PATH, json=query())
    assert refused.status_code == 403
    assert "capacityCoop" in refused.json()["errorMessage"]
    join_coop(outsider, member=False)
    assert outsider.http.post(PATH, json=query()).status_code == 403
    join_coop(outsider)
    assert outsider.http.post(PATH, json=query()).status_code == 200


def test_radius_search_around_coordinates(tenant: TenantHandle, pool: str) -> None:
    add_vehicles(tenant, pool, [{"km": 5}, {"km": 30}, {"km": 50}, {"km": 100}])
    answer = found(tenant, query())
    assert answer["paginationInfo"] == {"pageNumber": 1, "pageSize": 10, "total": 2}
    assert distances(answer) == [3.1, 18.6]  # miles, nearest first
    vehicle = answer["results"][0]
    assert vehicle["distance"]["unit"] == "MI"
    assert vehicle["sharingPool"] == pool
    assert vehicle["carrierIdentifier"]["type"] == "SCAC"
    assert vehicle["carrierContact"]["companyName"] == vehicle["carrierName"]
    assert vehicle["carrierContact"]["phoneNumber"] and vehicle["carrierContact"]["email"]
    assert vehicle["location"]["city"] == "Chicago"
    assert vehicle["geoCoordinates"]["latitude"] > CHICAGO.latitude
    assert vehicle["myShipment"] is False
    assert vehicle["estimatedArrivalDateTime"] < vehicle["availableUntilDateTime"]


RADIUS_CASES = [
    (10, "MI", 1),
    (50, "MI", 3),
    (None, "KM", 2),
    (16, "KM", 1),
    (80, "KM", 3),
    (52_800, "FT", 1),
    (264_000, "FT", 3),
    (16_000, "M", 1),
    (80_000, "M", 3),
    (35, None, 3),
]
OUT_OF_BOUNDS = [(9, "MI"), (51, "MI"), (9, None), (15, "KM"), (81, "KM"), (52_799, "FT"),
                 (264_001, "FT"), (15_999, "M"), (80_001, "M")]  # fmt: skip


def test_radius_units_and_bounds(tenant: TenantHandle, pool: str) -> None:
    add_vehicles(tenant, pool, [{"km": 5}, {"km": 30}, {"km": 55}, {"km": 100}])
    for radius, unit, count in RADIUS_CASES:
        answer = found(tenant, query(radius=radius, radiusUnit=unit))
        assert answer["paginationInfo"]["total"] == count, (radius, unit)
        assert {v["distance"]["unit"] for v in answer["results"]} == {unit or "MI"}
    for radius, unit in OUT_OF_BOUNDS:
        response = tenant.http.post(PATH, json=query(radius=radius, radiusUnit=unit))
        assert response.status_code == 400, (radius, unit)
        assert response.json()["errors"][0]["source"] == "radius"


def test_bad_radius_unit(tenant: TenantHandle, pool: str) -> None:
    response = tenant.http.post(PATH, json=query(radiusUnit="YD"))
    assert response.status_code == 400
    assert response.json()["errors"][0]["source"] == "radiusUnit"


def test_search_around_an_address(tenant: TenantHandle, pool: str) -> None:
    add_vehicles(tenant, pool, [{"km": 5}, {"km": 100}])
    answer = found(tenant, query(geoCoordinates=None, address=ADDRESS))
    assert answer["paginationInfo"]["total"] == 1
    by_city = {**ADDRESS, "postalCode": "99999", "city": "chicago", "state": "Illinois"}
    assert (
        found(tenant, query(geoCoordinates=None, address=by_city))["paginationInfo"]["total"] == 1
    )
    canadian = {
        "addressLines": ["1 Front St W"],
        "city": "Toronto",
        "state": "ON",
        "postalCode": "M5J 2X5",
        "country": "CA",
    }
    assert found(tenant, query(geoCoordinates=None, address=canadian))["results"] == []


@pytest.mark.parametrize(
    ("address", "sources"),
    [
        ({**ADDRESS, "postalCode": None}, ["address.postalCode"]),
        ({**ADDRESS, "addressLines": []}, ["address.addressLines"]),
        ({**ADDRESS, "city": " "}, ["address.city"]),
        ({**ADDRESS, "state": None}, ["address.state"]),
        ({**ADDRESS, "country": "MX", "state": None}, ["address.state"]),
        ({**ADDRESS, "state": None, "city": None}, ["address.city", "address.state"]),
        ({**ADDRESS, "city": "Nowhere", "postalCode": "00000"}, ["address"]),
        ({**ADDRESS, "country": "DE", "state": None, "postalCode": "10115"}, ["address"]),
        ({**ADDRESS, "addressLines": ["1", "2", "3", "4"]}, ["address.addressLines"]),
    ],
)
def test_incomplete_or_unknown_addresses(
    tenant: TenantHandle, pool: str, address: dict[str, Any], sources: list[str]
) -> None:
    body = query(geoCoordinates=None, address={k: v for k, v in address.items() if v is not None})
    response = tenant.http.post(PATH, json=body)
    assert response.status_code == 400, response.text
    assert [e["source"] for e in response.json()["errors"]] == sources


def test_where_and_when_are_required(tenant: TenantHandle, pool: str) -> None:
    nowhere = tenant.http.post(PATH, json=query(geoCoordinates=None))
    assert nowhere.status_code == 400
    assert {e["source"] for e in nowhere.json()["errors"]} == {"address", "geoCoordinates"}
    for body, source in [
        (query(timeRange=None), "timeRange"),
        (query(timeRange={"endDateTime": NOW.isoformat()}), "timeRange.startDateTime"),
        (query(timeRange={"startDateTime": "2030-01-01T08:00:00"}), "timeRange.startDateTime"),
        (
            query(
                timeRange={
                    "startDateTime": NOW.isoformat(),
                    "endDateTime": (NOW - timedelta(hours=1)).isoformat(),
                }
            ),
            "timeRange",
        ),
        (query(timeRange={"startDateTime": "9999-12-31T23:00:00Z"}), "timeRange.startDateTime"),
        (query(geoCoordinates={"latitude": 91, "longitude": 0}), "geoCoordinates.latitude"),
        (query(truckType="SPACESHIP"), "truckType"),
        (query(includeMyShipments="sometimes"), "includeMyShipments"),
        (query(vehicleCount=3), "vehicleCount"),
    ]:
        response = tenant.http.post(PATH, json=body)
        assert response.status_code == 400, body
        assert response.json()["errors"][0]["source"] == source


def test_time_range(tenant: TenantHandle, pool: str) -> None:
    add_vehicles(
        tenant,
        pool,
        [
            {"km": 5, "available_in_hours": -100},  # left its window long ago
            {"km": 6, "available_in_hours": 2},
            {"km": 7, "available_in_hours": 60},
        ],
    )
    assert found(tenant, query())["paginationInfo"]["total"] == 1  # the next 24 hours
    later = {"startDateTime": NOW.isoformat(), "endDateTime": (NOW + timedelta(days=3)).isoformat()}
    assert found(tenant, query(timeRange=later))["paginationInfo"]["total"] == 2
    past = {"startDateTime": (NOW - timedelta(hours=99)).isoformat()}
    assert found(tenant, query(timeRange=past))["paginationInfo"]["total"] == 1


def test_truck_type_and_my_shipments(tenant: TenantHandle, pool: str, service: Any) -> None:
    with service.context.sessions() as session:
        me = session.scalar(select(Tenant.id).where(Tenant.name == tenant.name))
    add_vehicles(
        tenant,
        pool,
        [
            {"km": 5, "truck_type": TruckType.REEFER, "shipper_tenant_id": me},
            {"km": 6, "truck_type": TruckType.VAN},
            {"km": 7, "truck_type": TruckType.REEFER},
        ],
    )
    reefers = found(tenant, query(truckType="REEFER"))
    assert [v["truckType"] for v in reefers["results"]] == ["REEFER", "REEFER"]
    assert [v["myShipment"] for v in reefers["results"]] == [True, False]
    others = found(tenant, query(includeMyShipments=False))
    assert others["paginationInfo"]["total"] == 2
    assert not any(v["myShipment"] for v in others["results"])


def test_sharing_pools(tenant: TenantHandle) -> None:
    first, second = f"A-{uuid.uuid4().hex[:6]}", f"B-{uuid.uuid4().hex[:6]}"
    join_coop(tenant, first, second)
    add_vehicles(tenant, first, [{"km": 5}])
    add_vehicles(tenant, second, [{"km": 6}, {"km": 7}])
    assert found(tenant, query())["paginationInfo"]["total"] == 3
    assert found(tenant, query(sharingPool=second))["paginationInfo"]["total"] == 2
    foreign = tenant.http.post(PATH, json=query(sharingPool="SOMEONE-ELSES"))
    assert foreign.status_code == 400
    assert foreign.json()["errors"][0]["source"] == "sharingPool"


def test_every_sort(tenant: TenantHandle, pool: str) -> None:
    specs = [
        {"km": km, "truck_type": kind, "available_in_hours": hours}
        for km, kind, hours in [
            (5, TruckType.VAN, 9),
            (12, TruckType.REEFER, 1),
            (3, TruckType.FLAT_BED, 5),
            (20, TruckType.VAN, 3),
        ]
    ]
    add_vehicles(tenant, pool, specs)
    keys = {
        "distance": lambda v: v["distance"]["value"],
        "estimatedArrivalDateTime": lambda v: v["estimatedArrivalDateTime"],
        "truckType": lambda v: v["truckType"],
        "carrierContact": lambda v: (
            v["carrierContact"]["companyName"].casefold(),
            v["carrierContact"]["familyName"].casefold(),
        ),
    }
    for name, key in keys.items():
        for direction in ("asc", "desc"):
            results = found(tenant, query(), sort=f"{name},{direction}")["results"]
            values = [key(v) for v in results]
            assert values == sorted(values, reverse=direction == "desc"), name
    plain = found(tenant, query(), sort="truckType")["results"]
    assert [v["truckType"] for v in plain] == ["FLAT_BED", "REEFER", "VAN", "VAN"]
    two_keys = found(tenant, query(), sort=["truckType,desc", "distance,desc"])["results"]
    assert [v["distance"]["value"] for v in two_keys[:2]] == [12.4, 3.1]
    for bad in ("weight", "distance,sideways", "distance,asc,desc"):
        response = tenant.http.post(PATH, json=query(), params={"sort": bad})
        assert response.status_code == 400, bad
        assert response.json()["errors"][0]["source"] == "sort"


def test_paging(tenant: TenantHandle, pool: str) -> None:
    add_vehicles(tenant, pool, [{"km": km} for km in range(1, 8)])
    second = found(tenant, query(), page=2, size=3)
    assert second["paginationInfo"] == {"pageNumber": 2, "pageSize": 3, "total": 7}
    assert len(second["results"]) == 3
    first = found(tenant, query(), page=1, size=3)["results"]
    assert first[-1]["distance"]["value"] < second["results"][0]["distance"]["value"]
    assert found(tenant, query(), page=1000, size=1000)["results"] == []
    for params in ({"page": 0}, {"page": 1001}, {"size": 0}, {"size": 1001}, {"page": "x"}):
        response = tenant.http.post(PATH, json=query(), params=params)
        assert response.status_code == 400, params
        assert response.json()["errors"][0]["source"] == next(iter(params))


def test_pools_keep_members_apart(
    tenant: TenantHandle, pool: str, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    join_coop(other, f"OTHER-{uuid.uuid4().hex[:6]}")
    add_vehicles(tenant, pool, [{"km": 5}])
    assert found(tenant, query())["paginationInfo"]["total"] == 1
    assert found(other, query())["paginationInfo"]["total"] == 0
    assert other.http.post(PATH, json=query(sharingPool=pool)).status_code == 400


def test_seeded_pool_is_deterministic(tenant: TenantHandle) -> None:
    first, second = f"SEED-A-{uuid.uuid4().hex[:6]}", f"SEED-B-{uuid.uuid4().hex[:6]}"
    join_coop(tenant, first)
    with transaction(tenant.service.context.sessions) as session:
        for pool in (first, second):
            assert seed_vehicles(session, 1500, seed=3, pool=pool, now=NOW) == 1500
    with tenant.service.context.sessions() as session:
        spots = [
            session.execute(
                select(VehicleRow.latitude, VehicleRow.longitude, VehicleRow.truck_type)
                .where(VehicleRow.sharing_pool == pool)
                .order_by(VehicleRow.id)
            ).all()
            for pool in (first, second)
        ]
    assert spots[0] == spots[1]  # the same seed places the same vehicles
    answer = found(tenant, query(radius=50))
    assert answer["paginationInfo"]["total"] > 0  # Chicago has its share of the pool
    assert all(v["sharingPool"] == first for v in answer["results"])
