"""One clock: how every time in the app reads, on screen and in exports.

The rule, in one place (docs/developing.md, "Times"):
- A time at a place (an event, a stop's appointment, an ETA at a stop) reads in the stop's
  own zone with that zone's abbreviation: `Mar 4 14:05 CST`.
- A zone is named by its letters only where they mean its offset to the app's users (North
  American and European zones: `CST` in Chicago, `CET` in Rotterdam); elsewhere, and where
  the letters are shared (Shanghai's `CST`, India's, Ireland's and Israel's `IST`), by its
  offset: `Mar 4 22:05 UTC+08`.
- A time without a place (created, changed, sent, a vehicle's ready time) reads in the
  user's zone, which the user picks (View > Times without a place: Local or UTC), and is
  always labelled: `Mar 4 20:05 UTC`, `Mar 4 14:05 CST`.
- A time more than half a year from now also shows its year (`Mar 4 2025 14:05 CST`), so
  a column of times reads alike and a day is never guessed.
- A day without a time (a pickup date) reads as a time's day does: `Mar 4`, its year too
  when more than half a year from today.
- A time the service answers with its place's offset (a port call, a dock slot) reads in the
  place's zone where the app knows it, as any time at a place (`Mar 4 22:05 CST`); only a
  place whose zone is not known reads in the offset, named by it (`Mar 4 22:05 UTC+08`).
- Exports write ISO 8601 with the offset (`2026-03-04T14:05:00-06:00`).

Plain Python (no Qt) so that the export writer uses it as the panes do; it lives in the
service layer, not in `models/`, because the server never shows a time to a person (it
sends ISO 8601, which Pydantic writes). A time without an offset is the service's UTC.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo
from enum import StrEnum
from functools import lru_cache

from freightdesk.models.weekdays import DAY_NAMES

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# Further than this from now, a time shows its year too.
_NEAR = timedelta(days=183)

# The abbreviations the app's users (North American and European dispatchers) read as one
# offset, with that offset. A zone's letters are shown only where they are one of these at
# their offset: Shanghai's and Havana's CST (+08, -05) are not Chicago's, Manila's PST not
# Vancouver's; IST (India, Ireland, Israel) is in no one's list, so Kolkata and Dublin in
# summer read by their offset, as does every zone whose letters these users do not read
# (JST, AEST, SAST).
_KNOWN: dict[str, timedelta] = {
    name: timedelta(minutes=minutes)
    for name, minutes in (
        ("UTC", 0), ("GMT", 0), ("WET", 0), ("WEST", 60), ("BST", 60),
        ("CET", 60), ("CEST", 120), ("EET", 120), ("EEST", 180), ("MSK", 180),
        ("NST", -210), ("NDT", -150), ("AST", -240), ("ADT", -180),
        ("EST", -300), ("EDT", -240), ("CST", -360), ("CDT", -300),
        ("MST", -420), ("MDT", -360), ("PST", -480), ("PDT", -420),
        ("AKST", -540), ("AKDT", -480), ("HST", -600), ("HDT", -540),
    )
}  # fmt: skip


class UserZone(StrEnum):
    """Where times without a place are shown: the computer's zone, or UTC."""

    LOCAL = "local"
    UTC = "utc"


_user_zone = UserZone.LOCAL


def user_zone() -> UserZone:
    return _user_zone


def set_user_zone(choice: UserZone) -> None:
    """Set by the window from the user's setting; every text made after this follows it."""
    global _user_zone
    _user_zone = choice


