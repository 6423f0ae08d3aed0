"""Capacity provider account groups over real HTTP."""

from __future__ import annotations

from collections.abc import Callable

from tests.support import TenantHandle

PATH = "/api/v4/capacityprovideraccountgroups"


def test_create_list_delete(tenant: TenantHandle) -> None:
    created = tenant.http.post(PATH, json={"code": "ACME-CHI", "name": "Acme Chicago"})
    assert created.status_code == 201
    group = created.json()
    assert isinstance(group["id"], int) and group["code"] == "ACME-CHI"
    assert tenant.http.get(PATH).json() == {"groups": [group]}
    assert tenant.http.delete(f"{PATH}/{group['id']}").status_code == 204
    assert tenant.http.get(PATH).json() == {"groups": []}
    assert tenant.http.delete(f"{PATH}/{group['id']}").status_code == 404


def test_duplicate_code_is_a_conflict(tenant: TenantHandle) -> None:
    assert tenant.http.post(PATH, json={"code": "X1", "name": "One"}).status_code == 201
    again = tenant.http.post(PATH, json={"code": "X1", "name": "Two"})
    assert again.status_code == 409
    assert again.json()["errors"][0]["source"] == "code"


def test_bad_bodies_name_the_field(tenant: TenantHandle) -> None:
    missing = tenant.http.post(PATH, json={"code": "X2"})
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["source"] == "name"
    with_id = tenant.http.post(PATH, json={"id": 5, "code": "X3", "name": "n"})
    assert with_id.status_code == 400
    assert with_id.json()["errors"][0]["source"] == "id"
    malformed = tenant.http.post(
        PATH, content=b"{not json", headers={"content-type": "application/json"}
    )
    assert malformed.status_code == 400
    assert malformed.json()["errorMessage"] == "The request body is not valid JSON"
    text = tenant.http.post(PATH, content=b"code=1", headers={"content-type": "text/plain"})
    assert text.status_code == 415


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    group = tenant.http.post(PATH, json={"code": "SHARED", "name": "Mine"}).json()
    assert other.http.get(PATH).json() == {"groups": []}
    assert other.http.delete(f"{PATH}/{group['id']}").status_code == 404
    # The same code is free in another tenant.
    assert other.http.post(PATH, json={"code": "SHARED", "name": "Theirs"}).status_code == 201
