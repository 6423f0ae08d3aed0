"""Shipment tracking: tracked shipments, their histories, attributes, and the search extension."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar
from uuid import UUID

from pydantic import BaseModel

from freightdesk.api.parsing import parse, parse_as
from freightdesk.models.shipment_search import (
    ShipmentSearchRequest,
    ShipmentSearchResult,
    ShipmentSummary,
)
from freightdesk.models.tracking import (
    EventHistory,
    PositionHistory,
    ShareRequest,
    SharingContext,
    ShipmentAttribute,
    TrackedShipment,
    TrackedShipmentInput,
    TrackingHistory,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

M = TypeVar("M", bound=BaseModel)

SHIPMENTS = "/api/v4/shipments"
SEARCH_PATH = "/api/v4/shipments/search"


@dataclass(frozen=True)
class Conditional(Generic[M]):
    """The answer of a conditional GET: `value` is None when nothing changed (304)."""

    value: M | None
    etag: str | None

    @property
    def changed(self) -> bool:
        return self.value is not None


class TrackingApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def get(self, shipment_id: UUID | str) -> TrackedShipment:
        response = await self._client.request("GET", f"{SHIPMENTS}/{shipment_id}/tracking")
        return parse(TrackedShipment, response)

    async def put(self, shipment: TrackedShipmentInput) -> TrackedShipment:
        """Create (no `id`) or fully replace the user-provided data (with `id`)."""
        response = await self._client.request(
            "PUT",
            f"{SHIPMENTS}/tracking",
            json=shipment.wire(exclude_unset=False),
            # Without an id the PUT creates: repeating it blindly could create twice.
            idempotent=shipment.id is not None,
        )
        return parse(TrackedShipment, response)

    async def delete(self, shipment_id: UUID | str) -> None:
        """Stop tracking and remove the shipment (202)."""
        await self._client.request("DELETE", f"{SHIPMENTS}/{shipment_id}/tracking")

    async def history(self, shipment_id: UUID | str) -> TrackingHistory:
        response = await self._client.request("GET", f"{SHIPMENTS}/{shipment_id}/tracking/history")
        return parse(TrackingHistory, response)

    async def history_if_changed(
        self, shipment_id: UUID | str, etag: str | None
    ) -> Conditional[TrackingHistory]:
        """The history, or nothing when it is unchanged since `etag` (cheap polling)."""
        return await self._conditional(
            f"{SHIPMENTS}/{shipment_id}/tracking/history", TrackingHistory, etag
        )

    async def event_history(
        self, shipment_id: UUID | str, *, include_route_info: bool = False
    ) -> EventHistory:
        response = await self._client.request(
            "GET",
            f"{SHIPMENTS}/{shipment_id}/eventhistory",
            params={"includeRouteInfo": include_route_info},
        )
        return parse(EventHistory, response)

    async def position_history(
        self, shipment_id: UUID | str, *, include_route_info: bool = False
    ) -> PositionHistory:
        response = await self._client.request(
            "GET",
            f"{SHIPMENTS}/{shipment_id}/positionhistory",
            params={"includeRouteInfo": include_route_info},
        )
        return parse(PositionHistory, response)

    async def attributes(self, shipment_id: UUID | str) -> list[ShipmentAttribute]:
        response = await self._client.request("GET", f"{SHIPMENTS}/{shipment_id}/attributes")
        return parse_as(list[ShipmentAttribute], response)

    async def share(self, shipment_id: UUID | str, tenant_uuid: UUID) -> SharingContext:
        """Extension: let another tenant read the shipment."""
        response = await self._client.request(
            "POST",
            f"{SHIPMENTS}/{shipment_id}/shares",
            json=ShareRequest(tenant_uuid=tenant_uuid).wire(),
            idempotent=True,
        )
        return parse(SharingContext, response)

    async def search_page(
        self, request: ShipmentSearchRequest, *, page: int = 1, page_size: int = 500
    ) -> ShipmentSearchResult:
        """Extension: one page of shipment summaries (a read, so it is retried safely)."""
        response = await self._client.request(
            "POST",
            SEARCH_PATH,
            json=request.wire(),
            params={"page": page, "pageSize": page_size},
            idempotent=True,
        )
        return parse(ShipmentSearchResult, response)

    async def search(
        self, request: ShipmentSearchRequest, *, page_size: int = 500
    ) -> AsyncIterator[ShipmentSummary]:
        """Extension: every matching summary, page by page."""
        page = 1
        while True:
            result = await self.search_page(request, page=page, page_size=page_size)
            for summary in result.results:
                yield summary
            if page * page_size >= result.pagination_info.total or not result.results:
                return
            page += 1

    async def has_search(self) -> bool:
        return await self._client.has_extension("POST", SEARCH_PATH)

    async def _conditional(self, path: str, model: type[M], etag: str | None) -> Conditional[M]:
        headers = {"If-None-Match": etag} if etag else None
        response = await self._client.request("GET", path, headers=headers, ok_statuses=(304,))
        if response.status_code == 304:
            return Conditional(None, etag)
        return Conditional(parse(model, response), response.headers.get("etag"))
