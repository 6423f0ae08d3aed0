"""Yard appointment slots: a site's opening hours cut into slots, less the doors booked.

A site opens on some weekdays between two local times (a site open round the clock closes at
24:00); the time is cut into slots of the site's length, in the site's time zone, so a slot
keeps its wall-clock times across daylight-saving changes. In each slot every dock door takes
one appointment; a door is booked in a slot when an appointment there overlaps it. A slot is
available when a door is free and it has not started yet. The slots answered are those lying
wholly inside the asked window.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from freightdesk.models.errors import ErrorDetail
from freightdesk.models.yard import (
    OpeningHours,
    SlotAnswer,
    SlotQuery,
    SlotResult,
    SlotStatus,
    YardSite,
    YardSiteInput,
    YardSiteList,
)
from freightdesk.server.db import utcnow
from freightdesk.server.errors import ApiError, conflict
from freightdesk.server.tables.yard import YardAppointmentRow, YardSiteRow

DAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")


@dataclass(frozen=True)
class Slot:
    start: datetime  # aware, site local
    end: datetime


def _clock(text: str) -> tuple[int, int]:
    hours, minutes = text.split(":")
    return int(hours), int(minutes)


def _local(day: date, clock: str, zone: ZoneInfo) -> datetime:
    hours, minutes = _clock(clock)
    if hours == 24:
        return datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone)
    return datetime.combine(day, time(hours, minutes), tzinfo=zone)


def slots_of(site: YardSiteRow, window_start: datetime, window_end: datetime) -> list[Slot]:
    zone = ZoneInfo(site.time_zone)
    length = timedelta(minutes=site.slot_minutes)
    first = window_start.astimezone(zone).date() - timedelta(days=1)
    last = window_end.astimezone(zone).date()
    found: list[Slot] = []
    day = first
    while day <= last:
        for rule in site.opening_hours:
            if DAYS[day.weekday()] not in rule["days"]:
                continue
            opens, closes = _local(day, rule["opens"], zone), _local(day, rule["closes"], zone)
            # Step in UTC so that slots are equally long on daylight-saving days as well.
            start = opens
            while start + length <= closes:
                end = (start.astimezone(ZoneInfo("UTC")) + length).astimezone(zone)
                if start >= window_start and end <= window_end:
                    found.append(Slot(start, end))
                start = end
        day += timedelta(days=1)
    found.sort(key=lambda s: s.start)
    return found


def find_site(
    session: Session, tenant_id: int, code: str, source: str = "identifiers.siteCode"
) -> YardSiteRow:
    site = session.scalar(
        select(YardSiteRow).where(
            YardSiteRow.tenant_id == tenant_id, YardSiteRow.code == code.strip().upper()
        )
    )
    if site is None:
        message = f"Site code {code.strip()!r} was not found"
        raise ApiError(404, message, errors=[ErrorDetail(message=message, source=source)])
    return site


def available_slots(
    session: Session, tenant_id: int, query: SlotQuery, now: datetime | None = None
) -> SlotAnswer:
    now = now or utcnow()
    ids = query.identifiers
    site = find_site(session, tenant_id, ids.site_code)
    window = query.appointment_window
    slots = slots_of(site, window.start_date_time, window.end_date_time)
    bookings = session.scalars(
        select(YardAppointmentRow).where(
            YardAppointmentRow.site_id == site.id,
            YardAppointmentRow.start_at < window.end_date_time,
            YardAppointmentRow.end_at > window.start_date_time,
        )
    ).all()
    results: list[SlotResult] = []
    for slot in slots:
        overlapping = [b for b in bookings if b.start_at < slot.end and b.end_at > slot.start]
        taken = {b.dock_door for b in overlapping}
        free = [door for door in site.dock_doors if door not in taken]
        mine = ids.shipment_reference is not None and any(
            b.shipment_reference == ids.shipment_reference
            and (ids.stop_sequence_number is None
                 or b.stop_sequence_number == ids.stop_sequence_number)
            for b in overlapping
        )  # fmt: skip
        results.append(
            SlotResult(
                slot_id=f"{site.code}-{slot.start.astimezone(ZoneInfo('UTC')):%Y%m%dT%H%MZ}",
                site_code=site.code,
                site_name=site.name,
                start_date_time=slot.start,
                end_date_time=slot.end,
                capacity=len(site.dock_doors),
                booked_count=len(site.dock_doors) - len(free),
                remaining_capacity=len(free),
                available=bool(free) and slot.start > now,
                dock_doors=free,
                already_booked=mine,
            )
        )
    if not results:
        status = SlotStatus.CLOSED
    elif any(r.available for r in results):
        status = SlotStatus.AVAILABLE
    else:
        status = SlotStatus.FULLY_BOOKED
    return SlotAnswer(status=status, results=results)


# --- site management (an extension; see docs/spec-gaps.md) --------------------------------


def site_view(site: YardSiteRow) -> YardSite:
    return YardSite(
        code=site.code,
        name=site.name,
        time_zone=site.time_zone,
        slot_minutes=site.slot_minutes,
        opening_hours=[OpeningHours.model_validate(rule) for rule in site.opening_hours],
        dock_doors=list(site.dock_doors),
    )


def list_sites(session: Session, tenant_id: int) -> YardSiteList:
    rows = session.scalars(
        select(YardSiteRow).where(YardSiteRow.tenant_id == tenant_id).order_by(YardSiteRow.code)
    )
    return YardSiteList(sites=[site_view(row) for row in rows])


def duplicate_site(code: str) -> ApiError:
    return conflict(f"The tenant already has a site with code {code!r}", source="code")


def create_site(session: Session, tenant_id: int, body: YardSiteInput) -> YardSite:
    """A new site of the tenant; 409 naming `code` when the tenant has that code already (the
    caller turns a concurrent twin's IntegrityError into the same answer)."""
    taken = session.scalar(
        select(YardSiteRow.id).where(
            YardSiteRow.tenant_id == tenant_id, YardSiteRow.code == body.code
        )
    )
    if taken is not None:
        raise duplicate_site(body.code)
    hours = [rule.model_dump(mode="json") for rule in body.opening_hours]
    row = add_site(
        session, tenant_id, body.code, body.name, body.time_zone, body.dock_door_count, hours,
        body.slot_minutes,
    )  # fmt: skip
    return site_view(row)


def remove_site(session: Session, tenant_id: int, code: str) -> None:
    """Remove a site and its appointments (404 naming `siteCode` for one the tenant lacks)."""
    site = find_site(session, tenant_id, code, source="siteCode")
    session.execute(delete(YardAppointmentRow).where(YardAppointmentRow.site_id == site.id))
    session.delete(site)


# --- sites and bookings (demo and tests) ---------------------------------------------------


def add_site(
    session: Session,
    tenant_id: int,
    code: str,
    name: str,
    time_zone: str,
    doors: int,
    opening_hours: list[dict[str, Any]],
    slot_minutes: int = 60,
) -> YardSiteRow:
    ZoneInfo(time_zone)  # fail early on a zone that does not exist
    site = YardSiteRow(
        tenant_id=tenant_id,
        code=code.upper(),
        name=name,
        time_zone=time_zone,
        slot_minutes=slot_minutes,
        opening_hours=opening_hours,
        dock_doors=[f"D{n:02d}" for n in range(1, doors + 1)],
    )
    session.add(site)
    session.flush()
    return site


def book(
    session: Session,
    site: YardSiteRow,
    door: str,
    start: datetime,
    minutes: int,
    shipment_reference: str,
    stop_sequence_number: int | None = None,
) -> YardAppointmentRow:
    row = YardAppointmentRow(
        tenant_id=site.tenant_id,
        site_id=site.id,
        dock_door=door,
        start_at=start,
        end_at=start + timedelta(minutes=minutes),
        shipment_reference=shipment_reference,
        stop_sequence_number=stop_sequence_number,
    )
    session.add(row)
    return row


WEEKDAYS = ["MON", "TUE", "WED", "THU", "FRI"]

# Demo sites: (code, name, zone, doors, opening hours, slot minutes).
DEMO_SITES: tuple[tuple[str, str, str, int, list[dict[str, Any]], int], ...] = (
    ("CHI-DC1", "Joliet Distribution Center", "America/Chicago", 12,
     [{"days": WEEKDAYS, "opens": "06:00", "closes": "22:00"},
      {"days": ["SAT"], "opens": "07:00", "closes": "15:00"}], 60),
    ("DAL-XD", "Dallas Cross-Dock", "America/Chicago", 8,
     [{"days": [*WEEKDAYS, "SAT"], "opens": "05:00", "closes": "21:00"}], 30),
    ("ONT-WH", "Ontario Warehouse", "America/Los_Angeles", 16,
     [{"days": list(DAYS), "opens": "00:00", "closes": "24:00"}], 60),
    ("BRA-DC", "Brampton Distribution Centre", "America/Toronto", 10,
     [{"days": WEEKDAYS, "opens": "07:00", "closes": "19:00"}], 60),
)  # fmt: skip


def seed_yard(
    session: Session, tenant_id: int, *, seed: int = 7, now: datetime | None = None
) -> list[str]:
    """The demo sites of a tenant with two weeks of bookings (busier mid-morning); a site the
    tenant already has is left alone. Returns the codes of the sites added."""
    rng = random.Random(seed)
    now = now or utcnow()
    added: list[str] = []
    for code, name, zone, doors, hours, minutes in DEMO_SITES:
        exists = session.scalar(
            select(YardSiteRow.id).where(
                YardSiteRow.tenant_id == tenant_id, YardSiteRow.code == code
            )
        )
        if exists is not None:
            continue
        site = add_site(session, tenant_id, code, name, zone, doors, hours, minutes)
        rows: list[dict[str, Any]] = []
        for slot in slots_of(site, now - timedelta(days=1), now + timedelta(days=14)):
            hour = slot.start.hour
            busy = 0.85 if 8 <= hour < 12 else 0.55 if 12 <= hour < 17 else 0.25
            for door in site.dock_doors:
                if rng.random() < busy:
                    rows.append(
                        {
                            "tenant_id": tenant_id,
                            "site_id": site.id,
                            "dock_door": door,
                            "start_at": slot.start,
                            "end_at": slot.end,
                            "shipment_reference": f"SHP-{rng.randrange(10_000, 99_999)}",
                            "stop_sequence_number": rng.randint(1, 3),
                            "created_at": now,
                        }
                    )
        session.execute(insert(YardAppointmentRow), rows)
        added.append(code)
    session.flush()
    return added
