"""Stop locations: list (paged, searchable), create, read, replace (PUT) and delete.

The interface shows list, create and read; replace and delete are our extensions (marked in
the OpenAPI document) because the app edits and removes locations. See docs/spec-gaps.md.
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from freightdesk.models.common import Int64
from freightdesk.models.stop_locations import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    StopLocation,
    StopLocationInput,
    StopLocationList,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction
from freightdesk.server.domain.stop_locations import (
    create_stop_location,
    current_version,
    delete_stop_location,
    get_stop_location,
    list_stop_locations,
    stale_version,
    supplied_id_taken,
    update_stop_location,
)
from freightdesk.server.errors import ApiError, not_found
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.strict import strict_body

router = APIRouter(prefix="/api/v4/stoplocations", tags=["Stop locations"])

# Tries of a write that lost a race to a concurrent save of the same location.
_ATTEMPTS = 3

LocationId = Annotated[UUID, Path(alias="id", description="The stop location's id (uuid)")]


@router.get("", responses=ERRORS, response_model_exclude_none=True)
def list_locations(
    principal: PrincipalDep,
    session: SessionDep,
    offset: Annotated[Int64, Query(ge=0, description="Items to skip")] = 0,
    page_size: Annotated[
        int,
        Query(
            alias="pageSize",
            ge=1,
            le=MAX_PAGE_SIZE,
            description=f"Items per page, 1 to {MAX_PAGE_SIZE}",
        ),
    ] = DEFAULT_PAGE_SIZE,
    q: Annotated[
        str | None,
        Query(
            max_length=200,
            description=(
                "Extension (not in the interface): case-insensitive substring of the name, "
                "suppliedId, city or postal code"
            ),
        ),
    ] = None,
) -> StopLocationList:
    """The tenant's stop locations ordered by name, then id."""
    return list_stop_locations(
        session, principal.tenant_id, offset=offset, page_size=page_size, query=q
    )


@router.post(
    "",
    responses=ERRORS,
    response_model_exclude_none=True,
    dependencies=[Depends(strict_body(StopLocationInput))],
)
def create_location(
    body: StopLocationInput, principal: PrincipalDep, context: ContextDep
) -> StopLocation:
    """Create a stop location; `id` must be absent or null. Answers 200 with version 1."""
    try:
        with transaction(context.sessions) as session:
            return create_stop_location(session, principal.tenant_id, body)
    except IntegrityError:  # a concurrent create with the same suppliedId won the race
        raise _supplied_id_race(body) from None


@router.get("/{id}", responses=ERRORS, response_model_exclude_none=True)
def get_location(
    location_id: LocationId, principal: PrincipalDep, session: SessionDep
) -> StopLocation:
    """The latest saved version of a stop location."""
    return get_stop_location(session, principal.tenant_id, location_id)


@router.put(
    "/{id}",
    responses=ERRORS,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
    dependencies=[Depends(strict_body(StopLocationInput))],
)
def replace_location(
    location_id: LocationId,
    body: StopLocationInput,
    principal: PrincipalDep,
    context: ContextDep,
) -> StopLocation:
    """Replace a stop location. With `version`, only if that is still the current version
    (409 otherwise, naming the current one). Answers the location with version + 1."""
    for _attempt in range(_ATTEMPTS):
        try:
            with transaction(context.sessions) as session:
                return update_stop_location(session, principal.tenant_id, location_id, body)
        except StaleDataError:  # another save committed between our read and our write
            if body.version is None:
                continue  # the caller asked for last-write-wins: apply it on the new version
            with context.sessions() as session:
                now = current_version(session, principal.tenant_id, location_id)
            if now is None:
                raise not_found(f"Stop location {location_id}") from None
            raise stale_version(location_id, body.version, now) from None
        except IntegrityError:
            raise _supplied_id_race(body) from None
    raise _busy(location_id)


@router.delete("/{id}", status_code=204, responses=ERRORS, openapi_extra=EXTENSION)
def delete_location(location_id: LocationId, principal: PrincipalDep, context: ContextDep) -> None:
    """Delete a stop location: 204, and 404 for it from then on."""
    for _attempt in range(_ATTEMPTS):
        try:
            with transaction(context.sessions) as session:
                delete_stop_location(session, principal.tenant_id, location_id)
            return
        except StaleDataError:  # saved or deleted meanwhile: look again
            continue
    raise _busy(location_id)


def _busy(location_id: UUID) -> ApiError:
    return ApiError(
        409,
        f"Stop location {location_id} is being changed by others right now; try again",
    )


def _supplied_id_race(body: StopLocationInput) -> ApiError:
    supplied = body.supplied_id.strip() if body.supplied_id else None
    return supplied_id_taken(supplied)
