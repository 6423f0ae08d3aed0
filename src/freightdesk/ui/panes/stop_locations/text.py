"""How stop locations read in the list, the form and the conflict dialog."""

from __future__ import annotations

from freightdesk.models.common import GeoCoordinates
from freightdesk.models.stop_locations import (
    Geofence,
    OpeningHours,
    SpecialOpeningHours,
    StopLocationContact,
)
from freightdesk.ui.formatting import DASH, days_text


def coordinates_text(coordinates: GeoCoordinates | None) -> str:
    if coordinates is None:
        return ""
    return f"{coordinates.latitude:.5f}, {coordinates.longitude:.5f}"


def hours_text(hours: list[OpeningHours]) -> str:
    return "; ".join(
        f"{days_text(h.weekdays())} {h.opens or '?'}{DASH}{h.closes or '?'}" for h in hours
    )


def special_text(specials: list[SpecialOpeningHours]) -> str:
    parts = []
    for special in specials:
        span = f"{special.valid_from}" + (
            f" to {special.valid_through}" if special.valid_through != special.valid_from else ""
        )
        hours = special.hours
        if hours is None or (hours.opens is None and hours.closes is None):
            parts.append(f"{span}: closed")
        else:
            parts.append(f"{span}: {days_text(hours.weekdays())} {hours.opens}{DASH}{hours.closes}")
    return "; ".join(parts)


def geofence_text(geofence: Geofence | None) -> str:
    if geofence is None:
        return ""
    value = f"{geofence.value:g}" if geofence.value is not None else "?"
    return f"{geofence.type or '?'} {value} {(geofence.units or '').lower()}"


def contacts_text(contacts: list[StopLocationContact]) -> str:
    return ", ".join(f"{c.contact_id} ({c.type})" for c in contacts)
