"""GET /api/v4/oauth2/tenant (extension): the tenant a token acts for, which a partner needs
to share shipments with it; nothing without credentials."""

from __future__ import annotations

import httpx

from tests.support import LiveService, make_tenant

PATH = "/api/v4/oauth2/tenant"


def test_each_token_is_told_its_own_tenant(sqlite_service: LiveService) -> None:
    first, second = make_tenant(sqlite_service), make_tenant(sqlite_service)
    try:
        for tenant in (first, second):
            answer = tenant.http.get(PATH)
            assert answer.status_code == 200, answer.text
            assert answer.json() == {"tenantUuid": tenant.uuid, "tenantName": tenant.name}
        # The id told is the one a partner shares with.
        shipment = second.http.put(
            "/api/v4/shipments/tracking",
            json={"identifiers": [{"type": "BILL_OF_LADING", "value": "TENANT-ID-1"}]},
        )
        assert shipment.status_code in (200, 201), shipment.text
        shared = second.http.post(
            f"/api/v4/shipments/{shipment.json()['id']}/shares",
            json={"tenantUuid": first.http.get(PATH).json()["tenantUuid"]},
        )
        assert shared.status_code == 201, shared.text
    finally:
        first.http.close()
        second.http.close()


def test_without_credentials_nothing_is_told(sqlite_service: LiveService) -> None:
    answer = httpx.get(f"{sqlite_service.url}{PATH}", timeout=30)
    assert answer.status_code == 401
    assert "tenant" not in answer.text.lower().replace("x-tenant-role", "")
