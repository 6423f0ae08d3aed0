"""Connected capacity for the app: the tenant's carriers (or carriers on a lane) ranked by
tracking performance over the past 365 days.

The last search's answer is a `ListService` list (kept in the profile cache, so the pane opens
with it and keeps it, with its age, when the service is away); its params are the search's
wire body, so a lane search is the one whose params name an `origin`. `check_search` runs the
models' rules on what the form holds, keyed by the body's field paths.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.models.capacity import (
    CarrierPerformance,
    CarrierSearch,
    LaneSearch,
)
from freightdesk.service.cache import Cache
from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.listing import ListService, Params
from freightdesk.service.validation import problems_of

KIND = "carrier_capacity"
LANE_ENDS = ("origin", "destination")


def check_search(wire: dict[str, Any]) -> tuple[CarrierSearch | None, dict[str, str]]:
    """The search for a form given as wire fields (a lane search when it names an origin or
    a destination), or every problem by field path."""
    lane = any(end in wire for end in LANE_ENDS)
    model: type[CarrierSearch] = LaneSearch if lane else CarrierSearch
    try:
        return model.model_validate(wire), {}
    except ValidationError as exc:
        return None, problems_of(exc)


def search_params(search: CarrierSearch) -> Params:
    """The list's params of a search: its wire body (a lane end as much of it as was given)."""
    params = search.wire()
    if isinstance(search, LaneSearch):
        params["origin"] = search.origin.wire(exclude_unset=True)
        params["destination"] = search.destination.wire(exclude_unset=True)
    return params


def search_of(params: Params) -> CarrierSearch:
    search, _problems = check_search(params)
    if search is None:  # a cached search the models no longer take: every carrier
        return CarrierSearch()
    return search


class CapacityService(ListService[CarrierPerformance]):
    kind = KIND

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 300.0
    ) -> None:
        # The statistics move by the day; a poll now and then says whether the service is there.
        super().__init__(
            cache,
            CarrierPerformance,
            lambda c: c.carrier_identifier.value,
            interval=interval,
        )
        self._client = client

    async def fetch_items(self, params: Params) -> tuple[Sequence[CarrierPerformance], int]:
        search = search_of(params)
        capacity = self._client().capacity
        if isinstance(search, LaneSearch):
            found: Sequence[CarrierPerformance] = await capacity.search_lanes(search)
        else:
            found = await capacity.search_carriers(search)
        CARRIER_NAMES.learn((c.carrier_identifier.value, c.carrier_name) for c in found)
        return found, len(found)

    def fits(self, item: CarrierPerformance, params: Params) -> bool:
        return False  # the service ranks; nothing is added to an answer from outside
