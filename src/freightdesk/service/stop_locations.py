"""Stop locations for the app: a page of the list (with search), create, edit with optimistic
concurrency, delete, address validation, and the service's rules checked before sending.

`check_location` runs the local service's own rules (models/stop_location_rules.py) so the
form can mark every problem beside its field without a round trip; the service stays the
judge, and its answer is shown the same way.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import Conflict, FreightDeskError, NotFound
from freightdesk.models.addresses import AddressInput
from freightdesk.models.common import Address
from freightdesk.models.stop_location_rules import check_rules, search_fields, search_needle
from freightdesk.models.stop_locations import (
    DEFAULT_PAGE_SIZE,
    StopLocation,
    StopLocationInput,
)
from freightdesk.service.cache import Cache
from freightdesk.service.listing import ListService, Params
from freightdesk.service.messages import plain
from freightdesk.service.validation import POINT_STAND_IN, coordinate_problems, problems_of

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
    """The request for a location given as wire fields, or every problem by field path: the
    latitude's and the longitude's each beside its own, the rest checked with a valid point
    in their place."""
    own = coordinate_problems(wire.get("coordinates"), "coordinates", optional=True)
    if own:
        wire = {**wire, "coordinates": POINT_STAND_IN}
    try:
        location = StopLocationInput.model_validate(wire)
    except ValidationError as exc:
        return None, problems_of(exc) | own
    problems = location_problems(location) | own
    # In the form's words here, so every caller shows the same (the rules say wire names).
    return (None, plain(problems)) if problems else (location, {})


def location_problems(location: StopLocationInput) -> dict[str, str]:
    """The local service's rules (`models/stop_location_rules.py`): the first problem of
    each field."""
    problems: dict[str, str] = {}
    for path, message in check_rules(location).problems:
        problems.setdefault(path, message)
    return problems


def as_input(location: StopLocation) -> StopLocationInput:
    """A saved location as the body that would save it again (for editing)."""
    wire = location.wire(exclude_none=True)
    wire.pop("addressSpecificity", None)
    return StopLocationInput.model_validate(wire)


def matches(location: StopLocation, query: str) -> bool:
    """The `q` search of the service: a case-insensitive substring of name, suppliedId,
    city or postal code (also without its spaces and hyphens)."""
    needle = search_needle(query)
    return not needle or any(needle in field for field in search_fields(location))


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

    async def by_supplied_id(self, supplied_id: str) -> StopLocation | None:
        """The location whose own id (the one a stop names it by) is `supplied_id`, in any
        case; None when there is none."""
        wanted = supplied_id.strip().upper()
        page = await self._client().stop_locations.page(query=supplied_id, page_size=20)
        return next(
            (
                found
                for found in page.locations
                if (found.supplied_id or "").strip().upper() == wanted
            ),
            None,
        )

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
