"""Fixtures for the client tests: a tenant on the real local service and a client for it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.transport import RetryPolicy
from tests.proxy import FaultyProxy
from tests.support import LiveService, TenantHandle, tenant_of

FAST_RETRY = RetryPolicy(attempts=4, base_delay=0.01, max_delay=0.05, max_retry_after=1.0)


@pytest.fixture
def api_tenant(sqlite_service: LiveService) -> Iterator[TenantHandle]:
    with tenant_of(sqlite_service) as handle:
        yield handle


@pytest.fixture
async def client(api_tenant: TenantHandle) -> AsyncIterator[ApiClient]:
    async with ApiClient(
        api_tenant.service.url,
        client_id=api_tenant.client_id,
        client_secret=api_tenant.client_secret,
        admin=api_tenant.admin,
        retry=FAST_RETRY,
    ) as api:
        yield api


@pytest.fixture
def proxy(sqlite_service: LiveService) -> Iterator[FaultyProxy]:
    faulty = FaultyProxy(sqlite_service.url).start()
    yield faulty
    faulty.stop()


@pytest.fixture
async def proxied_client(api_tenant: TenantHandle, proxy: FaultyProxy) -> AsyncIterator[ApiClient]:
    async with signed_in(api_tenant, via=proxy) as api:
        yield api


def signed_in(tenant: TenantHandle, via: FaultyProxy | None = None) -> ApiClient:
    """The app's ApiClient signed in with `tenant`'s client application, retrying fast
    (FAST_RETRY): to its service, or through the misbehaving proxy `via`."""
    return ApiClient(
        tenant.service.url if via is None else via.url,
        client_id=tenant.client_id,
        client_secret=tenant.client_secret,
        retry=FAST_RETRY,
    )


def client_via(proxy: FaultyProxy, tenant: TenantHandle) -> ApiClient:
    """A client of `tenant` that reaches the service through the misbehaving `proxy`."""
    return signed_in(tenant, via=proxy)
