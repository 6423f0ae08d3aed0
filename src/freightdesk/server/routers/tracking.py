"""Shipment tracking: the interface's tracking operations plus our search and sharing.

Interface: attributes, event and position history, tracking (GET, DELETE 202), tracking
history, PUT tracking (201 with Location on create, 200 on replace; both answer the tracked
shipment as GET tracking does). Extensions: POST /api/v4/shipments/search, sharing with
another tenant, and the public read-only view behind `shipmentShareLink`.
"""

from __future__ import annotations

import json
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.common import PageNumber
from freightdesk.models.shipment_search import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    ShipmentSearchRequest,
    ShipmentSearchResult,
)
from freightdesk.models.tracking import (
    EventHistory,
    PositionHistory,
    ShareRequest,
    SharingContext,
    ShipmentAttribute,
    TrackedShipment,
    TrackedShipmentInput,
    TrackingHistory,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep, context_of, on_loop_when_cheap
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.shipment_search import search_json
from freightdesk.server.domain.tracking_reads import (
    Viewer,
    attributes_of,
    costs_of,
    events_of,
    exceptions_of,
    positions_of,
    public_shipment,
    sharing_context,
    shipment_view,
    states_of,
    viewer_of,
)
from freightdesk.server.errors import field_error, not_found
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.principal import Principal
from freightdesk.server.strict import strict_body
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment

router = APIRouter(tags=["Shipment tracking"])

SHIPMENT = "/api/v4/shipments/{shipmentId}"
ShipmentId = Annotated[UUID, Path(alias="shipmentId")]
IncludeRoute = Annotated[bool, Query(alias="includeRouteInfo")]


def _json(model: BaseModel, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    # Serialized straight from the model: the route's response_model documents the shape
    # without a second validation pass over large histories.
    body = model.model_dump_json(by_alias=True, exclude_none=True)
    return Response(body, status_code=status, headers=headers, media_type="application/json")


def _base(request: Request) -> str:
    # The public URL when there is one: behind a load balancer the request's own base is
    # an instance's address, and links must not depend on which instance answered.
    public: str | None = request.app.state.context.settings.public_url
    return public or str(request.base_url)


@router.get(
    f"{SHIPMENT}/attributes",
    responses=ERRORS,
    response_model=list[ShipmentAttribute],
    summary="Custom attributes of a shipment",
)
def get_attributes(
    shipment_id: ShipmentId, principal: PrincipalDep, session: SessionDep
) -> Response:
    row = store.visible_shipment(session, principal.tenant_id, str(shipment_id)).row
    items = attributes_of(row, viewer_of(session, principal, row))
    body = json.dumps([item.wire() for item in items], separators=(",", ":"))
    return Response(body, media_type="application/json")


@router.get(
    f"{SHIPMENT}/eventhistory",
    responses=ERRORS,
    response_model=EventHistory,
    response_model_exclude_none=True,
    summary="Events, exceptions, states and costs of a shipment",
)
def get_event_history(
    shipment_id: ShipmentId,
    principal: PrincipalDep,
    session: SessionDep,
    request: Request,
    include_route_info: IncludeRoute = False,
) -> Response:
    row = store.visible_shipment(session, principal.tenant_id, str(shipment_id)).row
    viewer = viewer_of(session, principal, row)
    history = EventHistory(
        costs=costs_of(row),
        events=events_of(session, row),
        exceptions=exceptions_of(session, row),
        shipment=shipment_view(
            row,
            base_url=_base(request),
            viewer=viewer,
            include_route=include_route_info,
            include_costs=False,
        ),
        states=states_of(session, row),
        sharing_context=sharing_context(session, row, viewer),
    )
    return _json(history)


@router.get(
    f"{SHIPMENT}/positionhistory",
    responses=ERRORS,
    response_model=PositionHistory,
    response_model_exclude_none=True,
    summary="Reported positions of a shipment (ascending, down-sampled beyond a limit)",
)
def get_position_history(
    shipment_id: ShipmentId,
    principal: PrincipalDep,
    context: ContextDep,
    session: SessionDep,
    request: Request,
    include_route_info: IncludeRoute = False,
) -> Response:
    row = store.visible_shipment(session, principal.tenant_id, str(shipment_id)).row
    viewer = viewer_of(session, principal, row)
    history = PositionHistory(
        positions=positions_of(session, row, context.settings.max_positions_returned),
        shipment=shipment_view(
            row,
            base_url=_base(request),
            viewer=viewer,
            include_route=include_route_info,
            include_costs=False,
        ),
    )
    return _json(history)


@router.get(
    f"{SHIPMENT}/tracking",
    responses=ERRORS,
    response_model=TrackedShipment,
    response_model_exclude_none=True,
    summary="A tracked shipment with its stops, route segments and events",
)
def get_tracking(
    shipment_id: ShipmentId,
    principal: PrincipalDep,
    session: SessionDep,
    request: Request,
) -> Response:
    row = store.visible_shipment(session, principal.tenant_id, str(shipment_id)).row
    return _json(_tracked(session, principal, row, _base(request)))


def _tracked(session: Session, principal: Principal, row: Shipment, base: str) -> TrackedShipment:
    return shipment_view(
        row,
        base_url=base,
        viewer=viewer_of(session, principal, row),
        events=events_of(session, row),
    )


@router.delete(
    f"{SHIPMENT}/tracking",
    status_code=202,
    responses=ERRORS,
    summary="Stop tracking a shipment and delete its record",
    response_class=Response,
)
def delete_tracking(
    shipment_id: ShipmentId, principal: PrincipalDep, context: ContextDep
) -> Response:
    with transaction(context.sessions) as session:
        # A shipment shared with the caller answers 404 (interface rule 1).
        store.delete_shipment(session, principal.tenant_id, str(shipment_id))
    return Response(status_code=202)


@router.get(
    f"{SHIPMENT}/tracking/history",
    responses=ERRORS,
    response_model=TrackingHistory,
    response_model_exclude_none=True,
    summary="The whole history of a shipment: events, positions, states, exceptions, costs",
)
def get_tracking_history(
    shipment_id: ShipmentId,
    principal: PrincipalDep,
    context: ContextDep,
    session: SessionDep,
    request: Request,
) -> Response:
    row = store.visible_shipment(session, principal.tenant_id, str(shipment_id)).row
    viewer = viewer_of(session, principal, row)
    history = TrackingHistory(
        costs=costs_of(row),
        events=events_of(session, row),
        exceptions=exceptions_of(session, row),
        positions=positions_of(session, row, context.settings.max_positions_returned),
        shipment=shipment_view(row, base_url=_base(request), viewer=viewer, include_costs=False),
        states=states_of(session, row),
        sharing_context=sharing_context(session, row, viewer),
    )
    return _json(history)


@router.put(
    "/api/v4/shipments/tracking",
    responses={
        **ERRORS,
        201: {"model": TrackedShipment, "description": "Created; Location names it"},
    },
    response_model=TrackedShipment,
    response_model_exclude_none=True,
    dependencies=[Depends(strict_body(TrackedShipmentInput))],
    summary="Create a tracked shipment (no id) or replace its user-provided data (id)",
)
def put_tracking(
    body: TrackedShipmentInput, principal: PrincipalDep, context: ContextDep, request: Request
) -> Response:
    with transaction(context.sessions) as session:
        if body.id is None:
            shipment_id = store.create_shipment(session, principal.tenant_id, body)
            status = 201
        else:
            # An unknown id (or one shared with the caller) is 404: PUT never creates a
            # shipment under an id the caller chose.
            shipment_id = str(body.id)
            store.replace_shipment(session, principal.tenant_id, shipment_id, body)
            status = 200
        session.flush()
        row = store.owned_shipment(session, principal.tenant_id, shipment_id)
        view = _tracked(session, principal, row, _base(request))
    headers = {"Location": f"/api/v4/shipments/{shipment_id}/tracking"} if status == 201 else None
    return _json(view, status, headers)


# --- extensions ----------------------------------------------------------------------------


@router.post(
    "/api/v4/shipments/search",
    responses=ERRORS,
    response_model=ShipmentSearchResult,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
    dependencies=[Depends(strict_body(ShipmentSearchRequest))],
    summary="Browse tracked shipments (own and shared) with filters, sort and paging",
)
async def search(
    body: ShipmentSearchRequest,
    principal: PrincipalDep,
    session: SessionDep,
    request: Request,
    page: Annotated[PageNumber, Query()] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=MAX_PAGE_SIZE)] = DEFAULT_PAGE_SIZE,
) -> Response:
    # On SQLite a search's indexed reads cost less than the hop to the thread pool and back
    # (issue 18); a server database's round trips go to the pool.
    answer = await on_loop_when_cheap(
        lambda: search_json(session, principal.tenant_id, body, page, page_size),
        reads=context_of(request).engine,
    )
    return Response(answer, media_type="application/json")


