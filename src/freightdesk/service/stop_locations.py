"""Stop locations for the app: a page of the list (with search), create, edit with optimistic
concurrency, delete, address validation, and the service's rules checked before sending.

`check_location` mirrors the local service's rules (server/domain/stop_locations.py) so the
form can mark every problem beside its field without a round trip; the service stays the
judge, and its answer is shown the same way.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import Conflict, FreightDeskError, NotFound
from freightdesk.models.addresses import AddressInput, InvalidAddressError, normalize_address
from freightdesk.models.common import Address
from freightdesk.models.stop_locations import (
    DEFAULT_PAGE_SIZE,
    GEOFENCE_UNITS,
    GeofenceType,
    GeofenceUnits,
    OpeningHours,
    StopLocation,
    StopLocationInput,
)
from freightdesk.service.cache import Cache
from freightdesk.service.listing import ListService, Params
from freightdesk.service.validation import problems_of

_TIME = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")
END_OF_DAY = "24:00"


class StaleLocation(FreightDeskError):
    """Someone else saved a newer version while the user edited: both are kept for the user
    to choose (overwrite with `mine`, or take `theirs`)."""

    def __init__(self, mine: StopLocationInput, theirs: StopLocation, error: Conflict) -> None:
        super().__init__(error.error_message)
        self.mine = mine
        self.theirs = theirs
        self.error = error


# --- the service's rules, checked in the form --------------------------------------------


def check_location(wire: dict[str, Any]) -> tuple[StopLocationInput | None, dict[str, str]]:
    """The request for a location given as wire fields, or every problem by field path."""
    try:
        location = StopLocationInput.model_validate(wire)
    except ValidationError as exc:
        return None, problems_of(exc)
    problems = location_problems(location)
    return (None, problems) if problems else (location, {})


def location_problems(location: StopLocationInput) -> dict[str, str]:
    found: list[tuple[str, str]] = []
    if not location.name.strip():
        found.append(("name", "Enter a name"))
    try:
        normalize_address(location.address)
    except InvalidAddressError as exc:
        found += [(f"address.{p.source}", p.message) for p in exc.problems]
    found += _placement_problems(location)
    found += _geofence_problems(location)
    for index, contact in enumerate(location.contacts):
        if not (contact.contact_id or "").strip():
            found.append((f"contacts[{index}].contactId", "is required"))
        if not (contact.type or "").strip():
            found.append((f"contacts[{index}].type", "is required"))
    for index, hours in enumerate(location.opening_hours):
        found += hours_problems(hours, f"openingHours[{index}]", closed_allowed=False)
    for index, special in enumerate(location.special_opening_hours):
        path = f"specialOpeningHours[{index}]"
        if special.hours is None:
            found.append((f"{path}.hours", "is required"))
        else:
            found += hours_problems(special.hours, f"{path}.hours", closed_allowed=True)
        if special.valid_from is None:
            found.append((f"{path}.validFrom", "is required"))
        if special.valid_through is None:
            found.append((f"{path}.validThrough", "is required"))
        if (
            special.valid_from
            and special.valid_through
            and special.valid_from > special.valid_through
        ):
            found.append((f"{path}.validThrough", "is before the first day"))
    problems: dict[str, str] = {}
    for path, message in found:
        problems.setdefault(path, message)
    return problems


def _placement_problems(location: StopLocationInput) -> list[tuple[str, str]]:
    """A street address, or coordinates with an address that has the country."""
    address = location.address
    has_lines = any(line.strip() for line in address.address_lines)
    has_city = bool(address.city and address.city.strip())
    has_region = bool(
        (address.state and address.state.strip())
        or (address.postal_code and address.postal_code.strip())
    )
    if (has_lines and has_city and has_region) or location.coordinates is not None:
        return []
    why = "is needed for a street address (or give coordinates)"
    problems = []
    if not has_lines:
        problems.append(("address.addressLines", f"A street line {why}"))
    if not has_city:
        problems.append(("address.city", f"The city {why}"))
    if not has_region:
        problems.append(("address.state", f"A state or postal code {why}"))
    return problems


def _geofence_problems(location: StopLocationInput) -> list[tuple[str, str]]:
    fence = location.geofence
    if fence is None:
        return []
    problems: list[tuple[str, str]] = []
    kind: GeofenceType | None = None
    try:
        kind = GeofenceType((fence.type or "").strip().upper())
    except ValueError:
        problems.append(("geofence.type", "Choose TIME or DISTANCE"))
    allowed = GEOFENCE_UNITS[kind] if kind else tuple(GeofenceUnits)
    units = (fence.units or "").strip().upper()
    if units not in {u.value for u in allowed}:
        names = ", ".join(u.value for u in allowed)
        problems.append(("geofence.units", f"Choose one of {names}"))
    if fence.value is None or not math.isfinite(fence.value) or fence.value <= 0:
        problems.append(("geofence.value", "Enter a number greater than 0"))
    return problems


def hours_problems(
    hours: OpeningHours, path: str, *, closed_allowed: bool
) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if not any(hours.weekdays()):
        problems.append((path, "Tick at least one day"))
    if closed_allowed and hours.opens is None and hours.closes is None:
        return problems
    opens = _minutes(hours.opens, end_of_day=False)
    closes = _minutes(hours.closes, end_of_day=True)
    if opens is None:
        problems.append((f"{path}.opens", "Enter a time as HH:MM (00:00 to 23:59)"))
    if closes is None:
        problems.append((f"{path}.closes", "Enter a time as HH:MM (00:00 to 24:00)"))
    if opens is not None and opens == closes:
        problems.append((f"{path}.closes", "Equals the opening time; all day is 00:00 to 24:00"))
    return problems


def _minutes(value: str | None, *, end_of_day: bool) -> int | None:
    if value is None:
        return None
    if end_of_day and value == END_OF_DAY:
        return 24 * 60
    match = _TIME.fullmatch(value)
    return int(match.group(1)) * 60 + int(match.group(2)) if match else None


def as_input(location: StopLocation) -> StopLocationInput:
    """A saved location as the body that would save it again (for editing)."""
    wire = location.wire(exclude_none=True)
    wire.pop("addressSpecificity", None)
    return StopLocationInput.model_validate(wire)


def matches(location: StopLocation, query: str) -> bool:
    """The `q` search of the service: a case-insensitive substring of name, suppliedId,
    city or postal code (also without its spaces and hyphens)."""
    needle = query.strip().lower()
    if not needle:
        return True
    postal = location.address.postal_code or ""
    fields = [
        location.name,
        location.supplied_id or "",
        location.address.city or "",
        postal,
        postal.replace(" ", "").replace("-", ""),
    ]
    return any(needle in field.lower() for field in fields)


# --- the service --------------------------------------------------------------------------


class StopLocationsService(ListService[StopLocation]):
    kind = "stop_locations"

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 60.0
    ) -> None:
        super().__init__(
            cache,
            StopLocation,
            lambda s: str(s.id),
            params={"q": "", "offset": 0, "pageSize": 50},
            interval=interval,
        )
        self._client = client

    async def fetch_items(self, params: Params) -> tuple[Sequence[StopLocation], int]:
        page = await self._client().stop_locations.page(
            offset=int(params.get("offset", 0)),
            page_size=int(params.get("pageSize", DEFAULT_PAGE_SIZE)),
            query=str(params.get("q") or "") or None,
        )
        return page.locations, page.total_items

    def sort_key(self, item: StopLocation) -> Any:
        return (item.name.lower(), str(item.id))

    def fits(self, item: StopLocation, params: Params) -> bool:
        return matches(item, str(params.get("q") or ""))

    def page_limit(self, params: Params) -> int | None:
        return int(params.get("pageSize", DEFAULT_PAGE_SIZE))

    async def get(self, location_id: UUID | str) -> StopLocation:
        return await self._client().stop_locations.get(location_id)

    async def save(
        self, location: StopLocationInput, location_id: UUID | str | None = None
    ) -> StopLocation:
        """Create (no id) or replace. When `location.version` is older than the saved one,
        raises StaleLocation with the saved version (shown in the list at once)."""
        api = self._client().stop_locations
        if location_id is None:
            saved = await api.create(location)
        else:
            try:
                saved = await api.update(location_id, location)
            except Conflict as exc:
                if "version" not in exc.field_errors():
                    raise
                theirs = await api.get(location_id)
                await self.upsert(theirs, grow=False)
                raise StaleLocation(location, theirs, exc) from exc
        await self.upsert(saved)
        return saved

    async def overwrite(self, stale: StaleLocation) -> StopLocation:
        """Keep mine: save the user's version over the newer one they were shown."""
        assert stale.theirs.id is not None
        mine = stale.mine.model_copy(update={"version": stale.theirs.version})
        return await self.save(mine, stale.theirs.id)

    async def delete(self, location_id: UUID | str) -> None:
        with contextlib.suppress(NotFound):  # already gone: the wish is met
            await self._client().stop_locations.delete(location_id)
        await self.remove(str(location_id))

    async def validate_address(self, address: AddressInput) -> Address:
        """The service's normalized form of `address` (BadRequest names what is wrong)."""
        return await self._client().addresses.validate(address)
