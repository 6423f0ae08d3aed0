"""Available vehicles: truckload capacity of the co-op near a place, in a time range."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from freightdesk.models.common import PaginationInfo
from freightdesk.models.vehicles import (
    DEFAULT_SIZE,
    MAX_PAGE,
    MAX_SIZE,
    AvailableVehicles,
    AvailableVehiclesQuery,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import SessionDep
from freightdesk.server.domain import vehicles as domain
from freightdesk.server.openapi import ERRORS

router = APIRouter(prefix="/api/v4/tl/available-vehicles", tags=["Available vehicles"])


@router.post("/query", responses=ERRORS, response_model_exclude_none=True)
def query_available_vehicles(
    body: AvailableVehiclesQuery,
    principal: PrincipalDep,
    session: SessionDep,
    page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
    size: Annotated[int, Query(ge=1, le=MAX_SIZE)] = DEFAULT_SIZE,
    sort: Annotated[
        list[str] | None,
        Query(
            description="distance, carrierContact, estimatedArrivalDateTime or truckType, "
            "optionally followed by ,asc or ,desc; repeat for more keys"
        ),
    ] = None,
) -> AvailableVehicles:
    pools = domain.pools_to_search(
        domain.coop_pools(session, principal.tenant_id), body.sharing_pool
    )
    keys = domain.parse_sort(sort)
    radius_m, unit = domain.radius_metres(body)
    centre = domain.centre_of(body)
    found = domain.search(session, principal.tenant_id, body, pools, centre, radius_m)
    domain.sort_candidates(found, keys)
    start = (page - 1) * size
    return AvailableVehicles(
        pagination_info=PaginationInfo(page_number=page, page_size=size, total=len(found)),
        results=[domain.view(c, principal.tenant_id, unit) for c in found[start : start + size]],
    )
