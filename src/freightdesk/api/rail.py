"""North American rail tracking: start tracking a leg, read its equipment statuses (by leg or
by bill of lading or waybill), stop tracking it.

Advice that does not stop tracking (a container number whose check digit is wrong, a stop that
cannot be located, a linked master shipment) comes back in `info_messages`; refusals are typed
errors with the Error body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote
from uuid import UUID

from freightdesk.api.parsing import parse
from freightdesk.models.rail import (
    RailShipmentCreate,
    RailShipmentIdentifier,
    RailShipmentList,
    RailShipmentResponse,
    RailStatusResponse,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/rail/shipments"
STATUSES_PATH = f"{PATH}/statuses"

# A leg is named by its railLegId, or by the deprecated numeric id.
LegId = UUID | int | str


def _leg(leg_id: LegId) -> str:
    return quote(str(leg_id), safe="")


class RailApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def create(self, shipment: RailShipmentCreate) -> RailShipmentResponse:
        """Start tracking one piece of equipment; the answer names the leg (`railLegId`) and
        its master shipment, given or generated.

        Safe to repeat: the service answers the same request with the leg it already created
        (and an INFO message saying so) instead of tracking the equipment twice.
        """
        response = await self._client.request("POST", PATH, json=shipment.wire(), idempotent=True)
        return parse(RailShipmentResponse, response)

    async def page(
        self, page_number: int = 1, page_size: int = 20, *, include_status_history: bool = False
    ) -> RailShipmentList:
        """A page of the tenant's legs with their statuses, newest first (an extension of the
        local service: a service without it answers 404 or 405)."""
        response = await self._client.request(
            "GET",
            PATH,
            params={
                "pageNumber": page_number,
                "pageSize": page_size,
                "includeStatusHistory": include_status_history,
            },
        )
        return parse(RailShipmentList, response)

    async def statuses(
        self, leg_id: LegId, *, include_status_history: bool = False
    ) -> RailStatusResponse:
        """Where the equipment of the leg is; with the history, every status so far."""
        response = await self._client.request(
            "GET",
            f"{PATH}/{_leg(leg_id)}/statuses",
            params={"includeStatusHistory": include_status_history},
        )
        return parse(RailStatusResponse, response)

    async def statuses_by_identifier(
        self, identifier: RailShipmentIdentifier, *, include_status_history: bool = False
    ) -> RailStatusResponse:
        """Like `statuses`, for the leg carrying a bill of lading or waybill. When several
        legs carry it, the newest is answered and an INFO message names the others."""
        response = await self._client.request(
            "GET",
            STATUSES_PATH,
            params={
                "shipmentIdentifier.type": identifier.type.value,
                "shipmentIdentifier.value": identifier.value,
                "includeStatusHistory": include_status_history,
            },
        )
        return parse(RailStatusResponse, response)

    async def delete(self, leg_id: LegId) -> None:
        """Stop tracking the leg (NotFound once it is gone)."""
        await self._client.request("DELETE", f"{PATH}/{_leg(leg_id)}")
