"""The fleet's latest positions (extension): where each shipment a tenant sees was last reported.

The interface gives one shipment's positions at a time; a map of the whole fleet would cost one
request per shipment. This answers every visible shipment's latest fix in one query: each
shipment row names the instant of its latest position (`last_position_at`, kept current by
every write in the same transaction), so the join reads exactly one row per shipment through
the positions table's primary key (shipment_pk, date_time).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from freightdesk.models.tracking import LatestPositionsRequest, SpeedUnit
from freightdesk.server.domain.shipments import visible_clause
from freightdesk.server.tables.tracking import Shipment, ShipmentPosition


def latest_positions_json(
    session: Session, tenant_id: int, request: LatestPositionsRequest
) -> bytes:
    """The JSON of `list[LatestPosition]`: the latest fix of each shipment the tenant sees
    (own and shared), or of those of `request.shipment_ids` it sees, in shipment id order."""
    if request.shipment_ids is not None and not request.shipment_ids:
        return b"[]"
    query = (
        select(
            Shipment.id,
            ShipmentPosition.date_time,
            ShipmentPosition.latitude,
            ShipmentPosition.longitude,
            ShipmentPosition.heading,
            ShipmentPosition.speed,
        )
        .join(
            ShipmentPosition,
            and_(
                ShipmentPosition.shipment_pk == Shipment.pk,
                ShipmentPosition.date_time == Shipment.last_position_at,
            ),
        )
        .where(visible_clause(tenant_id))
        .order_by(Shipment.id)
    )
    if request.shipment_ids is not None:
        query = query.where(Shipment.id.in_(sorted({str(i) for i in request.shipment_ids})))
    if request.since is not None:
        query = query.where(Shipment.last_position_at > request.since)
    # Built as plain JSON: 5,000 answers through pydantic models would take most of the time.
    answer = []
    for shipment_id, at, latitude, longitude, heading, speed in session.execute(query):
        item: dict[str, Any] = {
            "shipmentId": shipment_id,
            "dateTime": at.isoformat().replace("+00:00", "Z"),
            "latitude": latitude,
            "longitude": longitude,
        }
        if heading is not None:
            item["heading"] = heading
        if speed is not None:
            item["speed"] = speed
            item["speedUnit"] = SpeedUnit.KILOMETERS_PER_HOUR.value
        answer.append(item)
    return json.dumps(answer, separators=(",", ":")).encode()
