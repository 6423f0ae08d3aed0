"""Available truckload vehicles near a place, for tenants in a capacity co-op.

The query is a POST that only reads, so it is safe to send again after a dropped connection.
A tenant outside any co-op is refused with 403, raised as its own error so that a caller can
explain it (an administrator opts the tenant in) rather than show a generic refusal.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from freightdesk.api.errors import PermissionDenied
from freightdesk.api.parsing import parse
from freightdesk.models.vehicles import (
    DEFAULT_SIZE,
    MAX_PAGE,
    MAX_SIZE,
    AvailableVehicle,
    AvailableVehicles,
    AvailableVehiclesQuery,
    VehicleSort,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/tl/available-vehicles/query"


class CapacityCoopRequired(PermissionDenied):
    """403: available vehicles are for tenants that opted into a capacity co-op."""


class VehiclesApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def page(
        self,
        query: AvailableVehiclesQuery,
        *,
        page: int = 1,
        size: int = DEFAULT_SIZE,
        sort: Sequence[VehicleSort] = (),
    ) -> AvailableVehicles:
        """One page of the vehicles in the radius and time range (nearest first by default).

        Raises CapacityCoopRequired when the tenant is not in a capacity co-op.
        """
        try:
            response = await self._client.request(
                "POST",
                PATH,
                json=query.wire(),
                params={"page": page, "size": size, "sort": [key.param() for key in sort] or None},
                idempotent=True,
            )
        except PermissionDenied as exc:
            raise CapacityCoopRequired(exc.status, exc.body, exc.headers) from exc
        return parse(AvailableVehicles, response)

    async def search(
        self,
        query: AvailableVehiclesQuery,
        *,
        size: int = MAX_SIZE,
        sort: Sequence[VehicleSort] = (),
    ) -> AsyncIterator[AvailableVehicle]:
        """Every vehicle of the query, page by page (the interface serves pages 1 to 1000)."""
        number = 1
        while True:
            result = await self.page(query, page=number, size=size, sort=sort)
            for vehicle in result.results:
                yield vehicle
            done = number * size >= result.pagination_info.total or not result.results
            if done or number >= MAX_PAGE:
                return
            number += 1
