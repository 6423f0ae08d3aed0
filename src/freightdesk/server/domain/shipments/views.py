"""Read-side converters: stored rows as the wire shows them (journal payloads, reads in
`tracking_reads.py`, webhook context)."""

from __future__ import annotations

import uuid
from typing import Any

from freightdesk.models.common import LogisticsIdentifier
from freightdesk.models.tracking import (
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentState,
)
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentExceptionRow,
    ShipmentState,
)


def state_wire(state: ShipmentState) -> dict[str, Any]:
    return state_view(state).wire()


def state_view(state: ShipmentState) -> TrackedShipmentState:
    return TrackedShipmentState(
        id=uuid.UUID(state.id),
        type=ShipmentStateType(state.type),
        start_date_time=state.start_at,
        end_date_time=state.end_at,
        stop_id=uuid.UUID(state.stop_id) if state.stop_id else None,
    )


def exception_wire(row: ShipmentExceptionRow) -> dict[str, Any]:
    return exception_view(row).wire()


def exception_view(row: ShipmentExceptionRow) -> ShipmentException:
    return ShipmentException.model_validate(
        {
            "id": row.id,
            "type": row.type,
            "status": row.status,
            "severity": row.severity,
            "description": row.description,
            "stopId": row.stop_id,
            "createdDateTime": row.created_at,
            "resolvedDateTime": row.resolved_at,
            "lastModifiedDateTime": row.last_modified_at,
        }
    )


def shipment_context(row: Shipment) -> dict[str, Any]:
    """The shipment part of a webhook message's context (interface, Events, rule 1), without
    `shipmentShareLink`, which needs the service's base URL (see `share_link`)."""
    return {
        "shipmentId": row.id,
        "identifiers": row.data.get("identifiers", []),
        "attributes": row.data.get("attributes", []),
        "createdDateTime": row.created_at.isoformat(),
        "lastModifiedDateTime": row.last_modified_at.isoformat(),
    }


def share_link(base_url: str, row: Shipment) -> str:
    """The public read-only link of a shipment (served by the tracking router)."""
    return f"{base_url.rstrip('/')}/api/v4/public/shipments/{row.share_token}"


def identifiers_of(row: Shipment) -> list[LogisticsIdentifier]:
    return [LogisticsIdentifier.model_validate(item) for item in row.data.get("identifiers", [])]
