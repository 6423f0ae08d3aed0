"""Ocean point-to-point schedules over real HTTP: every query rule, sorting and paging."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.support import LiveService, TenantHandle

BASE = "/services/advanced-sailing-schedules/v1"
ROUTES = f"{BASE}/point-to-point-routes"
TODAY = datetime.now(UTC).date()


def window(days: int = 14, start: date = TODAY) -> dict[str, str]:
    return {"departureStartDate": str(start), "departureEndDate": str(start + timedelta(days=days))}


def routes(tenant: TenantHandle, params: Any) -> dict[str, Any]:
    response = tenant.http.get(ROUTES, params=params)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def moment(value: str) -> datetime:
    return datetime.fromisoformat(value)


@pytest.fixture(scope="module")
def reader(sqlite_service: LiveService) -> Any:
    """Schedules are the same for every tenant, so one tenant reads them for the module."""
    from tests.support import make_tenant

    handle = make_tenant(sqlite_service)
    yield handle
    handle.http.close()


def test_live_carriers(reader: TenantHandle) -> None:
    response = reader.http.get(f"{BASE}/carriers")
    assert response.status_code == 200
    carriers = response.json()["carriers"]
    codes = [c["carrierCode"] for c in carriers]
    assert {"HOCS", "AZMS", "CRVN", "GSMT", "NVKL"} <= set(codes)
    assert all(c["carrierName"] and c["serviceCount"] > 0 and c["portCount"] > 1 for c in carriers)
    names = [c["carrierName"] for c in carriers]
    assert names == sorted(names)


def test_a_route_reads_like_a_schedule(reader: TenantHandle) -> None:
    answer = routes(reader, {"origin": "CNSHA", "destination": "NLRTM", **window()})
    assert answer["paginationInfo"]["pageNumber"] == 1
    assert answer["paginationInfo"]["pageSize"] == 50
    results = answer["results"]
    assert results and answer["paginationInfo"]["total"] == len(results)
    for route in results:
        departure, arrival = (
            moment(route["departure"]["dateTime"]),
            moment(route["arrival"]["dateTime"]),
        )
        assert route["departure"]["locode"] == "CNSHA" and route["arrival"]["locode"] == "NLRTM"
        assert route["departure"]["dateTime"].endswith("+08:00")  # Shanghai local time
        assert route["arrival"]["dateTime"][-6:] in ("+01:00", "+02:00")
        assert TODAY <= departure.date() <= TODAY + timedelta(days=14)
        assert 20 <= route["transitTimeDays"] <= 60
        assert abs((arrival - departure).total_seconds() / 86400 - route["transitTimeDays"]) <= 0.5
        assert moment(route["cargoCutoffDateTime"]) == departure - timedelta(hours=24)
        legs = route["legs"]
        assert route["transshipmentCount"] == len(legs) - 1 == len(route["transshipments"])
        assert (
            legs[0]["departure"] == route["departure"] and legs[-1]["arrival"] == route["arrival"]
        )
        assert route["vesselName"] == legs[0]["vesselName"]
        assert route["voyageNumber"] == legs[0]["voyageNumber"]
        for before, after, hub in zip(legs, legs[1:], route["transshipments"], strict=False):
            assert before["arrival"]["locode"] == after["departure"]["locode"] == hub["locode"]
            wait = moment(after["departure"]["dateTime"]) - moment(before["arrival"]["dateTime"])
            assert wait >= timedelta(hours=24)
    assert any(r["transshipmentCount"] == 0 for r in results)
    departures = [moment(r["departure"]["dateTime"]) for r in results]
    assert departures == sorted(departures)


def test_arrival_window_and_both_windows(reader: TenantHandle) -> None:
    start, end = TODAY + timedelta(days=40), TODAY + timedelta(days=60)
    arriving = {"origin": "SGSIN", "destination": "USLAX",
                "arrivalStartDate": str(start), "arrivalEndDate": str(end)}  # fmt: skip
    results = routes(reader, arriving)["results"]
    assert results
    for route in results:
        assert start <= moment(route["arrival"]["dateTime"]).date() <= end
    both = {**arriving, **window(days=20, start=TODAY + timedelta(days=20))}
    narrowed = routes(reader, both)["results"]
    assert 0 < len(narrowed) < len(results)
    for route in narrowed:
        departure = moment(route["departure"]["dateTime"]).date()
        assert TODAY + timedelta(days=20) <= departure <= TODAY + timedelta(days=40)


@pytest.mark.parametrize(
    ("params", "source"),
    [
        ({"destination": "NLRTM", **window()}, "origin"),
        ({"origin": "CNSHA", **window()}, "destination"),
        ({"origin": "CNSH", "destination": "NLRTM", **window()}, "origin"),
        ({"origin": "CNSHA", "destination": "NL1TM", **window()}, "destination"),
        ({"origin": "ZZZZZ", "destination": "NLRTM", **window()}, "origin"),
        ({"origin": "NLRTM", "destination": "nlrtm", **window()}, "destination"),
        ({"origin": "CNSHA", "destination": "NLRTM"}, "departureStartDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", "departureStartDate": str(TODAY)},
         "departureEndDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", "departureEndDate": str(TODAY)},
         "departureStartDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", "arrivalEndDate": str(TODAY)},
         "arrivalStartDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", "arrivalStartDate": str(TODAY)},
         "arrivalEndDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "arrivalStartDate": str(TODAY)},
         "arrivalEndDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(days=-1)}, "departureEndDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", "departureStartDate": "2026-02-30",
          "departureEndDate": "2026-03-30"}, "departureStartDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", "departureStartDate": "9999-12-30",
          "departureEndDate": "9999-12-31"}, "departureStartDate"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "carrierCodes": "MAEU"},
         "carrierCodes"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "carrierCodes": "H0CS"},
         "carrierCodes"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "carrierCodes": " , "},
         "carrierCodes"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "transshipmentsMax": 11},
         "transshipmentsMax"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "transshipmentsMax": -1},
         "transshipmentsMax"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "sort": "PRICE"}, "sort"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "pageSize": 201}, "pageSize"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "pageSize": 0}, "pageSize"),
        ({"origin": "CNSHA", "destination": "NLRTM", **window(), "pageNumber": 0}, "pageNumber"),
    ],
)  # fmt: skip
def test_bad_queries_name_the_parameter(
    reader: TenantHandle, params: dict[str, Any], source: str
) -> None:
    response = reader.http.get(ROUTES, params=params)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["httpStatusCode"] == 400
    assert body["errors"][0]["source"] == source


def test_port_codes_are_case_insensitive(reader: TenantHandle) -> None:
    upper = routes(reader, {"origin": "CNSHA", "destination": "NLRTM", **window()})
    lower = routes(reader, {"origin": "cnsha", "destination": " nlrtm ", **window()})
    assert lower == upper


def test_carrier_codes(reader: TenantHandle) -> None:
    params = {"origin": "CNSHA", "destination": "NLRTM", **window(days=28)}
    every = {r["carrierCode"] for r in routes(reader, params)["results"]}
    assert len(every) >= 4
    two = routes(reader, {**params, "carrierCodes": "hocs, AZMS"})["results"]
    assert {r["carrierCode"] for r in two} == {"HOCS", "AZMS"}
    # A repeated parameter keeps only its last value.
    repeated = routes(reader, [*params.items(), ("carrierCodes", "HOCS"), ("carrierCodes", "CRVN")])
    assert {r["carrierCode"] for r in repeated["results"]} == {"CRVN"}


def test_transshipments_max(reader: TenantHandle) -> None:
    params = {"origin": "JMKIN", "destination": "JPSMZ", **window(days=60)}
    every = routes(reader, params)["results"]
    fewest = min(r["transshipmentCount"] for r in every)
    assert fewest >= 2  # no carrier links these two ports simply
    assert routes(reader, {**params, "transshipmentsMax": fewest - 1})["results"] == []
    for most in (fewest, 10):
        kept = routes(reader, {**params, "transshipmentsMax": most})["results"]
        assert kept and all(r["transshipmentCount"] <= most for r in kept)
    direct = routes(
        reader, {"origin": "CNSHA", "destination": "NLRTM", **window(), "transshipmentsMax": 0}
    )["results"]
    assert direct and all(r["transshipmentCount"] == 0 and len(r["legs"]) == 1 for r in direct)


def test_sorts(reader: TenantHandle) -> None:
    params = {"origin": "KRPUS", "destination": "DEHAM", **window(days=21)}
    by_arrival = routes(reader, {**params, "sort": "ARRIVAL_DATE_TIME"})["results"]
    arrivals = [moment(r["arrival"]["dateTime"]) for r in by_arrival]
    assert arrivals == sorted(arrivals)
    by_transit = routes(reader, {**params, "sort": "TRANSIT_TIME"})["results"]
    transits = [
        moment(r["arrival"]["dateTime"]) - moment(r["departure"]["dateTime"]) for r in by_transit
    ]
    assert transits == sorted(transits)
    default = routes(reader, params)["results"]
    assert default == routes(reader, {**params, "sort": "DEPARTURE_DATE_TIME"})["results"]
    assert sorted(r["routeId"] for r in default) == sorted(r["routeId"] for r in by_transit)


def test_paging_and_a_year_of_sailings(reader: TenantHandle) -> None:
    params = {"origin": "SGSIN", "destination": "USNYC", **window(days=365)}
    first = routes(reader, {**params, "pageSize": 200})
    total = first["paginationInfo"]["total"]
    assert total > 200  # a year of weekly sailings of several carriers
    ids = [r["routeId"] for r in first["results"]]
    second = routes(reader, {**params, "pageSize": 200, "pageNumber": 2})["results"]
    assert len(second) == min(200, total - 200)
    assert not set(ids) & {r["routeId"] for r in second}
    last_departure = moment(second[-1]["departure"]["dateTime"]).date()
    assert last_departure <= TODAY + timedelta(days=366)
    beyond = routes(reader, {**params, "pageNumber": 1000})
    assert beyond["results"] == [] and beyond["paginationInfo"]["total"] == total
    # Nothing is published beyond a year ahead, nor more than two weeks back.
    later = routes(reader, {**params, **window(days=30, start=TODAY + timedelta(days=400))})
    assert later["paginationInfo"]["total"] == 0
    earlier = routes(reader, {**params, **window(days=30, start=TODAY - timedelta(days=60))})
    assert all(
        moment(r["departure"]["dateTime"]).date() >= TODAY - timedelta(days=15)
        for r in earlier["results"]
    )


def test_same_for_every_tenant_and_only_with_credentials(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    params = {"origin": "USSAV", "destination": "BRSSZ", **window()}
    assert routes(tenant, params) == routes(other, params)
    anonymous = httpx.get(tenant.service.url + ROUTES, params=params)
    assert anonymous.status_code == 401
    assert httpx.get(tenant.service.url + f"{BASE}/carriers").status_code == 401
