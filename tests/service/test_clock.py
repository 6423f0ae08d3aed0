"""The one clock (service/clock.py): a time at a place reads in the place's zone with its
abbreviation, a time without a place in the user's zone (local or UTC) and labelled, far
times show their year, exports ISO 8601 with the offset."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from freightdesk.service.clock import (
    UserZone,
    day_text,
    iso_time,
    offset_span,
    offset_time,
    place_time,
    set_user_zone,
    user_time,
    user_zone_name,
)
from tests.support import machine_zone

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
WINTER = datetime(2026, 3, 4, 20, 5, 7, tzinfo=UTC)  # 14:05 in Chicago (CST)
SUMMER = datetime(2026, 7, 4, 19, 5, tzinfo=UTC)  # 14:05 in Chicago (CDT)


def test_a_time_at_a_place_reads_in_the_place_with_its_abbreviation() -> None:
    assert place_time(WINTER, "America/Chicago", now=NOW) == "Mar 4 14:05 CST"
    assert place_time(SUMMER, "America/Chicago", now=NOW) == "Jul 4 14:05 CDT"
    assert place_time(WINTER, "Europe/Berlin", now=NOW) == "Mar 4 21:05 CET"
    assert place_time(WINTER, "Asia/Kolkata", now=NOW) == "Mar 5 01:35 UTC+05:30"  # not IST
    # A zone without letters is named by its offset, never "-03" alone.
    assert place_time(WINTER, "America/Sao_Paulo", now=NOW) == "Mar 4 17:05 UTC-03"
    assert place_time(WINTER, "Asia/Kathmandu", now=NOW) == "Mar 5 01:50 UTC+05:45"


def test_a_zone_reads_by_its_letters_only_where_they_mean_its_offset_to_a_dispatcher() -> None:
    """Shanghai's `CST` (China Standard Time) read as US Central: a sailing from Shanghai
    said `Nov 30 19:00 CST`, 14 hours off for a dispatcher in Chicago. Letters are shown where
    the app's users (North America, Europe) read them as this offset; elsewhere the offset."""
    sailing = datetime(2026, 11, 30, 11, 0, tzinfo=UTC)
    near = datetime(2026, 11, 20, tzinfo=UTC)
    assert place_time(sailing, "Asia/Shanghai", now=near) == "Nov 30 19:00 UTC+08"
    assert offset_time(sailing, "Asia/Shanghai", now=near) == "Nov 30 19:00 UTC+08"
    assert place_time(sailing, "America/Chicago", now=near) == "Nov 30 05:00 CST"
    assert place_time(sailing, "America/Havana", now=near) == "Nov 30 06:00 UTC-05"  # Cuba's CST
    assert place_time(sailing, "Asia/Manila", now=near) == "Nov 30 19:00 UTC+08"  # not Pacific
    assert place_time(sailing, "Europe/Amsterdam", now=near) == "Nov 30 12:00 CET"  # Rotterdam
    assert place_time(sailing, "Europe/London", now=near) == "Nov 30 11:00 GMT"
    assert place_time(SUMMER, "Europe/London", now=NOW) == "Jul 4 20:05 BST"
    assert place_time(sailing, "America/Halifax", now=near) == "Nov 30 07:00 AST"
    assert place_time(sailing, "America/St_Johns", now=near) == "Nov 30 07:30 NST"
    # IST is India's, Ireland's and Israel's: each reads by its offset.
    assert place_time(sailing, "Asia/Kolkata", now=near) == "Nov 30 16:30 UTC+05:30"
    assert place_time(SUMMER, "Europe/Dublin", now=NOW) == "Jul 4 20:05 UTC+01"
    assert place_time(sailing, "Europe/Dublin", now=near) == "Nov 30 11:00 GMT"
    assert place_time(SUMMER, "Asia/Jerusalem", now=NOW) == "Jul 4 22:05 UTC+03"
    # Letters these users do not read as one offset: the offset.
    assert place_time(sailing, "Asia/Tokyo", now=near) == "Nov 30 20:00 UTC+09"
    assert place_time(sailing, "Australia/Adelaide", now=near) == "Nov 30 21:30 UTC+10:30"
    # A slot in Shanghai names the zone once, by its offset.
    slot = sailing.astimezone(timezone(timedelta(hours=8)))
    assert (
        offset_span(slot, slot + timedelta(hours=1), "Asia/Shanghai", now=near)
        == "Nov 30 19:00-20:00 UTC+08"
    )


def test_the_users_own_zone_is_named_by_the_same_rule() -> None:
    """A computer set to Shanghai's time labels a time without a place `UTC+08`, not `CST`."""
    with machine_zone("Asia/Shanghai"):
        assert user_time(WINTER, now=NOW) == "Mar 5 04:05 UTC+08"
        assert user_zone_name(WINTER) == "UTC+08"
        set_user_zone(UserZone.UTC)
        assert user_time(WINTER, now=NOW) == "Mar 4 20:05 UTC"


def test_the_users_choice_does_not_move_a_time_at_a_place(chicago_machine: None) -> None:
    set_user_zone(UserZone.UTC)
    assert place_time(WINTER, "Europe/Berlin", now=NOW) == "Mar 4 21:05 CET"


def test_a_time_without_a_place_reads_in_the_users_zone_labelled(chicago_machine: None) -> None:
    assert user_time(WINTER, now=NOW) == "Mar 4 14:05 CST"
    assert user_zone_name(WINTER) == "CST"
    set_user_zone(UserZone.UTC)
    assert user_time(WINTER, now=NOW) == "Mar 4 20:05 UTC"
    assert user_time(WINTER, seconds=True, now=NOW) == "Mar 4 20:05:07 UTC"
    assert user_zone_name(WINTER) == "UTC"


