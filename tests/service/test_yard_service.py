"""The yard form rules the app checks before sending (the models' own), keyed by the paths the
service names, and the opening hours' typed form read and written back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from freightdesk.models.yard import OpeningHours, opening_hours_text, parse_opening_hours
from freightdesk.service.yard import (
    SITE_CODE,
    WINDOW,
    SiteInput,
    SlotSearchInput,
    check_search,
    check_site,
)

START = datetime(2030, 3, 4, 8, tzinfo=UTC)


def test_opening_hours_round_trip() -> None:
    text = "MON-FRI 06:00-22:00; SAT,SUN 07:00-15:00; WED 22:00-24:00"
    rules = [OpeningHours.model_validate(r) for r in parse_opening_hours(text)]
    assert rules[0].days == ["MON", "TUE", "WED", "THU", "FRI"]
    assert opening_hours_text(rules) == text
    assert opening_hours_text(
        [OpeningHours(days=["MON", "TUE"], opens="08:00", closes="09:00")]
    ) == ("MON,TUE 08:00-09:00")


@pytest.mark.parametrize(
    "text",
    [
        "Mon\u2013Fri 08:00\u201317:00\nSat 09:00\u201312:00",  # as the sites' list shows it
        "MON-FRI 08:00-17:00; SAT 09:00-12:00",
        "mon \u2014 fri  08:00 \u2014 17:00;Sat 09:00 - 12:00",
        "Mon\u2013Fri\t08:00\u221217:00 ; sat 09:00\u201312:00",
        "Mon, Tue, Wed\u2013Fri 08:00\u201317:00\nSat 09:00\u201312:00",
    ],
)
def test_opening_hours_as_shown_with_any_dash(text: str) -> None:
    assert parse_opening_hours(text) == [
        {"days": ["MON", "TUE", "WED", "THU", "FRI"], "opens": "08:00", "closes": "17:00"},
        {"days": ["SAT"], "opens": "09:00", "closes": "12:00"},
    ]
    site, problems = check_site(SiteInput("DEN-XD", "Denver", "America/Denver", 4, 60, text))
    assert problems == {} and site is not None


@pytest.mark.parametrize(
    "text", ["", "Monday 8-5", "MON 08:00", "FRI-MONDAY 08:00-09:00", "Mon\u2013 08:00-09:00"]
)
def test_opening_hours_not_understood(text: str) -> None:
    with pytest.raises(ValueError):
        parse_opening_hours(text)


def test_search_problems_by_field() -> None:
    query, problems = check_search(SlotSearchInput("", " ", 0, START, START))
    assert query is None
    assert set(problems) == {SITE_CODE, WINDOW}
    # No shipment named: a query for the site's availability alone.
    query, problems = check_search(
        SlotSearchInput("dock-1", " ", 0, START, START + timedelta(hours=4))
    )
    assert problems == {} and query is not None
    assert query.identifiers.shipment_reference is None
    assert "shipmentReference" not in query.wire()["identifiers"]
    too_long = START + timedelta(days=15)
    _query, problems = check_search(SlotSearchInput("dock-1", "SHP-1", 0, START, too_long))
    assert problems == {WINDOW: "The window may span at most 14 days"}
    query, problems = check_search(
        SlotSearchInput("dock-1", "SHP-1", 2, START, START + timedelta(hours=4))
    )
    assert problems == {} and query is not None
    assert query.identifiers.stop_sequence_number == 2
    assert query.wire()["identifiers"]["stopSequenceNumber"] == 2


def test_site_problems_by_field() -> None:
    site, problems = check_site(SiteInput("a b", "", "Mars/Olympus", 0, 60, "MON 10:00-09:00"))
    assert site is None
    assert set(problems) == {"code", "name", "timeZone", "dockDoorCount", "openingHours[0]"}
    _site, problems = check_site(SiteInput(" ", "", "", 2, 60, "MON 08:00-09:00"))
    assert problems == {
        "code": "Enter a code for the site, e.g. DEN-XD",
        "name": "Enter the site's name",
        "timeZone": "Enter the site's time zone, e.g. America/Denver",
    }
    site, problems = check_site(SiteInput("ok", "Dock", "UTC", 2, 90, "MON 08:00-09:00"))
    assert problems == {"openingHours": "08:00-09:00 is shorter than one slot (90 minutes)"}
    site, problems = check_site(
        SiteInput("den-xd", "Denver", "America/Denver", 2, 30, "SAT 08:00-12:00")
    )
    assert problems == {} and site is not None and site.code == "DEN-XD"
