"""Yard slots for the app: the tenant's sites (list, add, remove) and the free dock-door slots
of a site in a window, grouped by the site's own days for a timeline.

`check_search` and `check_site` hold the rules the service applies (the models' own), so the
form marks every problem beside its field, keyed by the path the service names in an error's
`source` (`identifiers.siteCode`, `openingHours[0].closes`), before anything is sent.

The sites and the last search with its answer are kept in the profile's cache, so the pane
opens with them and keeps them, with their age, while the service is away.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.models.yard import (
    SlotAnswer,
    SlotQuery,
    SlotResult,
    YardSite,
    YardSiteInput,
    parse_opening_hours,
)
from freightdesk.service.cache import Cache
from freightdesk.service.clock import offset_span
from freightdesk.service.kept_json import keep_json, kept_json
from freightdesk.service.validation import checked, problems_of

WINDOW = "appointmentWindow"
SITE_CODE = "identifiers.siteCode"
REFERENCE = "identifiers.shipmentReference"
SITES_META = "yard:sites"
LAST_META = "yard:last"
STOP = "identifiers.stopSequenceNumber"


@dataclass(frozen=True)
class SlotSearchInput:
    """The search form as typed: times aware (the app's zone), stop 0 for any stop."""

    site_code: str
    shipment_reference: str
    stop: int
    start: datetime
    end: datetime


@dataclass(frozen=True)
class SiteInput:
    """The new-site form as typed."""

    code: str
    name: str
    time_zone: str
    doors: int
    slot_minutes: int
    hours: str


def check_search(typed: SlotSearchInput) -> tuple[SlotQuery | None, dict[str, str]]:
    """The slot query the form asks for, or its problems by the service's field paths."""
    problems: dict[str, str] = {}
    if not typed.site_code.strip():
        problems[SITE_CODE] = "Pick a site (add one below if the tenant has none)"
    reference = typed.shipment_reference.strip()
    wire = {
        WINDOW: {
            "start_date_time": typed.start.isoformat(),
            "end_date_time": typed.end.isoformat(),
        },
        "identifiers": {
            **({"shipmentReference": reference} if reference else {}),
            "siteCode": typed.site_code.strip(),
            **({"stopSequenceNumber": typed.stop} if typed.stop else {}),
        },
    }
    try:
        query = SlotQuery.model_validate(wire)
    except ValidationError as exc:
        for path, message in problems_of(exc).items():
            problems.setdefault(WINDOW if path.startswith(WINDOW) else path, message)
        return None, problems
    return (None, problems) if problems else (query, {})


def check_site(typed: SiteInput) -> tuple[YardSiteInput | None, dict[str, str]]:
    """The new site, or its problems by field (`code`, `timeZone`, `openingHours`...)."""
    problems: dict[str, str] = {}
    for name, text, missing in (
        ("code", typed.code, "Enter a code for the site, e.g. DEN-XD"),
        ("name", typed.name, "Enter the site's name"),
        ("timeZone", typed.time_zone, "Enter the site's time zone, e.g. America/Denver"),
    ):
        if not text.strip():
            problems[name] = missing
    hours: list[dict[str, object]] = []
    try:
        hours = parse_opening_hours(typed.hours)
    except ValueError as exc:
        problems["openingHours"] = str(exc)
    wire = {
        "code": typed.code,
        "name": typed.name,
        "timeZone": typed.time_zone,
        "dockDoorCount": typed.doors,
        "slotMinutes": typed.slot_minutes,
        "openingHours": hours or [{"days": ["MON"], "opens": "00:00", "closes": "24:00"}],
    }
    return checked(YardSiteInput, wire, problems)


def slot_days(answer: SlotAnswer) -> list[tuple[date, list[SlotResult]]]:
    """The answer's slots by the site's own day (slot times carry the site's offset)."""
    days: dict[date, list[SlotResult]] = {}
    for slot in answer.results:
        days.setdefault(slot.start_date_time.date(), []).append(slot)
    return sorted(days.items())


def slot_text(slot: SlotResult, zone: str | None) -> str:
    """Dec 1 09:00-10:00 CST: 2 of 8 doors free (D03, D07): the site's own time, its zone
    (`zone`, the site's IANA zone) named as every time at a place is."""
    head = offset_span(slot.start_date_time, slot.end_date_time, zone)
    if not slot.available:
        why = "started" if slot.remaining_capacity else "fully booked"
        text = f"{head}: {why}"
    else:
        doors = ", ".join(slot.dock_doors)
        text = f"{head}: {slot.remaining_capacity} of {slot.capacity} doors free ({doors})"
    return text + ("; this shipment is booked here" if slot.already_booked else "")


@dataclass(frozen=True)
class LastSearch:
    query: SlotQuery
    answer: SlotAnswer
    at: float  # epoch seconds of the answer


class YardService:
    """The yard calls for one pane; the client and the cache are the session's current ones
    (None while no profile's cache is open)."""

    def __init__(
        self, client: Callable[[], ApiClient], cache: Callable[[], Cache | None] = lambda: None
    ) -> None:
        self._client = client
        self._cache = cache

    async def sites(self) -> list[YardSite]:
        sites = await self._client().slots.sites()
        await keep_json(self._cache(), SITES_META, [site.wire() for site in sites])
        return sites

    async def cached_sites(self) -> list[YardSite]:
        kept = await kept_json(self._cache(), SITES_META)
        return [YardSite.model_validate(s) for s in kept] if isinstance(kept, list) else []

    async def last_search(self) -> LastSearch | None:
        """The last search answered, from the cache (None when there is none, or it no
        longer reads)."""
        kept = await kept_json(self._cache(), LAST_META)
        if not isinstance(kept, dict):
            return None
        try:
            return LastSearch(
                SlotQuery.model_validate(kept["query"]),
                SlotAnswer.model_validate(kept["answer"]),
                float(kept["at"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    async def add_site(self, site: YardSiteInput) -> YardSite:
        """Errors are the client's typed ones (409 `code` for a taken code) for the form."""
        return await self._client().slots.add_site(site)

    async def remove_site(self, code: str) -> None:
        # Already gone (removed elsewhere, or a retried remove): the wish is met.
        with contextlib.suppress(NotFound):
            await self._client().slots.remove_site(code)

    async def slots(self, query: SlotQuery) -> LastSearch:
        answer = await self._client().slots.query(query)
        last = LastSearch(query, answer, time.time())
        await keep_json(
            self._cache(),
            LAST_META,
            {"query": query.wire(), "answer": answer.wire(), "at": last.at},
        )
        return last


def free_count(days: Sequence[tuple[date, Sequence[SlotResult]]]) -> int:
    return sum(1 for _day, slots in days for slot in slots if slot.available)
