"""Yard management: appointment slots at a site's dock doors, and the sites themselves."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Self

from pydantic import AwareDatetime, Field, ValidationInfo, field_validator, model_validator

from freightdesk.models.base import IanaZone, StrictWireModel, WireModel
from freightdesk.models.common import NOT_BLANK, YEARS_1900_TO_2999
from freightdesk.models.weekdays import Weekday, days_named

MAX_WINDOW_DAYS = 14


class SlotWindow(StrictWireModel):
    """The interface spells these two fields in snake_case on the wire."""

    start_date_time: AwareDatetime = Field(
        alias="start_date_time", json_schema_extra=YEARS_1900_TO_2999
    )
    end_date_time: AwareDatetime = Field(
        alias="end_date_time", json_schema_extra=YEARS_1900_TO_2999
    )

    @field_validator("start_date_time", "end_date_time")
    @classmethod
    def _plausible(cls, value: datetime) -> datetime:
        if not 1900 <= value.year <= 2999:
            raise ValueError("must be a date-time between the years 1900 and 2999")
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end_date_time <= self.start_date_time:
            raise ValueError("must end after it starts")
        if self.end_date_time - self.start_date_time > timedelta(days=MAX_WINDOW_DAYS):
            raise ValueError(f"the window may span at most {MAX_WINDOW_DAYS} days")
        return self


class SlotIdentifiers(StrictWireModel):
    # Optional: without it the slots' availability alone (none is the shipment's own).
    shipment_reference: str | None = Field(default=None, min_length=1, max_length=100)
    site_code: str = Field(min_length=1, max_length=40)
    stop_sequence_number: int | None = Field(default=None, ge=1, le=100)


class SlotQuery(StrictWireModel):
    appointment_window: SlotWindow
    identifiers: SlotIdentifiers


class SlotStatus(StrEnum):
    AVAILABLE = "AVAILABLE"
    FULLY_BOOKED = "FULLY_BOOKED"
    CLOSED = "CLOSED"


class SlotResult(WireModel):
    slot_id: str
    site_code: str
    site_name: str
    start_date_time: datetime
    end_date_time: datetime
    capacity: int
    booked_count: int
    remaining_capacity: int
    # Bookable: a door is free and the slot has not started yet.
    available: bool
    dock_doors: list[str] = Field(default_factory=list, description="Doors free in this slot")
    # The shipment (and stop) asked about already holds an appointment in this slot.
    already_booked: bool = False


class SlotAnswer(WireModel):
    status: SlotStatus
    results: list[SlotResult]


# --- yard sites (a FreightDesk extension: the interface has no site management) --------------

MAX_DOCK_DOORS = 200
MIN_SLOT_MINUTES = 5
MAX_SLOT_MINUTES = 720
_SITE_CODE = re.compile(r"^[A-Z0-9][A-Z0-9_-]*$")
_CLOCK = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$")
TIMES_WANTED = "write hours and minutes, e.g. 06:00-22:00 (24:00 closes at midnight)"


def clock_minutes(text: str) -> int:
    """Minutes after midnight of an `HH:MM` time (`24:00` is the end of the day)."""
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def site_code(text: str) -> str:
    """A site code as the service keeps it (upper case), or ValueError saying what is wrong;
    the slot query looks a site up by the same spelling."""
    code = text.strip().upper()
    if not code:
        raise ValueError("enter a site code")
    if len(code) > 40:
        raise ValueError("must be at most 40 characters")
    if not _SITE_CODE.match(code):
        raise ValueError("letters, digits, '-' and '_' only, starting with a letter or digit")
    return code


class OpeningHours(StrictWireModel):
    """Opening hours on some weekdays, in the site's local time; a site open round the clock
    closes at 24:00."""

    days: list[Weekday] = Field(min_length=1, max_length=7, json_schema_extra={"uniqueItems": True})
    opens: str = Field(json_schema_extra={"pattern": _CLOCK.pattern})
    closes: str = Field(json_schema_extra={"pattern": _CLOCK.pattern})

    @field_validator("days")
    @classmethod
    def _unique(cls, days: list[Weekday]) -> list[Weekday]:
        if len(set(days)) != len(days):
            raise ValueError("a day is listed twice")
        return days

    @field_validator("opens", "closes")
    @classmethod
    def _clock(cls, text: str) -> str:
        if not _CLOCK.match(text.strip()):
            # The time typed named: a form's rules share one field.
            raise ValueError(f"{text.strip()!r} is not a time: {TIMES_WANTED}")
        return text.strip()

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.opens == "24:00":
            raise ValueError("a day opens at 00:00, e.g. 00:00-06:00 (24:00 closes one)")
        if clock_minutes(self.closes) <= clock_minutes(self.opens):
            raise ValueError(
                f"{self.opens}-{self.closes} closes before it opens: a night shift is two"
                " rules, e.g. Mon-Fri 22:00-24:00; Tue-Sat 00:00-06:00"
            )
        return self


class YardSiteInput(StrictWireModel):
    # The site code rule for the document (site_code also takes lower case and spaces round it).
    code: str = Field(
        min_length=1, max_length=40, json_schema_extra={"pattern": _SITE_CODE.pattern}
    )
    name: str = Field(min_length=1, max_length=200, json_schema_extra=NOT_BLANK)
    time_zone: IanaZone
    dock_door_count: int = Field(ge=1, le=MAX_DOCK_DOORS)
    # Before the opening hours: their check reads it.
    slot_minutes: int = Field(default=60, ge=MIN_SLOT_MINUTES, le=MAX_SLOT_MINUTES)
    opening_hours: list[OpeningHours] = Field(min_length=1, max_length=14)

    @field_validator("code")
    @classmethod
    def _code(cls, text: str) -> str:
        return site_code(text)

    @field_validator("name")
    @classmethod
    def _name(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("enter the site's name")
        return text.strip()

    @field_validator("opening_hours")
    @classmethod
    def _long_enough(cls, hours: list[OpeningHours], info: ValidationInfo) -> list[OpeningHours]:
        minutes = info.data.get("slot_minutes")
        for rule in hours:
            if minutes and clock_minutes(rule.closes) - clock_minutes(rule.opens) < minutes:
                raise ValueError(
                    f"{rule.opens}-{rule.closes} is shorter than one slot ({minutes} minutes)"
                )
        return hours


class YardSite(WireModel):
    code: str
    name: str
    time_zone: str
    slot_minutes: int
    opening_hours: list[OpeningHours]
    dock_doors: list[str] = Field(default_factory=list)


class YardSiteList(WireModel):
    sites: list[YardSite]


def opening_hours_text(hours: list[OpeningHours], separator: str = "; ") -> str:
    """`MON-FRI 06:00-22:00; SAT 07:00-15:00`: the form `parse_opening_hours` reads (one rule
    a line with the separator a line break)."""
    return separator.join(f"{days_named(rule.days)} {rule.opens}-{rule.closes}" for rule in hours)


# A dash between two days or two times, as typed or pasted: the hyphen, the en dash the app
# shows (Mon, en dash, Fri), the em dash, the minus sign; spaces round it are allowed.
_DASH = re.compile(r"\s*[-\u2010-\u2015\u2212]\s*")
EXAMPLE = "Mon-Fri 06:00-22:00; Sat 07:00-15:00"


def parse_opening_hours(text: str) -> list[dict[str, object]]:
    """Rules typed as `MON-FRI 06:00-22:00; SAT,SUN 07:00-15:00` (the CLI's and the app's
    form), or as the app shows them (`Mon-Wed, Fri 07:00-19:00` with en dashes, a rule a
    line), as the wire's `openingHours`; ValueError says which part is not understood. A
    range of days may wrap the week: FRI-MON is Friday to Monday. Their order is left to
    `OpeningHours`."""
    order = [d.value for d in Weekday]
    rules: list[dict[str, object]] = []
    for part in (_DASH.sub("-", " ".join(p.split())) for p in re.split(r"[;\n]", text)):
        if not part:
            continue
        named, _, times = part.rpartition(" ")
        if not named.strip(" ,") or times.count("-") != 1:
            raise ValueError(f"{part!r}: write the days, then the hours, e.g. {EXAMPLE}")
        days: list[str] = []
        for name in re.split(r"[,\s]+", named.strip(" ,").upper()):
            first, dash, last = name.partition("-")
            if first not in order or (dash and last not in order):
                raise ValueError(
                    f"{name!r} is not a day or a range of days (Mon to Sun, e.g. Mon\u2013Fri)"
                )
            start = order.index(first)
            # FRI-MON wraps the week: Friday to Monday.
            count = (order.index(last) - start) % len(order) + 1 if last else 1
            span = [order[(start + n) % len(order)] for n in range(count)]
            days.extend(d for d in span if d not in days)
        opens, closes = times.split("-")
        if not (_CLOCK.match(opens) and _CLOCK.match(closes)):
            raise ValueError(f"{times!r}: {TIMES_WANTED}")  # both said at once
        rules.append({"days": days, "opens": opens, "closes": closes})
    if not rules:
        raise ValueError(f"give the opening hours, e.g. {EXAMPLE}")
    return rules
