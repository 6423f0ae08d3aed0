"""The sailing schedules client against the real local service: live carriers, typed routes,
every search parameter, paging, typed refusals, and answers the interface does not promise."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, ProtocolError
from freightdesk.api.schedules import CARRIERS_PATH, ROUTES_PATH, ScheduleSearch
from freightdesk.models.schedules import ScheduleSort
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle

TODAY = datetime.now(UTC).date()


def shanghai_rotterdam(days: int = 14) -> ScheduleSearch:
    return ScheduleSearch(
        origin="CNSHA",
        destination="NLRTM",
        departure_start_date=TODAY,
        departure_end_date=TODAY + timedelta(days=days),
    )


async def test_live_carriers(client: ApiClient) -> None:
    carriers = await client.schedules.carriers()
    assert {"HOCS", "AZMS", "CRVN"} <= {c.carrier_code for c in carriers}
    assert all(c.carrier_name and c.service_count > 0 and c.port_count > 1 for c in carriers)


async def test_a_page_of_typed_routes(client: ApiClient) -> None:
    page = await client.schedules.routes_page(shanghai_rotterdam())
    info = page.pagination_info
    assert (info.page_number, info.page_size) == (1, 50) and info.total == len(page.results) > 0
    for route in page.results:
        assert (route.departure.locode, route.arrival.locode) == ("CNSHA", "NLRTM")
        assert route.departure.date_time.utcoffset() == timedelta(hours=8)  # Shanghai time
        assert TODAY <= route.departure.date_time.date() <= TODAY + timedelta(days=14)
        assert route.cargo_cutoff_date_time == route.departure.date_time - timedelta(hours=24)
        assert route.transshipment_count == len(route.legs) - 1 == len(route.transshipments)
    departures = [r.departure.date_time for r in page.results]
    assert departures == sorted(departures)


async def test_every_parameter_is_sent(client: ApiClient) -> None:
    four_weeks = shanghai_rotterdam(days=28)
    two = replace(four_weeks, carrier_codes=("HOCS", "azms"))
    assert {r.carrier_code for r in (await client.schedules.routes_page(two)).results} == {
        "HOCS",
        "AZMS",
    }
    direct = replace(shanghai_rotterdam(), transshipments_max=0)
    found = (await client.schedules.routes_page(direct)).results
    assert found and all(r.transshipment_count == 0 for r in found)
    by_transit = (
        await client.schedules.routes_page(replace(four_weeks, sort=ScheduleSort.TRANSIT_TIME))
    ).results
    transits = [r.arrival.date_time - r.departure.date_time for r in by_transit]
    assert transits == sorted(transits)
    start, end = TODAY + timedelta(days=40), TODAY + timedelta(days=60)
    arriving = ScheduleSearch(
        origin="SGSIN", destination="USLAX", arrival_start_date=start, arrival_end_date=end
    )
    arrivals = (await client.schedules.routes_page(arriving)).results
    assert arrivals and all(start <= r.arrival.date_time.date() <= end for r in arrivals)
    assert len((await client.schedules.routes_page(four_weeks)).results) > len(found)


async def test_routes_iterate_over_every_page(client: ApiClient) -> None:
    search = shanghai_rotterdam(days=28)
    whole = await client.schedules.routes_page(search, page_size=200)
    assert whole.pagination_info.total > 7
    ids = [r.route_id async for r in client.schedules.routes(search, page_size=3)]
    assert ids == [r.route_id for r in whole.results]
    second = await client.schedules.routes_page(search, page_number=2, page_size=3)
    assert [r.route_id for r in second.results] == ids[3:6]


async def test_refusals_are_typed_with_the_parameter_named(client: ApiClient) -> None:
    for search, source in [
        (ScheduleSearch(origin="ZZZZZ", destination="NLRTM", departure_start_date=TODAY,
                        departure_end_date=TODAY), "origin"),
        (ScheduleSearch(origin="CNSHA", destination="NLRTM"), "departureStartDate"),
        (ScheduleSearch(origin="CNSHA", destination="NLRTM", departure_start_date=TODAY),
         "departureEndDate"),
        (replace(shanghai_rotterdam(), carrier_codes=("MAEU",)), "carrierCodes"),
        (replace(shanghai_rotterdam(), transshipments_max=11), "transshipmentsMax"),
    ]:  # fmt: skip
        with pytest.raises(BadRequest) as refused:
            await client.schedules.routes_page(search)
        assert source in refused.value.field_errors(), refused.value.errors
        assert refused.value.body.http_status_code == 400
    with pytest.raises(BadRequest) as size:
        await client.schedules.routes_page(shanghai_rotterdam(), page_size=201)
    assert "pageSize" in size.value.field_errors()


async def test_reads_are_retried_and_strange_answers_refused(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        proxy.inject(Fault(status=503, path_prefix=CARRIERS_PATH))
        assert await api.schedules.carriers()
        assert proxy.count("GET", CARRIERS_PATH) == 2
        proxy.inject(Fault(body=b'{"results": []}', path_prefix=ROUTES_PATH))
        with pytest.raises(ProtocolError) as strange:
            await api.schedules.routes_page(shanghai_rotterdam())
        assert "paginationInfo" in str(strange.value)
        proxy.inject(Fault(body=b'{"carriers": [{"carrierCode": "HOCS"}]}'))
        with pytest.raises(ProtocolError):
            await api.schedules.carriers()
