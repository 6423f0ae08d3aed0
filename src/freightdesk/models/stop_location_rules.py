"""What makes a stop location valid, beyond its model's shapes: a name, an address that
normalizes, a street address or coordinates, a geofence whose units fit its type, contacts
with an id and a type, opening hours that apply to a day and open before they close.

The local service refuses a location with these problems (with every problem, in this order);
the app runs the same functions to show each problem beside its field before sending.
Problems are `(field path, message)` pairs with the interface's paths (`geofence.units`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from freightdesk.models.addresses import address_problems
from freightdesk.models.common import Address
from freightdesk.models.stop_locations import (
    GEOFENCE_UNITS,
    Geofence,
    GeofenceCrs,
    GeofenceGeometry,
    GeofenceType,
    GeofenceUnits,
    OpeningHours,
    SpecialOpeningHours,
    StopLocation,
    StopLocationContact,
    StopLocationInput,
)

Problems = list[tuple[str, str]]


def search_needle(query: str | None) -> str:
    """What the `q` search of stop locations looks for: case-insensitive, trimmed."""
    return (query or "").strip().lower()


def search_fields(location: StopLocation) -> list[str]:
    """Where the `q` search looks (lower-cased): name, suppliedId, city and postal code."""
    postal = location.address.postal_code or ""
    parts = [
        location.name,
        location.supplied_id or "",
        location.address.city or "",
        postal,
        # So that "m5v3l9" finds "M5V 3L9".
        postal.replace(" ", "").replace("-", ""),
    ]
    return [part.lower() for part in parts]


@dataclass
class CheckedLocation:
    """A location's parts as they are stored, and every problem found (none: it is valid)."""

    name: str
    address: Address | None
    geofence: Geofence | None
    contacts: list[StopLocationContact]
    problems: Problems = field(default_factory=list)


def check_rules(body: StopLocationInput) -> CheckedLocation:
    problems: Problems = []
    name = body.name.strip()
    if not name:
        problems.append(("name", "must not be blank"))
    address, address_errors = address_problems(body.address, "address.")
    problems += address_errors
    problems += placement_problems(body)
    geofence = checked_geofence(body, problems)
    contacts = checked_contacts(body, problems)
    for index, hours in enumerate(body.opening_hours):
        problems += hours_problems(hours, f"openingHours[{index}]", closed_allowed=False)
    for index, special in enumerate(body.special_opening_hours):
        problems += special_problems(special, f"specialOpeningHours[{index}]")
    return CheckedLocation(name, address, geofence, contacts, problems)


_TIME = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")
_END_OF_DAY = 24 * 60


def placement_problems(body: StopLocationInput) -> Problems:
    """A street address, or coordinates with an address that has the country (default US)."""
    address = body.address
    has_lines = any(line.strip() for line in address.address_lines)
    has_city = bool(address.city and address.city.strip())
    has_region = bool(
        (address.state and address.state.strip())
        or (address.postal_code and address.postal_code.strip())
    )
    if (has_lines and has_city and has_region) or body.coordinates is not None:
        return []
    why = "is required for a street address; give it, or give coordinates"
    problems: Problems = []
    if not has_lines:
        problems.append(("address.addressLines", why))
    if not has_city:
        problems.append(("address.city", why))
    if not has_region:
        problems.append(("address.state", f"state or postalCode {why}"))
    return problems


def checked_geofence(body: StopLocationInput, problems: Problems) -> Geofence | None:
    """The geofence as it is stored (type and units upper-cased), its problems added to
    `problems`."""
    given = body.geofence
    if given is None:
        return None
    path = "geofence"
    kind: GeofenceType | None = None
    if not given.type or not given.type.strip():
        problems.append((f"{path}.type", "is required: TIME or DISTANCE"))
    else:
        try:
            kind = GeofenceType(given.type.strip().upper())
        except ValueError:
            problems.append((f"{path}.type", f"must be TIME or DISTANCE, not {given.type!r}"))
    units: GeofenceUnits | None = None
    allowed = GEOFENCE_UNITS[kind] if kind else tuple(GeofenceUnits)
    if not given.units or not given.units.strip():
        problems.append((f"{path}.units", f"is required: one of {_names(allowed)}"))
    else:
        try:
            units = GeofenceUnits(given.units.strip().upper())
        except ValueError:
            units = None
        if units is None or units not in allowed:
            fit = f" for a {kind} geofence" if kind else ""
            problems.append(
                (f"{path}.units", f"must be one of {_names(allowed)}{fit}, not {given.units!r}")
            )
            units = None
    if given.value is None:
        problems.append((f"{path}.value", "is required"))
    elif not math.isfinite(given.value) or given.value <= 0:
        problems.append((f"{path}.value", f"must be a number greater than 0, not {given.value}"))
    geometry = _geometry(given.geometry, f"{path}.geometry", problems)
    return Geofence(
        geometry=geometry,
        type=kind.value if kind else None,
        units=units.value if units else None,
        value=given.value,
    )


