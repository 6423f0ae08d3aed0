"""Rating: create a rate request, read it with its quotes, cancel it; and, as an extension,
list the tenant's rate requests.

Quotes arrive in the background from the simulated carriers (`domain/rating_quotes.py`).
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from freightdesk.models.common import PageNumber
from freightdesk.models.rating import (
    MAX_PAGE_SIZE,
    RateRequest,
    RateRequestCancellation,
    RateRequestCreate,
    RateRequestList,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain import rating_quotes
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.strict import strict_body

router = APIRouter(prefix="/services/rating/v1/rate-requests", tags=["Rating"])

StrictRateRequest = Annotated[None, Depends(strict_body(RateRequestCreate))]


@router.post("", responses=ERRORS, response_model=RateRequest)
def create_rate_request(
    body: RateRequestCreate,
    _strict: StrictRateRequest,
    principal: PrincipalDep,
    context: ContextDep,
) -> JSONResponse:
    """Ask carriers for quotes; the request starts QUOTES_REQUESTED and quotes arrive later."""
    now = utcnow()
    with transaction(context.sessions) as session:
        row = rating_quotes.create_rate_request(session, principal.tenant_id, body, now)
        answer = rating_quotes.view(session, row, now)
    return JSONResponse(answer)


@router.get("", responses=ERRORS, response_model=RateRequestList, openapi_extra=EXTENSION)
def list_rate_requests(
    principal: PrincipalDep,
    session: SessionDep,
    page_number: Annotated[PageNumber, Query(alias="pageNumber")] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=MAX_PAGE_SIZE)] = 20,
) -> JSONResponse:
    """The tenant's rate requests with their quotes, newest first (the interface reads them
    only one by one, so a client could not show requests made elsewhere)."""
    page = rating_quotes.list_requests(
        session, principal.tenant_id, page_number, page_size, utcnow()
    )
    return JSONResponse(page)


@router.get("/{id}", responses=ERRORS, response_model=RateRequest)
def get_rate_request(id: UUID, principal: PrincipalDep, session: SessionDep) -> JSONResponse:
    row = rating_quotes.owned_request(session, principal.tenant_id, id)
    return JSONResponse(rating_quotes.view(session, row, utcnow()))


@router.post("/{id}/cancellations", responses=ERRORS, response_model_exclude_none=True)
def cancel_rate_request(
    id: UUID, principal: PrincipalDep, context: ContextDep
) -> RateRequestCancellation:
    """Cancel the request and its booking in progress.

    200 again when already cancelled; 409 when a carrier accepted a booking; 403 when the
    tenant's rateRequestCancellation feature is off.
    """
    with transaction(context.sessions) as session:
        return rating_quotes.cancel_rate_request(session, principal.tenant_id, id, utcnow())
