"""The polling coordinator over the real client and service, with a misbehaving network."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.models.account_groups import AccountGroup, AccountGroupCreate
from freightdesk.service.coordinator import Coordinator
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until

Groups = tuple[AccountGroup, ...]


def _diff(old: Groups | None, new: Groups) -> set[str] | None:
    before = {g.code for g in old or ()}
    after = {g.code for g in new}
    return (before ^ after) or None


@pytest.fixture
def proxied(proxied_client: ApiClient, proxy: FaultyProxy) -> tuple[ApiClient, FaultyProxy]:
    """The client of `tenant_` through the misbehaving proxy, and the proxy."""
    return proxied_client, proxy


def _coordinator(api: ApiClient, interval: float = 0.05) -> Coordinator[Groups, set[str]]:
    async def fetch(_previous: Groups | None) -> Groups:
        return tuple(await api.account_groups.list())

    return Coordinator("groups", fetch, _diff, interval=interval, max_backoff=0.2, debounce=0.05)


GROUPS_PATH = "/api/v4/capacityprovideraccountgroups"


@asynccontextmanager
async def _listened(api: ApiClient) -> AsyncIterator[Coordinator[Groups, set[str]]]:
    """A coordinator polling hourly with a listener, after its first fetch: what follows is
    what notifications make."""
    coordinator = _coordinator(api, interval=3600)
    stop = coordinator.listen(lambda _change: None)
    try:
        await wait_until(lambda: coordinator.status.last_success is not None)
        yield coordinator
    finally:
        stop()
        await coordinator.aclose()


async def test_tells_listeners_only_of_real_changes(
    proxied: tuple[ApiClient, FaultyProxy], tenant_: TenantHandle
) -> None:
    api, proxy = proxied
    coordinator = _coordinator(api)
    changes: list[set[str]] = []
    stop = coordinator.listen(changes.append)
    try:
        await wait_until(lambda: coordinator.status.last_success is not None)
        # Polls one at a time: when the third from now is asked, two more have been answered.
        asked = proxy.count("GET", GROUPS_PATH)
        await wait_until(lambda: proxy.count("GET", GROUPS_PATH) >= asked + 3)
        assert changes == []  # unchanged data, polled again and again
        tenant_.http.post(GROUPS_PATH, json={"code": "NEW", "name": "n"})
        await wait_until(lambda: changes == [{"NEW"}])
    finally:
        stop()
        await coordinator.aclose()


async def test_polls_only_while_someone_listens(proxied: tuple[ApiClient, FaultyProxy]) -> None:
    api, proxy = proxied
    coordinator = _coordinator(api)
    # A second source polled as often through the same proxy: its polls show that time for
    # several polls has passed, however late a loaded machine runs the loop.
    other = "/api/v4/stoplocations"

    async def fetch_other(_previous: int | None) -> int:
        await api.request("GET", other)
        return 0

    clock = Coordinator("clock", fetch_other, lambda _old, _new: None, interval=0.05)
    stop = coordinator.listen(lambda _c: None)
    stop_clock = clock.listen(lambda _c: None)
    try:
        await wait_until(lambda: proxy.count("GET", GROUPS_PATH) >= 3)
        stop()
        await wait_until(lambda: not coordinator.polling)
        # A fetch under way when the listener left may still reach the proxy. The clock's
        # second poll from here was sent after it, so once that is counted, so is any such
        # fetch; from then on nothing more may come while the clock polls on.
        ticks = proxy.count("GET", other)
        await wait_until(lambda: proxy.count("GET", other) >= ticks + 2, seconds=60)
        seen = proxy.count("GET", GROUPS_PATH)
        ticks = proxy.count("GET", other)
        await wait_until(lambda: proxy.count("GET", other) >= ticks + 4, seconds=60)
        assert proxy.count("GET", GROUPS_PATH) == seen
        assert not coordinator.polling
    finally:
        stop_clock()
        await clock.aclose()
        await coordinator.aclose()


async def test_keeps_last_good_data_and_backs_off(proxied: tuple[ApiClient, FaultyProxy]) -> None:
    api, proxy = proxied
    coordinator = _coordinator(api)
    stop = coordinator.listen(lambda _c: None)
    try:
        await wait_until(lambda: coordinator.data is not None)
        good = coordinator.data
        proxy.inject(Fault(status=500, path_prefix="/api/v4/capacity"), times=50)
        await wait_until(lambda: coordinator.status.failures >= 2)
        assert coordinator.data == good
        assert coordinator.status.stale
        assert coordinator.next_delay() > coordinator.interval
        proxy.faults.clear()
        await wait_until(lambda: coordinator.status.failures == 0)
        assert not coordinator.status.stale
    finally:
        stop()
        await coordinator.aclose()


async def test_manual_refreshes_are_debounced(proxied: tuple[ApiClient, FaultyProxy]) -> None:
    api, proxy = proxied
    coordinator = _coordinator(api, interval=3600)
    await asyncio.gather(*(coordinator.refresh() for _ in range(5)))
    assert proxy.count("GET", GROUPS_PATH) == 1
    assert coordinator.data == ()
    await coordinator.aclose()


async def test_writes_are_seen_at_once(proxied: tuple[ApiClient, FaultyProxy]) -> None:
    api, _proxy = proxied
    coordinator = _coordinator(api, interval=3600)
    changes: list[set[str]] = []
    stop = coordinator.listen(changes.append)
    await wait_until(lambda: coordinator.data is not None)
    created = await api.account_groups.create(AccountGroupCreate(code="W", name="w"))
    coordinator.apply((*(coordinator.data or ()), created))
    assert changes == [{"W"}]
    stop()
    await coordinator.aclose()


async def test_a_fetch_older_than_a_write_does_not_undo_it(
    proxied: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = proxied
    coordinator = _coordinator(api, interval=3600)
    await coordinator.fetch_now()
    held = threading.Event()  # the fetch's answer, until the write is applied
    proxy.inject(Fault(hold=held, path_prefix=GROUPS_PATH))
    fetch = asyncio.create_task(coordinator.fetch_now())
    await wait_until(lambda: proxy.count("GET", GROUPS_PATH) == 2)  # asked before the write
    created = await api.account_groups.create(AccountGroupCreate(code="W", name="w"))
    coordinator.apply((*(coordinator.data or ()), created))
    assert proxy.answered("GET", GROUPS_PATH) == 1  # the first fetch's only
    held.set()
    assert await fetch
    assert [g.code for g in coordinator.data or ()] == ["W"]
    assert proxy.count("GET", GROUPS_PATH) == 3  # the late answer was checked again, not taken
    await coordinator.aclose()


async def test_a_burst_of_notifications_makes_one_fetch(
    proxied: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = proxied
    async with _listened(api) as coordinator:
        assert proxy.count("GET", GROUPS_PATH) == 1
        for _ in range(50):
            coordinator.notify()
        await wait_until(lambda: proxy.count("GET", GROUPS_PATH) == 2)
        await asyncio.sleep(coordinator.notify_min_gap + 0.3)
        assert proxy.count("GET", GROUPS_PATH) == 2


async def test_notifications_during_a_fetch_make_one_follow_up(
    proxied: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = proxied
    async with _listened(api) as coordinator:
        proxy.inject(Fault(delay=2.0, path_prefix=GROUPS_PATH, method="GET"))
        coordinator.notify()
        await wait_until(lambda: proxy.count("GET", GROUPS_PATH) == 2)  # held by the proxy
        for _ in range(5):
            for _ in range(10):
                coordinator.notify()
            await asyncio.sleep(0.02)
        assert coordinator.status.fetching  # all of them came while it was under way
        await wait_until(lambda: proxy.count("GET", GROUPS_PATH) == 3)
        await asyncio.sleep(coordinator.notify_min_gap + 0.3)
        assert proxy.count("GET", GROUPS_PATH) == 3
        assert coordinator.notified_fetches == 2


async def test_notifications_wait_for_listeners(proxied: tuple[ApiClient, FaultyProxy]) -> None:
    api, proxy = proxied
    coordinator = _coordinator(api, interval=3600)
    coordinator.notify()  # nobody shows the data: nothing to fetch for
    # The wake-up a notification asks for is a timer on this loop due `notify_settle` from
    # now; one due later runs after it, however late the loop runs.
    await asyncio.sleep(coordinator.notify_settle * 2)
    assert coordinator.notified_fetches == 0
    assert not coordinator.polling
    assert proxy.count("GET", GROUPS_PATH) == 0
    await coordinator.aclose()


async def test_a_stream_of_notifications_fetches_at_most_twice_a_second(
    proxied: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = proxied
    async with _listened(api) as coordinator:
        loop = asyncio.get_running_loop()
        started = loop.time()
        while loop.time() - started < 1.5:
            coordinator.notify()
            await asyncio.sleep(0.01)
        elapsed = loop.time() - started
        await asyncio.sleep(coordinator.notify_min_gap + 0.3)
        # The first fetch, then one per notify_min_gap at most, and the last follow-up.
        assert 2 <= proxy.count("GET", GROUPS_PATH) <= 2 + elapsed / coordinator.notify_min_gap + 1