def _geometry(
    given: GeofenceGeometry | None, path: str, problems: Problems
) -> GeofenceGeometry | None:
    if given is None:
        return None
    bbox = given.bbox
    if bbox is not None:
        if len(bbox) not in (4, 6):
            problems.append((f"{path}.bbox", f"must have 4 or 6 numbers, not {len(bbox)}"))
        elif not all(math.isfinite(number) for number in bbox):
            problems.append((f"{path}.bbox", "must hold finite numbers"))
        else:
            # [west, south, east, north] or with heights [west, south, low, east, north, high]
            half = len(bbox) // 2
            south, north = bbox[1], bbox[half + 1]
            west, east = bbox[0], bbox[half]
            if not (-90 <= south <= north <= 90):
                problems.append(
                    (f"{path}.bbox", "latitudes must be within -90 to 90, south before north")
                )
            if not (-180 <= west <= 180 and -180 <= east <= 180):
                problems.append((f"{path}.bbox", "longitudes must be within -180 to 180"))
    crs = given.crs
    if crs is not None and crs.properties is not None and not _finite(crs.properties):
        problems.append((f"{path}.crs.properties", "must not hold NaN or Infinity"))
    return GeofenceGeometry(
        bbox=bbox,
        crs=GeofenceCrs(type=crs.type, properties=crs.properties) if crs else None,
        type=given.type.strip() if given.type and given.type.strip() else None,
    )


def checked_contacts(body: StopLocationInput, problems: Problems) -> list[StopLocationContact]:
    """The contacts as they are stored (trimmed), their problems added to `problems`."""
    contacts: list[StopLocationContact] = []
    for index, contact in enumerate(body.contacts):
        path = f"contacts[{index}]"
        contact_id = (contact.contact_id or "").strip()
        kind = (contact.type or "").strip()
        if not contact_id:
            problems.append((f"{path}.contactId", "is required"))
        if not kind:
            problems.append((f"{path}.type", "is required"))
        contacts.append(StopLocationContact(contact_id=contact_id, type=kind))
    return contacts


def hours_problems(hours: OpeningHours, path: str, *, closed_allowed: bool) -> Problems:
    problems: Problems = []
    if not any(hours.weekdays()):
        problems.append(
            (path, "applies to no day: set at least one of appliesMonday to appliesSunday")
        )
    if closed_allowed and hours.opens is None and hours.closes is None:
        return problems  # closed on those days
    closed_hint = " (leave out both opens and closes for closed)" if closed_allowed else ""
    opens = _clock(hours.opens, f"{path}.opens", closed_hint, problems, end_of_day=False)
    closes = _clock(hours.closes, f"{path}.closes", closed_hint, problems, end_of_day=True)
    if opens is not None and closes is not None and opens == closes:
        problems.append(
            (
                f"{path}.closes",
                f"is the same time as opens ({hours.opens}); for all day use 00:00 to 24:00",
            )
        )
    return problems


def _clock(
    value: str | None, path: str, hint: str, problems: Problems, *, end_of_day: bool
) -> int | None:
    """Minutes after midnight of an `HH:MM` time; `24:00` only where the day may end."""
    if value is None:
        problems.append((path, f"is required{hint}"))
        return None
    if end_of_day and value == "24:00":
        return _END_OF_DAY
    match = _TIME.fullmatch(value)
    if match is None:
        allowed = "00:00 to 24:00" if end_of_day else "00:00 to 23:59"
        problems.append((path, f"must be a time of day as HH:MM ({allowed}), not {value!r}"))
        return None
    return int(match.group(1)) * 60 + int(match.group(2))


def special_problems(special: SpecialOpeningHours, path: str) -> Problems:
    problems: Problems = []
    if special.hours is None:
        problems.append((f"{path}.hours", "is required"))
    else:
        problems += hours_problems(special.hours, f"{path}.hours", closed_allowed=True)
    if special.valid_from is None:
        problems.append((f"{path}.validFrom", "is required"))
    if special.valid_through is None:
        problems.append((f"{path}.validThrough", "is required"))
    if (
        special.valid_from is not None
        and special.valid_through is not None
        and special.valid_from > special.valid_through
    ):
        problems.append(
            (
                f"{path}.validThrough",
                f"{special.valid_through} is before validFrom {special.valid_from}",
            )
        )
    return problems


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


def _names(units: tuple[GeofenceUnits, ...]) -> str:
    names = [unit.value for unit in units]
    return f"{', '.join(names[:-1])} or {names[-1]}"
