"""Available vehicles for the app against the real local service (plain asyncio): the models'
rules (the service's radius and address rules among them) checked before sending, the demo's
truck pool searched round a point and an address in the order asked, the not-opted-in answer
kept as words, the answer and its search kept in the cache."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from freightdesk.models.vehicles import RadiusUnit, TruckType, VehicleSort, VehicleSortField
from freightdesk.server.db import transaction
from freightdesk.server.domain.vehicles import seed_vehicles
from freightdesk.service.cache import Cache
from freightdesk.service.vehicles import (
    VehiclesService,
    check_search,
    query_of,
    search_params,
    sort_of,
)
from tests.server.test_vehicles import ADDRESS, CHICAGO, join_coop
from tests.service.conftest import OpenService
from tests.support import TenantHandle

NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
WINDOW = {
    "startDateTime": NOW.isoformat(),
    "endDateTime": (NOW + timedelta(days=2)).isoformat(),
}
AT_CHICAGO = {"latitude": CHICAGO.latitude, "longitude": CHICAGO.longitude}


def demo_pool(tenant: TenantHandle) -> str:
    """The demo's truck pool (its 2,000 vehicles round real freight cities), in a pool of the
    test's own that the tenant is a member of."""
    pool = f"DEMO-{uuid.uuid4().hex[:8]}"
    join_coop(tenant, pool)
    with transaction(tenant.service.context.sessions) as session:
        seed_vehicles(session, 2000, seed=7, pool=pool, now=NOW)
    return pool


@pytest.fixture
def vehicles(open_service: OpenService) -> VehiclesService:
    return open_service(VehiclesService)


def test_the_models_rules_are_checked_before_sending() -> None:
    query, problems = check_search({"geoCoordinates": AT_CHICAGO, "timeRange": WINDOW})
    assert problems == {} and query is not None
    # The radius's bounds depend on its unit (the interface's: 10-50 mi, 16-80 km).
    _, problems = check_search(
        {"geoCoordinates": AT_CHICAGO, "timeRange": WINDOW, "radius": 60, "radiusUnit": "MI"}
    )
    assert problems == {"radius": "Enter from 10 to 50 miles"}
    ok, _ = check_search(
        {"geoCoordinates": AT_CHICAGO, "timeRange": WINDOW, "radius": 60, "radiusUnit": "KM"}
    )
    assert ok is not None and ok.radius_unit is RadiusUnit.KM
    # Where: an address must be complete (state in the US), or coordinates; one of them.
    _, problems = check_search(
        {"address": {**ADDRESS, "state": "", "postalCode": ""}, "timeRange": WINDOW}
    )
    assert set(problems) == {"address.state", "address.postalCode"}
    _, problems = check_search({"timeRange": WINDOW})
    assert set(problems) == {"address", "geoCoordinates"}
    _, problems = check_search(
        {
            "geoCoordinates": {"latitude": 95, "longitude": 0},
            "timeRange": {"startDateTime": "2030-01-01T08:00:00"},
            "truckType": "SPACESHIP",
        }
    )
    assert set(problems) == {
        "geoCoordinates.latitude",
        "timeRange.startDateTime",
        "truckType",
    }
    # The params carry the body, the order and the page; a cached search read back.
    assert query is not None
    sort = (VehicleSort(VehicleSortField.TRUCK_TYPE, descending=True),)
    params = search_params(query, sort, page=2)
    assert params["sort"] == ["truckType,desc"] and params["pageNumber"] == 2
    assert query_of(params) == query and sort_of(params) == sort
    assert sort_of({"sort": ["weight,asc"]})[0].field is VehicleSortField.DISTANCE
    assert query_of({}) is None and query_of({"query": {"radius": "far"}}) is None


def test_every_problem_of_a_point_at_once() -> None:
    """A latitude of 999 and a longitude "abc" were one message (the model stops at the
    first number it refuses), and the radius's bounds waited for a valid point."""
    _, problems = check_search(
        {
            "geoCoordinates": {"latitude": 999, "longitude": "abc"},
            "timeRange": WINDOW,
            "radius": 60,
        }
    )
    assert problems == {
        "geoCoordinates.latitude": "Latitude is between -90 and 90",
        "geoCoordinates.longitude": "Longitude is between -180 and 180",
        "radius": "Enter from 10 to 50 miles",
    }
    _, problems = check_search({"geoCoordinates": {"longitude": -87.6}, "timeRange": WINDOW})
    assert problems == {"geoCoordinates.latitude": "Enter the latitude too"}
    _, problems = check_search({"geoCoordinates": {}, "timeRange": WINDOW})
    assert problems == {
        "geoCoordinates.latitude": "Enter the latitude",
        "geoCoordinates.longitude": "Enter the longitude",
    }


async def test_searches_the_demo_pool_in_the_order_asked_and_keeps_it(
    vehicles: VehiclesService, tenant_: TenantHandle, cache: Cache
) -> None:
    pool = demo_pool(tenant_)
    query, _ = check_search({"geoCoordinates": AT_CHICAGO, "timeRange": WINDOW})
    assert query is not None
    nearest = await vehicles.show(search_params(query))
    assert nearest.total > 10 and vehicles.refusal is None
    miles = [v.distance.value for v in nearest.items]
    assert miles == sorted(miles) and miles[-1] <= 25  # the default radius: 25 miles
    assert {v.sharing_pool for v in nearest.items} == {pool}

    reefers, _ = check_search(
        {
            "address": ADDRESS,
            "timeRange": WINDOW,
            "radius": 80,
            "radiusUnit": "KM",
            "truckType": "REEFER",
        }
    )
    assert reefers is not None
    by_arrival = (VehicleSort(VehicleSortField.ESTIMATED_ARRIVAL_DATE_TIME, descending=True),)
    listing = await vehicles.show(search_params(reefers, by_arrival))
    assert listing.items and {v.truck_type for v in listing.items} == {TruckType.REEFER}
    arrivals = [v.estimated_arrival_date_time for v in listing.items]
    assert arrivals == sorted(arrivals, reverse=True)
    assert {v.distance.unit for v in listing.items} == {RadiusUnit.KM}

    again = VehiclesService(lambda: pytest.fail("no network at start"), cache)
    cached = await again.load_cached()
    assert cached is not None and cached.keys == listing.keys
    assert query_of(cached.params_dict()) == reefers
    assert sort_of(cached.params_dict()) == by_arrival


async def test_a_tenant_outside_the_coop_gets_the_answer_in_words(
    vehicles: VehiclesService, tenant_: TenantHandle, cache: Cache
) -> None:
    query, _ = check_search({"geoCoordinates": AT_CHICAGO, "timeRange": WINDOW})
    assert query is not None
    listing = await vehicles.show(search_params(query))
    assert listing.items == () and listing.total == 0
    assert vehicles.refusal is not None and "capacity co-op" in vehicles.refusal
    # The words stay with the list in the cache.
    again = VehiclesService(lambda: pytest.fail("no network at start"), cache)
    await again.load_cached()
    assert again.refusal == vehicles.refusal
    # Once the tenant opts in, the answer is the vehicles and the words are gone.
    demo_pool(tenant_)
    listing = await vehicles.show(search_params(query, page=1, size=5))
    assert len(listing.items) == 5 and vehicles.refusal is None
