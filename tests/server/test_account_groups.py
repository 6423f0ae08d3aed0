"""Capacity provider account groups over real HTTP."""

from __future__ import annotations

from collections.abc import Callable

import httpx

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


def test_the_list_answers_alike_to_basic_and_bearer(tenant: TenantHandle) -> None:
    # The list answers its own bytes (not a model FastAPI serializes), so the headers a
    # dependency sets (deprecated Basic's) and the ETag must still come with them.
    tenant.http.post(PATH, json={"code": "B-2", "name": "Zwei Straße"})
    tenant.http.post(PATH, json={"code": "B-1", "name": "One"})
    bearer = tenant.http.get(PATH)
    assert [g["code"] for g in bearer.json()["groups"]] == ["B-1", "B-2"]
    assert bearer.headers["content-type"] == "application/json"
    assert "deprecation" not in bearer.headers
    with httpx.Client(base_url=tenant.service.url, auth=tenant.admin) as basic:
        answer = basic.get(PATH)
        assert answer.status_code == 200
        assert answer.content == bearer.content
        assert answer.headers["etag"] == bearer.headers["etag"]
        assert answer.headers["deprecation"] == "true"
        assert "successor-version" in answer.headers["link"]
        same = basic.get(PATH, headers={"If-None-Match": answer.headers["etag"]})
        assert same.status_code == 304 and same.content == b""
        assert same.headers["deprecation"] == "true"
