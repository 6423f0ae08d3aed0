"""Carrier push: parcel status updates, truckload tracking updates, ingestion receipts.

The two push operations are `async` (unlike most routes) because they are the hot path of the
service (a thousand pushes a second): after validation they hand the payload to the
group-commit queue and await the commit that makes it durable, without holding a thread-pool
thread while they wait. For the same reason they resolve the caller without the two thread-pool
hops that the usual `PrincipalDep` (a plain `def` dependency on `ContextDep`) costs.
"""

from __future__ import annotations

import random
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import select

from freightdesk.models.errors import ErrorBody
from freightdesk.models.push import (
    Ingestion,
    IngestionAccepted,
    IngestionStatus,
    ParcelStatusUpdate,
    TruckloadTrackingUpdate,
)
from freightdesk.server.auth import PrincipalDep, require_principal
from freightdesk.server.context import ServiceContext, SessionDep, get_context
from freightdesk.server.db import utcnow
from freightdesk.server.domain.push_intake import PARCEL, TRUCKLOAD, ingestion_queue
from freightdesk.server.domain.push_validation import check_clock, tenant_directory
from freightdesk.server.errors import not_found
from freightdesk.server.openapi import ERRORS, EXTENSION
from freightdesk.server.principal import Principal
from freightdesk.server.strict import refuse_unknown_fields
from freightdesk.server.tables.push import PushIngestion

# Ingestion ids from a generator of our own, seeded from the OS: nothing that seeds the global
# `random` (a test framework, a library) can make two pushes share an id.
_IDS = random.Random()

router = APIRouter(tags=["Carrier push"])

_PUSH_ERRORS = {
    **ERRORS,
    503: {"model": ErrorBody, "description": "Could not be stored; send it again (Retry-After)"},
}


async def _push_context(request: Request) -> ServiceContext:
    return await get_context(request)


async def _pusher(
    request: Request, response: Response, context: Annotated[ServiceContext, Depends(_push_context)]
) -> Principal:
    """`require_principal` on the event loop for bearer tokens (resolved from the token
    cache, or by one indexed read the first time a token is seen); the deprecated Basic
    authentication checks a password hash, which is slow, so it runs in the thread pool."""
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return require_principal(request, response, context)
    return await run_in_threadpool(require_principal, request, response, context)


PushContextDep = Annotated[ServiceContext, Depends(_push_context)]
PusherDep = Annotated[Principal, Depends(_pusher)]


async def _strict_parcel(request: Request, _principal: PusherDep) -> None:
    # The update's address, identifiers and contacts are shapes answers share (lenient).
    await refuse_unknown_fields(request, ParcelStatusUpdate)


StrictParcel = Annotated[None, Depends(_strict_parcel)]


async def _accept(
    context: ServiceContext,
    principal: Principal,
    kind: str,
    body: ParcelStatusUpdate | TruckloadTrackingUpdate,
) -> IngestionAccepted:
    now = utcnow()
    check_clock(body, now)
    directory = tenant_directory(context)
    account = body.customer_account_number
    target = directory.cached_target(principal, account)
    if target is None:
        target = await run_in_threadpool(directory.target, principal, account)
    ingestion_id = str(uuid.UUID(int=_IDS.getrandbits(128), version=4))
    row: dict[str, Any] = {
        "ingestion_id": ingestion_id,
        "kind": kind,
        "owner_tenant_id": principal.tenant_id,
        "target_tenant_id": target,
        "payload": body.wire(),
        "status": IngestionStatus.PENDING.value,
        "received_at": now,
        "matched_shipment_ids": [],
        "attempts": 0,
    }
    await ingestion_queue(context).accept(row)
    return IngestionAccepted(ingestion_id=ingestion_id)


@router.post(
    "/api/v4/capacityproviders/parcel/shipments/statusupdates",
    status_code=202,
    responses=_PUSH_ERRORS,
    summary="Push a parcel status update",
)
async def push_parcel_status(
    body: ParcelStatusUpdate, principal: PusherDep, context: PushContextDep, _strict: StrictParcel
) -> IngestionAccepted:
    """Validated at once, stored durably, then applied to the matching shipments."""
    return await _accept(context, principal, PARCEL, body)


@router.post(
    "/services/carrier-push/v1/tracking-updates",
    status_code=202,
    responses=_PUSH_ERRORS,
    summary="Push a truckload tracking update",
)
async def push_truckload_update(
    body: TruckloadTrackingUpdate, principal: PusherDep, context: PushContextDep
) -> IngestionAccepted:
    """Validated at once, stored durably, then applied to the matching shipments."""
    return await _accept(context, principal, TRUCKLOAD, body)


@router.get(
    "/services/carrier-push/v1/ingestions/{ingestionId}",
    responses=ERRORS,
    openapi_extra=EXTENSION,
    summary="What became of a push",
)
def get_ingestion(
    ingestion_id: Annotated[str, Path(alias="ingestionId")],
    principal: PrincipalDep,
    session: SessionDep,
) -> Ingestion:
    """The receipt of a push, for the tenant that pushed it."""
    row = session.scalar(
        select(PushIngestion).where(
            PushIngestion.owner_tenant_id == principal.tenant_id,
            PushIngestion.ingestion_id == ingestion_id.strip().lower(),
        )
    )
    if row is None:
        raise not_found(f"Ingestion {ingestion_id}")
    return Ingestion(
        ingestion_id=row.ingestion_id,
        received_date_time=row.received_at,
        status=IngestionStatus(row.status),
        matched_shipment_ids=list(row.matched_shipment_ids or []),
        processed_date_time=row.processed_at,
        error=row.error,
    )
