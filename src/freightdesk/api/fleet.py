"""The fleet's latest positions: the local service's extension for maps of many shipments."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from freightdesk.api.parsing import parse_as
from freightdesk.models.tracking import MAX_LATEST_POSITION_IDS, LatestPosition

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

LATEST_PATH = "/api/v4/shipments/positions/latest"


class FleetApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def latest_positions(
        self, shipment_ids: Iterable[UUID | str] | None = None, since: datetime | None = None
    ) -> list[LatestPosition]:
        """The latest position of each visible shipment (of those listed, if any) reported
        after `since`. More than 5,000 ids are asked for in several requests."""
        if shipment_ids is None:
            return await self._page({}, since)
        ids = [str(i) for i in shipment_ids]
        found: list[LatestPosition] = []
        for start in range(0, len(ids), MAX_LATEST_POSITION_IDS):
            found.extend(
                await self._page(
                    {"shipmentIds": ids[start : start + MAX_LATEST_POSITION_IDS]}, since
                )
            )
        return found

    async def _page(self, body: dict[str, Any], since: datetime | None) -> list[LatestPosition]:
        if since is not None:
            body["since"] = since.isoformat()
        # A read, so it is safe to repeat after a dropped connection.
        response = await self._client.request("POST", LATEST_PATH, json=body, idempotent=True)
        return parse_as(list[LatestPosition], response)

    async def has_latest_positions(self) -> bool:
        return await self._client.has_extension("POST", LATEST_PATH)
