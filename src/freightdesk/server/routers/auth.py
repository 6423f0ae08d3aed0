"""OAuth 2.0 client applications (Customer Admin, HTTP Basic) and token generation."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Form, Request
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from freightdesk.models.auth import (
    CallerTenant,
    ClientApplication,
    ClientApplicationCreate,
    ClientApplicationList,
    ClientApplicationWithSecret,
    TokenResponse,
)
from freightdesk.models.errors import ErrorDetail
from freightdesk.server.auth import (
    AdminDep,
    PrincipalDep,
    parse_basic,
    throttled,
    token_store,
)
from freightdesk.server.context import ContextDep, ServiceContext, SessionDep
from freightdesk.server.db import transaction
from freightdesk.server.domain.tenants import check_client, create_client_app, rotate_secret
from freightdesk.server.errors import ApiError, not_found
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.tables.tenancy import ClientApp

router = APIRouter(prefix="/api/v4/oauth2", tags=["Authentication"])


def _view(app: ClientApp, context: ServiceContext) -> ClientApplication:
    domain = context.settings.client_applications_domain
    return ClientApplication(
        id=app.id,
        name=app.name,
        machine_user=f"app-{app.id}@{domain}",
        created_date_time=app.created_at,
    )


def _owned(session: SessionDep, admin: AdminDep, client_id: str) -> ClientApp:
    app = session.get(ClientApp, client_id)
    if app is None or app.tenant_id != admin.tenant_id:
        raise not_found(f"Client application {client_id}")
    return app


@router.get("/client-applications", responses=ERRORS)
def list_client_applications(
    admin: AdminDep, session: SessionDep, context: ContextDep
) -> ClientApplicationList:
    apps = session.scalars(
        select(ClientApp)
        .where(ClientApp.tenant_id == admin.tenant_id)
        .order_by(ClientApp.created_at)
    )
    return ClientApplicationList(client_applications=[_view(a, context) for a in apps])


@router.post("/client-applications", status_code=201, responses=ERRORS)
def create_client_application(
    body: ClientApplicationCreate, admin: AdminDep, context: ContextDep
) -> ClientApplicationWithSecret:
    with transaction(context.sessions) as session:
        app, secret = create_client_app(session, admin.tenant_id, body.name.strip())
        view = _view(app, context)
    return ClientApplicationWithSecret(**view.model_dump(), secret=secret)


@router.get("/client-applications/{client_id}", responses=ERRORS)
def get_client_application(
    client_id: str, admin: AdminDep, session: SessionDep, context: ContextDep
) -> ClientApplication:
    return _view(_owned(session, admin, client_id), context)


@router.delete("/client-applications/{client_id}", status_code=204, responses=ERRORS)
def delete_client_application(client_id: str, admin: AdminDep, context: ContextDep) -> None:
    with transaction(context.sessions) as session:
        session.delete(_owned(session, admin, client_id))
    token_store(context).forget_client(client_id)


@router.post("/client-applications/{client_id}/new-secret", responses=ERRORS)
def new_client_secret(
    client_id: str, admin: AdminDep, context: ContextDep
) -> ClientApplicationWithSecret:
    with transaction(context.sessions) as session:
        app = _owned(session, admin, client_id)
        secret = rotate_secret(session, app)
        view = _view(app, context)
    token_store(context).forget_client(client_id)
    return ClientApplicationWithSecret(**view.model_dump(), secret=secret)


@router.get(
    "/tenant",
    responses=ERRORS,
    response_model=CallerTenant,
    openapi_extra=EXTENSION,
    summary="The tenant the caller acts for: its uuid is what a partner shares shipments with",
)
def get_caller_tenant(principal: PrincipalDep) -> CallerTenant:
    return CallerTenant(tenant_uuid=UUID(principal.tenant_uuid), tenant_name=principal.tenant_name)


@router.post(
    "/token",
    responses=ERRORS,
    openapi_extra={"security": [{"basic": []}, {}]},
)
async def issue_token(
    request: Request,
    context: ContextDep,
    grant_type: Annotated[str | None, Form()] = None,
    client_id: Annotated[str | None, Form()] = None,
    client_secret: Annotated[str | None, Form()] = None,
) -> TokenResponse:
    """Exchange a client id and secret (form body or HTTP Basic, never both) for a token."""
    if grant_type != "client_credentials":
        raise ApiError(
            400,
            "grant_type must be client_credentials",
            errors=[ErrorDetail(message="unsupported_grant_type", source="grant_type")],
        )
    basic = parse_basic(request.headers.get("authorization", ""))
    in_body = client_id is not None or client_secret is not None
    if basic is not None and in_body:
        raise ApiError(
            400,
            "Send the client credentials either in the body or in HTTP Basic, never both",
            errors=[ErrorDetail(message="invalid_request", source="client_id")],
        )
    if basic is not None:
        client_id, client_secret = basic
    if not client_id or not client_secret:
        raise ApiError(
            401,
            "client_id and client_secret are required",
            errors=[ErrorDetail(message="invalid_client", source="client_id")],
            headers={"WWW-Authenticate": 'Basic realm="freightdesk"'},
        )

    def issue(cid: str, secret: str) -> TokenResponse:
        with transaction(context.sessions) as session:
            app = throttled(request, "client", cid, lambda: check_client(session, cid, secret))
            token, lifetime = token_store(context).issue(session, app)
        return TokenResponse(access_token=token, token_type="Bearer", expires_in=lifetime)

    return await run_in_threadpool(issue, client_id, client_secret)