@router.post(
    f"{SHIPMENT}/shares",
    responses={**ERRORS, 201: {"model": SharingContext, "description": "Shared"}},
    response_model=SharingContext,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
    dependencies=[Depends(strict_body(ShareRequest))],
    summary="Share a shipment with another tenant (201; 200 when it already was)",
)
def share(
    shipment_id: ShipmentId,
    body: ShareRequest,
    principal: PrincipalDep,
    context: ContextDep,
) -> Response:
    with transaction(context.sessions) as session:
        recipient = _tenant_by_uuid(session, body.tenant_uuid)
        created = store.share_shipment(session, principal.tenant_id, str(shipment_id), recipient.id)
        session.flush()
        row = store.owned_shipment(session, principal.tenant_id, str(shipment_id))
        view = sharing_context(session, row, Viewer(principal.tenant_id))
    return _json(view, 201 if created else 200)


@router.delete(
    f"{SHIPMENT}/shares/{{tenantUuid}}",
    status_code=204,
    responses=ERRORS,
    openapi_extra=EXTENSION,
    response_class=Response,
    summary="Stop sharing a shipment with a tenant",
)
def unshare(
    shipment_id: ShipmentId,
    tenant_uuid: Annotated[UUID, Path(alias="tenantUuid")],
    principal: PrincipalDep,
    context: ContextDep,
) -> Response:
    with transaction(context.sessions) as session:
        tenant = session.scalar(select(Tenant).where(Tenant.uuid == str(tenant_uuid)))
        if tenant is None:
            raise not_found(f"A share of shipment {shipment_id} with tenant {tenant_uuid}")
        store.unshare_shipment(session, principal.tenant_id, str(shipment_id), tenant.id)
    return Response(status_code=204)


def _tenant_by_uuid(session: Session, tenant_uuid: UUID) -> Tenant:
    tenant = session.scalar(select(Tenant).where(Tenant.uuid == str(tenant_uuid)))
    if tenant is None:
        raise field_error("tenantUuid", "no tenant has this uuid")
    return tenant


@router.get(
    "/api/v4/public/shipments/{shareToken}",
    responses=ERRORS,
    response_model=TrackedShipment,
    response_model_exclude_none=True,
    openapi_extra={**EXTENSION, "security": []},
    summary="The public read-only view behind a shipment's shipmentShareLink (no credentials)",
)
def public_view(
    share_token: Annotated[str, Path(alias="shareToken", max_length=64)],
    session: SessionDep,
    request: Request,
) -> Response:
    return _json(public_shipment(session, share_token, _base(request)))
