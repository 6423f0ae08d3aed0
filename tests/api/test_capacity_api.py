"""The connected capacity client against the real local service: typed performances, filters
and sorting, lane ends sent as given, typed refusals, reads retried safely."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from freightdesk.api.capacity import CARRIERS_PATH, LANES_PATH
from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, ProtocolError
from freightdesk.models.capacity import (
    CapacitySortBy,
    CarrierIdentifier,
    CarrierIdentifierType,
    CarrierPerformance,
    CarrierSearch,
    LaneAddress,
    LaneSearch,
    SortDirection,
    VolumeBucket,
)
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.server.test_capacity import DALLAS, TORONTO, truckload
from tests.support import LiveService, TenantHandle, make_tenant


def scacs(found: Sequence[CarrierPerformance]) -> list[str]:
    return [item.carrier_identifier.value for item in found]


async def test_carriers_are_typed_filtered_and_sorted(
    client: ApiClient, api_tenant: TenantHandle
) -> None:
    assert await client.capacity.search_carriers() == []
    truckload(api_tenant, "PRLF", tracked=True)
    truckload(api_tenant, "PRLF", pickup_late_hours=3, delivery_late_hours=3)
    truckload(api_tenant, "ZZTC", tracked=True)

    found = await client.capacity.search_carriers()
    assert scacs(found) == ["PRLF", "ZZTC"]  # by shipment volume, largest first
    prlf = found[0]
    assert prlf.carrier_name == "Prairie Line Freight" and found[1].carrier_name is None
    assert (prlf.shipment_volume, prlf.volume_bucket) == (2, VolumeBucket.VOLUME_0_TO_10_SHIPMENTS)
    assert (prlf.pickup_schedule_reliability, prlf.percent_tracked) == (50, 50)
    assert prlf.pickups_measured == 2 and prlf.last_shipment_date_time is not None

    ascending = CarrierSearch(
        sort_by=CapacitySortBy.PERCENT_TRACKED, sort_direction=SortDirection.ASC
    )
    assert scacs(await client.capacity.search_carriers(ascending)) == ["PRLF", "ZZTC"]
    reliable = CarrierSearch(minimum_pickup_schedule_reliability=50)
    assert scacs(await client.capacity.search_carriers(reliable)) == ["ZZTC"]
    one = CarrierSearch(
        carrier_identifier=CarrierIdentifier(type=CarrierIdentifierType.SCAC, value="prlf")
    )
    assert scacs(await client.capacity.search_carriers(one)) == ["PRLF"]


async def test_lanes_send_only_the_parts_given(client: ApiClient, api_tenant: TenantHandle) -> None:
    truckload(api_tenant, "LANE", origin=TORONTO)
    truckload(api_tenant, "LANE", tracked=True)
    # No country given: any country matches (the Address default of US is not sent).
    toronto = LaneSearch(origin=LaneAddress(city="Toronto"), destination=LaneAddress(state="TX"))
    (item,) = await client.capacity.search_lanes(toronto)
    assert item.carrier_identifier.value == "LANE" and item.shipment_volume == 1
    assert item.origin.city == "Toronto" and item.origin.country is None
    assert item.destination.state == "TX"
    anywhere = LaneSearch(origin=LaneAddress(state="IL"), destination=LaneAddress(**DALLAS))
    assert [i.shipment_volume for i in await client.capacity.search_lanes(anywhere)] == [1]
    backwards = LaneSearch(
        origin=LaneAddress(city="Dallas"), destination=LaneAddress(city="Chicago")
    )
    assert await client.capacity.search_lanes(backwards) == []


async def test_refusals_are_typed_and_tenants_isolated(
    client: ApiClient, api_tenant: TenantHandle, sqlite_service: LiveService
) -> None:
    # Filters the model refuses, forced past it, are refused by the service by field.
    bad = CarrierSearch.model_construct(minimum_tracking_percentage=101)
    with pytest.raises(BadRequest) as refused:
        await client.capacity.search_carriers(bad)
    assert "minimumTrackingPercentage" in refused.value.field_errors()
    assert refused.value.support_reference_id
    nowhere = LaneAddress.model_construct(address_lines=["1 Main St"])
    no_end = LaneSearch.model_construct(origin=LaneAddress(city="Chicago"), destination=nowhere)
    with pytest.raises(BadRequest) as lane:
        await client.capacity.search_lanes(no_end)
    assert "destination" in lane.value.field_errors()

    truckload(api_tenant, "MINE", tracked=True)
    other = make_tenant(sqlite_service)
    try:
        async with ApiClient(
            other.service.url, client_id=other.client_id, client_secret=other.client_secret
        ) as foreign:
            assert await foreign.capacity.search_carriers() == []
    finally:
        other.http.close()


async def test_reads_are_retried_and_strange_answers_refused(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    truckload(api_tenant, "PRLF")
    async with client_via(proxy, api_tenant) as api:
        proxy.inject(Fault(status=502, path_prefix=CARRIERS_PATH))
        assert scacs(await api.capacity.search_carriers()) == ["PRLF"]
        assert proxy.count("POST", CARRIERS_PATH) == 2
        lanes = LaneSearch(
            origin=LaneAddress(city="Chicago"), destination=LaneAddress(city="Dallas")
        )
        proxy.inject(Fault(status=504, path_prefix=LANES_PATH))
        assert scacs(await api.capacity.search_lanes(lanes)) == ["PRLF"]
        proxy.inject(Fault(body=b'{"carrierPerformances": [{"shipmentVolume": 1}]}'))
        with pytest.raises(ProtocolError) as strange:
            await api.capacity.search_carriers()
        assert "carrierIdentifier" in str(strange.value)
