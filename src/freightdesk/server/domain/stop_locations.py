"""Stop locations: checking one (the rules are `models/stop_location_rules.py`, shared with
the app), and creating, reading, replacing, deleting, listing.

Callers own the transaction: pass a session from `transaction(...)` for writes. Every function
takes the tenant and never sees another tenant's rows; a foreign id is "not found".
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.common import Address
from freightdesk.models.errors import ErrorDetail
from freightdesk.models.stop_location_rules import (
    Problems,
    check_rules,
    search_fields,
    search_needle,
)
from freightdesk.models.stop_locations import (
    AddressSpecificity,
    OpeningHours,
    SpecialOpeningHours,
    StopLocation,
    StopLocationInput,
    StopLocationList,
)
from freightdesk.server.db import utcnow
from freightdesk.server.errors import ApiError, conflict, field_error, field_errors, not_found
from freightdesk.server.tables.stop_locations import StopLocationRow


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
    checked = check_rules(body)
    found += checked.problems
    address = checked.address
    if found or address is None:
        raise field_errors(found)
    supplied_id = body.supplied_id.strip() if body.supplied_id else ""
    return StopLocation(
        name=checked.name,
        address=address,
        address_specificity=address_specificity(address),
        coordinates=body.coordinates,
        geofence=checked.geofence,
        contacts=checked.contacts,
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
    needle = search_needle(query)
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
    # A separator no one types, so that a search does not match across two fields.
    return "\x1f".join(search_fields(location))


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
