"""Carrier capacity for the app against the real local service (plain asyncio): the models'
rules checked before sending, carriers and a lane ranked, the answer and its search kept in
the cache."""

from __future__ import annotations

import pytest

from freightdesk.models.capacity import CapacitySortBy, CarrierSearch, LaneSearch
from freightdesk.service.cache import Cache
from freightdesk.service.capacity import CapacityService, check_search, search_of, search_params
from tests.server.test_capacity import TORONTO, truckload
from tests.service.conftest import OpenService
from tests.support import TenantHandle


@pytest.fixture
def capacity(open_service: OpenService) -> CapacityService:
    return open_service(CapacityService)


def test_the_models_rules_are_checked_before_sending() -> None:
    search, problems = check_search({"minimumTrackingPercentage": 80})
    assert problems == {} and type(search) is CarrierSearch
    _, problems = check_search(
        {
            "minimumTrackingPercentage": 101,
            "minimumDeliveryScheduleReliability": "most",
            "carrierIdentifier": {"type": "SCAC", "value": "A1"},
            "sortBy": "CHEAPEST",
        }
    )
    assert set(problems) == {
        "minimumTrackingPercentage",
        "minimumDeliveryScheduleReliability",
        "carrierIdentifier.value",
        "sortBy",
    }
    # A lane is asked when either end is given; each end names something.
    _, problems = check_search({"origin": {"city": "Chicago"}})
    assert set(problems) == {"destination"}
    _, problems = check_search({"origin": {}, "destination": {"state": "TX"}})
    assert set(problems) == {"origin"}
    lane, _ = check_search({"origin": {"postalCode": "606"}, "destination": {"country": "CA"}})
    assert isinstance(lane, LaneSearch)
    # The params keep only what was given of a lane end (no default country).
    params = search_params(lane)
    assert params["origin"] == {"postalCode": "606"}
    assert search_of(params) == lane
    assert search_of({"minimumVolume": "LOTS"}) == CarrierSearch()  # a stale cached search


async def test_carriers_and_a_lane_ranked_and_kept_in_the_cache(
    capacity: CapacityService, tenant_: TenantHandle, cache: Cache
) -> None:
    truckload(tenant_, "ABCD", tracked=True)
    truckload(tenant_, "ABCD")
    truckload(tenant_, "WXYZ", destination=TORONTO, tracked=True)
    everyone = await capacity.show({})
    assert [c.carrier_identifier.value for c in everyone.items] == ["ABCD", "WXYZ"]

    by_tracking = search_params(CarrierSearch(sort_by=CapacitySortBy.PERCENT_TRACKED))
    listing = await capacity.show(by_tracking)
    assert [c.carrier_identifier.value for c in listing.items] == ["WXYZ", "ABCD"]
    assert [c.percent_tracked for c in listing.items] == [100, 50]

    lane, _ = check_search({"origin": {"city": "chicago"}, "destination": {"country": "CA"}})
    assert lane is not None
    on_lane = await capacity.show(search_params(lane))
    assert [c.carrier_identifier.value for c in on_lane.items] == ["WXYZ"]

    again = CapacityService(lambda: pytest.fail("no network at start"), cache)
    cached = await again.load_cached()
    assert cached is not None and cached.keys == ("WXYZ",)
    assert search_of(cached.params_dict()) == lane
