"""Rules written once in `models/` and run on both sides of the wire: for the same bad input,
the app's check before sending names the same fields with the same words as the local
service's 400 (once both are in the form's words, `messages.plain`: a form shows either).
A rule that drifts apart on one side fails here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from freightdesk.models.packaging import Package
from freightdesk.models.stop_locations import StopLocation
from freightdesk.service.messages import plain
from freightdesk.service.packages import as_write, check_identifier, check_package
from freightdesk.service.rating import check_rate_request
from freightdesk.service.schedules import SearchInput, check_search
from freightdesk.service.stop_locations import check_location, matches
from tests.server.test_packaging import PATH as PACKAGES
from tests.server.test_packaging import package_body
from tests.server.test_rating_support import (
    CHICAGO,
    DALLAS,
    RATE_REQUESTS,
    ltl_request,
    stop,
    tl_request,
)
from tests.server.test_schedules import ROUTES
from tests.server.test_stop_locations import PATH, location
from tests.support import TenantHandle


def _refused(
    tenant: TenantHandle, body: dict[str, Any], *, path: str = PATH, status: int = 400
) -> dict[str, str]:
    """The service's refusal as {field: message}, the first message of each field (as the
    app shows them)."""
    response = tenant.http.post(path, json=body)
    return _errors(response, status)


def _errors(response: httpx.Response, status: int = 400) -> dict[str, str]:
    assert response.status_code == status, response.text
    found: dict[str, str] = {}
    for error in response.json()["errors"]:
        found.setdefault(error["source"], error["message"])
    return found


STOP_LOCATIONS = {
    "a blank name": location(name="  "),
    "an address that does not normalize": location(
        address={"addressLines": ["1 Main St"], "city": "Austin", "state": "Atlantis"}
    ),
    "neither a street address nor coordinates": location(address={"country": "US"}),
    "a geofence whose units do not fit its type": location(
        geofence={"type": "TIME", "units": "MILES", "value": 0}
    ),
    "a geofence of no type": location(geofence={"units": "MILES", "value": 5}),
    "a contact without id or type": location(contacts=[{"contactId": " ", "type": ""}]),
    "hours for no day, opening at a bad time": location(
        openingHours=[{"appliesMonday": False, "opens": "8:00", "closes": "17:00"}]
    ),
    "hours that close when they open": location(
        openingHours=[{"appliesMonday": True, "opens": "08:00", "closes": "08:00"}]
    ),
    "special hours ending before they start": location(
        specialOpeningHours=[
            {
                "hours": {"appliesMonday": True},
                "validFrom": "2025-12-26",
                "validThrough": "2025-12-24",
            }
        ]
    ),
}


@pytest.mark.parametrize("case", STOP_LOCATIONS)
def test_the_app_and_the_service_agree_on_a_stop_location(tenant: TenantHandle, case: str) -> None:
    body = STOP_LOCATIONS[case]
    checked, problems = check_location(body)
    assert checked is None
    assert problems == plain(_refused(tenant, body))


def test_the_app_and_the_service_agree_on_a_new_package(tenant: TenantHandle) -> None:
    body = package_body(status="CONFIRMED")
    checked, problems = check_package(body)
    assert checked is None
    assert problems == _refused(tenant, body, path=PACKAGES)


def test_the_app_and_the_service_agree_on_the_package_workflow(tenant: TenantHandle) -> None:
    created = tenant.http.post(PACKAGES, json=package_body())
    assert created.status_code == 200, created.text
    package = Package.model_validate(created.json())
    url = f"{PACKAGES}/{package.id}"
    skipped = {**as_write(package), "status": "CONFIRMED"}
    _, problems = check_package(skipped, package)
    assert problems == _errors(tenant.http.put(url, json=skipped), 409)
    for status in ("ASSIGNED", "CONFIRMED"):
        moved = tenant.http.put(url, json={**as_write(package), "status": status})
        package = Package.model_validate(moved.json())
    changed = {**as_write(package), "isStackable": not package.is_stackable}
    _, problems = check_package(changed, package)
    assert problems == _errors(tenant.http.put(url, json=changed), 409)


@pytest.mark.parametrize("pair", [(" ", "D-1"), ("OLPN", "")])
def test_the_app_and_the_service_agree_on_a_delete_by_identifier(
    tenant: TenantHandle, pair: tuple[str, str]
) -> None:
    type_, value = pair
    answer = tenant.http.delete(
        PACKAGES, params={"identifier.type": type_, "identifier.value": value}
    )
    assert check_identifier(type_, value) == _errors(answer)


_UNIT = {"quantity": 2, "weight": {"value": 400, "unit": "LB"}, "freightClass": "70"}


def _with(body: dict[str, Any], **detail: Any) -> dict[str, Any]:
    return {**body, "rateDetail": {**body["rateDetail"], **detail}}


def _shipping(body: dict[str, Any], **shipping: Any) -> dict[str, Any]:
    return _with(body, shippingDetails={**body["rateDetail"]["shippingDetails"], **shipping})


RATE_REQUESTS_REFUSED = {
    "a first stop that is no pickup": _with(
        tl_request(), routeInfo={"stops": [{**CHICAGO, "type": "DELIVERY"}, DALLAS]}
    ),
    "a state unknown in its country": _with(
        tl_request(), routeInfo={"stops": [stop("PICKUP", "Chicago", "Atlantis", "60607"), DALLAS]}
    ),
    "a country that does not exist": _with(
        tl_request(),
        routeInfo={
            "stops": [
                CHICAGO,
                {"type": "DELIVERY", "location": {"address": {"city": "X", "country": "Narnia"}}},
            ]
        },
    ),
    "a pickup date in the past": _with(tl_request(), pickupDate="2020-01-06"),
    "an expiry in the past": tl_request(expirationDateTime="2020-01-06T00:00:00Z"),
    "truck and LTL at once": _shipping(
        _with(tl_request(), shipmentDetails=[{"handlingUnits": [_UNIT]}]), ltl={}
    ),
    "an LTL unit without weight": ltl_request(["NBFL"], [{"quantity": 1, "freightClass": "70"}]),
    "LTL without units": ltl_request(["NBFL"], []),
    "temperature control on a dry van": _shipping(
        tl_request(), accessorials=[{"code": "REFRIGERATED"}]
    ),
    "tarping on a reefer": _shipping(
        tl_request(),
        truck={"loadPreference": "FULL", "trailerType": "REEFER"},
        accessorials=[{"code": "TARP"}],
    ),
    "a truckload service for LTL": _shipping(
        ltl_request(["NBFL"], [_UNIT]), accessorials=[{"code": "LUMPER"}]
    ),
    "an accessorial not rated": _shipping(tl_request(), accessorials=[{"code": "STOP_OFF"}]),
}


@pytest.mark.parametrize("case", RATE_REQUESTS_REFUSED)
def test_the_app_and_the_service_agree_on_a_rate_request(tenant: TenantHandle, case: str) -> None:
    body = RATE_REQUESTS_REFUSED[case]
    checked, problems = check_rate_request(body)
    assert checked is None
    assert problems == plain(_refused(tenant, body, path=RATE_REQUESTS))


def test_the_app_and_the_service_find_the_same_stop_locations(tenant: TenantHandle) -> None:
    toronto = {"addressLines": ["1 Front St W"], "city": "Toronto", "state": "ON",
               "postalCode": "M5V 3L9", "country": "CA"}  # fmt: skip
    created = tenant.http.post(PATH, json=location(name="Harbour Dock", address=toronto))
    assert created.status_code == 200, created.text
    saved = StopLocation.model_validate(created.json())
    for query in ("harbour", " DOCK ", "toronto", "m5v3l9", "M5V 3", "dock toronto", "austin", ""):
        listed = tenant.http.get(PATH, params={"q": query}).json()["locations"]
        found = any(item["id"] == str(saved.id) for item in listed)
        assert matches(saved, query) == found, query


_TODAY = datetime.now(UTC).date()
_WEEKS = (_TODAY, _TODAY + timedelta(days=21))

SEARCHES_REFUSED = {
    "the same port twice": SearchInput("CNSHA", "CNSHA", departure=_WEEKS),
    "a window ending before it starts": SearchInput(
        "CNSHA", "NLRTM", departure=(_WEEKS[1], _WEEKS[0])
    ),
    "a window out of reach": SearchInput(
        "CNSHA", "NLRTM", arrival=(_TODAY, _TODAY + timedelta(days=6 * 366))
    ),
    "no window": SearchInput("CNSHA", "NLRTM"),
    "a carrier that is no SCAC": SearchInput(
        "CNSHA", "NLRTM", departure=_WEEKS, carriers="HOCS 12"
    ),
}


def _params(search: SearchInput) -> dict[str, str]:
    params = {"origin": search.origin, "destination": search.destination}
    for kind, window in (("departure", search.departure), ("arrival", search.arrival)):
        if window is not None:
            params[f"{kind}StartDate"], params[f"{kind}EndDate"] = map(str, window)
    if search.carriers:
        params["carrierCodes"] = ",".join(search.carriers.split())
    return params


@pytest.mark.parametrize("case", SEARCHES_REFUSED)
def test_the_app_and_the_service_agree_on_a_schedule_search(
    tenant: TenantHandle, case: str
) -> None:
    search = SEARCHES_REFUSED[case]
    checked, problems = check_search(search, [])
    assert checked is None
    assert problems == plain(_errors(tenant.http.get(ROUTES, params=_params(search))))
