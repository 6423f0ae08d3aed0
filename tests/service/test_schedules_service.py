"""Sailing schedules for the app against the real local service (plain asyncio): the search's
rules checked before sending, a page of sailings, the ports learned and kept in the cache, the
live carriers kept for when the service cannot answer."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from freightdesk.api.errors import BadRequest
from freightdesk.api.schedules import ScheduleSearch
from freightdesk.models.schedules import MAX_TRANSSHIPMENTS, ScheduleSort
from freightdesk.service.cache import Cache
from freightdesk.service.schedules import (
    Port,
    SchedulesService,
    SearchInput,
    check_search,
    resolve_port,
    search_of,
    search_params,
)
from tests.service.conftest import OpenService

TODAY = date.today()
WEEKS = (TODAY, TODAY + timedelta(days=21))
ROTTERDAM = Port("NLRTM", "Rotterdam", "NL")


@pytest.fixture
def schedules(open_service: OpenService) -> SchedulesService:
    return open_service(SchedulesService)


def test_ports_are_taken_by_code_completer_entry_or_known_name() -> None:
    assert resolve_port(" nlrtm ", []) == "NLRTM"
    assert resolve_port("Rotterdam, NL (NLRTM)", []) == "NLRTM"
    assert resolve_port("rotterdam", [ROTTERDAM]) == "NLRTM"
    assert resolve_port("Rotterdam", []) is None  # a name the service has not named yet
    assert resolve_port("NL RTM", [ROTTERDAM]) is None


def test_the_search_rules_are_checked_before_sending() -> None:
    search, problems = check_search(
        SearchInput("CNSHA", "rotterdam", departure=WEEKS, carriers="hocs azms"), [ROTTERDAM]
    )
    assert problems == {} and search is not None
    assert search.carrier_codes == ("HOCS", "AZMS") and search.destination == "NLRTM"
    assert search_of(search_params(search)) == search

    _, problems = check_search(SearchInput("", "Atlantis"), [])
    assert set(problems) == {"origin", "destination", "departureStartDate", "arrivalStartDate"}
    backwards = (WEEKS[1], WEEKS[0])
    _, problems = check_search(
        SearchInput(
            "NLRTM",
            "NLRTM",
            departure=WEEKS,
            arrival=backwards,
            carriers="HOCS, 12",
            transshipments_max=MAX_TRANSSHIPMENTS + 1,
        ),
        [],
    )
    assert set(problems) == {
        "destination",
        "arrivalEndDate",
        "carrierCodes",
        "transshipmentsMax",
    }
    assert "'12' is not a SCAC" in problems["carrierCodes"]


async def test_a_page_of_sailings_and_the_ports_it_names(
    schedules: SchedulesService, cache: Cache
) -> None:
    assert await schedules.show({}) and schedules.coordinator.data is not None
    assert schedules.coordinator.data.items == ()  # nothing asked: nothing fetched

    search = ScheduleSearch(
        "CNSHA",
        "NLRTM",
        departure_start_date=WEEKS[0],
        departure_end_date=WEEKS[1],
        sort=ScheduleSort.TRANSIT_TIME,
    )
    listing = await schedules.show({**search_params(search), "pageNumber": 1, "pageSize": 2})
    assert len(listing.items) == 2 and listing.total > 2
    transits = [r.transit_time_days for r in listing.items]
    assert transits == sorted(transits)
    ports = {p.locode: p for p in await schedules.ports()}
    assert ports["CNSHA"].name == "Shanghai" and ports["NLRTM"].country == "NL"
    hubs = {t.locode for r in listing.items for t in r.transshipments}
    assert hubs <= set(ports)

    # Another service over the same cache (the next start) has the answer and the ports.
    again = SchedulesService(lambda: pytest.fail("no network at start"), cache)
    cached = await again.load_cached()
    assert cached is not None and cached.keys == listing.keys
    assert search_of(cached.params_dict()) == search
    assert {p.locode for p in await again.ports()} == set(ports)


async def test_a_refusal_names_the_parameter(schedules: SchedulesService) -> None:
    search = ScheduleSearch("CNSHA", "ZZZZZ", departure_start_date=WEEKS[0])
    with pytest.raises(BadRequest) as refused:
        await schedules.show(search_params(search))
    assert set(refused.value.field_errors()) >= {"destination"}


async def test_live_carriers_are_kept_for_when_the_service_cannot_answer(
    schedules: SchedulesService, cache: Cache
) -> None:
    carriers = await schedules.carriers()
    assert {"HOCS", "AZMS"} <= {c.carrier_code for c in carriers}

    def unreachable() -> object:
        raise ConnectionError("the service is away")

    offline = SchedulesService(unreachable, cache)  # type: ignore[arg-type]
    assert await offline.carriers() == carriers
