"""Yard appointment slots: the free dock-door slots of a site in a time window; and, as an
extension, the tenant's sites (list, add, remove)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from sqlalchemy.exc import IntegrityError

from freightdesk.models.yard import SlotAnswer, SlotQuery, YardSite, YardSiteInput, YardSiteList
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction
from freightdesk.server.domain import yard
from freightdesk.server.openapi import ERRORS, EXTENSION

router = APIRouter(prefix="/services/appointments/v1", tags=["Yard appointments"])


@router.post("/slots", responses=ERRORS, response_model_exclude_none=True)
def appointment_slots(body: SlotQuery, principal: PrincipalDep, session: SessionDep) -> SlotAnswer:
    return yard.available_slots(session, principal.tenant_id, body)


@router.get("/sites", responses=ERRORS, openapi_extra=EXTENSION)
def list_yard_sites(principal: PrincipalDep, session: SessionDep) -> YardSiteList:
    return yard.list_sites(session, principal.tenant_id)


@router.post("/sites", status_code=201, responses=ERRORS, openapi_extra=EXTENSION)
def add_yard_site(body: YardSiteInput, principal: PrincipalDep, context: ContextDep) -> YardSite:
    try:
        with transaction(context.sessions) as session:
            return yard.create_site(session, principal.tenant_id, body)
    except IntegrityError:  # a concurrent add of the same code won the race
        raise yard.duplicate_site(body.code) from None


@router.delete("/sites/{siteCode}", status_code=204, responses=ERRORS, openapi_extra=EXTENSION)
def remove_yard_site(
    code: Annotated[str, Path(alias="siteCode", max_length=40)],
    principal: PrincipalDep,
    context: ContextDep,
) -> None:
    with transaction(context.sessions) as session:
        yard.remove_site(session, principal.tenant_id, code)
