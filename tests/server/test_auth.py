"""Client applications, tokens and credentials, over real HTTP."""

from __future__ import annotations

import httpx

from tests.support import LiveService, TenantHandle


def _token(service: LiveService, client_id: str, secret: str) -> httpx.Response:
    return httpx.post(
        f"{service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    )


def test_admin_creates_client_application_and_secret_is_shown_once(tenant: TenantHandle) -> None:
    url = f"{tenant.service.url}/api/v4/oauth2/client-applications"
    created = httpx.post(url, json={"name": "dispatch"}, auth=tenant.admin)
    assert created.status_code == 201
    body = created.json()
    assert body["name"] == "dispatch" and body["secret"]
    listed = httpx.get(url, auth=tenant.admin).json()["clientApplications"]
    assert {app["id"] for app in listed} >= {body["id"]}
    assert all("secret" not in app for app in listed)
    token = _token(tenant.service, body["id"], body["secret"])
    assert token.status_code == 200
    assert token.json()["token_type"] == "Bearer"
    assert token.json()["expires_in"] == 12 * 3600


def test_new_secret_replaces_the_old_one(tenant: TenantHandle) -> None:
    base = f"{tenant.service.url}/api/v4/oauth2/client-applications"
    app = httpx.post(base, json={"name": "rotating"}, auth=tenant.admin).json()
    rotated = httpx.post(f"{base}/{app['id']}/new-secret", auth=tenant.admin)
    assert rotated.status_code == 200
    assert _token(tenant.service, app["id"], app["secret"]).status_code == 401
    assert _token(tenant.service, app["id"], rotated.json()["secret"]).status_code == 200


def test_deleted_client_application_loses_its_tokens(tenant: TenantHandle) -> None:
    base = f"{tenant.service.url}/api/v4/oauth2/client-applications"
    app = httpx.post(base, json={"name": "short-lived"}, auth=tenant.admin).json()
    token = _token(tenant.service, app["id"], app["secret"]).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{tenant.service.url}/openapi.json").status_code == 200
    assert httpx.delete(f"{base}/{app['id']}", auth=tenant.admin).status_code == 204
    gone = httpx.get(f"{tenant.service.url}/api/v4/capacityprovideraccountgroups", headers=headers)
    assert gone.status_code == 401
    assert httpx.get(f"{base}/{app['id']}", auth=tenant.admin).status_code == 404


def test_client_applications_need_admin_basic(tenant: TenantHandle) -> None:
    url = f"{tenant.service.url}/api/v4/oauth2/client-applications"
    anonymous = httpx.get(url)
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"].startswith("Basic")
    body = anonymous.json()
    assert body["httpStatusCode"] == 401 and body["supportReferenceId"]
    wrong = httpx.get(url, auth=(tenant.admin[0], "wrong"))
    assert wrong.status_code == 401
    bearer = tenant.http.get("/api/v4/oauth2/client-applications")
    assert bearer.status_code == 401


def test_other_tenants_client_application_is_not_found(
    tenant: TenantHandle, tenant_factory
) -> None:  # type: ignore[no-untyped-def]
    other = tenant_factory()
    url = f"{tenant.service.url}/api/v4/oauth2/client-applications/{other.client_id}"
    assert httpx.get(url, auth=tenant.admin).status_code == 404
    assert httpx.delete(url, auth=tenant.admin).status_code == 404


def test_credentials_in_body_and_basic_at_once_are_refused(tenant: TenantHandle) -> None:
    answer = httpx.post(
        f"{tenant.service.url}/api/v4/oauth2/token",
        data={
            "grant_type": "client_credentials",
            "client_id": tenant.client_id,
            "client_secret": tenant.client_secret,
        },
        auth=(tenant.client_id, tenant.client_secret),
    )
    assert answer.status_code == 400
    assert "never both" in answer.json()["errorMessage"]


def test_token_with_basic_credentials(tenant: TenantHandle) -> None:
    answer = httpx.post(
        f"{tenant.service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(tenant.client_id, tenant.client_secret),
    )
    assert answer.status_code == 200


def test_wrong_grant_type_and_wrong_secret(tenant: TenantHandle) -> None:
    url = f"{tenant.service.url}/api/v4/oauth2/token"
    assert httpx.post(url, data={"grant_type": "password"}).status_code == 400
    wrong = httpx.post(
        url,
        data={
            "grant_type": "client_credentials",
            "client_id": tenant.client_id,
            "client_secret": "nope",
        },
    )
    assert wrong.status_code == 401
    assert wrong.json()["errorMessage"] == "The client id or secret is not valid"


def test_token_rate_limit_with_retry_after(tenant: TenantHandle) -> None:
    # make_tenant already took one token for this client; four more are allowed this minute.
    answers = [_token(tenant.service, tenant.client_id, tenant.client_secret) for _ in range(5)]
    assert [a.status_code for a in answers[:4]] == [200] * 4
    limited = answers[4]
    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1
    assert limited.json()["httpStatusCode"] == 429


def test_earlier_tokens_stay_valid_after_a_new_one(tenant: TenantHandle) -> None:
    groups = f"{tenant.service.url}/api/v4/capacityprovideraccountgroups"
    assert tenant.http.post(groups, json={"code": "TOK", "name": "Tokens"}).status_code == 201
    first, second = (
        _token(tenant.service, tenant.client_id, tenant.client_secret) for _ in range(2)
    )
    assert first.status_code == second.status_code == 200
    assert first.json()["access_token"] != second.json()["access_token"]

    def codes_with(token: str) -> tuple[int, list[str]]:
        answer = httpx.get(groups, headers={"Authorization": f"Bearer {token}"})
        found = answer.json().get("groups", []) if answer.status_code == 200 else []
        return answer.status_code, [g["code"] for g in found]

    # The first token still works after the second was issued, and sees the tenant's data.
    assert codes_with(first.json()["access_token"]) == (200, ["TOK"])
    assert codes_with(second.json()["access_token"]) == (200, ["TOK"])
    assert codes_with("garbage-" + first.json()["access_token"][8:]) == (401, [])


def test_missing_and_invalid_bearer_tokens(service: LiveService) -> None:
    for headers in ({}, {"Authorization": "Bearer nonsense"}, {"Authorization": "Token x"}):
        answer = httpx.get(f"{service.url}/api/v4/capacityprovideraccountgroups", headers=headers)
        assert answer.status_code == 401, headers
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
        assert answer.json()["errorMessage"]


def test_unknown_path_and_wrong_method_are_error_bodies(service: LiveService) -> None:
    missing = httpx.get(f"{service.url}/api/v4/nothing-here")
    assert missing.status_code == 404
    assert missing.json()["httpMessage"] == "Not Found"
    assert missing.json()["supportReferenceId"] == missing.headers["x-support-reference-id"]
    wrong = httpx.put(f"{service.url}/api/v4/oauth2/token")
    assert wrong.status_code == 405
    assert wrong.json()["httpStatusCode"] == 405
