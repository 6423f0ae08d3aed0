"""Push configurations (webhooks): list, create or replace, read, delete; and the operators'
extensions: delivery log, redelivery, test ping, signing secret rotation."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool

from freightdesk.models.common import Int64
from freightdesk.models.webhooks import (
    DeliveryList,
    DeliveryStatus,
    PingResult,
    PushConfiguration,
    PushConfigurationInput,
    PushConfigurationList,
    Redelivery,
    SigningSecret,
)
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction
from freightdesk.server.errors import not_found
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.tables.webhooks import WebhookConfigRow
from freightdesk.server.webhooks import configs, operations, secret_box, tuning
from freightdesk.server.webhooks.delivery import BASE_URL_KEY
from freightdesk.server.webhooks.outbox import Endpoint
from freightdesk.server.webhooks.sender import Sender
from freightdesk.server.webhooks.targets import TargetPolicy

router = APIRouter(prefix="/api/v4/webhooks", tags=["Push configurations (webhooks)"])

WebhookId = Annotated[Int64, Path(alias="webhookId")]


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
    body: PushConfigurationInput, principal: PrincipalDep, context: ContextDep, request: Request
) -> PushConfiguration:
    """Creates the configuration when `id` is absent, else replaces the one with that `id`.

    Secret parameters are answered masked; sending the mask back keeps the stored secret. The
    answer to a create carries `signingSecret` (extension), shown only this once.
    """
    # Where this tenant reaches the service: the base of shipmentShareLink in messages of a
    # service that knows neither its public URL nor where it listens (webhooks.delivery).
    context.services[BASE_URL_KEY] = str(request.base_url)
    configs.check_targets(TargetPolicy.of(context.settings), body)
    try:
        with transaction(context.sessions) as session:
            row, secret = configs.save(session, principal.tenant_id, body, secret_box.box(context))
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
        configs.delete(session, principal.tenant_id, webhook_id)


# --- operators' extensions -------------------------------------------------------------------

MessageId = Annotated[Int64, Path(alias="messageId")]

# The extensions live under `/id/{webhookId}`, like the interface's `/name/{webhookName}`: at
# `/{webhookId}/...` they were ambiguous with it (`/name/deliveries` fits both). The former
# paths still answer, outside the document (FORMER), for clients written against them.
FORMER: dict[str, Any] = {"include_in_schema": False, "response_model_exclude_none": True}


@router.get(
    "/id/{webhookId}/deliveries",
    responses=ERRORS,
    openapi_extra=EXTENSION,
    response_model_exclude_none=True,
)
@router.get("/{webhookId}/deliveries", **FORMER)
def list_deliveries(
    webhook_id: WebhookId,
    principal: PrincipalDep,
    session: SessionDep,
    status: Annotated[DeliveryStatus | None, Query()] = None,
    offset: Annotated[Int64, Query(ge=0)] = 0,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=200)] = 20,
) -> DeliveryList:
    """The delivery log: messages newest first, each with every attempt (time, HTTP status,
    latency, error). Delivered and failed messages are kept for 7 days."""
    config = configs.owned(session, principal.tenant_id, webhook_id)
    deliveries, total = operations.delivery_log(
        session, config, status=status, offset=offset, page_size=page_size
    )
    return DeliveryList(
        deliveries=deliveries, offset=offset, page_size=page_size, total_items=total
    )


@router.post(
    "/id/{webhookId}/deliveries/{messageId}/redeliver",
    status_code=202,
    responses=ERRORS,
    openapi_extra=EXTENSION,
    response_model_exclude_none=True,
)
@router.post("/{webhookId}/deliveries/{messageId}/redeliver", status_code=202, **FORMER)
def redeliver_message(
    webhook_id: WebhookId, message_id: MessageId, principal: PrincipalDep, context: ContextDep
) -> Redelivery:
    """Queues one message again (same eventId, fresh retry schedule); it keeps its place in
    the order of its shipment. 409 while the configuration is disabled."""
    with transaction(context.sessions) as session:
        config = configs.owned(session, principal.tenant_id, webhook_id)
        return operations.redeliver(session, config, message_id)


@router.post(
    "/id/{webhookId}/ping",
    responses=ERRORS,
    openapi_extra=EXTENSION,
    response_model_exclude_none=True,
)
@router.post("/{webhookId}/ping", **FORMER)
async def ping_webhook(
    webhook_id: WebhookId, principal: PrincipalDep, context: ContextDep
) -> PingResult:
    """Sends a signed, authenticated test message (eventType `webhook.ping`) now and answers
    how it went; recorded in the delivery log, never retried. Works on a disabled
    configuration too, to check a fix before enabling it."""

    def prepare() -> tuple[Endpoint, str, str]:
        with context.sessions() as session:
            config = configs.owned(session, principal.tenant_id, webhook_id)
            return operations.new_ping(config, secret_box.box(context))

    # async so the request waits on the event loop, not on a pool thread, while the
    # receiver takes its time; database work still runs in the thread pool.
    endpoint, event_id, body = await run_in_threadpool(prepare)
    sender = Sender(TargetPolicy.of(context.settings))
    try:
        result = await sender.send(endpoint, event_id, body.encode(), tuning.current(context))
    finally:
        await sender.close()

    def store() -> PingResult:
        try:
            with transaction(context.sessions) as session:
                return operations.store_ping(
                    session,
                    endpoint,
                    event_id,
                    body,
                    attempted_at=result.attempted_at,
                    status_code=result.status_code,
                    latency_ms=result.latency_ms,
                    error=result.error,
                    error_detail=result.detail,
                )
        except IntegrityError:  # deleted while the ping was under way
            raise not_found(f"Push configuration {webhook_id}") from None

    return await run_in_threadpool(store)


@router.post(
    "/id/{webhookId}/signing-secret",
    responses=ERRORS,
    openapi_extra=EXTENSION,
    response_model_exclude_none=True,
)
@router.post("/{webhookId}/signing-secret", **FORMER)
def rotate_signing_secret(
    webhook_id: WebhookId, principal: PrincipalDep, context: ContextDep
) -> SigningSecret:
    """A new signing secret, shown only in this answer. For 24 hours deliveries carry two
    signatures, one with the new and one with the previous secret, so receivers can switch
    without losing messages."""
    grace = tuning.current(context).rotated_secret_grace_seconds
    with transaction(context.sessions) as session:
        config = configs.owned(session, principal.tenant_id, webhook_id)
        return operations.rotate_secret(session, config, grace, secret_box.box(context))
