"""Helpers of the tracking tests: bodies, and data "received from tracking sources".

Received data has no HTTP entry point of this area (carrier pushes and the simulator write it),
so tests record it through the real domain API on the live service's database, exactly as the
push processing does, and then look at it over HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.server.db import transaction
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import ShipmentChange
from tests.support import TenantHandle

PUT = "/api/v4/shipments/tracking"
SEARCH = "/api/v4/shipments/search"

T = TypeVar("T")


def shipment_path(shipment_id: str, tail: str = "tracking") -> str:
    return f"/api/v4/shipments/{shipment_id}/{tail}"


def air_body(awb: str = "020-12345675", **extra: Any) -> dict[str, Any]:
    return {"identifiers": [{"type": "AIR_WAYBILL", "value": awb}], **extra}


def route(*cities: str) -> dict[str, Any]:
    return {
        "stops": [
            {
                "name": f"{city} terminal",
                "type": "PICKUP" if i == 0 else "DELIVERY",
                "location": {"address": {"city": city, "country": "US"}},
            }
            for i, city in enumerate(cities)
        ]
    }


def create(tenant: TenantHandle, body: dict[str, Any]) -> dict[str, Any]:
    answer = tenant.http.put(PUT, json=body)
    assert answer.status_code == 201, answer.text
    shipment: dict[str, Any] = answer.json()
    return shipment


def tenant_id(tenant: TenantHandle) -> int:
    with transaction(tenant.service.context.sessions) as session:
        found = session.scalar(select(Tenant.id).where(Tenant.uuid == tenant.uuid))
    assert found is not None
    return int(found)


def receive(tenant: TenantHandle, work: Callable[[Session], T]) -> T:
    """Run domain writes in one transaction of the live service's database."""
    with transaction(tenant.service.context.sessions) as session:
        return work(session)


def journal(tenant: TenantHandle, shipment_id: str) -> list[tuple[str, dict[str, Any]]]:
    with transaction(tenant.service.context.sessions) as session:
        rows = session.scalars(
            select(ShipmentChange)
            .where(ShipmentChange.shipment_id == shipment_id)
            .order_by(ShipmentChange.id)
        )
        return [(row.kind, row.payload) for row in rows]


def sources(answer: httpx.Response) -> list[str]:
    """The field paths named by an Error body."""
    assert answer.status_code == 400, answer.text
    return [error["source"] for error in answer.json()["errors"]]
