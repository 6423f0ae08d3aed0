"""Postal address validation over real HTTP, under both interface versions."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support import LiveService, TenantHandle, make_tenant

PATHS = ["/api/v3/address/validate", "/api/v4/address/validate"]


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def sqlite_tenant(sqlite_service: LiveService) -> Iterator[TenantHandle]:
    """A tenant on SQLite only: validation touches no database."""
    handle = make_tenant(sqlite_service)
    yield handle
    handle.http.close()


def sources(response: httpx.Response) -> set[str]:
    return {error["source"] for error in response.json()["errors"]}


@pytest.mark.parametrize(
    ("sent", "answer"),
    [
        (
            {
                "addressLines": [" 1600  Pennsylvania Ave NW ", ""],
                "city": "WASHINGTON",
                "state": "District of Columbia",
                "postalCode": "205000003",
            },
            {
                "addressLines": ["1600 Pennsylvania Ave NW"],
                "city": "Washington",
                "state": "DC",
                "postalCode": "20500-0003",
                "country": "US",
            },
        ),
        (
            {"city": "toronto", "state": "Ontario", "postalCode": "m5v3l9", "country": "Canada"},
            {
                "addressLines": [],
                "city": "Toronto",
                "state": "ON",
                "postalCode": "M5V 3L9",
                "country": "CA",
            },
        ),
        (
            {"city": "Guadalajara", "state": "Jalisco", "postalCode": "44100", "country": "MEX"},
            {
                "addressLines": [],
                "city": "Guadalajara",
                "state": "JAL",
                "postalCode": "44100",
                "country": "MX",
            },
        ),
        (
            {"addressLines": ["10 Downing St"], "postalCode": "sw1a2aa", "country": "GBR"},
            {"addressLines": ["10 Downing St"], "postalCode": "SW1A 2AA", "country": "GB"},
        ),
        (
            {"postalCode": "D-10115", "city": "Berlin", "country": "Germany"},
            {"addressLines": [], "city": "Berlin", "postalCode": "10115", "country": "DE"},
        ),
        (
            {"postalCode": "1011ab", "country": "nl"},
            {"addressLines": [], "postalCode": "1011 AB", "country": "NL"},
        ),
        (
            {"postalCode": "00950", "country": "Poland"},
            {"addressLines": [], "postalCode": "00-950", "country": "PL"},
        ),
        (
            {"postalCode": " 1425 ", "country": "AR"},
            {"addressLines": [], "postalCode": "1425", "country": "AR"},
        ),
        ({}, {"addressLines": [], "country": "US"}),
        ({"country": None}, {"addressLines": [], "country": "US"}),
    ],
)
def test_addresses_are_normalized(
    sqlite_tenant: TenantHandle, path: str, sent: dict[str, object], answer: dict[str, object]
) -> None:
    response = sqlite_tenant.http.post(path, json=sent)
    assert response.status_code == 200, response.text
    assert response.json() == answer


@pytest.mark.parametrize(
    ("sent", "source"),
    [
        ({"state": "XX"}, "state"),
        ({"state": "Bavaria", "country": "CA"}, "state"),
        ({"postalCode": "1234"}, "postalCode"),
        ({"postalCode": "123456"}, "postalCode"),
        ({"postalCode": "K1A 0B"}, "postalCode"),
        ({"postalCode": "K1A0B1", "country": "CA", "state": "BC"}, "postalCode"),
        ({"state": "NY", "postalCode": "90210"}, "postalCode"),
        ({"postalCode": "1234", "country": "DE"}, "postalCode"),
        ({"country": "Atlantis"}, "country"),
        ({"country": "QQ"}, "country"),
        ({"addressLines": ["1", "2", "3", "4"]}, "addressLines"),
        ({"addressLines": "1 Main St"}, "addressLines"),
        ({"addressLines": ["1 Main St", None]}, "addressLines[1]"),
        ({"zip": "12345"}, "zip"),
        ({"city": 5}, "city"),
    ],
)
def test_impossible_addresses_name_the_field(
    tenant: TenantHandle, sent: dict[str, object], source: str
) -> None:
    for path in PATHS:
        response = tenant.http.post(path, json=sent)
        assert response.status_code == 400, response.text
        body = response.json()
        assert body["httpStatusCode"] == 400 and body["supportReferenceId"]
        assert source in sources(response)


def test_every_problem_is_listed_at_once(tenant: TenantHandle, path: str) -> None:
    response = tenant.http.post(
        path, json={"addressLines": ["a", "b", "c", "d"], "state": "Nowhere", "postalCode": "x"}
    )
    assert response.status_code == 400
    assert sources(response) == {"addressLines", "state", "postalCode"}
    assert "(and 2 more)" in response.json()["errorMessage"]


def test_needs_credentials_and_json(service: LiveService, tenant: TenantHandle, path: str) -> None:
    assert httpx.post(f"{service.url}{path}", json={}).status_code == 401
    text = tenant.http.post(path, content=b"city=x", headers={"content-type": "text/plain"})
    assert text.status_code == 415
    broken = tenant.http.post(path, content=b"{nope", headers={"content-type": "application/json"})
    assert broken.status_code == 400
