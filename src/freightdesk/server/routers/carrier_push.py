"""Carrier push: parcel status updates, truckload tracking updates, ingestion receipts.

The two push operations are `async` (unlike most routes) because they are the hot path of the
service (a thousand pushes a second): after validation they hand the payload to the
group-commit queue and await the commit that makes it durable, without holding a thread-pool
thread while they wait. For the same reason they resolve the caller without the two thread-pool
hops that the usual `PrincipalDep` (a plain `def` dependency on `ContextDep`) costs.
"""

from __future__ import annotations

import json
import random
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRoute
from sqlalchemy import select
from starlette.routing import BaseRoute, Match
from starlette.types import Message, Receive, Scope, Send

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
    ingestion_id = _new_id()
    await ingestion_queue(context).accept(_row(principal, target, kind, body, ingestion_id, now))
    return IngestionAccepted(ingestion_id=ingestion_id)


def _new_id() -> str:
    return str(uuid.UUID(int=_IDS.getrandbits(128), version=4))


def _row(
    principal: Principal,
    target: int,
    kind: str,
    body: ParcelStatusUpdate | TruckloadTrackingUpdate,
    ingestion_id: str,
    now: Any,
) -> dict[str, Any]:
    return {
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


class _TruckloadFastPath(BaseRoute):
    """The truckload push's usual case without FastAPI's request machinery (issue 18).

    Placed before the declared route (which stays for the OpenAPI document and for every
    other case): a JSON body that validates, a bearer token and a target tenant known without
    the database are accepted here, with the same validation (the body model on the parsed
    JSON, as FastAPI does it), the same group commit and the same 202 body. Anything else
    (a bad body, other credentials, a clock or tenant problem) is handed, body and all, to
    the declared route, so every Error body and status is the one it has always answered.
    Dependency resolution, the request/response objects and the response model's
    serialization were about half of a push's CPU on the event loop.
    """

    def __init__(self, declared: APIRoute) -> None:
        self.declared = declared
        self.path = declared.path

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and scope["path"] == self.path and scope["method"] == "POST":
            return Match.FULL, {}
        return Match.NONE, {}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        accepted = self._usual(scope, body)
        if accepted is None:
            await self.declared.handle(scope, _replay(body, receive), send)
            return
        context, principal, target, update, now = accepted
        ingestion_id = _new_id()
        # A 503 (not stored) is raised to the app's error handlers, as from the declared route.
        await ingestion_queue(context).accept(
            _row(principal, target, TRUCKLOAD, update, ingestion_id, now)
        )
        answer = b'{"ingestionId":"' + ingestion_id.encode() + b'"}'
        await send(
            {
                "type": "http.response.start",
                "status": 202,
                "headers": [
                    (b"content-length", str(len(answer)).encode()),
                    (b"content-type", b"application/json"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": answer})

    def _usual(
        self, scope: Scope, body: bytes
    ) -> tuple[ServiceContext, Principal, int, TruckloadTrackingUpdate, Any] | None:
        """What the push needs when it is the usual case, else None (the declared route)."""
        headers = dict(scope["headers"])
        if headers.get(b"authorization", b"")[:7].lower() != b"bearer ":
            return None
        if not headers.get(b"content-type", b"").startswith(b"application/json"):
            return None
        context: ServiceContext = scope["app"].state.context
        try:
            update = TruckloadTrackingUpdate.model_validate(json.loads(body))
            principal = require_principal(Request(scope), Response(), context)
            now = utcnow()
            check_clock(update, now)
        except Exception:  # the declared route answers it as it always has
            return None
        target = tenant_directory(context).cached_target(principal, update.customer_account_number)
        if target is None:
            return None
        return context, principal, target, update, now


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _install_fast_path() -> None:
    for index, route in enumerate(router.routes):
        if isinstance(route, APIRoute) and route.endpoint is push_truckload_update:
            router.routes.insert(index, _TruckloadFastPath(route))
            return
    raise AssertionError("the truckload push route is not declared")


_install_fast_path()
