"""The shipment list and an open shipment, synced from the real local service."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from freightdesk.api.client import EXTENSIONS_PATH, ApiClient
from freightdesk.models.common import LogisticsIdentifier
from freightdesk.models.shipment_search import ShipmentSearchRequest
from freightdesk.models.tracking import TrackedShipmentInput
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import (
    ShipmentDetail,
    ShipmentList,
    ShipmentsChange,
    ShipmentsService,
    diff_lists,
)
from freightdesk.service.summary_rows import SummaryRow
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle


def _ltl(pro: str) -> dict[str, object]:
    return {
        "identifiers": [
            {"type": "PRO", "value": pro},
            {"type": "BILL_OF_LADING", "value": f"BOL{pro}"},
        ]
    }


def _create(tenant: TenantHandle, pro: str) -> str:
    answer = tenant.http.put("/api/v4/shipments/tracking", json=_ltl(pro))
    assert answer.status_code in (200, 201), answer.text
    return str(answer.json()["id"])


async def test_first_sync_then_incremental_changes(
    client: ApiClient, tenant_: TenantHandle, tmp_path: Path
) -> None:
    ids = [_create(tenant_, f"PRO{n}{uuid.uuid4().hex[:6]}") for n in range(3)]
    cache = Cache(tmp_path / "cache.sqlite3")
    # No overlap window here, so the request count is exact.
    service = ShipmentsService(lambda: client, cache, page_size=2, cursor_overlap=timedelta(0))
    changes: list[ShipmentsChange] = []
    stop = service.coordinator.listen(changes.append)
    try:
        assert await service.coordinator.fetch_now()
        assert service.coordinator.data is not None
        assert set(service.coordinator.data.summaries) == set(ids)
        assert service.requests_last_sync == 2  # 3 shipments, 2 a page
        # The next sync asks from the service's clock on: nothing changed costs one request
        # and tells nobody anything.
        before = len(changes)
        assert await service.coordinator.fetch_now()
        assert service.requests_last_sync == 1
        assert len(changes) == before
        # One replaced, one deleted, one new.
        new_pro = f"PRONEW{uuid.uuid4().hex[:6]}"
        replaced = tenant_.http.put(
            "/api/v4/shipments/tracking", json={"id": ids[0], **_ltl(new_pro)}
        )
        assert replaced.status_code == 200, replaced.text
        assert tenant_.http.delete(f"/api/v4/shipments/{ids[1]}/tracking").status_code == 202
        added = _create(tenant_, f"PROADD{uuid.uuid4().hex[:6]}")
        assert await service.coordinator.fetch_now()
        change = changes[-1]
        assert change.changed >= {ids[0], added}
        assert change.removed == {ids[1]}
        assert service.coordinator.data.summaries[ids[0]].primary_identifier == new_pro
        synced = service.coordinator.data.summaries
    finally:
        stop()
        await service.coordinator.aclose()
    # The app opens from the cache before any network, with every field as synced.
    reopened = ShipmentsService(lambda: client, cache)
    cached = await reopened.load_cached()
    assert set(cached.summaries) == {ids[0], ids[2], added}
    assert cached.summaries == synced
    cache.close()


async def test_writes_show_at_once(client: ApiClient, tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache.sqlite3")
    service = ShipmentsService(lambda: client, cache, interval=3600)
    await service.coordinator.fetch_now()
    pro = f"PROW{uuid.uuid4().hex[:6]}"
    saved = await service.save(
        TrackedShipmentInput(
            identifiers=[
                LogisticsIdentifier(type="PRO", value=pro),
                LogisticsIdentifier(type="BILL_OF_LADING", value="B1"),
            ]
        )
    )
    assert service.coordinator.data is not None
    assert service.coordinator.data.summaries[str(saved.id)].primary_identifier == pro
    await service.delete(saved.id)
    assert str(saved.id) not in service.coordinator.data.summaries
    await service.coordinator.aclose()
    cache.close()


async def test_without_the_search_extension_known_shipments_are_refreshed(
    tenant_: TenantHandle, proxy: FaultyProxy, proxied_client: ApiClient, tmp_path: Path
) -> None:
    # A deployment other than FreightDesk: no list of extensions, a document without.
    proxy.inject(Fault(status=404, forward=False, path_prefix=EXTENSIONS_PATH))
    proxy.inject(Fault(status=200, body=b'{"paths": {}}', path_prefix="/openapi.json"))
    # A deployment without the extension: its search path is not there.
    proxy.inject(Fault(status=404, forward=False, path_prefix="/api/v4/shipments/search"))
    cache = Cache(tmp_path / "cache.sqlite3")
    service = ShipmentsService(lambda: proxied_client, cache, interval=3600)
    await service.coordinator.fetch_now()
    saved = await service.save(
        TrackedShipmentInput(identifiers=[LogisticsIdentifier(type="PRO", value="PRO-NOEXT")])
    )
    assert not await proxied_client.tracking.has_search()
    tenant_.http.put(
        "/api/v4/shipments/tracking",
        json={"id": str(saved.id), **_ltl("PRO-RENAMED")},
    )
    assert await service.coordinator.fetch_now()
    data = service.coordinator.data
    assert data is not None
    assert data.summaries[str(saved.id)].primary_identifier == "PRO-RENAMED"
    await service.coordinator.aclose()
    cache.close()


async def test_open_shipment_polls_with_etags(client: ApiClient, tenant_: TenantHandle) -> None:
    shipment_id = _create(tenant_, f"PROD{uuid.uuid4().hex[:6]}")
    detail = ShipmentDetail(lambda: client, shipment_id, interval=3600)
    assert await detail.coordinator.fetch_now()
    first = detail.coordinator.data
    assert first is not None and str(first.shipment.id) == shipment_id
    assert await detail.coordinator.fetch_now()
    assert detail.coordinator.data is first  # a 304: the same object, nothing announced
    await detail.coordinator.aclose()


def _row(n: int) -> SummaryRow:
    base = datetime(2026, 11, 1, tzinfo=UTC)
    return SummaryRow(
        id=f"id-{n}",
        identifiers=(("PRO", f"PRO{n}"),),
        primary_identifier=f"PRO{n}",
        mode="LTL",
        current_state="IN_TRANSIT",
        origin_name=None,
        destination_name=None,
        next_eta=None,
        latest_event_type=None,
        latest_event_time=None,
        latest_event_description=None,
        open_exception_count=0,
        carrier=None,
        created=base,
        last_modified=base,
    )


def test_a_derived_list_tells_its_change_without_comparing_every_row() -> None:
    rows = {f"id-{n}": _row(n) for n in range(5)}
    old = ShipmentList(rows)
    summaries = {k: v for k, v in rows.items() if k != "id-1"}
    summaries["id-2"] = rows["id-2"]._replace(open_exception_count=1)
    summaries["id-9"] = rows["id-0"]._replace(id="id-9")
    derived = old.derived(summaries, None, ["id-2", "id-9"], ["id-1"])
    plain = ShipmentList(summaries)
    expected = ShipmentsChange(frozenset({"id-2", "id-9"}), frozenset({"id-1"}))
    assert diff_lists(old, derived) == expected
    assert diff_lists(old, plain) == expected  # the same, found by comparing
    # Against another list than its base, a derived list is compared like any other.
    other = ShipmentList(dict(rows))
    assert diff_lists(other, derived) == expected
    assert diff_lists(old, old.derived(dict(rows), None)) is None


class _ReadCounted(dict[str, SummaryRow]):
    """A list's rows that count the rows looked up in them."""

    looked_up = 0

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.looked_up += 1
        return super().get(key, default)