@lru_cache(maxsize=256)
def zone_named(name: str) -> tzinfo | None:
    """The IANA zone `name`, or None for a name the tz database does not hold as a zone."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # only times at a place need it

    try:
        return ZoneInfo(name)
    # OSError: a folder of the tz database ("America/Indiana"), as models/base._iana_zone.
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.utcoffset() is None else value


def _abbreviation(moment: datetime) -> str:
    """The zone's name as the app's users read it: its letters where they mean this offset
    to them (`CST` in Chicago, `CET` in Rotterdam), else the offset (`UTC+08` in Shanghai,
    whose `CST` a dispatcher reads as Chicago's; `UTC-03` for a zone with no letters)."""
    name = moment.tzname() or ""
    offset = moment.utcoffset() or timedelta(0)
    if _KNOWN.get(name) == offset:
        return name
    if not offset:
        return "UTC"  # Casablanca's `+00` in Ramadan: the offset, not `UTC+00`
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    hours, rest = divmod(minutes, 60)
    return f"UTC{sign}{hours:02d}" + (f":{rest:02d}" if rest else "")


def _month_day(day: date) -> str:
    return f"{_MONTHS[day.month - 1]} {day.day}"


def _text(moment: datetime, now: datetime | None, seconds: bool) -> str:
    day = _month_day(moment)
    if abs(moment - (now or datetime.now(UTC))) > _NEAR:
        day += f" {moment.year}"
    clock = f"{moment.hour:02d}:{moment.minute:02d}"
    if seconds:
        clock += f":{moment.second:02d}"
    return f"{day} {clock} {_abbreviation(moment)}"


def day_text(day: date | None, *, today: date | None = None, weekday: bool = False) -> str:
    """A day without a time (a pickup date, a delivery-by date): `Dec 1`, `Dec 1 2027` when
    more than half a year from today; `weekday` leads with the day of the week (`Tue Dec 1`,
    a row of days); "" for no day."""
    if day is None:
        return ""
    text = _month_day(day)
    if weekday:
        text = f"{DAY_NAMES[day.weekday()]} {text}"
    if abs(day - (today or date.today())) > _NEAR:
        text += f" {day.year}"
    return text


def user_time(value: datetime | None, *, seconds: bool = False, now: datetime | None = None) -> str:
    """A time without a place, in the user's zone, labelled; "" for no time."""
    if value is None:
        return ""
    value = _aware(value)
    moment = value.astimezone(UTC) if _user_zone is UserZone.UTC else value.astimezone()
    return _text(moment, now, seconds)


def place_time(
    value: datetime | None,
    zone: str | None,
    *,
    seconds: bool = False,
    now: datetime | None = None,
) -> str:
    """A time at a place, in the place's zone (an IANA name) with its abbreviation; a place
    whose zone is not known reads as a time without a place."""
    if value is None:
        return ""
    target = zone_named(zone) if zone else None
    if target is None:
        return user_time(value, seconds=seconds, now=now)
    return _text(_aware(value).astimezone(target), now, seconds)


def offset_time(
    value: datetime | None,
    zone: str | None,
    *,
    seconds: bool = False,
    now: datetime | None = None,
) -> str:
    """A time the service answers with its place's offset (a port call in a sailing
    schedule): in the place's zone (an IANA name) with its abbreviation, as `place_time`
    reads it (`Mar 4 22:05 CST`); in the offset, named by it (`UTC+08`), where the zone is not
    known: the offset is the place's own, so unlike `place_time` never the user's zone."""
    if value is None:
        return ""
    return _text(_at(value, zone), now, seconds)


def _at(value: datetime, zone: str | None) -> datetime:
    """`value` in `zone` where it is a zone the app knows, else in its own offset."""
    target = zone_named(zone) if zone else None
    return _aware(value).astimezone(target) if target is not None else _aware(value)


def offset_span(
    start: datetime,
    end: datetime,
    zone: str | None,
    *,
    now: datetime | None = None,
    weekday: bool = False,
) -> str:
    """A span the service answers with its place's offset (a dock slot), read as
    `offset_time` reads a time: `Dec 1 09:00-10:00 CST`, the end's day written only when it
    is another day. `weekday` leads with the start's day of the week (`Tue Dec 1 ...`), for a
    line the user sends to someone outside the app."""
    start, end = _at(start, zone), _at(end, zone)
    first = offset_time(start, None, now=now)
    end = end.astimezone(start.tzinfo)
    day, _, name = first.rpartition(" ")
    lead = f"{DAY_NAMES[start.weekday()]} " if weekday else ""
    if end.date() == start.date():
        return f"{lead}{day}-{end.hour:02d}:{end.minute:02d} {name}"
    return f"{lead}{first} to {offset_time(end, None, now=now)}"


def user_now() -> datetime:
    """Now in the user's zone (a form's default time without a place starts from it)."""
    now = datetime.now(UTC)
    return now if _user_zone is UserZone.UTC else now.astimezone()


def user_zone_name(at: datetime | None = None) -> str:
    """The label of the user's zone at `at` (now by default): `UTC`, or the local `CST`."""
    moment = _aware(at) if at is not None else datetime.now(UTC)
    return _abbreviation(moment.astimezone(UTC if _user_zone is UserZone.UTC else None))


def iso_time(value: datetime) -> str:
    """A time as exports write it: ISO 8601 with its offset, to the second."""
    return _aware(value).isoformat(timespec="seconds")
