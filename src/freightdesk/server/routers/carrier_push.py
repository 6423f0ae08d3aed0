"""Carrier push: parcel status updates, truckload tracking updates, ingestion receipts.

The two push operations are the hot path of the service (thousands of pushes a second), so
each is answered by one plain ASGI handler, `PushOperation`, installed as the ASGI app of its
declared route (issue 18). The declarations stay as FastAPI routes so that the OpenAPI
document describes them as before; FastAPI's per-request machinery (dependency resolution,
request and response objects, the response model's serialization) was most of a push's CPU on
the event loop. `PushOperation` is the one place that validates a push, stores it durably (the
group commit of `push_intake`) and answers 202, for every shape of request: the usual one, a
bad body, other credentials, a refused clock or tenant.
"""

from __future__ import annotations

import email.message
import json
import random
import uuid
from functools import lru_cache
from typing import Annotated, Any, Final

from fastapi import APIRouter, HTTPException, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import ValidationError
from sqlalchemy import select
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
from freightdesk.server.context import ServiceContext, SessionDep
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

Update = ParcelStatusUpdate | TruckloadTrackingUpdate


@router.post(
    "/api/v4/capacityproviders/parcel/shipments/statusupdates",
    status_code=202,
    responses=_PUSH_ERRORS,
    summary="Push a parcel status update",
)
async def push_parcel_status(body: ParcelStatusUpdate) -> IngestionAccepted:
    """Validated at once, stored durably, then applied to the matching shipments."""
    # The declaration of the operation (its OpenAPI description); `PushOperation` answers it.
    raise AssertionError("answered by PushOperation")


@router.post(
    "/services/carrier-push/v1/tracking-updates",
    status_code=202,
    responses=_PUSH_ERRORS,
    summary="Push a truckload tracking update",
)
async def push_truckload_update(body: TruckloadTrackingUpdate) -> IngestionAccepted:
    """Validated at once, stored durably, then applied to the matching shipments."""
    # The declaration of the operation (its OpenAPI description); `PushOperation` answers it.
    raise AssertionError("answered by PushOperation")


class PushOperation:
    """A push operation as a plain ASGI app: validate, store durably, answer 202.

    The checks come in the order FastAPI's route had them, so every refusal keeps its status
    and Error body (raised to the app's error handlers): a body that is not JSON (400) before
    the credentials (401), the credentials before the parcel's unknown fields and the body's
    validation (400, or 415 for another content type), then the clock (400) and the customer
    tenant (400, 403). The usual push (a JSON body that validates) is validated once, straight
    from its bytes; only a push that fails that is parsed and validated the slow way, which
    names its problems as FastAPI did.
    """

    def __init__(self, kind: str, model: type[Update]) -> None:
        self.kind = kind
        self.model = model

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _read_body(receive)
        if body is None:  # the client went away
            return
        request = Request(scope, _replay(body, receive))
        context: ServiceContext = scope["app"].state.context
        json_body = _is_json(request.headers.get("content-type"))
        update = self._from_bytes(body) if json_body else None
        data = _parsed(body, json_body) if update is None else _UNREAD
        response = Response()
        principal = await _authenticate(request, response, context)
        if self.kind == PARCEL:
            # The update's address, identifiers and contacts are shapes answers share
            # (lenient models), which the model's own validation lets through.
            await refuse_unknown_fields(request, ParcelStatusUpdate)
        if update is None:
            update = _validated(self.model, data)
        now = utcnow()
        check_clock(update, now)
        directory = tenant_directory(context)
        account = update.customer_account_number
        target = directory.cached_target(principal, account)
        if target is None:
            target = await run_in_threadpool(directory.target, principal, account)
        ingestion_id = _new_id()
        # Returns once the row is committed; a 503 (not stored) is raised to the handlers.
        await ingestion_queue(context).accept(
            _row(principal, target, self.kind, update, now, ingestion_id)
        )
        answer = b'{"ingestionId":"' + ingestion_id.encode() + b'"}'
        headers = [
            (b"content-length", str(len(answer)).encode()),
            (b"content-type", b"application/json"),
            # What the credentials check adds (Deprecation and Link for HTTP Basic).
            *((k, v) for k, v in response.headers.raw if k != b"content-length"),
        ]
        await send({"type": "http.response.start", "status": 202, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    def _from_bytes(self, body: bytes) -> Update | None:
        """The update validated straight from the JSON bytes, or None if that fails."""
        try:
            return self.model.model_validate_json(body)
        except ValidationError:
            return None


# A body not read because the usual path validated it from its bytes.
_UNREAD: Final = object()
# No body at all (FastAPI's `Undefined`): the operation's required body is missing.
_MISSING: Final = object()


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body read already (for `Request.body()`), then the rest."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


@lru_cache(maxsize=64)
def _is_json(content_type: str | None) -> bool:
    """Whether FastAPI parses a body of this content type as JSON (application/json or
    application/*+json; without a content type it does not)."""
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def _parsed(body: bytes, json_body: bool) -> Any:
    """The body as FastAPI read it: parsed JSON, the bytes of another content type, or
    `_MISSING`; malformed JSON is refused at once, before the credentials, as it was."""
    if not body:
        return _MISSING
    if not json_body:
        return body
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        error = {
            "type": "json_invalid",
            "loc": ("body", exc.pos),
            "msg": "JSON decode error",
            "input": {},
            "ctx": {"error": exc.msg},
        }
        raise RequestValidationError([error]) from None
    except Exception:  # not UTF-8 (nor UTF-16 or -32), too deep: FastAPI answered so too
        raise HTTPException(status_code=400, detail="There was an error parsing the body") from None


def _validated(model: type[Update], data: Any) -> Update:
    """The body model on the parsed body, its errors located in the body as FastAPI's are."""
    if data is _MISSING:
        missing = {"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}
        raise RequestValidationError([missing])
    try:
        return model.model_validate(data, from_attributes=True)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        raise RequestValidationError(
            [{**error, "loc": ("body", *error["loc"])} for error in errors]
        ) from None


async def _authenticate(request: Request, response: Response, context: ServiceContext) -> Principal:
    """`require_principal` on the event loop for bearer tokens (resolved from the token
    cache, or by one indexed read the first time a token is seen); the deprecated Basic
    authentication checks a password hash, which is slow, so it runs in the thread pool."""
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return require_principal(request, response, context)
    return await run_in_threadpool(require_principal, request, response, context)


def _new_id() -> str:
    return str(uuid.UUID(int=_IDS.getrandbits(128), version=4))


def _row(
    principal: Principal, target: int, kind: str, body: Update, now: Any, ingestion_id: str
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


def _install(endpoint: Any, operation: PushOperation) -> APIRoute:
    """Make `operation` the ASGI app of the route declared for `endpoint`: Starlette's route
    still matches the request and refuses other methods (405); FastAPI's handler is unused."""
    for route in router.routes:
        if isinstance(route, APIRoute) and route.endpoint is endpoint:
            route.app = operation
            return route
    raise AssertionError(f"{endpoint.__name__} is not declared")


_install(push_parcel_status, PushOperation(PARCEL, ParcelStatusUpdate))
_install(push_truckload_update, PushOperation(TRUCKLOAD, TruckloadTrackingUpdate))
