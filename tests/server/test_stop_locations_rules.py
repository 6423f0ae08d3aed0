"""What makes a stop location valid: every rule and bad input, with the field path named."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.server.test_stop_locations import PATH, location
from tests.support import TenantHandle

WEEKDAYS = {"appliesMonday": True, "appliesTuesday": True}


def hours(**fields: Any) -> dict[str, Any]:
    return {**WEEKDAYS, "opens": "08:00", "closes": "16:00", **fields}


def refused(tenant: TenantHandle, body: dict[str, Any]) -> dict[str, str]:
    """Posts, expects 400, answers {source: message} of every error."""
    response = tenant.http.post(PATH, json=body)
    assert response.status_code == 400, response.text
    answer = response.json()
    assert answer["httpStatusCode"] == 400 and answer["supportReferenceId"]
    return {error["source"]: error["message"] for error in answer["errors"]}


def accepted(tenant: TenantHandle, body: dict[str, Any]) -> dict[str, Any]:
    response = tenant.http.post(PATH, json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_name_is_required_and_not_blank(tenant: TenantHandle) -> None:
    body = location()
    del body["name"]
    assert "name" in refused(tenant, body)
    assert refused(tenant, location(name="   ")) == {"name": "must not be blank"}
    assert "name" in refused(tenant, location(name=None))
    assert "name" in refused(tenant, location(name="x" * 201))


def test_address_is_required(tenant: TenantHandle) -> None:
    body = location()
    del body["address"]
    assert "address" in refused(tenant, body)


def test_a_street_address_or_coordinates_is_required(tenant: TenantHandle) -> None:
    problems = refused(tenant, location(address={"country": "US"}))
    assert set(problems) == {"address.addressLines", "address.city", "address.state"}
    assert "coordinates" in problems["address.city"]
    # Each missing part of a street address is named.
    partial = {"addressLines": ["1 Main St"], "city": " ", "postalCode": "78701"}
    assert set(refused(tenant, location(address=partial))) == {"address.city"}
    # State or postal code will do.
    for region in ({"state": "TX"}, {"postalCode": "78701"}):
        address = {"addressLines": ["1 Main St"], "city": "Austin", **region}
        accepted(tenant, location(address=address))
    # Coordinates with just the country (US by default, as everywhere an address appears).
    at = {"latitude": 51.5, "longitude": -0.12}
    assert accepted(tenant, location(address={"country": "GB"}, coordinates=at))["address"] == {
        "addressLines": [],
        "country": "GB",
    }
    assert accepted(tenant, location(address={}, coordinates=at))["address"]["country"] == "US"


@pytest.mark.parametrize(
    ("address", "source"),
    [
        ({"state": "ZZ"}, "address.state"),
        ({"state": "Texas", "country": "CA"}, "address.state"),
        ({"postalCode": "7870"}, "address.postalCode"),
        ({"postalCode": "10001", "state": "TX"}, "address.postalCode"),
        ({"postalCode": "ABC", "country": "CA", "state": "ON"}, "address.postalCode"),
        ({"country": "Atlantis"}, "address.country"),
        ({"addressLines": ["1", "2", "3", "4"]}, "address.addressLines"),
        ({"zip": "78701"}, "address.zip"),
    ],
)
def test_address_problems_are_prefixed(
    tenant: TenantHandle, address: dict[str, Any], source: str
) -> None:
    street = {"addressLines": ["1 Main St"], "city": "Austin", "state": "TX"}
    assert source in refused(tenant, location(address={**street, **address}))


def test_coordinates_must_be_on_earth(tenant: TenantHandle) -> None:
    for coordinates, source in [
        ({"latitude": 91, "longitude": 0}, "coordinates.latitude"),
        ({"latitude": 0, "longitude": -181}, "coordinates.longitude"),
        ({"latitude": 0}, "coordinates.longitude"),
        ({"latitude": "north", "longitude": 0}, "coordinates.latitude"),
    ]:
        assert source in refused(tenant, location(coordinates=coordinates))


def test_id_must_not_be_supplied_on_create(tenant: TenantHandle) -> None:
    problems = refused(tenant, location(id="0b7a8f8e-1f7e-4c59-9a7e-2a4b0f3c1d11"))
    assert set(problems) == {"id"}
    assert "id" in refused(tenant, location(id="not-a-uuid"))
    # Null is what the interface says a create carries.
    accepted(tenant, location(id=None))


def test_return_only_and_unknown_fields(tenant: TenantHandle) -> None:
    # addressSpecificity is computed; a value sent is ignored.
    created = accepted(tenant, location(addressSpecificity="COUNTRY"))
    assert created["addressSpecificity"] == "HOUSE_NUMBER"
    assert "colour" in refused(tenant, location(colour="red"))
    assert "openingHours[0].appliesMonady" in refused(
        tenant, location(openingHours=[hours(appliesMonady=True)])
    )


def test_opening_hours_rules(tenant: TenantHandle) -> None:
    ok = hours()
    cases: list[tuple[list[dict[str, Any]], str]] = [
        ([ok, hours(closes="25:00")], "openingHours[1].closes"),
        ([ok, hours(opens="8:00")], "openingHours[1].opens"),
        ([hours(opens="noon")], "openingHours[0].opens"),
        ([hours(opens="24:00")], "openingHours[0].opens"),
        ([hours(opens="08:00:00")], "openingHours[0].opens"),
        ([hours(opens="09:00", closes="09:00")], "openingHours[0].closes"),
        ([{**WEEKDAYS, "closes": "16:00"}], "openingHours[0].opens"),
        ([{**WEEKDAYS, "opens": "08:00"}], "openingHours[0].closes"),
        ([{"opens": "08:00", "closes": "16:00"}], "openingHours[0]"),
        ([hours(appliesMonday=False, appliesTuesday=False)], "openingHours[0]"),
        ([hours(appliesMonday="often")], "openingHours[0].appliesMonday"),
    ]
    for opening_hours, source in cases:
        problems = refused(tenant, location(openingHours=opening_hours))
        assert source in problems, (opening_hours, problems)
    message = refused(tenant, location(openingHours=[hours(closes="25:00")]))
    assert message["openingHours[0].closes"].startswith("must be a time of day as HH:MM")
    assert "openingHours" in refused(tenant, location(openingHours=[ok] * 51))


def test_overnight_and_all_day_hours_are_allowed(tenant: TenantHandle) -> None:
    night = hours(opens="22:00", closes="06:00")
    all_day = {"appliesSunday": True, "opens": "00:00", "closes": "24:00"}
    created = accepted(tenant, location(openingHours=[night, all_day], contacts=None))
    assert [(h["opens"], h["closes"]) for h in created["openingHours"]] == [
        ("22:00", "06:00"),
        ("00:00", "24:00"),
    ]
    assert created["contacts"] == []


def test_special_opening_hours_rules(tenant: TenantHandle) -> None:
    holiday = {
        "hours": {"appliesThursday": True},
        "validFrom": "2025-11-27",
        "validThrough": "2025-11-27",
    }
    short_day = {
        "hours": hours(closes="12:00"),
        "validFrom": "2025-12-24",
        "validThrough": "2025-12-31",
    }
    created = accepted(tenant, location(specialOpeningHours=[holiday, short_day]))
    special = created["specialOpeningHours"]
    assert "opens" not in special[0]["hours"] and special[1]["hours"]["closes"] == "12:00"
    assert special[1]["validThrough"] == "2025-12-31"
    cases: list[tuple[dict[str, Any], str]] = [
        ({**short_day, "validThrough": "2025-12-01"}, "specialOpeningHours[1].validThrough"),
        ({**short_day, "validFrom": None}, "specialOpeningHours[1].validFrom"),
        ({**short_day, "validThrough": None}, "specialOpeningHours[1].validThrough"),
        ({**short_day, "validFrom": "24.12.2025"}, "specialOpeningHours[1].validFrom"),
        ({**short_day, "validFrom": "2025-02-30"}, "specialOpeningHours[1].validFrom"),
        ({**short_day, "hours": None}, "specialOpeningHours[1].hours"),
        (
            {**short_day, "hours": {**WEEKDAYS, "opens": "08:00"}},
            "specialOpeningHours[1].hours.closes",
        ),
        (
            {**short_day, "hours": {"opens": "08:00", "closes": "09:00"}},
            "specialOpeningHours[1].hours",
        ),
        ({**short_day, "hours": hours(closes="8pm")}, "specialOpeningHours[1].hours.closes"),
    ]
    for bad, source in cases:
        problems = refused(tenant, location(specialOpeningHours=[holiday, bad]))
        assert source in problems, (bad, problems)


def test_geofence_rules(tenant: TenantHandle) -> None:
    geometry = {
        "bbox": [-97.8, 30.2, -97.7, 30.3],
        "crs": {"type": "name", "properties": {"name": "EPSG:4326"}},
        "type": "Polygon",
    }
    created = accepted(
        tenant,
        location(geofence={"type": "time", "units": "Minutes", "value": 15, "geometry": geometry}),
    )
    assert created["geofence"] == {
        "type": "TIME",
        "units": "MINUTES",
        "value": 15.0,
        "geometry": geometry,
    }
    good = {"type": "DISTANCE", "units": "METERS", "value": 500}
    cases: list[tuple[dict[str, Any], str]] = [
        ({**good, "value": 0}, "geofence.value"),
        ({**good, "value": -5}, "geofence.value"),
        ({**good, "value": None}, "geofence.value"),
        ({**good, "value": "far"}, "geofence.value"),
        ({**good, "type": "POLYGON"}, "geofence.type"),
        ({**good, "type": None}, "geofence.type"),
        ({**good, "units": "MINUTES"}, "geofence.units"),
        ({**good, "type": "TIME", "units": "MILES"}, "geofence.units"),
        ({**good, "units": "FURLONGS"}, "geofence.units"),
        ({**good, "units": " "}, "geofence.units"),
        ({**good, "geometry": {"bbox": [1, 2, 3]}}, "geofence.geometry.bbox"),
        ({**good, "geometry": {"bbox": [0, 50, 1, 40]}}, "geofence.geometry.bbox"),
        ({**good, "geometry": {"bbox": [0, 95, 1, 96]}}, "geofence.geometry.bbox"),
        ({**good, "geometry": {"bbox": [-190, 0, 1, 1]}}, "geofence.geometry.bbox"),
        ({**good, "geometry": {"shape": "round"}}, "geofence.geometry.shape"),
    ]
    for geofence, source in cases:
        problems = refused(tenant, location(geofence=geofence))
        assert source in problems, (geofence, problems)
    message = refused(tenant, location(geofence={**good, "units": "MINUTES"}))["geofence.units"]
    assert "METERS" in message and "MINUTES" in message


@pytest.mark.parametrize(
    ("raw", "source"),
    [
        (b'"value": NaN', "geofence.value"),
        (b'"value": Infinity', "geofence.value"),
        (b'"value": 1, "geometry": {"bbox": [0, 0, 1, -Infinity]}', "geofence.geometry.bbox[3]"),
        (
            b'"value": 1, "geometry": {"crs": {"type": "x", "properties": {"a": [NaN]}}}',
            "geofence.geometry.crs.properties",
        ),
    ],
)
def test_not_a_number_is_refused(tenant: TenantHandle, raw: bytes, source: str) -> None:
    # Python's JSON parser accepts NaN and Infinity; they must not reach the database.
    body = (
        b'{"name": "n", "address": {"country": "US"}, '
        b'"coordinates": {"latitude": 1, "longitude": 2}, '
        b'"geofence": {"type": "TIME", "units": "MINUTES", ' + raw + b"}}"
    )
    response = tenant.http.post(PATH, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert source in {error["source"] for error in response.json()["errors"]}


def test_coordinates_not_a_number(tenant: TenantHandle) -> None:
    body = b'{"name": "n", "address": {}, "coordinates": {"latitude": NaN, "longitude": 2}}'
    response = tenant.http.post(PATH, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["source"] == "coordinates.latitude"


def test_contacts_rules(tenant: TenantHandle) -> None:
    created = accepted(tenant, location(contacts=[{"contactId": " c-1 ", "type": "SHIPPING"}]))
    assert created["contacts"] == [{"contactId": "c-1", "type": "SHIPPING"}]
    problems = refused(
        tenant,
        location(contacts=[{"contactId": "c-1", "type": "X"}, {"contactId": " ", "type": ""}]),
    )
    assert set(problems) == {"contacts[1].contactId", "contacts[1].type"}
    assert "contacts" in refused(tenant, location(contacts=[{"contactId": "c", "type": "t"}] * 51))


def test_nul_characters_are_refused_on_every_database(tenant: TenantHandle) -> None:
    problems = refused(tenant, location(name="Dock\u0000", suppliedId="a\u0000b"))
    assert set(problems) == {"name", "suppliedId"}
    nested = location(contacts=[{"contactId": "x\u0000", "type": "t"}])
    assert "contacts[0].contactId" in refused(tenant, nested)


def test_every_problem_is_reported_at_once(tenant: TenantHandle) -> None:
    problems = refused(
        tenant,
        location(
            name="",
            address={"addressLines": ["1 Main"], "city": "Austin", "state": "Nowhere"},
            openingHours=[hours(opens="xx")],
            geofence={"type": "TIME", "units": "MINUTES", "value": 0},
        ),
    )
    assert set(problems) == {
        "name",
        "address.state",
        "openingHours[0].opens",
        "geofence.value",
    }


def test_bad_bodies(tenant: TenantHandle) -> None:
    broken = tenant.http.post(PATH, content=b"{nope", headers={"content-type": "application/json"})
    assert broken.status_code == 400
    assert broken.json()["errorMessage"] == "The request body is not valid JSON"
    text = tenant.http.post(PATH, content=b"name=x", headers={"content-type": "text/plain"})
    assert text.status_code == 415
    assert tenant.http.post(PATH, json=[location()]).status_code == 400
    assert tenant.http.post(PATH, json=location(version=0)).status_code == 400
    # Nothing refused was stored.
    listed = tenant.http.get(PATH)
    assert isinstance(listed, httpx.Response) and listed.json()["totalItems"] == 0
