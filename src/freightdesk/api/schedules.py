"""Ocean point-to-point sailing schedules: the live carriers, and the sailings between two
ports in a departure and/or arrival window, page by page."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from freightdesk.api.parsing import parse
from freightdesk.models.schedules import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    OceanCarrier,
    OceanCarriers,
    PointToPointRoute,
    PointToPointRoutes,
    ScheduleSort,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/services/advanced-sailing-schedules/v1"
CARRIERS_PATH = f"{PATH}/carriers"
ROUTES_PATH = f"{PATH}/point-to-point-routes"


@dataclass(frozen=True)
class ScheduleSearch:
    """The sailings asked for: two ports (UN/LOCODEs) and at least one complete window.

    Dates are inclusive, in the local time of the origin port (departure) or the destination
    port (arrival); the two ends of a window go together. Both windows combine with AND. An
    incomplete or impossible search is refused by the service, which names the parameter.
    """

    origin: str
    destination: str
    departure_start_date: date | None = None
    departure_end_date: date | None = None
    arrival_start_date: date | None = None
    arrival_end_date: date | None = None
    carrier_codes: tuple[str, ...] = ()
    transshipments_max: int | None = None
    sort: ScheduleSort = ScheduleSort.DEPARTURE_DATE_TIME

    def params(self) -> dict[str, Any]:
        """The query parameters (wire names) of what is set."""
        return {
            "origin": self.origin,
            "destination": self.destination,
            "departureStartDate": _day(self.departure_start_date),
            "departureEndDate": _day(self.departure_end_date),
            "arrivalStartDate": _day(self.arrival_start_date),
            "arrivalEndDate": _day(self.arrival_end_date),
            # One comma-separated value: the interface keeps only the last of repeated ones.
            "carrierCodes": ",".join(self.carrier_codes) if self.carrier_codes else None,
            "transshipmentsMax": self.transshipments_max,
            "sort": self.sort.value,
        }


def _day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


class SchedulesApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def carriers(self) -> list[OceanCarrier]:
        """The ocean carriers whose schedules are live."""
        response = await self._client.request("GET", CARRIERS_PATH)
        return parse(OceanCarriers, response).carriers

    async def routes_page(
        self, search: ScheduleSearch, *, page_number: int = 1, page_size: int = DEFAULT_PAGE_SIZE
    ) -> PointToPointRoutes:
        """One page of the sailings, in the order `search.sort` asks (all ascending)."""
        params = search.params()
        params.update(pageNumber=page_number, pageSize=page_size)
        response = await self._client.request("GET", ROUTES_PATH, params=params)
        return parse(PointToPointRoutes, response)

    async def routes(
        self, search: ScheduleSearch, *, page_size: int = MAX_PAGE_SIZE
    ) -> AsyncIterator[PointToPointRoute]:
        """Every sailing of the search, page by page."""
        number = 1
        while True:
            result = await self.routes_page(search, page_number=number, page_size=page_size)
            for route in result.results:
                yield route
            if number * page_size >= result.pagination_info.total or not result.results:
                return
            number += 1
