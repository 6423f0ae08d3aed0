"""Connected capacity: carriers and carriers on a lane, by tracking performance."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from freightdesk.models.capacity import (
    CarrierLanePerformances,
    CarrierPerformances,
    CarrierSearch,
    LaneSearch,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.domain import capacity_stats
from freightdesk.server.openapi import ERRORS
from freightdesk.server.strict import strict_body

router = APIRouter(prefix="/api/v4/tl/connected-capacity", tags=["Connected capacity"])


@router.post(
    "/carriers/search",
    responses=ERRORS,
    response_model_exclude_none=True,
    dependencies=[Depends(strict_body(CarrierSearch))],
)
def search_carriers(
    principal: PrincipalDep,
    session: SessionDep,
    context: ContextDep,
    body: CarrierSearch | None = None,
) -> CarrierPerformances:
    # Every filter is optional, so an empty request ranks every carrier.
    search = body or CarrierSearch()
    cache = capacity_stats.facts_cache(context)
    found = capacity_stats.carrier_performances(session, cache, principal.tenant_id, search)
    return CarrierPerformances(carrier_performances=found)


@router.post(
    "/lanes/search",
    responses=ERRORS,
    response_model_exclude_none=True,
    dependencies=[Depends(strict_body(LaneSearch))],
)
def search_lanes(
    body: LaneSearch, principal: PrincipalDep, session: SessionDep, context: ContextDep
) -> CarrierLanePerformances:
    cache = capacity_stats.facts_cache(context)
    found = capacity_stats.lane_performances(session, cache, principal.tenant_id, body)
    return CarrierLanePerformances(carrier_lane_performances=found)
