"""Volume LTL: rate quotes (the v2 and v3 operations behave the same) and dispatch.

The rules, units, pricing and dispatch are the domain's (`server/domain/vltl/`); this router
reads the requests (the `user` query object flattened into query parameters) and answers.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import AwareDatetime

from freightdesk.models.common import Int64
from freightdesk.models.vltl import (
    DispatchedShipment,
    DispatchRequest,
    RateQuoteList,
    TenantPurpose,
    VltlQuoteRequest,
    VltlUser,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain.vltl import dispatch, quoting, rules
from freightdesk.server.openapi import ERRORS
from freightdesk.server.principal import Principal
from freightdesk.server.strict import strict_body

router = APIRouter(tags=["Volume LTL"])

StrictQuote = Annotated[None, Depends(strict_body(VltlQuoteRequest))]
StrictDispatch = Annotated[None, Depends(strict_body(DispatchRequest))]


def _user(
    account_non_expired: Annotated[bool | None, Query(alias="accountNonExpired")] = None,
    account_non_locked: Annotated[bool | None, Query(alias="accountNonLocked")] = None,
    credentials_non_expired: Annotated[bool | None, Query(alias="credentialsNonExpired")] = None,
    enabled: Annotated[bool | None, Query()] = None,
    id: Annotated[Int64 | None, Query()] = None,
    locale: Annotated[str | None, Query(max_length=35)] = None,
    registration_date: Annotated[AwareDatetime | None, Query(alias="registrationDate")] = None,
    tenant_id: Annotated[Int64 | None, Query(alias="tenantId")] = None,
    tenant_uuid: Annotated[uuid.UUID | None, Query(alias="tenantUuid")] = None,
    tenant_purpose: Annotated[TenantPurpose | None, Query(alias="tenantPurpose")] = None,
    username: Annotated[str | None, Query(max_length=200)] = None,
) -> VltlUser:
    """The `user` object of the query, flattened into query parameters."""
    return VltlUser(
        account_non_expired=account_non_expired,
        account_non_locked=account_non_locked,
        credentials_non_expired=credentials_non_expired,
        enabled=enabled,
        id=id,
        locale=locale,
        registration_date=registration_date,
        tenant_id=tenant_id,
        tenant_uuid=tenant_uuid,
        tenant_purpose=tenant_purpose,
        username=username,
    )


UserDep = Annotated[VltlUser, Depends(_user)]


def _rate_query(
    body: VltlQuoteRequest, user: VltlUser, principal: Principal, context: ServiceContext
) -> RateQuoteList:
    rules.check_user(user, principal.tenant_id, principal.tenant_uuid)
    with transaction(context.sessions) as session:
        return quoting.quote_rates(session, principal.tenant_id, body, utcnow())


@router.post("/api/v2/vltl/quotes/rates/query", responses=ERRORS, response_model_exclude_none=True)
def query_rates_v2(
    body: VltlQuoteRequest,
    _strict: StrictQuote,
    user: UserDep,
    principal: PrincipalDep,
    context: ContextDep,
) -> RateQuoteList:
    """Volume LTL rate quotes from every carrier of the account group (v2 path)."""
    return _rate_query(body, user, principal, context)


@router.post(
    "/api/v3/vltl/shipments/rates/query", responses=ERRORS, response_model_exclude_none=True
)
def query_rates_v3(
    body: VltlQuoteRequest,
    _strict: StrictQuote,
    user: UserDep,
    principal: PrincipalDep,
    context: ContextDep,
) -> RateQuoteList:
    """Volume LTL rate quotes from every carrier of the account group (v3 path)."""
    return _rate_query(body, user, principal, context)


@router.post("/api/v4/vltl/dispatchedshipments", responses=ERRORS, response_model_exclude_none=True)
def dispatch_shipment(
    body: DispatchRequest, _strict: StrictDispatch, principal: PrincipalDep, context: ContextDep
) -> DispatchedShipment:
    """Dispatch to the carrier account; the answer names the tracked shipment it created."""
    with transaction(context.sessions) as session:
        return dispatch.dispatch(session, principal.tenant_id, body, utcnow())
