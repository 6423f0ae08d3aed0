"""The shipment list's incremental sync on the real local service over HTTP: against writers
that commit out of order (once on SQLite, once on PostgreSQL), and promptly after a change the
service layer is told of."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from starlette.requests import Request
from starlette.responses import Response

from freightdesk.api.client import ApiClient
from freightdesk.server.db import utcnow
from freightdesk.server.tables.tracking import Shipment
from freightdesk.service.cache import Cache
from freightdesk.service.sharing import SharingService
from freightdesk.service.shipments import (
    CURSOR_KEY,
    ROWS_KEY,
    ROWS_WITH_ZONES,
    TOKEN_KEY,
    ShipmentsService,
)
from tests.api.conftest import signed_in
from tests.proxy import Fault, FaultyProxy
from tests.support import (
    LiveService,
    TenantHandle,
    make_tenant,
    running_service,
    tenant_of,
    wait_until,
)


@pytest.fixture
def live(database_url: str) -> Iterator[LiveService]:
    with running_service(database_url) as service:
        yield service


@pytest.fixture
def owner(live: LiveService) -> Iterator[TenantHandle]:
    with tenant_of(live) as handle:
        yield handle


@pytest.fixture
async def api(owner: TenantHandle) -> AsyncIterator[ApiClient]:
    async with signed_in(owner) as client:
        yield client


def _create(tenant: TenantHandle, pro: str) -> str:
    body = {"identifiers": [{"type": "PRO", "value": pro}]}
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code in (200, 201), answer.text
    return str(answer.json()["id"])


async def test_a_change_committed_after_a_later_one_was_read_is_not_missed(
    live: LiveService, owner: TenantHandle, api: ApiClient, tmp_path: Path
) -> None:
    """Writer A stamps shipment X and commits 2.5 s later (a long batch, or a wait for
    SQLite's write lock); meanwhile writer B changes Y and the list syncs. The sync after A's
    commit must bring X's change although its stamp is older than what the list read before."""
    first = _create(owner, f"PROA{uuid.uuid4().hex[:6]}")
    second = _create(owner, f"PROB{uuid.uuid4().hex[:6]}")
    cache = Cache(tmp_path / "cache.sqlite3")
    service = ShipmentsService(lambda: api, cache, interval=3600)
    try:
        assert await service.coordinator.fetch_now()
        stamped = threading.Event()
        release = threading.Event()

        def writer_a() -> None:
            with live.context.engine.begin() as conn:
                change = (
                    update(Shipment)
                    .where(Shipment.id == first)
                    .values(origin_name="Late commit", last_modified_at=utcnow())
                )
                if conn.dialect.name == "postgresql":
                    conn.execute(change)  # row stamped and locked, committed later
                    stamped.set()
                    assert release.wait(30)
                else:
                    # A SQLite writer stamps its rows before it gets the one write lock (the
                    # domain's `now`, then the flush): it may wait for it up to busy_timeout.
                    stamped.set()
                    assert release.wait(30)
                    conn.execute(change)

        def writer_b() -> int:
            body = {"id": second, "identifiers": [{"type": "PRO", "value": "PROB-EDITED"}]}
            return owner.http.put("/api/v4/shipments/tracking", json=body).status_code

        a = asyncio.create_task(asyncio.to_thread(writer_a))
        assert await asyncio.to_thread(stamped.wait, 10)
        assert await asyncio.to_thread(writer_b) == 200
        # A sync while A is still open, longer after A's stamp than the list's overlap (a
        # read waits for no writer on either database).
        await asyncio.sleep(2.5)
        assert await service.coordinator.fetch_now()
        release.set()
        await a
        assert await service.coordinator.fetch_now()
        rows = service.coordinator.data.summaries if service.coordinator.data else {}
        assert rows[second].primary_identifier == "PROB-EDITED"
        assert rows[first].origin_name == "Late commit"
    finally:
        await service.coordinator.aclose()
        cache.close()


async def test_a_share_shows_in_the_list_without_waiting_for_a_poll(
    client: ApiClient, tenant_: TenantHandle, cache: Cache
) -> None:
    shipment = _create(tenant_, f"PROS{uuid.uuid4().hex[:6]}")
    recipient = make_tenant(tenant_.service)
    service = ShipmentsService(lambda: client, cache, interval=3600)
    stop = service.coordinator.listen(lambda _change: None)
    try:
        await wait_until(lambda: service.coordinator.status.last_success is not None)
        data = service.coordinator.data
        assert data is not None
        before = data.summaries[shipment].last_modified
        sharing = SharingService(lambda: client, service.changed)
        await sharing.share(shipment, uuid.UUID(recipient.uuid))

        def synced() -> bool:
            rows = service.coordinator.data.summaries if service.coordinator.data else {}
            return rows[shipment].last_modified > before

        await wait_until(synced, seconds=10)  # an interval of an hour
        assert service.coordinator.notified_fetches == 1
    finally:
        stop()
        await service.coordinator.aclose()
        recipient.http.close()


SEARCH = "/api/v4/shipments/search"


class _FirstAnswerHeld(FaultyProxy):
    """A proxy holding back the first answer to `path` for `seconds` once the service has
    given it; `answered` is set then."""

    def __init__(self, upstream: str, path: str, seconds: float) -> None:
        super().__init__(upstream)
        self.held_path = path
        self.seconds = seconds
        self.answered = threading.Event()

    async def _forward(self, request: Request) -> Response:
        response = await super()._forward(request)
        if "/" + request.path_params["path"] == self.held_path and not self.answered.is_set():
            self.answered.set()
            await asyncio.sleep(self.seconds)
        return response


@asynccontextmanager
async def _first_page_held(
    reader: TenantHandle, tmp_path: Path
) -> AsyncIterator[tuple[ShipmentsService, asyncio.Task[bool]]]:
    """`reader`'s list, two shipments a page, and its first sync: yielded once the service
    has answered the first page, which a proxy holds back 1.5 s while the test changes
    shipments; the list, its cache and the proxy closed after."""
    proxy = _FirstAnswerHeld(reader.service.url, SEARCH, 1.5)
    proxy.start()
    try:
        async with signed_in(reader, via=proxy) as api:
            cache = Cache(tmp_path / "cache.sqlite3")
            service = ShipmentsService(lambda: api, cache, interval=3600, page_size=2)
            try:
                sync = asyncio.create_task(service.coordinator.fetch_now())
                await wait_until(lambda: proxy.answered.is_set() or sync.done())
                assert not sync.done() and proxy.count("POST", SEARCH) == 1
                yield service, sync
            finally:
                await service.coordinator.aclose()
                cache.close()
    finally:
        proxy.stop()


async def test_a_cache_of_an_earlier_version_moves_to_tokens_without_listing_all_again(
    tenant_: TenantHandle, proxy: FaultyProxy, proxied_client: ApiClient, tmp_path: Path
) -> None:
    old = _create(tenant_, f"PROO{uuid.uuid4().hex[:6]}")
    synced = ShipmentsService(lambda: proxied_client, Cache(tmp_path / "synced.sqlite3"))
    assert await synced.coordinator.fetch_now()
    assert synced.coordinator.data is not None
    await synced.coordinator.aclose()
    synced.cache.close()
    # The cache as an earlier version left it: the rows and a clock cursor, no token.
    cache = Cache(tmp_path / "cache.sqlite3")
    cache.put_summaries(synced.coordinator.data.summaries.values())
    cache.set_meta(ROWS_KEY, ROWS_WITH_ZONES)
    cursor = datetime.now(UTC) - timedelta(seconds=2)
    cache.set_meta(CURSOR_KEY, cursor.isoformat())
    new = _create(tenant_, f"PRON{uuid.uuid4().hex[:6]}")
    service = ShipmentsService(lambda: proxied_client, cache, interval=3600)
    await service.load_cached()
    proxy.clear()
    assert await service.coordinator.fetch_now()
    sent = proxy.sent("POST", SEARCH)[-1]
    assert sent["changesSince"] == ""
    assert "lastModifiedAfter" in sent
    data = service.coordinator.data
    assert data is not None and set(data.summaries) >= {old, new}
    assert data.token is not None and cache.meta(TOKEN_KEY) == data.token
    # From now on by the token alone.
    assert await service.coordinator.fetch_now()
    sent = proxy.sent("POST", SEARCH)[-1]
    assert sent["changesSince"] == data.token and "lastModifiedAfter" not in sent
    await service.coordinator.aclose()
    cache.close()


async def test_a_service_without_tokens_is_synced_by_its_clock(
    tenant_: TenantHandle, proxy: FaultyProxy, proxied_client: ApiClient, cache: Cache
) -> None:
    refused = {
        "httpStatusCode": 400,
        "httpMessage": "Bad Request",
        "errorMessage": "Unknown field",
        "errors": [{"severity": "ERROR", "message": "Unknown field", "source": "changesSince"}],
    }
    # An earlier version's service refuses the field it does not know.
    proxy.inject(
        Fault(
            status=400,
            body=json.dumps(refused).encode(),
            forward=False,
            path_prefix=SEARCH,
            headers={"content-type": "application/json"},
        )
    )
    service = ShipmentsService(lambda: proxied_client, cache, interval=3600)
    shipment = _create(tenant_, f"PROC{uuid.uuid4().hex[:6]}")
    assert await service.coordinator.fetch_now()
    assert service.coordinator.data is not None
    assert shipment in service.coordinator.data.summaries
    answer = tenant_.http.put(
        "/api/v4/shipments/tracking",
        json={"id": shipment, "identifiers": [{"type": "PRO", "value": "PRO-CLOCK"}]},
    )
    assert answer.status_code == 200
    assert await service.coordinator.fetch_now()
    data = service.coordinator.data
    assert data is not None and data.token is None
    assert data.summaries[shipment].primary_identifier == "PRO-CLOCK"
    sent = proxy.sent("POST", SEARCH)
    assert "changesSince" in sent[0]
    assert all("changesSince" not in body for body in sent[1:])
    assert "lastModifiedAfter" in sent[-1]
    await service.coordinator.aclose()


async def test_a_change_while_a_sync_pages_skips_no_other_shipment(
    tenant_: TenantHandle, tmp_path: Path
) -> None:
    """Offset paging: a shipment changed between two pages of a sync moves within the order;
    the shipments behind it must not slide past the next page's offset unseen."""
    ids = [_create(tenant_, f"PROP{n}{uuid.uuid4().hex[:6]}") for n in range(6)]
    async with _first_page_held(tenant_, tmp_path) as (service, sync):
        for changed in (ids[0], ids[-1]):  # the oldest and the newest
            body = {"id": changed, "identifiers": [{"type": "PRO", "value": f"E{changed}"}]}
            assert tenant_.http.put("/api/v4/shipments/tracking", json=body).is_success
        assert await sync
        data = service.coordinator.data
        assert data is not None
        assert set(data.summaries) >= set(ids[1:-1])  # none of the unchanged missing
        # The changed ones (as changed) come with the next sync at the latest.
        assert await service.coordinator.fetch_now()
        data = service.coordinator.data
        assert data is not None and set(data.summaries) == set(ids)
        for changed in (ids[0], ids[-1]):
            assert data.summaries[changed].primary_identifier == f"E{changed}"


@pytest.mark.parametrize("leaves", ["deleted", "unshared"])
async def test_a_shipment_leaving_while_a_sync_pages_skips_no_other_shipment(
    live: LiveService, owner: TenantHandle, tmp_path: Path, leaves: str
) -> None:
    """A shipment on a page already read is deleted (or no longer shared with the reader)
    before the next page is read: the rows after it must not slide past the next page
    unseen (offset paging skipped one), on SQLite and on PostgreSQL."""
    with tenant_of(live) if leaves == "unshared" else nullcontext(owner) as reader:
        ids = [_create(owner, f"PROL{n}{uuid.uuid4().hex[:6]}") for n in range(7)]
        if reader is not owner:
            for shipment in ids:
                path = f"/api/v4/shipments/{shipment}/shares"
                assert owner.http.post(path, json={"tenantUuid": reader.uuid}).is_success
        async with _first_page_held(reader, tmp_path) as (service, sync):
            # A shipment on the first page leaves: the oldest and the newest, so one is on it
            # in either order.
            gone = {ids[0], ids[-1]}
            for shipment in gone:
                if leaves == "deleted":
                    answer = owner.http.delete(f"/api/v4/shipments/{shipment}/tracking")
                else:
                    path = f"/api/v4/shipments/{shipment}/shares/{reader.uuid}"
                    answer = owner.http.delete(path)
                assert answer.is_success, answer.text
            assert await sync
            data = service.coordinator.data
            assert data is not None
            remaining = set(ids) - gone
            assert remaining <= set(data.summaries), "skipped by a page boundary"
            # The one that left goes with the next sync at the latest.
            assert await service.coordinator.fetch_now()
            data = service.coordinator.data
            assert data is not None and set(data.summaries) == remaining
