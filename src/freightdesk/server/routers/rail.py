"""Rail tracking: start tracking a leg, read equipment statuses, stop tracking."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from freightdesk.models.common import PageNumber, PaginationInfo
from freightdesk.models.rail import (
    MAX_PAGE_SIZE,
    InfoMessage,
    MessageSeverity,
    RailShipmentCreate,
    RailShipmentIdentifierType,
    RailShipmentList,
    RailShipmentResponse,
    RailStatusResponse,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction
from freightdesk.server.domain import rail as domain
from freightdesk.server.errors import field_error, not_found
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.strict import strict_body
from freightdesk.server.tables.rail import RailLegRow

router = APIRouter(prefix="/api/v4/rail/shipments", tags=["Rail tracking"])

LegIdPath = Annotated[
    str, Path(alias="id", description="railLegId (or the deprecated numeric id)", max_length=64)
]
HistoryQuery = Annotated[bool, Query(alias="includeStatusHistory")]


def _answer(
    row: RailLegRow, include_history: bool, messages: list[InfoMessage]
) -> RailStatusResponse:
    statuses, status_messages = domain.statuses(row, include_history=include_history)
    return RailStatusResponse(
        equipment_statuses=statuses,
        info_messages=messages + status_messages,
        shipment=domain.shipment_view(row),
    )


@router.post(
    "",
    responses=ERRORS,
    response_model_exclude_none=True,
    dependencies=[Depends(strict_body(RailShipmentCreate))],
)
def create_rail_shipment(
    body: RailShipmentCreate, principal: PrincipalDep, context: ContextDep
) -> RailShipmentResponse:
    with transaction(context.sessions) as session:
        row, messages = domain.create_leg(session, principal.tenant_id, body)
        return RailShipmentResponse(info_messages=messages, shipment=domain.shipment_view(row))


@router.get(
    "",
    responses=ERRORS,
    response_model=RailShipmentList,
    response_model_exclude_none=True,
    openapi_extra=EXTENSION,
)
def list_rail_shipments(
    principal: PrincipalDep,
    session: SessionDep,
    page_number: Annotated[PageNumber, Query(alias="pageNumber")] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=MAX_PAGE_SIZE)] = 20,
    include_history: HistoryQuery = False,
) -> RailShipmentList:
    """The tenant's rail legs with their equipment statuses, newest first (the interface reads
    legs only one by one, so a client could not show legs started elsewhere)."""
    rows, total = domain.list_legs(session, principal.tenant_id, page_number, page_size)
    return RailShipmentList(
        pagination_info=PaginationInfo(page_number=page_number, page_size=page_size, total=total),
        results=[_answer(row, include_history, []) for row in rows],
    )


@router.get("/statuses", responses=ERRORS, response_model_exclude_none=True)
def rail_statuses_by_identifier(
    principal: PrincipalDep,
    session: SessionDep,
    identifier_type: Annotated[
        RailShipmentIdentifierType | None, Query(alias="shipmentIdentifier.type")
    ] = None,
    identifier_value: Annotated[
        str | None, Query(alias="shipmentIdentifier.value", max_length=50)
    ] = None,
    include_history: HistoryQuery = False,
) -> RailStatusResponse:
    if identifier_type is None:
        raise field_error("shipmentIdentifier.type", "is required (BILL_OF_LADING or WAYBILL)")
    if identifier_value is None or not identifier_value.strip():
        raise field_error("shipmentIdentifier.value", "is required")
    value = identifier_value.strip()
    legs = domain.legs_by_identifier(session, principal.tenant_id, identifier_type.value, value)
    if not legs:
        raise not_found(f"A rail shipment with {identifier_type.value} {value!r}")
    messages: list[InfoMessage] = []
    if len(legs) > 1:
        messages.append(
            InfoMessage(
                severity=MessageSeverity.INFO,
                message=f"{len(legs)} legs carry {identifier_type.value} {value!r}; the most "
                f"recently created one is shown. Ask by railLegId for another: "
                + ", ".join(leg.rail_leg_id for leg in legs[1:]),
            )
        )
    return _answer(legs[0], include_history, messages)


@router.get("/{id}/statuses", responses=ERRORS, response_model_exclude_none=True)
def rail_statuses(
    leg_id: LegIdPath,
    principal: PrincipalDep,
    session: SessionDep,
    include_history: HistoryQuery = False,
) -> RailStatusResponse:
    row = domain.find_leg(session, principal.tenant_id, leg_id)
    if row is None:
        raise not_found(f"Rail shipment {leg_id}")
    return _answer(row, include_history, [])


@router.delete("/{id}", responses=ERRORS)
def delete_rail_shipment(leg_id: LegIdPath, principal: PrincipalDep, context: ContextDep) -> None:
    with transaction(context.sessions) as session:
        row = domain.find_leg(session, principal.tenant_id, leg_id)
        if row is None:
            raise not_found(f"Rail shipment {leg_id}")
        session.delete(row)
