"""Available vehicles: truckload capacity of the co-op near a place, in a time range."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from freightdesk.models.common import PaginationInfo
from freightdesk.models.vehicles import (
    DEFAULT_SIZE,
    MAX_PAGE,
    MAX_SIZE,
    AvailableVehicles,
    AvailableVehiclesQuery,
    VehicleSortField,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import SessionDep
from freightdesk.server.domain import vehicles as domain
from freightdesk.server.openapi import ERRORS
from freightdesk.server.strict import strict_body

router = APIRouter(prefix="/api/v4/tl/available-vehicles", tags=["Available vehicles"])


@router.post(
    "/query",
    responses=ERRORS,
    response_model_exclude_none=True,
    dependencies=[Depends(strict_body(AvailableVehiclesQuery))],
)
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
    by_contact = any(key.field is VehicleSortField.CARRIER_CONTACT for key in keys)
    found = domain.search(
        session, principal.tenant_id, body, pools, centre, radius_m, with_contacts=by_contact
    )
    domain.sort_candidates(found, keys)
    start = (page - 1) * size
    shown = domain.page_rows(session, found[start : start + size])
    return AvailableVehicles(
        pagination_info=PaginationInfo(page_number=page, page_size=size, total=len(found)),
        results=[domain.view(c, row, principal.tenant_id, unit) for c, row in shown],
    )