def test_an_unknown_or_missing_zone_reads_as_a_time_without_a_place(
    chicago_machine: None,
) -> None:
    set_user_zone(UserZone.UTC)
    assert place_time(WINTER, None, now=NOW) == "Mar 4 20:05 UTC"
    assert place_time(WINTER, "Mars/Olympus_Mons", now=NOW) == "Mar 4 20:05 UTC"
    # A folder of the tz database, not a zone (a remote service's answer): was IsADirectoryError.
    assert place_time(WINTER, "America/Indiana", now=NOW) == "Mar 4 20:05 UTC"
    assert place_time(None, "America/Chicago") == ""
    assert user_time(None) == ""


def test_a_time_without_an_offset_is_the_services_utc(chicago_machine: None) -> None:
    assert user_time(datetime(2026, 3, 4, 20, 5), now=NOW) == "Mar 4 14:05 CST"
    assert iso_time(datetime(2026, 3, 4, 20, 5)) == "2026-03-04T20:05:00+00:00"


@pytest.mark.parametrize(
    ("shift", "shown"),
    [
        (timedelta(days=-180), "Mar 4 20:05 UTC"),
        (timedelta(days=180), "Mar 4 20:05 UTC"),
        (timedelta(days=-190), "Mar 4 2026 20:05 UTC"),
        (timedelta(days=400), "Mar 4 2026 20:05 UTC"),
    ],
)
def test_a_time_far_from_now_shows_its_year(shift: timedelta, shown: str) -> None:
    set_user_zone(UserZone.UTC)
    assert user_time(WINTER, now=WINTER + shift) == shown


def test_exports_write_iso_8601_with_the_offset() -> None:
    chicago = timezone(timedelta(hours=-6))
    assert iso_time(WINTER.astimezone(chicago)) == "2026-03-04T14:05:07-06:00"
    assert iso_time(WINTER) == "2026-03-04T20:05:07+00:00"
    assert datetime.fromisoformat(iso_time(WINTER)) == WINTER


def test_a_time_answered_with_its_places_offset_reads_in_the_places_zone() -> None:
    """A port call or a dock slot comes with its place's offset; where the app knows the
    place's zone it reads as every time at a place does, the zone named as the Shipments
    pane names it (it read `UTC+01`, `UTC-06` beside the list's `CET`, `CST`)."""
    rotterdam = WINTER.astimezone(timezone(timedelta(hours=1)))
    chicago = WINTER.astimezone(timezone(timedelta(hours=-6)))
    assert offset_time(rotterdam, "Europe/Amsterdam", now=NOW) == "Mar 4 21:05 CET"
    assert offset_time(chicago, "America/Chicago", now=NOW) == "Mar 4 14:05 CST"
    summer = SUMMER.astimezone(timezone(timedelta(hours=-5)))
    assert offset_time(summer, "America/Chicago", now=NOW) == "Jul 4 14:05 CDT"
    # A zone without a common abbreviation reads as the clock names it, by its offset.
    santos = WINTER.astimezone(timezone(timedelta(hours=-3)))
    assert offset_time(santos, "America/Sao_Paulo", now=NOW) == "Mar 4 17:05 UTC-03"


def test_a_time_known_only_by_its_offset_reads_in_it() -> None:
    """A place whose zone the app does not know (a port it has no row for): the offset the
    service gave, named by it; never the user's zone, which is not the place's."""
    shanghai = WINTER.astimezone(timezone(timedelta(hours=8)))
    adelaide = WINTER.astimezone(timezone(timedelta(hours=10, minutes=30)))
    assert offset_time(shanghai, None, now=NOW) == "Mar 5 04:05 UTC+08"
    assert offset_time(adelaide, "Mars/Olympus_Mons", now=NOW) == "Mar 5 06:35 UTC+10:30"
    assert offset_time(WINTER, None, now=NOW) == "Mar 4 20:05 UTC"
    assert offset_time(None, "America/Chicago") == ""


def test_a_span_at_a_place_names_its_day_and_zone_once() -> None:
    chicago = timezone(timedelta(hours=-6))
    start = datetime(2026, 3, 4, 9, 0, tzinfo=chicago)
    hour = start + timedelta(hours=1)
    assert offset_span(start, hour, "America/Chicago", now=NOW) == "Mar 4 09:00-10:00 CST"
    assert offset_span(start, hour, None, now=NOW) == "Mar 4 09:00-10:00 UTC-06"
    late = datetime(2026, 3, 4, 23, 0, tzinfo=chicago)
    assert (
        offset_span(late, late + timedelta(hours=2), "America/Chicago", now=NOW)
        == "Mar 4 23:00 CST to Mar 5 01:00 CST"
    )
    toronto = datetime(2026, 12, 1, 7, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert (
        offset_span(toronto, toronto + timedelta(hours=1), "America/Toronto", weekday=True,
                    now=datetime(2026, 11, 30, tzinfo=UTC))
        == "Tue Dec 1 07:00-08:00 EST"
    )  # fmt: skip


def test_a_day_reads_as_a_times_day() -> None:
    today = NOW.date()
    assert day_text(date(2026, 12, 1), today=date(2026, 11, 30)) == "Dec 1"
    assert day_text(WINTER.date(), today=today) == "Mar 4"
    assert day_text(date(2027, 3, 4), today=today) == "Mar 4 2027"  # over half a year away
    assert day_text(None) == ""
    # A row of days (the yard's timeline) leads with the day of the week.
    assert day_text(date(2026, 12, 1), today=date(2026, 11, 30), weekday=True) == "Tue Dec 1"
    assert day_text(date(2027, 3, 4), today=today, weekday=True) == "Thu Mar 4 2027"
