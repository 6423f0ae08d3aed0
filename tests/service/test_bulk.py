"""Bulk operations over many shipments against the real local service: each shipment's outcome
is told (a shipment gone meanwhile is listed with its reason, the others done), progress is
counted, a cancel leaves the rest not started, and nothing of a shipment is lost on the way."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.service.bulk import (
    NOT_STARTED,
    Cancel,
    Outcome,
    remove_attribute,
    run_bulk,
    set_attribute,
    stop_tracking,
)
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import ShipmentsService
from tests.support import TenantHandle


def _create(tenant: TenantHandle, attributes: list[dict[str, object]] | None = None) -> str:
    pro = f"PRO{uuid.uuid4().hex[:8].upper()}"
    body: dict[str, object] = {
        "identifiers": [{"type": "PRO", "value": pro}],
        "attributes": attributes or [],
    }
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code in (200, 201), answer.text
    return str(answer.json()["id"])


def _attributes(tenant: TenantHandle, shipment_id: str) -> dict[str, list[str]]:
    answer = tenant.http.get(f"/api/v4/shipments/{shipment_id}/attributes")
    assert answer.status_code == 200, answer.text
    return {a["attributeName"]: a["attributeValues"] for a in answer.json()}


@pytest.fixture
async def service(client: ApiClient, cache: Cache) -> AsyncIterator[ShipmentsService]:
    made = ShipmentsService(lambda: client, cache)
    yield made
    await made.coordinator.aclose()


async def test_set_attribute_on_many_lists_the_one_gone_and_does_the_others(
    service: ShipmentsService, tenant_: TenantHandle
) -> None:
    ids = [_create(tenant_, [{"name": "Dock", "value": "7"}]) for _ in range(5)]
    gone = _create(tenant_)
    assert tenant_.http.delete(f"/api/v4/shipments/{gone}/tracking").status_code == 202
    chosen = [*ids[:2], gone, *ids[2:]]
    seen: list[tuple[int, int]] = []

    result = await run_bulk(
        chosen,
        set_attribute(service, "Priority", "High"),
        progress=lambda done, total: seen.append((done, total)),
        concurrency=3,
    )

    assert [i.shipment_id for i in result.items] == chosen
    assert [i.shipment_id for i in result.problems] == [gone]
    assert result.problems[0].outcome is Outcome.FAILED
    assert "no longer exists" in result.problems[0].reason
    assert not result.cancelled
    assert seen[-1] == (6, 6) and [d for d, _ in seen] == [1, 2, 3, 4, 5, 6]
    for shipment_id in ids:
        # The new attribute beside the one it had; the list shows the write already.
        assert _attributes(tenant_, shipment_id) == {"Dock": ["7"], "Priority": ["High"]}
    assert service.coordinator.data is not None
    assert set(service.coordinator.data.summaries) == set(ids)


async def test_setting_again_replaces_the_value_and_keeps_the_users_events(
    service: ShipmentsService, tenant_: TenantHandle
) -> None:
    shipment_id = _create(tenant_, [{"name": "priority", "value": "Low"}])
    event = {
        "type": "EXCEPTION",
        "dateTime": datetime.now(UTC).isoformat(),
        "description": "Driver called in: gate closed",
    }
    current = tenant_.http.get(f"/api/v4/shipments/{shipment_id}/tracking").json()
    recorded = tenant_.http.put("/api/v4/shipments/tracking", json={**current, "events": [event]})
    assert recorded.status_code == 200, recorded.text

    result = await run_bulk([shipment_id], set_attribute(service, " Priority ", "High"))

    assert not result.problems
    # The name is the same regardless of case: replaced, not doubled.
    assert _attributes(tenant_, shipment_id) == {"Priority": ["High"]}
    history = tenant_.http.get(f"/api/v4/shipments/{shipment_id}/tracking/history").json()
    assert [e["description"] for e in history["events"]] == ["Driver called in: gate closed"]


async def test_remove_attribute_leaves_others_and_shipments_without_it(
    service: ShipmentsService, tenant_: TenantHandle
) -> None:
    having = _create(tenant_, [{"name": "Dock", "value": "7"}, {"name": "Hold", "value": "y"}])
    without = _create(tenant_, [{"name": "Dock", "value": "9"}])

    result = await run_bulk([having, without], remove_attribute(service, "hold"))

    assert [i.outcome for i in result.items] == [Outcome.OK, Outcome.OK]
    assert _attributes(tenant_, having) == {"Dock": ["7"]}
    assert _attributes(tenant_, without) == {"Dock": ["9"]}


async def test_a_shipment_at_the_attribute_limit_is_listed_with_the_reason(
    service: ShipmentsService, tenant_: TenantHandle
) -> None:
    full = _create(tenant_, [{"name": f"A{n}", "value": "x"} for n in range(25)])
    room = _create(tenant_)

    result = await run_bulk([full, room], set_attribute(service, "Priority", "High"))

    assert [i.shipment_id for i in result.problems] == [full]
    assert "25 attributes already" in result.problems[0].reason
    assert "Priority" not in _attributes(tenant_, full)
    assert _attributes(tenant_, room) == {"Priority": ["High"]}


async def test_stop_tracking_and_a_cancel_between_shipments(
    service: ShipmentsService, tenant_: TenantHandle
) -> None:
    ids = [_create(tenant_) for _ in range(6)]
    cancel = Cancel()

    def progressed(done: int, _total: int) -> None:
        if done == 2:
            cancel.set()  # the user presses Cancel after the second

    result = await run_bulk(
        ids, stop_tracking(service), progress=progressed, cancel=cancel, concurrency=1
    )

    assert [i.outcome for i in result.items] == [Outcome.OK] * 2 + [Outcome.NOT_STARTED] * 4
    assert result.cancelled and result.problems[0].reason == NOT_STARTED
    for shipment_id in ids[:2]:
        assert tenant_.http.get(f"/api/v4/shipments/{shipment_id}/tracking").status_code == 404
    for shipment_id in ids[2:]:
        assert tenant_.http.get(f"/api/v4/shipments/{shipment_id}/tracking").status_code == 200
