"""Helpers of the carrier push tests: bodies, shipments, polling."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import httpx
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from freightdesk.server.db import transaction
from freightdesk.server.tables.push import PushIngestion
from freightdesk.server.tables.tenancy import Tenant
from tests.support import TenantHandle

PARCEL = "/api/v4/capacityproviders/parcel/shipments/statusupdates"
TRUCKLOAD = "/services/carrier-push/v1/tracking-updates"
INGESTIONS = "/services/carrier-push/v1/ingestions"
SHIPMENTS = "/api/v4/shipments"

T = TypeVar("T")


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def java_time(at: datetime) -> str:
    """yyyy-MM-dd'T'HH:mm:ssZ as Java writes it (+0000)."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10].upper()}"


def parcel_body(
    tracking_number: str, event_type: str = "PICKED_UP", **extra: Any
) -> dict[str, Any]:
    return {
        "carrierIdentifier": {"type": "SCAC", "value": "UPSN"},
        "shipmentIdentifiers": [{"type": "TRACKING_NUMBER", "value": tracking_number}],
        "eventType": event_type,
        "timestamp": java_time(now() - timedelta(minutes=10)),
        **extra,
    }


def truckload_body(
    bill_of_lading: str | None = None, *, order: str | None = None, **truckload: Any
) -> dict[str, Any]:
    identifiers: dict[str, str] = {}
    if bill_of_lading is not None:
        identifiers["billOfLadingNumber"] = bill_of_lading
    if order is not None:
        identifiers["orderNumber"] = order
    if "shipmentEvent" not in truckload and "readings" not in truckload:
        truckload["readings"] = {
            "dateTime": iso(now() - timedelta(minutes=1)),
            "position": {"latitude": 41.88, "longitude": -87.63},
        }
    return {"truckload": {"identifiers": identifiers, **truckload}}


def create_shipment(
    tenant: TenantHandle, identifiers: list[tuple[str, str]], *, stops: int = 0
) -> dict[str, Any]:
    body: dict[str, Any] = {"identifiers": [{"type": t, "value": v} for t, v in identifiers]}
    if stops:
        body["routeInfo"] = {"stops": [{"name": f"Stop {i + 1}"} for i in range(stops)]}
    answer = tenant.http.put(f"{SHIPMENTS}/tracking", json=body)
    assert answer.status_code == 201, answer.text
    shipment: dict[str, Any] = answer.json()
    return shipment


Caller = TenantHandle | httpx.Client


def _http(caller: Caller) -> httpx.Client:
    return caller.http if isinstance(caller, TenantHandle) else caller


def history(tenant: Caller, shipment_id: str) -> dict[str, Any]:
    answer = _http(tenant).get(f"{SHIPMENTS}/{shipment_id}/tracking/history")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def accepted(answer: httpx.Response) -> str:
    """The ingestion id of a 202 answer (and nothing else in the body)."""
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert set(body) == {"ingestionId"}
    assert str(uuid.UUID(body["ingestionId"])) == body["ingestionId"]
    return str(body["ingestionId"])


def refused(answer: httpx.Response, source: str, status: int = 400) -> str:
    """The message about `source` in an Error body; fails unless that field is named."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert body["httpStatusCode"] == status and body["supportReferenceId"]
    messages = [e["message"] for e in body["errors"] if e["source"] == source]
    assert messages, f"no error names {source}: {body['errors']}"
    return str(messages[0])


def wait_for(probe: Callable[[], T | None], *, timeout: float = 8.0, what: str = "it") -> T:
    """Poll until `probe` returns something truthy (processing is asynchronous)."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.05)


def ingestion(tenant: Caller, ingestion_id: str) -> dict[str, Any]:
    answer = _http(tenant).get(f"{INGESTIONS}/{ingestion_id}")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def settled(tenant: Caller, ingestion_id: str, timeout: float = 8.0) -> dict[str, Any]:
    """The ingestion once the worker has taken it (no longer PENDING)."""

    def probe() -> dict[str, Any] | None:
        found = ingestion(tenant, ingestion_id)
        return found if found["status"] != "PENDING" else None

    return wait_for(probe, timeout=timeout, what=f"processing of {ingestion_id}")


def stored_pushes(tenant: TenantHandle) -> int:
    """How many pushes of this tenant the service stored (refused ones must not be)."""
    context = tenant.service.context
    with context.sessions() as session:
        tenant_id = _tenant_id(session, tenant.uuid)
        count = session.scalar(
            select(func.count())
            .select_from(PushIngestion)
            .where(PushIngestion.owner_tenant_id == tenant_id)
        )
    return int(count or 0)


def _tenant_id(session: Any, tenant_uuid: str) -> int:
    from freightdesk.server.tables.tenancy import Tenant

    found = session.scalar(select(Tenant.id).where(Tenant.uuid == tenant_uuid))
    assert found is not None
    return int(found)


def store_pending_truckloads(
    sessions: sessionmaker[Session], tenant_uuid: object, rows: list[tuple[str, dict[str, Any]]]
) -> None:
    """Truckload pushes stored as PENDING for the tenant, as the intake stores them (ingestion
    id, payload), in their order, bypassing the intake's checks: a payload an older version
    stored, say."""
    with transaction(sessions) as session:
        tenant_id = session.scalar(select(Tenant.id).where(Tenant.uuid == tenant_uuid))
        for ingestion_id, payload in rows:
            session.add(
                PushIngestion(
                    ingestion_id=ingestion_id,
                    kind="TRUCKLOAD",
                    owner_tenant_id=tenant_id,
                    target_tenant_id=tenant_id,
                    payload=payload,
                    status="PENDING",
                    received_at=now(),
                    matched_shipment_ids=[],
                    attempts=0,
                )
            )
