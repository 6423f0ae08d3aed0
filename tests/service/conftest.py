"""Fixtures of the app's services against the real local service (plain asyncio, no Qt): a
tenant on the SQLite live service, an ApiClient for it (directly, or through a misbehaving
proxy), a cache file, and a service of an area made over them and closed after the test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.service.cache import Cache
from tests.api.conftest import signed_in
from tests.proxy import FaultyProxy
from tests.support import LiveService, TenantHandle, tenant_of


class _Closing(Protocol):
    async def aclose(self) -> None: ...


P = ParamSpec("P")
S = TypeVar("S", bound=_Closing)


class OpenService(Protocol):
    """`open_service(Kind, *args, **kwargs)`: `Kind(lambda: client, cache, *args, **kwargs)`,
    closed after the test."""

    def __call__(
        self,
        kind: Callable[Concatenate[Callable[[], ApiClient], Cache, P], S],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> S: ...


@pytest.fixture
def tenant_(sqlite_service: LiveService) -> Iterator[TenantHandle]:
    """A fresh tenant of the SQLite live service (named apart from tests/conftest.py's `tenant`,
    which runs on both databases: these tests need one only)."""
    with tenant_of(sqlite_service) as handle:
        yield handle


@pytest.fixture
async def client(tenant_: TenantHandle) -> AsyncIterator[ApiClient]:
    """The app's ApiClient signed in as `tenant_`, retrying fast (FAST_RETRY)."""
    async with signed_in(tenant_) as api:
        yield api


@pytest.fixture
def proxy(tenant_: TenantHandle) -> Iterator[FaultyProxy]:
    """A misbehaving proxy in front of `tenant_`'s service, stopped after the test."""
    faulty = FaultyProxy(tenant_.service.url).start()
    yield faulty
    faulty.stop()


@pytest.fixture
async def proxied_client(tenant_: TenantHandle, proxy: FaultyProxy) -> AsyncIterator[ApiClient]:
    """The app's ApiClient signed in as `tenant_` through `proxy`, retrying fast."""
    async with signed_in(tenant_, via=proxy) as api:
        yield api


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    """An empty cache file in tmp_path, closed after the test."""
    made = Cache(tmp_path / "cache.sqlite3")
    yield made
    made.close()


@pytest.fixture
async def open_service(client: ApiClient, cache: Cache) -> AsyncIterator[OpenService]:
    """Makes an area's service over `client` and `cache` with the test's own arguments (its
    intervals, a folder); each one made is closed after the test, before the cache."""
    opened: list[_Closing] = []

    def open_(
        kind: Callable[Concatenate[Callable[[], ApiClient], Cache, P], S],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> S:
        service = kind(lambda: client, cache, *args, **kwargs)
        opened.append(service)
        return service

    yield open_
    for service in reversed(opened):
        await service.aclose()
