"""Yard site management (an extension) over real HTTP: add, list, remove, and the refusals."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support import TenantHandle

SITES = "/services/appointments/v1/sites"
SLOTS = "/services/appointments/v1/slots"


def site_body(code: str = "den-1", **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": code,
        "name": "Denver Cross-Dock",
        "timeZone": "America/Denver",
        "dockDoorCount": 2,
        "slotMinutes": 30,
        "openingHours": [{"days": ["MON", "TUE", "WED", "THU", "FRI"], "opens": "07:00",
                          "closes": "09:00"}],
    }  # fmt: skip
    body.update(changes)
    return body


def refused(tenant: TenantHandle, body: dict[str, Any], status: int = 400) -> list[str]:
    response = tenant.http.post(SITES, json=body)
    assert response.status_code == status, response.text
    error = response.json()
    assert error["httpStatusCode"] == status
    assert error["errorMessage"]
    return [detail.get("source") for detail in error["errors"]]


def test_add_list_query_and_remove(tenant: TenantHandle) -> None:
    assert tenant.http.get(SITES).json() == {"sites": []}
    added = tenant.http.post(SITES, json=site_body())
    assert added.status_code == 201, added.text
    site = added.json()
    assert site["code"] == "DEN-1"  # kept upper case, as the slot query looks it up
    assert site["dockDoors"] == ["D01", "D02"]
    assert site["timeZone"] == "America/Denver" and site["slotMinutes"] == 30
    listed = tenant.http.get(SITES).json()["sites"]
    assert [s["code"] for s in listed] == ["DEN-1"]
    assert listed[0]["openingHours"][0] == {
        "days": ["MON", "TUE", "WED", "THU", "FRI"],
        "opens": "07:00",
        "closes": "09:00",
    }

    # The new site answers the interface's slot query: four half-hour slots on a weekday.
    day = datetime.now(UTC).date() + timedelta(days=8)
    while day.weekday() != 2:
        day += timedelta(days=1)
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    slots = tenant.http.post(
        SLOTS,
        json={
            "appointmentWindow": {
                "start_date_time": start.isoformat(),
                "end_date_time": (start + timedelta(days=1)).isoformat(),
            },
            "identifiers": {"shipmentReference": "SHP-1", "siteCode": "den-1"},
        },
    )
    assert slots.status_code == 200, slots.text
    times = [s["startDateTime"][11:16] for s in slots.json()["results"]]
    assert times == ["07:00", "07:30", "08:00", "08:30"]

    removed = tenant.http.delete(f"{SITES}/den-1")
    assert removed.status_code == 204, removed.text
    assert tenant.http.get(SITES).json() == {"sites": []}
    again = tenant.http.delete(f"{SITES}/DEN-1")
    assert again.status_code == 404
    assert again.json()["errors"][0]["source"] == "siteCode"


def test_a_duplicate_code_conflicts(tenant: TenantHandle) -> None:
    assert tenant.http.post(SITES, json=site_body("ATL")).status_code == 201
    assert refused(tenant, site_body("atl", name="Other"), 409) == ["code"]
    assert len(tenant.http.get(SITES).json()["sites"]) == 1


def test_sites_are_the_tenants_own(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    assert tenant.http.post(SITES, json=site_body("MINE")).status_code == 201
    assert other.http.get(SITES).json() == {"sites": []}
    assert other.http.delete(f"{SITES}/MINE").status_code == 404
    # The same code is free for another tenant.
    assert other.http.post(SITES, json=site_body("MINE")).status_code == 201
    assert [s["code"] for s in tenant.http.get(SITES).json()["sites"]] == ["MINE"]


def test_bad_input_names_its_field(tenant: TenantHandle) -> None:
    assert refused(tenant, site_body("has space")) == ["code"]
    assert refused(tenant, site_body(name="  ")) == ["name"]
    assert refused(tenant, site_body(timeZone="Mars/Olympus")) == ["timeZone"]
    assert refused(tenant, site_body(timeZone="America")) == ["timeZone"]  # was a 500
    assert refused(tenant, site_body(dockDoorCount=0)) == ["dockDoorCount"]
    assert refused(tenant, site_body(dockDoorCount="3")) == ["dockDoorCount"]
    assert refused(tenant, site_body(slotMinutes=1)) == ["slotMinutes"]
    assert refused(tenant, site_body(openingHours=[])) == ["openingHours"]
    late = [{"days": ["MON"], "opens": "25:00", "closes": "26:00"}]
    assert set(refused(tenant, site_body(openingHours=late))) == {
        "openingHours[0].opens",
        "openingHours[0].closes",
    }
    backwards = [{"days": ["MON"], "opens": "10:00", "closes": "08:00"}]
    assert refused(tenant, site_body(openingHours=backwards)) == ["openingHours[0]"]
    short = [{"days": ["MON"], "opens": "08:00", "closes": "08:20"}]
    assert refused(tenant, site_body(openingHours=short)) == ["openingHours"]
    assert refused(tenant, site_body(color="red")) == ["color"]
    assert tenant.http.get(SITES).json() == {"sites": []}


def test_sites_need_credentials(tenant: TenantHandle) -> None:
    import httpx

    with httpx.Client(base_url=tenant.service.url) as anonymous:
        assert anonymous.get(SITES).status_code == 401
        assert anonymous.post(SITES, json=site_body()).status_code == 401
        assert anonymous.delete(f"{SITES}/X").status_code == 401
