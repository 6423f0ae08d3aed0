"""Carrier push: parcel status updates and truckload tracking updates sent into the service,
and (an extension of the local service) the receipt saying what became of a push.

Both pushes are validated at once and answered 202 once stored; they are applied to the
matching shipments shortly after. A push is never sent again blindly: one that reached the
service twice is recorded twice (its event appears twice in the shipment's history). A push the
service could not store is answered 503 with Retry-After and raised as ServerError, for the
caller to send again when it is sure the first did not land.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from freightdesk.api.parsing import parse
from freightdesk.models.push import (
    Ingestion,
    IngestionAccepted,
    ParcelStatusUpdate,
    TruckloadTrackingUpdate,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PARCEL_PATH = "/api/v4/capacityproviders/parcel/shipments/statusupdates"
TRUCKLOAD_PATH = "/services/carrier-push/v1/tracking-updates"
INGESTIONS_PATH = "/services/carrier-push/v1/ingestions"
INGESTION_PATH = f"{INGESTIONS_PATH}/{{ingestionId}}"

# yyyy-MM-dd'T'HH:mm:ssZ, Java's pattern for the parcel timestamps: whole seconds and an
# offset such as +0000. ISO 8601 as pydantic writes it may carry fractions, which it refuses.
_JAVA_PATTERN = "%Y-%m-%dT%H:%M:%S%z"
_PARCEL_TIMES = {
    "timestamp": "timestamp",
    "estimated_time_of_arrival": "estimatedTimeOfArrival",
}


class CarrierPushApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def parcel_status_update(self, update: ParcelStatusUpdate) -> IngestionAccepted | None:
        """Push one parcel event; answers the receipt, or None from a deployment that gives
        none (the interface promises only the 202 for this operation).

        Its times are sent to the second (fractions are dropped), as the interface's format
        has no fractions.
        """
        response = await self._client.request("POST", PARCEL_PATH, json=_parcel_body(update))
        if not response.content.strip():
            return None
        return parse(IngestionAccepted, response)

    async def truckload_tracking_update(self, update: TruckloadTrackingUpdate) -> IngestionAccepted:
        """Push one shipment event and/or one set of telematics readings of a truckload."""
        response = await self._client.request("POST", TRUCKLOAD_PATH, json=update.wire())
        return parse(IngestionAccepted, response)

    # --- extension -------------------------------------------------------------------------

    async def has_ingestions(self) -> bool:
        """Whether the service offers receipts of pushes (`ingestion`)."""
        return await self._client.has_extension("GET", INGESTION_PATH)

    async def ingestion(self, ingestion_id: str) -> Ingestion:
        """What became of a push of this tenant: PENDING until applied, then PROCESSED (with
        the shipments it matched), UNMATCHED (tried again later) or FAILED (`error` says why)."""
        response = await self._client.request(
            "GET", f"{INGESTIONS_PATH}/{quote(ingestion_id, safe='')}"
        )
        return parse(Ingestion, response)


def _parcel_body(update: ParcelStatusUpdate) -> dict[str, Any]:
    body = update.wire()
    for name, wire_name in _PARCEL_TIMES.items():
        value: datetime | None = getattr(update, name)
        if value is not None:
            body[wire_name] = value.strftime(_JAVA_PATTERN)
    return body
