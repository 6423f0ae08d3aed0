"""Listing the tenant's rate requests (an extension) over real HTTP: newest first with their
quotes, paging, tenant isolation, the refusals; and the app's rating service, which lists
them where the service offers it and keeps its own list where a service answers 404 or 405."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from freightdesk.api.client import ApiClient
from freightdesk.models.rating import RateRequest, RateRequestCreate, RateRequestList
from freightdesk.service.cache import Cache
from freightdesk.service.rating import RatingService
from tests.api.conftest import FAST_RETRY
from tests.proxy import Fault, FaultyProxy
from tests.server.test_rating_support import (
    RATE_REQUESTS,
    error_sources,
    poll,
    quoted,
    tl_request,
)
from tests.support import LiveService, TenantHandle, make_tenant, wait_until


def _make(tenant: TenantHandle, count: int) -> list[str]:
    """`count` rate requests, oldest first."""
    made = []
    for number in range(count):
        answer = tenant.http.post(RATE_REQUESTS, json=tl_request(["PRLF"], name=f"Run {number}"))
        assert answer.status_code == 200, answer.text
        made.append(answer.json()["id"])
    return made


def _page(tenant: TenantHandle, **params: Any) -> dict[str, Any]:
    answer = tenant.http.get(RATE_REQUESTS, params=params)
    assert answer.status_code == 200, answer.text
    # Every item is a whole RateRequest, as GET by id answers it (unknown fields refused).
    page = RateRequestList.model_validate(answer.json(), extra="forbid")
    assert all(isinstance(r, RateRequest) for r in page.results)
    return dict(answer.json())


def test_pages_newest_first(tenant: TenantHandle) -> None:
    assert _page(tenant)["results"] == []
    assert _page(tenant)["paginationInfo"] == {"pageNumber": 1, "pageSize": 20, "total": 0}
    made = _make(tenant, 5)
    newest_first = list(reversed(made))
    first = _page(tenant, pageSize=2)
    assert first["paginationInfo"] == {"pageNumber": 1, "pageSize": 2, "total": 5}
    assert [r["id"] for r in first["results"]] == newest_first[:2]
    second = _page(tenant, pageSize=2, pageNumber=2)
    assert [r["id"] for r in second["results"]] == newest_first[2:4]
    last = _page(tenant, pageSize=2, pageNumber=3)
    assert [r["id"] for r in last["results"]] == newest_first[4:]
    assert _page(tenant, pageSize=2, pageNumber=4)["results"] == []
    # Each as GET by id answers it (once the carriers answered: quotes arrive meanwhile).
    everything = poll(
        lambda: _page(tenant, pageSize=100),
        lambda page: all(r["status"] != "QUOTES_REQUESTED" for r in page["results"]),
    )
    assert [r["id"] for r in everything["results"]] == newest_first
    for listed in everything["results"]:
        assert listed == tenant.http.get(f"{RATE_REQUESTS}/{listed['id']}").json()


def test_listed_with_their_quotes(tenant: TenantHandle) -> None:
    done = quoted(tenant, tl_request(["PRLF", "CSCX"]))
    (listed,) = _page(tenant)["results"]
    assert listed["id"] == done["id"] and listed["status"] == "QUOTES_RECEIVED"
    assert listed["quotes"] == done["quotes"] and len(listed["quotes"]) == 4


def test_another_tenants_requests_are_not_listed(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    theirs = _make(other, 2)
    mine = _make(tenant, 1)
    assert [r["id"] for r in _page(tenant)["results"]] == mine
    assert _page(tenant)["paginationInfo"]["total"] == 1
    assert [r["id"] for r in _page(other)["results"]] == list(reversed(theirs))


@pytest.mark.parametrize(
    ("params", "source"),
    [
        ({"pageSize": 0}, "pageSize"),
        ({"pageSize": 101}, "pageSize"),
        ({"pageSize": "ten"}, "pageSize"),
        ({"pageNumber": 0}, "pageNumber"),
        ({"pageNumber": "x"}, "pageNumber"),
    ],
)
def test_bad_paging_is_refused_naming_the_parameter(
    tenant: TenantHandle, params: dict[str, Any], source: str
) -> None:
    answer = tenant.http.get(RATE_REQUESTS, params=params)
    assert answer.status_code == 400, answer.text
    assert any(source in found for found in error_sources(answer)), answer.text


def test_credentials_are_needed(tenant: TenantHandle) -> None:
    answer = httpx.get(f"{tenant.service.url}{RATE_REQUESTS}", timeout=30)
    assert answer.status_code == 401
    assert answer.json()["httpStatusCode"] == 401


def test_the_document_marks_it_as_an_extension(tenant: TenantHandle) -> None:
    document = httpx.get(f"{tenant.service.url}/openapi.json", timeout=120).json()
    operation = document["paths"][RATE_REQUESTS]["get"]
    assert operation["operationId"] == "listRateRequests"
    assert operation["x-freightdesk-extension"] is True
    assert "x-freightdesk-extension" not in document["paths"][RATE_REQUESTS]["post"]


# --- the app's rating service --------------------------------------------------------------


@pytest.fixture
async def behind_proxy(
    sqlite_service: LiveService, tmp_path: Path
) -> AsyncIterator[tuple[TenantHandle, FaultyProxy, ApiClient, Cache]]:
    tenant = make_tenant(sqlite_service)
    proxy = FaultyProxy(sqlite_service.url).start()
    cache = Cache(tmp_path / "cache.sqlite3")
    try:
        async with ApiClient(
            proxy.url,
            client_id=tenant.client_id,
            client_secret=tenant.client_secret,
            retry=FAST_RETRY,
        ) as client:
            yield tenant, proxy, client, cache
    finally:
        cache.close()
        proxy.stop()
        tenant.http.close()


def _rating(client: ApiClient, cache: Cache) -> RatingService:
    return RatingService(lambda: client, cache, interval=0.1, fast_interval=0.05, idle_interval=0.3)


def _shown(rating: RatingService) -> list[str]:
    data = rating.coordinator.data
    return list(data.order) if data is not None else []


async def test_the_service_lists_requests_made_elsewhere(
    behind_proxy: tuple[TenantHandle, FaultyProxy, ApiClient, Cache],
) -> None:
    tenant, _proxy, client, cache = behind_proxy
    elsewhere = list(reversed(_make(tenant, 3)))
    rating = _rating(client, cache)
    try:
        await rating.load_cached()
        rating.coordinator.listen(lambda _change: None)  # polls while someone listens
        await wait_until(lambda: _shown(rating) == elsewhere)
        # Taken off the list, it stays off (the next listings skip it), also after a restart.
        await rating.forget(elsewhere[0])
        more = _make(tenant, 1)
        await wait_until(lambda: _shown(rating) == more + elsewhere[1:])
    finally:
        await rating.aclose()
    again = _rating(client, cache)
    try:
        assert [str(r.id) for r in (await again.load_cached()).items()] == more + elsewhere[1:]
        again.coordinator.listen(lambda _change: None)
        await wait_until(lambda: again._listing is True)
        assert _shown(again) == more + elsewhere[1:]
        # Opened again by its id, it is back.
        await again.open(elsewhere[0])
        await wait_until(lambda: sorted(_shown(again)) == sorted(more + elsewhere))
    finally:
        await again.aclose()


@pytest.mark.parametrize("status", [404, 405])
async def test_a_service_without_the_listing_keeps_the_apps_own(
    behind_proxy: tuple[TenantHandle, FaultyProxy, ApiClient, Cache], status: int
) -> None:
    tenant, proxy, client, cache = behind_proxy
    _make(tenant, 2)  # made elsewhere: such a service cannot say
    # The listing answered as a service without it answers (the GET by id is a longer path).
    proxy.inject(Fault(status=status, method="GET", path_prefix=RATE_REQUESTS, forward=False))
    rating = _rating(client, cache)
    try:
        await rating.load_cached()
        rating.coordinator.listen(lambda _change: None)
        await wait_until(lambda: rating._listing is False)
        created = await rating.create(RateRequestCreate.model_validate(tl_request(["PRLF"])))
        await wait_until(
            lambda: (
                (data := rating.coordinator.data) is not None
                and data.order == (str(created.id),)
                and len(data.by_id[str(created.id)].quotes) == 2
            )
        )
        # Asked once only: the app does not try again on every poll.
        await wait_until(lambda: proxy.count("GET", f"{RATE_REQUESTS}/{created.id}") >= 3)
        assert proxy.count("GET", RATE_REQUESTS) == 1
    finally:
        await rating.aclose()
