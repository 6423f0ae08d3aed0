"""Yard appointment slots over real HTTP: opening hours, bookings, the window rules."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from freightdesk.server.db import transaction
from freightdesk.server.domain import yard
from freightdesk.server.tables.tenancy import Tenant
from tests.support import TenantHandle

PATH = "/services/appointments/v1/slots"
CHICAGO = ZoneInfo("America/Chicago")


def tenant_id(tenant: TenantHandle) -> int:
    with tenant.service.context.sessions() as session:
        found = session.scalar(select(Tenant.id).where(Tenant.name == tenant.name))
    assert found is not None
    return found


def next_monday(hour: int, *, weeks: int = 2) -> datetime:
    """The Monday `weeks` Mondays ahead (the first is one to seven days away), at `hour` in
    Chicago, so that no slot has started."""
    today = datetime.now(CHICAGO).date()
    monday = today + timedelta(days=7 - today.weekday() + 7 * (weeks - 1))
    return datetime(monday.year, monday.month, monday.day, hour, tzinfo=CHICAGO)


@pytest.fixture
def site(tenant: TenantHandle) -> dict[str, Any]:
    """A three-door site open 08:00 to 12:00 on weekdays, with bookings on Monday."""
    monday = next_monday(8)
    with transaction(tenant.service.context.sessions) as session:
        row = yard.add_site(
            session,
            tenant_id(tenant),
            "dock-1",
            "Test Dock",
            "America/Chicago",
            3,
            [{"days": yard.WEEKDAYS, "opens": "08:00", "closes": "12:00"}],
        )
        # 08:00 fully booked; 09:00 two doors; 10:30-11:30 spans two slots on one door.
        for door in ("D01", "D02", "D03"):
            yard.book(session, row, door, monday, 60, f"FULL-{door}")
        yard.book(session, row, "D01", monday + timedelta(hours=1), 60, "SHP-1", 1)
        yard.book(session, row, "D02", monday + timedelta(hours=1), 60, "SHP-2", 2)
        yard.book(session, row, "D03", monday + timedelta(hours=2, minutes=30), 60, "SHP-3")
    return {"code": "DOCK-1", "monday": monday}


def ask(start: datetime, end: datetime, code: str = "DOCK-1", **ids: Any) -> dict[str, Any]:
    identifiers = {"shipmentReference": "SHP-1", "siteCode": code, "stopSequenceNumber": 1}
    identifiers.update(ids)
    return {
        "appointmentWindow": {
            "start_date_time": start.isoformat(),
            "end_date_time": end.isoformat(),
        },
        "identifiers": {k: v for k, v in identifiers.items() if v is not None},
    }


def post(tenant: TenantHandle, body: dict[str, Any]) -> dict[str, Any]:
    response = tenant.http.post(PATH, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_slots_of_a_morning(tenant: TenantHandle, site: dict[str, Any]) -> None:
    monday = site["monday"]
    answer = post(tenant, ask(monday, monday + timedelta(hours=4)))
    assert answer["status"] == "AVAILABLE"
    slots = answer["results"]
    assert [s["startDateTime"][11:16] for s in slots] == ["08:00", "09:00", "10:00", "11:00"]
    assert slots[0]["startDateTime"][-6:] in ("-05:00", "-06:00")  # Chicago local time
    assert [s["remainingCapacity"] for s in slots] == [0, 1, 2, 2]
    assert [s["bookedCount"] for s in slots] == [3, 2, 1, 1]
    assert [s["available"] for s in slots] == [False, True, True, True]
    assert slots[1]["dockDoors"] == ["D03"]
    assert slots[2]["dockDoors"] == ["D01", "D02"]
    assert all(s["capacity"] == 3 and s["siteCode"] == "DOCK-1" for s in slots)
    assert all(s["siteName"] == "Test Dock" for s in slots)
    assert [s["alreadyBooked"] for s in slots] == [False, True, False, False]
    assert len({s["slotId"] for s in slots}) == 4


def test_only_slots_inside_the_window(tenant: TenantHandle, site: dict[str, Any]) -> None:
    monday = site["monday"]
    inner = post(tenant, ask(monday + timedelta(minutes=30), monday + timedelta(hours=3)))
    assert [s["startDateTime"][11:16] for s in inner["results"]] == ["09:00", "10:00"]
    closed = post(tenant, ask(monday - timedelta(hours=8), monday))
    assert closed == {"status": "CLOSED", "results": []}
    full = post(tenant, ask(monday, monday + timedelta(hours=1)))
    assert full["status"] == "FULLY_BOOKED"
    week = post(tenant, ask(monday, monday + timedelta(days=7)))
    assert len(week["results"]) == 5 * 4  # weekdays only


def test_shipment_and_stop_match(tenant: TenantHandle, site: dict[str, Any]) -> None:
    monday = site["monday"]
    window = (monday, monday + timedelta(hours=4))
    other_stop = post(tenant, ask(*window, stopSequenceNumber=2))
    assert not any(s["alreadyBooked"] for s in other_stop["results"])
    any_stop = post(tenant, ask(*window, stopSequenceNumber=None))
    assert [s["alreadyBooked"] for s in any_stop["results"]] == [False, True, False, False]


def test_availability_without_a_shipment(tenant: TenantHandle, site: dict[str, Any]) -> None:
    """No shipment named: the same slots and free doors, none marked as the shipment's own
    (a yard's availability shown before a dispatcher has a shipment in mind)."""
    monday = site["monday"]
    window = (monday, monday + timedelta(hours=4))
    answer = post(tenant, ask(*window, shipmentReference=None, stopSequenceNumber=None))
    slots = answer["results"]
    assert [s["remainingCapacity"] for s in slots] == [0, 1, 2, 2]
    assert not any(s["alreadyBooked"] for s in slots)
    blank = tenant.http.post(PATH, json=ask(*window, shipmentReference=""))
    assert blank.status_code == 400, blank.text
    assert blank.json()["errors"][0]["source"] == "identifiers.shipmentReference"


def test_past_slots_are_not_available(tenant: TenantHandle) -> None:
    with transaction(tenant.service.context.sessions) as session:
        yard.add_site(
            session,
            tenant_id(tenant),
            "ALLDAY",
            "Round the clock",
            "UTC",
            2,
            [{"days": list(yard.DAYS), "opens": "00:00", "closes": "24:00"}],
        )
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    answer = post(tenant, ask(now - timedelta(hours=3), now + timedelta(hours=3), code="allday"))
    # The slot of the current hour has started: only the two after it can still be booked.
    availability = [s["available"] for s in answer["results"]]
    assert availability == [False, False, False, False, True, True]
    assert answer["results"][-1]["endDateTime"].endswith(("Z", "+00:00"))


@pytest.mark.parametrize(
    ("change", "source"),
    [
        ({"appointmentWindow": None}, "appointmentWindow"),
        ({"identifiers": None}, "identifiers"),
        ({"appointmentWindow": {"end_date_time": "2030-01-01T10:00:00Z"}},
         "appointmentWindow.start_date_time"),
        ({"appointmentWindow": {"startDateTime": "2030-01-01T08:00:00Z",
                                "endDateTime": "2030-01-01T10:00:00Z"}},
         "appointmentWindow.start_date_time"),
        ({"appointmentWindow": {"start_date_time": "2030-01-01T10:00:00Z",
                                "end_date_time": "2030-01-01T08:00:00Z"}}, "appointmentWindow"),
        ({"appointmentWindow": {"start_date_time": "2030-01-01T08:00:00Z",
                                "end_date_time": "2030-01-16T08:00:00Z"}}, "appointmentWindow"),
        ({"appointmentWindow": {"start_date_time": "2030-01-01T08:00:00",
                                "end_date_time": "2030-01-01T10:00:00Z"}},
         "appointmentWindow.start_date_time"),
        ({"appointmentWindow": {"start_date_time": "9999-12-31T20:00:00Z",
                                "end_date_time": "9999-12-31T22:00:00Z"}},
         "appointmentWindow.start_date_time"),
        ({"identifiers": {"shipmentReference": "S"}}, "identifiers.siteCode"),
        ({"identifiers": {"shipmentReference": "S", "siteCode": "DOCK-1",
                          "stopSequenceNumber": 0}}, "identifiers.stopSequenceNumber"),
        ({"dockDoor": "D01"}, "dockDoor"),
    ],
)  # fmt: skip
def test_bad_bodies_name_the_field(
    tenant: TenantHandle, change: dict[str, Any], source: str
) -> None:
    monday = next_monday(8)
    body = ask(monday, monday + timedelta(hours=4))
    body.update(change)
    body = {k: v for k, v in body.items() if v is not None}
    response = tenant.http.post(PATH, json=body)
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["source"] == source


def test_unknown_site_and_tenant_isolation(
    tenant: TenantHandle, site: dict[str, Any], tenant_factory: Callable[[], TenantHandle]
) -> None:
    monday = site["monday"]
    missing = tenant.http.post(PATH, json=ask(monday, monday + timedelta(hours=4), code="NOPE"))
    assert missing.status_code == 404
    assert missing.json()["errors"][0]["source"] == "identifiers.siteCode"
    other = tenant_factory()
    foreign = other.http.post(PATH, json=ask(monday, monday + timedelta(hours=4)))
    assert foreign.status_code == 404


def test_demo_sites(tenant: TenantHandle) -> None:
    with transaction(tenant.service.context.sessions) as session:
        added = yard.seed_yard(session, tenant_id(tenant))
        again = yard.seed_yard(session, tenant_id(tenant))
    assert added == ["CHI-DC1", "DAL-XD", "ONT-WH", "BRA-DC"] and again == []
    # The demo books the next 14 days only: two Mondays ahead is past them when today is Monday
    monday = next_monday(6, weeks=1)
    answer = post(tenant, ask(monday, monday + timedelta(days=1), code="DAL-XD"))
    assert answer["status"] in ("AVAILABLE", "FULLY_BOOKED")
    assert len(answer["results"]) == 32  # 05:00 to 21:00 in half hours
    assert any(s["bookedCount"] for s in answer["results"])
