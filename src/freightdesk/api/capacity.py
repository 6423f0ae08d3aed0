"""Connected capacity: carriers, and carriers on a lane, ranked by tracking performance.

Both searches are POSTs that only read, so they are safe to send again after a dropped
connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from freightdesk.api.parsing import parse
from freightdesk.models.capacity import (
    CarrierLanePerformance,
    CarrierLanePerformances,
    CarrierPerformance,
    CarrierPerformances,
    CarrierSearch,
    LaneSearch,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/tl/connected-capacity"
CARRIERS_PATH = f"{PATH}/carriers/search"
LANES_PATH = f"{PATH}/lanes/search"


class CapacityApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def search_carriers(
        self, search: CarrierSearch | None = None
    ) -> list[CarrierPerformance]:
        """The carriers of the tenant's tracked truckloads of the past 365 days that pass the
        filters, in the order asked (by shipment volume, largest first, by default)."""
        response = await self._client.request(
            "POST", CARRIERS_PATH, json=(search or CarrierSearch()).wire(), idempotent=True
        )
        return parse(CarrierPerformances, response).carrier_performances

    async def search_lanes(self, search: LaneSearch) -> list[CarrierLanePerformance]:
        """Like `search_carriers`, counting only the shipments between the two lane ends."""
        response = await self._client.request(
            "POST", LANES_PATH, json=_lane_body(search), idempotent=True
        )
        return parse(CarrierLanePerformances, response).carrier_lane_performances


def _lane_body(search: LaneSearch) -> dict[str, Any]:
    body = search.wire()
    # A lane end is an Address, whose country defaults to US; an end that names no country
    # matches any country, so only the parts the caller gave are sent.
    body["origin"] = search.origin.wire(exclude_unset=True)
    body["destination"] = search.destination.wire(exclude_unset=True)
    return body
