"""The fleet's latest positions (extension): the route of `domain/latest_positions.py`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Response

from freightdesk.models.tracking import LatestPosition, LatestPositionsRequest
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import SessionDep
from freightdesk.server.domain.latest_positions import latest_positions_json
from freightdesk.server.openapi import ERRORS, EXTENSION

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
    answer = latest_positions_json(session, principal.tenant_id, body or LatestPositionsRequest())
    return Response(answer, media_type="application/json")
