"""The client's core against the real local service: tokens, errors, transport policy."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from fastapi.routing import APIRoute

from freightdesk.api.client import EXTENSIONS_PATH, ApiClient
from freightdesk.api.errors import (
    AuthenticationFailed,
    BadRequest,
    Conflict,
    ConnectionFailed,
    NotFound,
    ProtocolError,
    ServerError,
    parse_retry_after,
)
from freightdesk.models.account_groups import AccountGroupCreate
from freightdesk.server.openapi import EXTENSION
from tests.api.conftest import FAST_RETRY, client_via
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, free_port

GROUPS = "/api/v4/capacityprovideraccountgroups"


async def test_round_trip_with_one_token(client: ApiClient) -> None:
    created = await client.account_groups.create(AccountGroupCreate(code="NE", name="Northeast"))
    token = client.tokens.current if client.tokens else None
    assert [g.code for g in await client.account_groups.list()] == ["NE"]
    await client.account_groups.delete(created.id)
    assert await client.account_groups.list() == []
    assert client.tokens is not None and client.tokens.current == token


async def test_errors_are_typed_and_carry_the_error_body(client: ApiClient) -> None:
    await client.account_groups.create(AccountGroupCreate(code="DUP", name="One"))
    with pytest.raises(Conflict) as conflict:
        await client.account_groups.create(AccountGroupCreate(code="DUP", name="Two"))
    assert conflict.value.field_errors() == {"code": conflict.value.errors[0].message}
    assert conflict.value.support_reference_id
    with pytest.raises(NotFound):
        await client.account_groups.delete(999_999_999)
    with pytest.raises(BadRequest) as bad:
        await client.request("POST", GROUPS, json={"code": "X"})
    assert "name" in bad.value.field_errors()


async def test_a_refused_token_is_replaced_once(client: ApiClient) -> None:
    assert client.tokens is not None
    await client.account_groups.list()
    client.tokens._token = type(client.tokens._token)("revoked", 10**12)  # type: ignore[misc, arg-type]
    assert await client.account_groups.list() == []
    assert client.tokens.current not in (None, "revoked")


async def test_wrong_secret_is_an_authentication_error(api_tenant: TenantHandle) -> None:
    async with ApiClient(
        api_tenant.service.url, client_id=api_tenant.client_id, client_secret="wrong"
    ) as api:
        with pytest.raises(AuthenticationFailed) as failed:
            await api.account_groups.list()
    assert "not valid" in failed.value.error_message


async def test_credentials_in_the_body_work_too(api_tenant: TenantHandle) -> None:
    async with ApiClient(
        api_tenant.service.url,
        client_id=api_tenant.client_id,
        client_secret=api_tenant.client_secret,
        credentials_in="body",
    ) as api:
        assert await api.account_groups.list() == []


async def test_admin_manages_client_applications(client: ApiClient) -> None:
    created = await client.client_applications.create("scripts")
    assert created.secret
    assert created.id in {a.id for a in await client.client_applications.list()}
    rotated = await client.client_applications.new_secret(created.id)
    assert rotated.secret != created.secret
    await client.client_applications.delete(created.id)
    with pytest.raises(NotFound):
        await client.client_applications.get(created.id)


async def test_idempotent_reads_are_retried_on_503(
    proxied_client: ApiClient, proxy: FaultyProxy
) -> None:
    await proxied_client.account_groups.list()
    proxy.inject(Fault(status=503, path_prefix=GROUPS), times=2)
    assert await proxied_client.account_groups.list() == []
    assert proxy.count("GET", GROUPS) == 4


async def test_creates_are_not_repeated_blindly(
    proxied_client: ApiClient, proxy: FaultyProxy
) -> None:
    await proxied_client.account_groups.list()
    proxy.inject(Fault(status=503, path_prefix=GROUPS))
    with pytest.raises(ServerError):
        await proxied_client.account_groups.create(AccountGroupCreate(code="ONCE", name="n"))
    assert proxy.count("POST", GROUPS) == 1


# Scheduling delays of a loaded machine (a load of 10 on 2 cores) stay well inside this.
SLACK = 3.0


async def _create_refused_once(
    api: ApiClient, proxy: FaultyProxy, retry_after: str, code: str
) -> tuple[float, float]:
    """Create through a 429 with `retry_after`; when the refused POST and its retry arrived."""
    proxy.inject(Fault(status=429, path_prefix=GROUPS, headers={"Retry-After": retry_after}))
    created = await api.account_groups.create(AccountGroupCreate(code=code, name="n"))
    assert created.code == code
    refused, retried = proxy.arrived("POST", GROUPS)[-2:]
    return refused, retried


async def test_rate_limited_requests_wait_for_retry_after(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with ApiClient(
        proxy.url,
        client_id=api_tenant.client_id,
        client_secret=api_tenant.client_secret,
        retry=replace(FAST_RETRY, max_retry_after=30.0),
    ) as api:
        await api.account_groups.list()
        # delay-seconds: the retry comes no sooner (the policy's own backoff is at most 0.05 s).
        refused, retried = await _create_refused_once(api, proxy, "1", "RL1")
        assert 1.0 <= retried - refused < 1.0 + SLACK
        # HTTP-date: the retry comes no sooner than that moment (whole seconds on the wire).
        when = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
        refused, retried = await _create_refused_once(
            api, proxy, format_datetime(when, usegmt=True), "RL2"
        )
        assert when.timestamp() - 0.05 <= retried < when.timestamp() + SLACK
    assert proxy.count("POST", GROUPS) == 4


async def test_retry_after_beyond_the_cap_waits_the_cap(
    proxied_client: ApiClient, proxy: FaultyProxy
) -> None:
    cap = proxied_client.retry.max_retry_after
    await proxied_client.account_groups.list()
    in_an_hour = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    for code, retry_after in (("CAP1", "3600"), ("CAP2", in_an_hour)):
        refused, retried = await asyncio.wait_for(
            _create_refused_once(proxied_client, proxy, retry_after, code), cap + SLACK
        )
        assert cap <= retried - refused < cap + SLACK


def test_retry_after_is_read_in_both_forms() -> None:
    now = datetime(2015, 10, 21, 7, 27, tzinfo=UTC)
    assert parse_retry_after("120", now) == 120.0
    for date in (
        "Wed, 21 Oct 2015 07:28:00 GMT",  # IMF-fixdate
        "Wednesday, 21-Oct-15 07:28:00 GMT",  # RFC 850
        "Wed Oct 21 07:28:00 2015",  # asctime
    ):
        assert parse_retry_after(date, now) == 60.0, date
    assert parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now) == 0.0  # already past
    assert parse_retry_after("-5", now) == 0.0
    for unreadable in (None, "", "soon", "inf", "nan"):
        assert parse_retry_after(unreadable, now) is None


async def test_malformed_json_is_a_protocol_error(
    proxied_client: ApiClient, proxy: FaultyProxy
) -> None:
    await proxied_client.account_groups.list()
    proxy.inject(Fault(body=b'{"groups": [{"id": "x"', path_prefix=GROUPS))
    with pytest.raises(ProtocolError):
        await proxied_client.account_groups.list()
    proxy.inject(Fault(body=b'{"groups": [{"code": "no id"}]}', path_prefix=GROUPS))
    with pytest.raises(ProtocolError) as missing:
        await proxied_client.account_groups.list()
    assert "groups.0.id" in str(missing.value)


async def test_unreachable_service_is_a_connection_error() -> None:
    async with ApiClient(
        f"http://127.0.0.1:{free_port()}", client_id="x", client_secret="y", retry=FAST_RETRY
    ) as api:
        with pytest.raises(ConnectionFailed):
            await api.account_groups.list()


async def test_extensions_are_detected(client: ApiClient, api_tenant: TenantHandle) -> None:
    # What the service marks as its own (openapi_extra=EXTENSION on the route), read from the
    # app's routes rather than from the OpenAPI document the client reads.
    declared = {
        f"{method} {route.path}"
        for route in api_tenant.service.app.routes
        if isinstance(route, APIRoute) and EXTENSION.items() <= (route.openapi_extra or {}).items()
        for method in route.methods or ()
    }
    assert await client.extensions() == declared
    # Every extension the client's areas look for is among them.
    probes = {
        "carriers": await client.carriers.available(),
        "stop location update": await client.stop_locations.has_update(),
        "stop location delete": await client.stop_locations.has_delete(),
        "document download": await client.documents.has_download(),
        "booking cancel": await client.bookings.has_cancel(),
        "carrier response": await client.bookings.has_carrier_response(),
        "delivery log": await client.webhooks.has_delivery_log(),
        "ping": await client.webhooks.has_ping(),
        "shipment search": await client.tracking.has_search(),
        "latest positions": await client.fleet.has_latest_positions(),
        "push ingestions": await client.carrier_push.has_ingestions(),
    }
    assert [name for name, found in probes.items() if not found] == []
    assert not await client.has_extension("GET", GROUPS)  # the interface's own


async def test_extensions_are_listed_without_the_document_which_says_the_same(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    # The list costs the service nothing; its OpenAPI document, 1 to 2 s of CPU to build.
    async with client_via(proxy, api_tenant) as api:
        listed = await api.extensions()
    assert proxy.count("GET", EXTENSIONS_PATH) == 1
    assert proxy.count("GET", "/openapi.json") == 0
    # A service without the list (another deployment, an older FreightDesk): the document.
    proxy.inject(Fault(status=404, forward=False, path_prefix=EXTENSIONS_PATH))
    async with client_via(proxy, api_tenant) as api:
        assert await api.extensions() == listed
    assert proxy.count("GET", "/openapi.json") == 1
