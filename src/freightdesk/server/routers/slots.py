"""Yard appointment slots: the free dock-door slots of a site in a time window."""

from __future__ import annotations

from fastapi import APIRouter

from freightdesk.models.yard import SlotAnswer, SlotQuery
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import SessionDep
from freightdesk.server.domain import yard
from freightdesk.server.openapi import ERRORS

router = APIRouter(prefix="/services/appointments/v1", tags=["Yard appointments"])


@router.post("/slots", responses=ERRORS, response_model_exclude_none=True)
def appointment_slots(body: SlotQuery, principal: PrincipalDep, session: SessionDep) -> SlotAnswer:
    return yard.available_slots(session, principal.tenant_id, body)
