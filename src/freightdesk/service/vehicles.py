"""Available vehicles for the app: the co-op's trucks near an address or a point, within a
radius, in a time window, of one truck type, a page at a time in the order asked.

The last search's page is a `ListService` list (kept in the profile cache, so the pane opens
with it and keeps it, with its age, when the service is away). Its params are the search's
wire body (`query`), the sort keys (`sort`, as the interface's `field,asc|desc`) and the page.
`check_search` runs the models' rules (the fields' own and the radius and centre rules the
service applies) on what the form holds, keyed by the body's field paths.

A tenant outside every capacity co-op is not a failure to retry: the service's refusal is its
answer. The list is then empty and `refusal` holds the service's words (kept in the cache
with the list), so the pane can say them instead of showing an empty table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.vehicles import CapacityCoopRequired
from freightdesk.models.vehicles import (
    AvailableVehicle,
    AvailableVehiclesQuery,
    VehicleSort,
    VehicleSortField,
    query_problems,
)
from freightdesk.service.cache import Cache
from freightdesk.service.listing import Listing, ListService, Params
from freightdesk.service.messages import plain
from freightdesk.service.validation import POINT_STAND_IN, coordinate_problems, problems_of

KIND = "available_vehicles"
REFUSAL_META = f"{KIND}:refusal"
PAGE_SIZE = 50
DEFAULT_SORT = (VehicleSort(VehicleSortField.DISTANCE),)


def check_search(wire: dict[str, Any]) -> tuple[AvailableVehiclesQuery | None, dict[str, str]]:
    """The query for a form given as wire fields, or every problem by field path: the point's
    latitude and longitude each beside its own, the rest (a radius out of bounds) checked
    with a valid point in their place."""
    own = coordinate_problems(wire.get("geoCoordinates"), "geoCoordinates")
    if own:
        wire = {**wire, "geoCoordinates": POINT_STAND_IN}
    try:
        query = AvailableVehiclesQuery.model_validate(wire)
    except ValidationError as exc:
        return None, problems_of(exc) | own
    problems = dict(query_problems(query)) | own
    # In the form's words here, so every caller shows the same (the rules say wire names).
    return (None, plain(problems)) if problems else (query, {})


def sort_params(sort: Sequence[VehicleSort]) -> list[str]:
    return [key.param() for key in sort]


def sort_of(params: Params) -> tuple[VehicleSort, ...]:
    """The sort keys of a list's params (nearest first when none or not understood)."""
    keys: list[VehicleSort] = []
    for raw in params.get("sort") or ():
        name, _, direction = str(raw).partition(",")
        try:
            keys.append(VehicleSort(VehicleSortField(name), direction == "desc"))
        except ValueError:
            return DEFAULT_SORT
    return tuple(keys) or DEFAULT_SORT


def search_params(
    query: AvailableVehiclesQuery,
    sort: Sequence[VehicleSort] = DEFAULT_SORT,
    page: int = 1,
    size: int = PAGE_SIZE,
) -> Params:
    """The list's params of a search: its wire body, its order and its page."""
    return {
        "query": query.wire(exclude_unset=True),
        "sort": sort_params(sort),
        "pageNumber": max(1, page),
        "pageSize": size,
    }


def query_of(params: Params) -> AvailableVehiclesQuery | None:
    """The search of a list's params; None when nothing was asked yet (or a cached search the
    models no longer take)."""
    wire = params.get("query")
    if not isinstance(wire, dict):
        return None
    query, _problems = check_search(wire)
    return query


class VehiclesService(ListService[AvailableVehicle]):
    kind = KIND

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 120.0
    ) -> None:
        # Trucks come free and get loaded by the hour; a poll every two minutes keeps the
        # page honest without loading the co-op's service.
        super().__init__(cache, AvailableVehicle, lambda v: str(v.vehicle_id), interval=interval)
        self._client = client
        self.refusal: str | None = None  # the service's words when the tenant is not a member

    async def fetch_items(self, params: Params) -> tuple[Sequence[AvailableVehicle], int]:
        query = query_of(params)
        if query is None:
            return [], 0  # nothing asked yet: nothing to fetch
        try:
            page = await self._client().vehicles.page(
                query,
                page=int(params.get("pageNumber", 1)),
                size=int(params.get("pageSize", PAGE_SIZE)),
                sort=sort_of(params),
            )
        except CapacityCoopRequired as exc:
            self.refusal = exc.error_message
            return [], 0
        self.refusal = None
        return page.results, page.pagination_info.total

    def fits(self, item: AvailableVehicle, params: Params) -> bool:
        return False  # the service decides what is near; nothing is added from outside

    # --- cache: the refusal goes with the list ---------------------------------------------

    def _store(self, listing: Listing[AvailableVehicle]) -> None:
        super()._store(listing)
        self.cache.set_meta(REFUSAL_META, self.refusal or "")

    def _load(self) -> Listing[AvailableVehicle] | None:
        loaded = super()._load()
        if loaded is not None and self.coordinator.data is None:
            self.refusal = self.cache.meta(REFUSAL_META) or None
        return loaded
