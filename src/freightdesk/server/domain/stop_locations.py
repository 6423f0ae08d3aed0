"""Stop locations: what makes one valid, and creating, reading, replacing, deleting, listing.

Callers own the transaction: pass a session from `transaction(...)` for writes. Every function
takes the tenant and never sees another tenant's rows; a foreign id is "not found".
"""

from __future__ import annotations

import math
import re
from typing import Any
from uuid import UUID, uuid4

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.common import Address
from freightdesk.models.errors import ErrorDetail
from freightdesk.models.stop_locations import (
    GEOFENCE_UNITS,
    AddressSpecificity,
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
    StopLocationList,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.addresses import address_problems
from freightdesk.server.errors import ApiError, conflict, field_error, field_errors, not_found
from freightdesk.server.tables.stop_locations import StopLocationRow

Problems = list[tuple[str, str]]

_TIME = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")
_END_OF_DAY = 24 * 60


def address_specificity(address: Address) -> AddressSpecificity:
    """The most precise part the address has: a house number, a street, ... the country."""
    if address.address_lines:
        first = address.address_lines[0]
        if first[:1].isdigit():
            return AddressSpecificity.HOUSE_NUMBER
        return AddressSpecificity.STREET
    if address.postal_code:
        return AddressSpecificity.POSTAL_CODE
    if address.city:
        return AddressSpecificity.CITY
    if address.state:
        return AddressSpecificity.STATE
    return AddressSpecificity.COUNTRY


def check_stop_location(body: StopLocationInput, problems: Problems | None = None) -> StopLocation:
    """The location as it will be stored (no `id`, no `version`), or 400 naming every problem.

    `problems` already found by the caller (such as a misplaced `id`) are reported with
    the rest, so a form can mark every field at once.
    """
    found: Problems = list(problems or [])
    found += _nul_problems(body.model_dump(mode="json", by_alias=True, exclude_none=True), "")
    name = body.name.strip()
    if not name:
        found.append(("name", "must not be blank"))
    address, address_errors = address_problems(body.address, "address.")
    found += address_errors
    found += _placement_problems(body)
    geofence = _geofence(body, found)
    contacts = _contacts(body, found)
    for index, hours in enumerate(body.opening_hours):
        found += _hours_problems(hours, f"openingHours[{index}]", closed_allowed=False)
    for index, special in enumerate(body.special_opening_hours):
        found += _special_problems(special, f"specialOpeningHours[{index}]")
    if found or address is None:
        raise field_errors(found)
    supplied_id = body.supplied_id.strip() if body.supplied_id else ""
    return StopLocation(
        name=name,
        address=address,
        address_specificity=address_specificity(address),
        coordinates=body.coordinates,
        geofence=geofence,
        contacts=contacts,
        opening_hours=[OpeningHours.model_validate(h.model_dump()) for h in body.opening_hours],
        special_opening_hours=[
            SpecialOpeningHours.model_validate(s.model_dump()) for s in body.special_opening_hours
        ],
        supplied_id=supplied_id or None,
    )


def create_stop_location(session: Session, tenant_id: int, body: StopLocationInput) -> StopLocation:
    """Validate, normalize and store a new stop location of the tenant; answers it (version 1).

    The address goes through the postal address normalizer (its problems are reported as
    `address.<field>`). Raises ApiError: 400 for an invalid location (every problem listed),
    409 when the tenant already has a location with the same `suppliedId`. The caller owns
    the transaction; the demo generator calls this directly inside its own.
    """
    problems: Problems = []
    if body.id is not None:
        problems.append(("id", "must not be supplied on create; the service assigns it"))
    location = check_stop_location(body, problems)
    _ensure_supplied_id_free(session, tenant_id, location.supplied_id, exclude=None)
    row = StopLocationRow(id=str(uuid4()), tenant_id=tenant_id)
    _fill(row, location)
    session.add(row)
    session.flush()
    return _view(row)


def update_stop_location(
    session: Session, tenant_id: int, location_id: UUID, body: StopLocationInput
) -> StopLocation:
    """Replace a stop location with `body`; answers it with its version increased by one.

    404 for an id the tenant does not have, 400 for an invalid body, 409 when `body.version`
    is given and is not the current version (someone else saved in between) or when the
    `suppliedId` belongs to another location. A concurrent update that wins between our read
    and our write surfaces as SQLAlchemy's StaleDataError from the flush.
    """
    row = _row(session, tenant_id, location_id)
    problems: Problems = []
    if body.id is not None and body.id != location_id:
        problems.append(("id", f"is {body.id} but the path names {location_id}"))
    location = check_stop_location(body, problems)
    if body.version is not None and body.version != row.version:
        raise stale_version(location_id, body.version, row.version)
    _ensure_supplied_id_free(session, tenant_id, location.supplied_id, exclude=row.id)
    _fill(row, location)
    # Always an UPDATE, even when nothing changed, so that every save makes a new version.
    row.updated_at = utcnow()
    session.flush()
    return _view(row)


def get_stop_location(session: Session, tenant_id: int, location_id: UUID) -> StopLocation:
    return _view(_row(session, tenant_id, location_id))


def current_version(session: Session, tenant_id: int, location_id: UUID) -> int | None:
    """The saved version of a location, or None if the tenant has no such location."""
    return session.scalar(
        select(StopLocationRow.version).where(
            StopLocationRow.tenant_id == tenant_id, StopLocationRow.id == str(location_id)
        )
    )


def delete_stop_location(session: Session, tenant_id: int, location_id: UUID) -> None:
    session.delete(_row(session, tenant_id, location_id))


def list_stop_locations(
    session: Session, tenant_id: int, *, offset: int, page_size: int, query: str | None = None
) -> StopLocationList:
    """One page of the tenant's locations by name (then id), with the total that matched.

    `query` matches name, supplied id, city and postal code: case-insensitive substring.
    """
    conditions: list[Any] = [StopLocationRow.tenant_id == tenant_id]
    if query is not None and "\x00" in query:
        raise field_error("q", "must not contain the NUL character")
    needle = (query or "").strip().lower()
    if needle:
        conditions.append(StopLocationRow.search_text.like(f"%{_escape_like(needle)}%", "\\"))
    total = session.scalar(select(func.count()).select_from(StopLocationRow).where(*conditions))
    rows = session.scalars(
        select(StopLocationRow)
        .where(*conditions)
        .order_by(StopLocationRow.name_key, StopLocationRow.id)
        .offset(offset)
        .limit(page_size)
    )
    return StopLocationList(
        locations=[_view(row) for row in rows],
        offset=offset,
        page_size=page_size,
        total_items=total or 0,
    )


def stale_version(location_id: UUID, sent: int, current: int) -> ApiError:
    message = (
        f"Stop location {location_id} was changed since you read it: you sent version {sent}, "
        f"the current version is {current}. Reload it, reapply your change and send "
        f"version {current}"
    )
    return ApiError(
        409,
        message,
        errors=[ErrorDetail(message=message, source="version", diagnostic="stale_version")],
    )


def supplied_id_taken(supplied_id: str | None) -> ApiError:
    return conflict(
        f"Another stop location already has suppliedId {supplied_id!r}", source="suppliedId"
    )


# --- storage --------------------------------------------------------------------------------


def _row(session: Session, tenant_id: int, location_id: UUID) -> StopLocationRow:
    row = session.get(StopLocationRow, str(location_id))
    if row is None or row.tenant_id != tenant_id:
        raise not_found(f"Stop location {location_id}")
    return row


def _fill(row: StopLocationRow, location: StopLocation) -> None:
    row.name = location.name
    row.name_key = location.name.lower()[:200]
    row.supplied_id = location.supplied_id
    row.search_text = _search_text(location)
    row.document = location.wire(exclude_none=True)


def _view(row: StopLocationRow) -> StopLocation:
    return StopLocation.model_validate({**row.document, "id": row.id, "version": row.version})


def _search_text(location: StopLocation) -> str:
    postal = location.address.postal_code or ""
    parts = [
        location.name,
        location.supplied_id or "",
        location.address.city or "",
        postal,
        # So that "m5v3l9" finds "M5V 3L9".
        postal.replace(" ", "").replace("-", ""),
    ]
    # A separator no one types, so that a search does not match across two fields.
    return "\x1f".join(parts).lower()


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _ensure_supplied_id_free(
    session: Session, tenant_id: int, supplied_id: str | None, *, exclude: str | None
) -> None:
    if supplied_id is None:
        return
    query = select(StopLocationRow.id).where(
        StopLocationRow.tenant_id == tenant_id, StopLocationRow.supplied_id == supplied_id
    )
    if exclude is not None:
        query = query.where(StopLocationRow.id != exclude)
    if session.scalar(query.limit(1)) is not None:
        raise supplied_id_taken(supplied_id)


# --- rules ----------------------------------------------------------------------------------


def _placement_problems(body: StopLocationInput) -> Problems:
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


def _geofence(body: StopLocationInput, problems: Problems) -> Geofence | None:
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


def _contacts(body: StopLocationInput, problems: Problems) -> list[StopLocationContact]:
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


def _hours_problems(hours: OpeningHours, path: str, *, closed_allowed: bool) -> Problems:
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


def _special_problems(special: SpecialOpeningHours, path: str) -> Problems:
    problems: Problems = []
    if special.hours is None:
        problems.append((f"{path}.hours", "is required"))
    else:
        problems += _hours_problems(special.hours, f"{path}.hours", closed_allowed=True)
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


def _nul_problems(value: object, path: str) -> Problems:
    """Text with a NUL character: PostgreSQL cannot store it, so refuse it on every database."""
    if isinstance(value, str):
        return [(path or "body", "must not contain the NUL character")] if "\x00" in value else []
    if isinstance(value, dict):
        found: Problems = []
        for key, item in value.items():
            if "\x00" in str(key):
                found.append((path or "body", "must not contain the NUL character in a key"))
            found += _nul_problems(item, f"{path}.{key}" if path else str(key))
        return found
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _nul_problems(item, f"{path}[{i}]")]
    return []


def _names(units: tuple[GeofenceUnits, ...]) -> str:
    names = [unit.value for unit in units]
    return f"{', '.join(names[:-1])} or {names[-1]}"
