"""The fleet's latest positions (extension): where each visible shipment was last reported.

The interface gives one shipment's positions at a time; a map of the whole fleet would cost one
request per shipment. This answers every visible shipment's latest fix in one query: each
shipment row names the instant of its latest position (`last_position_at`, kept current by
every write in the same transaction), so the join reads exactly one row per shipment through
the positions table's primary key (shipment_pk, date_time).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Body, Response
from sqlalchemy import and_, or_, select

from freightdesk.models.tracking import LatestPosition, LatestPositionsRequest, SpeedUnit
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import SessionDep
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.tables.tracking import Shipment, ShipmentPosition, ShipmentShare

router = APIRouter(tags=["Fleet"])

PATH = "/api/v4/shipments/positions/latest"


@router.post(
    PATH,
    responses=ERRORS,
    response_model=list[LatestPosition],
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
    summary="The latest reported position of each visible shipment (own and shared)",
)
def latest_positions(
    principal: PrincipalDep,
    session: SessionDep,
    body: Annotated[LatestPositionsRequest | None, Body()] = None,
) -> Response:
    request = body or LatestPositionsRequest()
    shared = select(ShipmentShare.shipment_pk).where(
        ShipmentShare.tenant_id == principal.tenant_id, ShipmentShare.revoked_at.is_(None)
    )
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
        .where(
            Shipment.deleted_at.is_(None),
            or_(Shipment.tenant_id == principal.tenant_id, Shipment.pk.in_(shared)),
        )
        .order_by(Shipment.id)
    )
    if request.shipment_ids is not None:
        if not request.shipment_ids:
            return Response(b"[]", media_type="application/json")
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
    return Response(json.dumps(answer, separators=(",", ":")), media_type="application/json")
