"""Push configurations (webhooks): list, create or replace, read, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from freightdesk.models.webhooks import (
    INT64_MAX,
    INT64_MIN,
    PushConfiguration,
    PushConfigurationInput,
    PushConfigurationList,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction
from freightdesk.server.errors import not_found
from freightdesk.server.openapi import ERRORS
from freightdesk.server.tables.webhooks import WebhookConfigRow
from freightdesk.server.webhooks import configs

router = APIRouter(prefix="/api/v4/webhooks", tags=["Push configurations (webhooks)"])

WebhookId = Annotated[int, Path(alias="webhookId", ge=INT64_MIN, le=INT64_MAX)]


@router.get("", responses=ERRORS, response_model_exclude_none=True)
def list_webhooks(principal: PrincipalDep, session: SessionDep) -> PushConfigurationList:
    rows = session.scalars(
        select(WebhookConfigRow)
        .where(WebhookConfigRow.tenant_id == principal.tenant_id)
        .order_by(WebhookConfigRow.id)
    )
    return PushConfigurationList(webhook_endpoints=[configs.view(row) for row in rows])


@router.put("", responses=ERRORS, response_model_exclude_none=True)
def put_webhook(
    body: PushConfigurationInput, principal: PrincipalDep, context: ContextDep
) -> PushConfiguration:
    """Creates the configuration when `id` is absent, else replaces the one with that `id`.

    Secret parameters are answered masked; sending the mask back keeps the stored secret. The
    answer to a create carries `signingSecret` (extension), shown only this once.
    """
    try:
        with transaction(context.sessions) as session:
            row, secret = configs.save(session, principal.tenant_id, body)
            return configs.view(row, signing_secret=secret)
    except IntegrityError:  # a concurrent PUT took the same name
        raise configs.duplicate_name(body.config_name) from None


@router.get("/name/{webhookName}", responses=ERRORS, response_model_exclude_none=True)
def get_webhook_by_name(
    webhook_name: Annotated[str, Path(alias="webhookName")],
    principal: PrincipalDep,
    session: SessionDep,
) -> PushConfiguration:
    row = session.scalar(
        select(WebhookConfigRow).where(
            WebhookConfigRow.tenant_id == principal.tenant_id,
            WebhookConfigRow.config_name == webhook_name,
        )
    )
    if row is None:
        raise not_found(f"Push configuration {webhook_name!r}")
    return configs.view(row)


@router.get("/{webhookId}", responses=ERRORS, response_model_exclude_none=True)
def get_webhook(
    webhook_id: WebhookId, principal: PrincipalDep, session: SessionDep
) -> PushConfiguration:
    return configs.view(configs.owned(session, principal.tenant_id, webhook_id))


@router.delete("/{webhookId}", responses=ERRORS)
def delete_webhook(webhook_id: WebhookId, principal: PrincipalDep, context: ContextDep) -> None:
    """Deletes the configuration and every message still waiting for it; answers 200."""
    with transaction(context.sessions) as session:
        session.delete(configs.owned(session, principal.tenant_id, webhook_id))
