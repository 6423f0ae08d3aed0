"""Helpers shared by the rating, booking and volume LTL tests (no tests here)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import httpx
from sqlalchemy import select

from freightdesk.server.db import transaction
from freightdesk.server.domain.tenants import set_feature
from freightdesk.server.tables.tenancy import Tenant
from tests.support import TenantHandle

RATE_REQUESTS = "/services/rating/v1/rate-requests"
BOOKINGS = "/services/booking/v1/bookings"
PROFILES = "/services/carriers/v1/profiles"
ACCOUNT_GROUPS = "/api/v4/capacityprovideraccountgroups"

T = TypeVar("T")


def poll(fetch: Callable[[], T], done: Callable[[T], bool], seconds: float = 5.0) -> T:
    """Fetch until `done` holds; fail after `seconds` with the last value in the message."""
    deadline = time.monotonic() + seconds
    while True:
        value = fetch()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {seconds} s; last value: {value!r}")
        time.sleep(0.02)


def at(seconds: float) -> str:
    """An ISO date-time with offset, `seconds` from now."""
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def stop(kind: str, city: str, state: str, postal: str, **location: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "location": {
            "address": {"addressLines": ["1 Dock Rd"], "city": city, "state": state,
                        "postalCode": postal, "country": "US"},
            **location,
        },
    }  # fmt: skip


CHICAGO = stop("PICKUP", "Chicago", "IL", "60607", name="Chicago DC")
DALLAS = stop("DELIVERY", "Dallas", "TX", "75201", name="Dallas store")


def tl_request(carriers: list[str] | None = None, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Chicago to Dallas",
        "rateDetail": {
            "routeInfo": {"stops": [CHICAGO, DALLAS]},
            "shippingDetails": {"truck": {"loadPreference": "FULL", "trailerType": "DRY_VAN"}},
        },
    }
    if carriers is not None:
        body["capacityProviderIdentifiers"] = [
            {"type": "CARRIER_SCAC", "value": c} for c in carriers
        ]
    body.update(overrides)
    return body


def ltl_request(carriers: list[str], units: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "rateDetail": {
            "routeInfo": {"stops": [CHICAGO, DALLAS]},
            "shippingDetails": {"ltl": {}},
            "shipmentDetails": [{"handlingUnits": units}],
        },
        "capacityProviderIdentifiers": [{"type": "CARRIER_SCAC", "value": c} for c in carriers],
    }


def set_profile(tenant: TenantHandle, scac: str, **fields: Any) -> dict[str, Any]:
    answer = tenant.http.put(f"{PROFILES}/{scac}", json=fields)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def quoted(tenant: TenantHandle, body: dict[str, Any]) -> dict[str, Any]:
    """Create a rate request and wait until every carrier answered."""
    created = tenant.http.post(RATE_REQUESTS, json=body)
    assert created.status_code == 200, created.text
    request_id = created.json()["id"]
    return poll(
        lambda: tenant.http.get(f"{RATE_REQUESTS}/{request_id}").json(),
        lambda r: r["status"] != "QUOTES_REQUESTED",
    )


def booking_of(quote: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "capacityProviderIdentifier": quote["capacityProviderIdentifier"],
        "rateIdentifiers": quote["rateIdentifiers"],
        **extra,
    }


def standalone_booking(scac: str, **extra: Any) -> dict[str, Any]:
    """A booking not made from a quote: it needs a shipmentId."""
    return {
        "shipmentId": "6b0f1c0e-8d3a-4f7e-9a51-0c2b7d7e9e10",
        "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": scac},
        "rateIdentifiers": [{"source": "EXTERNAL", "type": "CONTRACT", "value": "C-2024-17"}],
        **extra,
    }


def booking_status(tenant: TenantHandle, booking_id: str, wanted: str) -> dict[str, Any]:
    return poll(
        lambda: tenant.http.get(f"{BOOKINGS}/{booking_id}").json(),
        lambda b: b["status"] == wanted,
    )


def create_booking(tenant: TenantHandle, body: dict[str, Any]) -> dict[str, Any]:
    answer = tenant.http.post(BOOKINGS, json=body)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def set_tenant_feature(tenant: TenantHandle, feature: str, enabled: bool) -> None:
    with transaction(tenant.service.context.sessions) as session:
        row = session.scalar(select(Tenant).where(Tenant.name == tenant.name))
        assert row is not None
        set_feature(session, row, feature, enabled)


def error_sources(answer: httpx.Response) -> list[str]:
    body = answer.json()
    assert body["httpStatusCode"] == answer.status_code, body
    return [str(e.get("source")) for e in body["errors"]]


def account_group(tenant: TenantHandle, code: str) -> None:
    created = tenant.http.post(ACCOUNT_GROUPS, json={"code": code, "name": code.title()})
    assert created.status_code == 201, created.text
