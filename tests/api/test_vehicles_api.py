"""The available vehicles client against the real local service: the co-op refusal as its own
error, typed vehicles, sorting, paging and iteration, typed refusals, reads retried safely."""

from __future__ import annotations

import uuid

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, PermissionDenied, ProtocolError
from freightdesk.api.vehicles import PATH, CapacityCoopRequired
from freightdesk.models.common import Address, GeoCoordinates
from freightdesk.models.vehicles import (
    AvailableVehiclesQuery,
    RadiusUnit,
    TimeRange,
    TruckType,
    VehicleSort,
    VehicleSortField,
)
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.server.test_vehicles import ADDRESS, CHICAGO, NOW, add_vehicles, join_coop
from tests.support import TenantHandle

NEAR_CHICAGO = AvailableVehiclesQuery(
    geo_coordinates=GeoCoordinates(latitude=CHICAGO.latitude, longitude=CHICAGO.longitude),
    time_range=TimeRange(start_date_time=NOW),
)


@pytest.fixture
def pool(api_tenant: TenantHandle) -> str:
    name = f"POOL-{uuid.uuid4().hex[:8]}"
    join_coop(api_tenant, name)
    return name


async def test_only_coop_members(client: ApiClient, api_tenant: TenantHandle) -> None:
    with pytest.raises(CapacityCoopRequired) as refused:
        await client.vehicles.page(NEAR_CHICAGO)
    assert isinstance(refused.value, PermissionDenied) and refused.value.status == 403
    assert "capacityCoop" in refused.value.error_message
    with pytest.raises(CapacityCoopRequired):
        _ = [v async for v in client.vehicles.search(NEAR_CHICAGO)]
    join_coop(api_tenant)
    assert (await client.vehicles.page(NEAR_CHICAGO)).pagination_info.page_number == 1


async def test_vehicles_are_typed(client: ApiClient, api_tenant: TenantHandle, pool: str) -> None:
    # The other truck is named: a random type could be a second reefer.
    others = {"truck_type": TruckType.VAN}
    add_vehicles(
        api_tenant, pool, [{"km": 5, "truck_type": TruckType.REEFER}, {"km": 30, **others}]
    )
    add_vehicles(api_tenant, pool, [{"km": 100}])
    answer = await client.vehicles.page(NEAR_CHICAGO)
    info = answer.pagination_info
    assert (info.page_number, info.page_size, info.total) == (1, 10, 2)
    nearest = answer.results[0]
    assert (nearest.distance.value, nearest.distance.unit) == (3.1, RadiusUnit.MI)
    assert nearest.truck_type is TruckType.REEFER and nearest.sharing_pool == pool
    assert nearest.carrier_identifier.type == "SCAC" and nearest.carrier_contact.phone_number
    assert nearest.location.city == "Chicago" and not nearest.my_shipment
    assert nearest.estimated_arrival_date_time < nearest.available_until_date_time

    wide = NEAR_CHICAGO.model_copy(update={"radius": 80, "radius_unit": RadiusUnit.KM})
    in_km = await client.vehicles.page(wide)
    assert [(v.distance.value, v.distance.unit) for v in in_km.results] == [
        (5.0, RadiusUnit.KM),
        (30.0, RadiusUnit.KM),
    ]
    at_address = AvailableVehiclesQuery(
        address=Address.model_validate(ADDRESS), time_range=TimeRange(start_date_time=NOW)
    )
    assert (await client.vehicles.page(at_address)).pagination_info.total == 2
    reefers = NEAR_CHICAGO.model_copy(update={"truck_type": TruckType.REEFER})
    assert [v.truck_type for v in (await client.vehicles.page(reefers)).results] == [
        TruckType.REEFER
    ]


async def test_sorting_paging_and_iteration(
    client: ApiClient, api_tenant: TenantHandle, pool: str
) -> None:
    spread = [(3, TruckType.VAN), (9, TruckType.REEFER), (5, TruckType.VAN),
              (1, TruckType.FLAT_BED), (7, TruckType.VAN)]  # fmt: skip
    add_vehicles(api_tenant, pool, [{"km": km, "truck_type": kind} for km, kind in spread])
    farthest = [VehicleSort(VehicleSortField.DISTANCE, descending=True)]
    answer = await client.vehicles.page(NEAR_CHICAGO, sort=farthest)
    distances = [v.distance.value for v in answer.results]
    assert distances == sorted(distances, reverse=True) and len(distances) == 5
    by_type = [
        VehicleSort(VehicleSortField.TRUCK_TYPE),
        VehicleSort(VehicleSortField.DISTANCE, descending=True),
    ]
    two_keys = (await client.vehicles.page(NEAR_CHICAGO, sort=by_type)).results
    assert [(v.truck_type.value, v.distance.value) for v in two_keys][:3] == [
        ("FLAT_BED", 0.6),
        ("REEFER", 5.6),
        ("VAN", 4.3),
    ]

    second = await client.vehicles.page(NEAR_CHICAGO, page=2, size=2)
    assert (second.pagination_info.page_number, second.pagination_info.total) == (2, 5)
    every = [v async for v in client.vehicles.search(NEAR_CHICAGO, size=2, sort=farthest)]
    assert [v.vehicle_id for v in every] == [v.vehicle_id for v in answer.results]


async def test_refusals_are_typed_with_the_field_named(client: ApiClient, pool: str) -> None:
    too_far = NEAR_CHICAGO.model_copy(update={"radius": 51})
    with pytest.raises(BadRequest) as radius:
        await client.vehicles.page(too_far)
    assert "radius" in radius.value.field_errors() and radius.value.support_reference_id
    elsewhere = NEAR_CHICAGO.model_copy(update={"sharing_pool": "SOMEONE-ELSES"})
    with pytest.raises(BadRequest) as foreign:
        await client.vehicles.page(elsewhere)
    assert "sharingPool" in foreign.value.field_errors()
    with pytest.raises(BadRequest) as page:
        await client.vehicles.page(NEAR_CHICAGO, page=1001)
    assert "page" in page.value.field_errors()


async def test_reads_are_retried_and_strange_answers_refused(
    api_tenant: TenantHandle, proxy: FaultyProxy, pool: str
) -> None:
    add_vehicles(api_tenant, pool, [{"km": 5}])
    async with client_via(proxy, api_tenant) as api:
        proxy.inject(Fault(status=503, path_prefix=PATH))
        assert (await api.vehicles.page(NEAR_CHICAGO)).pagination_info.total == 1
        assert proxy.count("POST", PATH) == 2
        proxy.inject(Fault(body=b'{"paginationInfo": {"pageNumber": 1}, "results": []}'))
        with pytest.raises(ProtocolError) as strange:
            await api.vehicles.page(NEAR_CHICAGO)
        assert "paginationInfo" in str(strange.value)
