"""Client applications for the app: the checks before sending, a Customer Admin's sign-in,
create, rotate (the old secret and its tokens stop working) and delete, against the real
local service (plain asyncio)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from freightdesk.api.errors import AuthenticationFailed, NotFound, PermissionDenied
from freightdesk.models.auth import ClientApplicationCreate
from freightdesk.server.db import transaction
from freightdesk.server.domain.tenants import hash_password
from freightdesk.server.tables.tenancy import Tenant, User
from freightdesk.service.client_applications import (
    ClientApplications,
    check_credentials,
    check_name,
    problems_of_error,
)
from tests.support import TenantHandle, make_tenant

TOKEN = "/api/v4/oauth2/token"
GROUPS = "/api/v4/capacityprovideraccountgroups"


@pytest.fixture
async def apps(tenant_: TenantHandle) -> AsyncIterator[ClientApplications]:
    front = ClientApplications(tenant_.service.url, in_use=tenant_.client_id)
    yield front
    await front.aclose()


def _token(url: str, client_id: str, secret: str) -> httpx.Response:
    # httpx's 5 s default is not a limit of ours: a secret's check is deliberately slow work,
    # and at a load of 20 on 2 cores one took longer than that.
    return httpx.post(
        url + TOKEN,
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
        timeout=60,
    )


def test_rules_are_checked_before_sending() -> None:
    assert check_credentials("", "") == {
        "user": "Enter the user name of a Customer Admin",
        "password": "Enter the password",
    }
    assert check_credentials(" admin ", "pw") == {}
    for blank in ("", "   "):
        request, problems = check_name(blank)
        assert request is None and "name" in problems
    request, problems = check_name("x" * 201)
    assert request is None and "200" in problems["name"]
    request, problems = check_name("  TMS integration ")
    assert problems == {} and request is not None and request.name == "TMS integration"


async def test_sign_in_create_rotate_delete(
    apps: ClientApplications, tenant_: TenantHandle
) -> None:
    url = tenant_.service.url
    # Nothing is sent before a sign-in; a wrong password is said beside the password.
    with pytest.raises(PermissionError):
        await apps.list()
    with pytest.raises(AuthenticationFailed) as refused:
        await apps.sign_in(tenant_.admin[0], "wrong")
    assert problems_of_error(refused.value) == (
        {"password": "The service did not accept this user name and password"},
        None,
    )
    assert not apps.signed_in

    listed = await apps.sign_in(*tenant_.admin)
    assert apps.signed_in and apps.user == tenant_.admin[0]
    assert [(a.id, a.name) for a in listed] == [(tenant_.client_id, "tests")]

    request, _ = check_name("TMS integration")
    assert request is not None
    created = await apps.create(request)
    assert created.name == "TMS integration" and created.secret
    assert created.machine_user and created.id in created.machine_user
    assert [a.id for a in await apps.list()] == [tenant_.client_id, created.id]
    # One application read as the service has it now.
    fresh = await apps.get(created.id)
    assert (fresh.id, fresh.name, fresh.machine_user) == (
        created.id,
        created.name,
        created.machine_user,
    )
    first = _token(url, created.id, created.secret)
    assert first.status_code == 200
    old_token = first.json()["access_token"]
    bearer = {"Authorization": f"Bearer {old_token}"}
    async with httpx.AsyncClient(base_url=url, headers=bearer) as http:
        assert (await http.get(GROUPS)).status_code == 200

        rotated = await apps.rotate(created.id)
        assert rotated.id == created.id and rotated.secret != created.secret
        # The rotated-away secret no longer gets a token, and its token no longer works.
        assert _token(url, created.id, created.secret).status_code == 401
        assert (await http.get(GROUPS)).status_code == 401
    assert _token(url, created.id, rotated.secret).status_code == 200

    await apps.delete(created.id)
    assert [a.id for a in await apps.list()] == [tenant_.client_id]
    with pytest.raises(NotFound) as gone:
        await apps.get(created.id)
    assert problems_of_error(gone.value)[1]
    assert _token(url, created.id, rotated.secret).status_code == 401
    await apps.delete(created.id)  # already gone: the wish is met

    await apps.aclose()  # the credentials go with the dialog
    assert not apps.signed_in
    with pytest.raises(PermissionError):
        await apps.list()


async def test_another_tenants_application_and_a_user_who_is_no_admin(
    apps: ClientApplications, tenant_: TenantHandle
) -> None:
    other = make_tenant(tenant_.service)
    try:
        await apps.sign_in(*tenant_.admin)
        with pytest.raises(NotFound) as missing:
            await apps.rotate(other.client_id)
        fields, general = problems_of_error(missing.value)
        assert fields == {} and general and general.startswith("It no longer exists")
        assert _token(tenant_.service.url, other.client_id, other.client_secret).status_code == 200
    finally:
        other.http.close()

    clerk = (f"clerk-{tenant_.name}", "a clerk's password")
    with transaction(tenant_.service.context.sessions) as session:
        tenant = session.query(Tenant).filter_by(name=tenant_.name).one()
        session.add(
            User(
                tenant_id=tenant.id,
                username=clerk[0],
                password_hash=hash_password(clerk[1]),
                role="USER",
            )
        )
    with pytest.raises(PermissionDenied) as denied:
        await apps.sign_in(*clerk)
    assert problems_of_error(denied.value) == (
        {"user": "This user is not an administrator (Customer Admin) of your company account"},
        None,
    )
    # The admin signed in before is kept: a failed sign-in changes nothing.
    assert apps.signed_in and apps.user == tenant_.admin[0]


async def test_a_new_secret_of_the_apps_own_application_is_kept(tenant_: TenantHandle) -> None:
    kept: list[str] = []
    front = ClientApplications(tenant_.service.url, in_use=tenant_.client_id, remember=kept.append)
    try:
        await front.sign_in(*tenant_.admin)
        other = await front.create(ClientApplicationCreate(name="TMS"))
        await front.rotate(other.id)
        assert kept == []  # another application's secret is the user's to hand on
        rotated = await front.rotate(tenant_.client_id)
        assert kept == [rotated.secret]
        assert _token(tenant_.service.url, tenant_.client_id, rotated.secret).status_code == 200
    finally:
        await front.aclose()
