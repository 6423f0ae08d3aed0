"""Stop locations: paged list (with the `q` search extension), create, read, replace, delete."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING
from uuid import UUID

from freightdesk.api.parsing import parse
from freightdesk.models.stop_locations import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    StopLocation,
    StopLocationInput,
    StopLocationList,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/stoplocations"
ITEM_PATH = f"{PATH}/{{id}}"


class StopLocationsApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def page(
        self, *, offset: int = 0, page_size: int = DEFAULT_PAGE_SIZE, query: str | None = None
    ) -> StopLocationList:
        """One page ordered by name. `query` uses the local service's `q` extension (a
        case-insensitive substring of name, suppliedId, city or postal code)."""
        response = await self._client.request(
            "GET",
            PATH,
            params={"offset": offset, "pageSize": page_size, "q": query or None},
        )
        return parse(StopLocationList, response)

    async def list(
        self, *, page_size: int = MAX_PAGE_SIZE, query: str | None = None
    ) -> AsyncIterator[StopLocation]:
        """Every location (matching `query`), page by page."""
        offset = 0
        while True:
            result = await self.page(offset=offset, page_size=page_size, query=query)
            for location in result.locations:
                yield location
            offset += len(result.locations)
            if offset >= result.total_items or not result.locations:
                return

    async def create(self, location: StopLocationInput) -> StopLocation:
        """Create (answers version 1); a POST, so never repeated blindly."""
        response = await self._client.request("POST", PATH, json=_body(location))
        return parse(StopLocation, response)

    async def get(self, location_id: UUID | str) -> StopLocation:
        response = await self._client.request("GET", f"{PATH}/{location_id}")
        return parse(StopLocation, response)

    async def update(self, location_id: UUID | str, location: StopLocationInput) -> StopLocation:
        """Replace (extension). With `version`, the service refuses with 409 when someone
        saved a newer version meanwhile."""
        response = await self._client.request(
            "PUT",
            f"{PATH}/{location_id}",
            json=_body(location),
            # A repeated PUT of the same version would be refused as stale after the first
            # one succeeded, so only a last-write-wins PUT is safe to send again.
            idempotent=location.version is None,
        )
        return parse(StopLocation, response)

    async def delete(self, location_id: UUID | str) -> None:
        """Delete (extension; answers 204)."""
        await self._client.request("DELETE", f"{PATH}/{location_id}")

    async def has_update(self) -> bool:
        return await self._client.has_extension("PUT", ITEM_PATH)

    async def has_delete(self) -> bool:
        return await self._client.has_extension("DELETE", ITEM_PATH)


def _body(location: StopLocationInput) -> dict[str, object]:
    body = location.wire(exclude_none=True)
    # Computed by the service, which ignores it on input; no need to send it.
    body.pop("addressSpecificity", None)
    return body
