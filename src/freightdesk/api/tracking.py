"""Shipment tracking: tracked shipments, their histories, attributes, and the search extension."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from uuid import UUID

import httpx
from pydantic import BaseModel, ValidationError

from freightdesk.api.errors import ProtocolError
from freightdesk.api.parsing import parse, parse_as
from freightdesk.models.common import PaginationInfo
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
PUBLIC_PATH = "/api/v4/public/shipments"


@dataclass(frozen=True)
class Conditional(Generic[M]):
    """The answer of a conditional GET: `value` is None when nothing changed (304)."""

    value: M | None
    etag: str | None

    @property
    def changed(self) -> bool:
        return self.value is not None


class SearchPage:
    """One answer of the search extension, validated on demand."""

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        try:
            self.body: dict[str, Any] = json.loads(response.content)
            pagination = PaginationInfo.model_validate(self.body["paginationInfo"])
            items = self.body.get("results")
            if not isinstance(items, list):
                raise ValueError("results is not a list")
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            raise ProtocolError(
                f"POST {SEARCH_PATH} answered an unexpected body ({exc})",
                status=response.status_code,
                body=response.content,
            ) from exc
        self.pagination = pagination
        self.items: list[Any] = items

    @property
    def server_time(self) -> datetime | None:
        """The service's clock when it answered: the local service's precise x-server-time,
        else the Date header (whole seconds), if any."""
        precise = self._response.headers.get("x-server-time")
        if precise:
            try:
                return datetime.fromisoformat(precise)
            except ValueError:
                pass
        value = self._response.headers.get("date")
        if not value:
            return None
        try:
            return parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None

    def summaries(self, start: int = 0, stop: int | None = None) -> list[ShipmentSummary]:
        """Validate results[start:stop]."""
        try:
            return [ShipmentSummary.model_validate(item) for item in self.items[start:stop]]
        except ValidationError as exc:
            raise ProtocolError(
                f"POST {SEARCH_PATH} answered an unexpected summary ({exc.errors()[0]['msg']})",
                status=self._response.status_code,
                body=self._response.content,
            ) from exc

    def removed_ids(self) -> list[str]:
        return [str(value) for value in self.body.get("removedIds") or []]

    @property
    def change_token(self) -> str | None:
        """The search extension's token for the next sync (asked for with changesSince)."""
        token = self.body.get("changeToken")
        return token if isinstance(token, str) else None

    @property
    def next_page_token(self) -> str | None:
        """The search extension's keyset cursor for the next page (asked for with pageToken;
        absent on the last page)."""
        token = self.body.get("nextPageToken")
        return token if isinstance(token, str) and token else None

    def result(self) -> ShipmentSearchResult:
        return parse(ShipmentSearchResult, self._response)


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

    async def unshare(self, shipment_id: UUID | str, tenant_uuid: UUID | str) -> None:
        """Extension: the tenant may no longer read the shipment (204; 404 when it could not)."""
        await self._client.request("DELETE", f"{SHIPMENTS}/{shipment_id}/shares/{tenant_uuid}")

    async def public_shipment(self, share_token: str) -> TrackedShipment:
        """Extension: the shipment behind a public link (`shipmentShareLink` ends with its
        token), read without credentials as whoever has the link reads it; 404 when the
        link no longer shows a shipment."""
        response = await self._client.request("GET", f"{PUBLIC_PATH}/{share_token}", anonymous=True)
        return parse(TrackedShipment, response)

    async def search_page(
        self, request: ShipmentSearchRequest, *, page: int = 1, page_size: int = 500
    ) -> ShipmentSearchResult:
        """Extension: one page of shipment summaries (a read, so it is retried safely)."""
        return (await self.search_page_stream(request, page=page, page_size=page_size)).result()

    async def search_page_stream(
        self, request: ShipmentSearchRequest, *, page: int = 1, page_size: int = 500
    ) -> SearchPage:
        """Like `search_page`, for callers that validate the summaries in slices (to keep a
        GUI's event loop responsive) and want the server's clock for their next sync."""
        response = await self._client.request(
            "POST",
            SEARCH_PATH,
            json=request.wire(),
            params={"page": page, "pageSize": page_size},
            idempotent=True,
        )
        # Parsed in a worker thread: a page of 500 summaries is half a megabyte of JSON, which
        # held a GUI's event loop for 5 to 20 ms at a time during a first full sync.
        return await asyncio.to_thread(SearchPage, response)

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