def test_a_first_sync_into_an_empty_list_tells_every_row_new_without_comparing() -> None:
    # The first full sync of 20,000 rows into an empty cache compared each with nothing on
    # the GUI thread (tens of ms at once); an empty list needs no comparison.
    rows = {f"id-{n}": _row(n) for n in range(1000)}
    empty = _ReadCounted()
    change = diff_lists(ShipmentList(empty), ShipmentList(rows))
    assert change == ShipmentsChange(frozenset(rows))
    assert (
        change is not None and not change.full
    )  # as before: an empty cached list is a list, not a reload
    assert empty.looked_up == 0
    assert diff_lists(ShipmentList(empty), ShipmentList({})) is None


async def test_shipments_matching_a_filter_the_list_cannot_answer(
    client: ApiClient, tenant_: TenantHandle, tmp_path: Path
) -> None:
    tagged = []
    for n in range(3):
        body = {**_ltl(f"PROA{uuid.uuid4().hex[:6]}")}
        if n < 2:
            body["attributes"] = [{"name": "customer", "value": "Acme"}]
        answer = tenant_.http.put("/api/v4/shipments/tracking", json=body)
        assert answer.status_code == 201, answer.text
        tagged.append(str(answer.json()["id"]))
    cache = Cache(tmp_path / "cache.sqlite3")
    service = ShipmentsService(lambda: client, cache, interval=3600)
    request = ShipmentSearchRequest(attribute_name="customer", attribute_value="Acme")
    assert await service.matching_ids(request) == frozenset(tagged[:2])
    assert len(await service.matching_ids(ShipmentSearchRequest(), limit=1)) == 1
    history = await service.history(tagged[0])
    assert str(history.shipment.id) == tagged[0]
    await service.coordinator.aclose()
    cache.close()
