"""The list's Next ETA and Event time in the zones of their stops: carried from the real local
service into the app's rows and cache; rows cached before them still load, and get them at the
next sync."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.models.tracking import TrackedShipmentEvent
from freightdesk.server.domain import shipments as store
from freightdesk.service.cache import Cache
from freightdesk.service.clock import UserZone, place_time, set_user_zone
from freightdesk.service.shipments import (
    CURSOR_KEY,
    ROWS_KEY,
    ShipmentsService,
    summary_from_history,
)
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, cached_rows, row_json
from tests.server.test_tracking_support import receive
from tests.support import TenantHandle

ETA = datetime(2030, 1, 15, 18, tzinfo=UTC)  # 12:00 CST in Chicago
LEFT = datetime(2030, 1, 14, 9, tzinfo=UTC)  # 03:00 CST, when it left Chicago


def _shipment_due_in_chicago(tenant: TenantHandle) -> str:
    """A shipment whose latest event happened at its Chicago stop (which has a zone), and
    whose ETA is for the stop after it, Milwaukee's, in Chicago's zone (a stop's own ETA ends
    once something happened there); Dallas has none."""
    stops = [
        {
            "name": "Dallas yard",
            "type": "PICKUP",
            "location": {"address": {"city": "Dallas", "country": "US"}},
        },
        {
            "name": "Chicago terminal",
            "type": "PICKUP",
            "location": {"address": {"city": "Chicago", "country": "US"}},
            "appointmentWindow": {"localTimeZoneIdentifier": "America/Chicago"},
        },
        {
            "name": "Milwaukee dock",
            "type": "DELIVERY",
            "location": {"address": {"city": "Milwaukee", "country": "US"}},
            "appointmentWindow": {"localTimeZoneIdentifier": "America/Chicago"},
        },
    ]
    body = {
        "identifiers": [{"type": "PRO", "value": f"PROZ{uuid.uuid4().hex[:8]}"}],
        "routeInfo": {"stops": stops},
    }
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 201, answer.text
    shipment = answer.json()
    chicago, milwaukee = (stop["id"] for stop in shipment["routeInfo"]["stops"][1:])
    receive(
        tenant, lambda s: store.set_eta(s, shipment["id"], ETA, stop_id=milwaukee, source="LTL")
    )
    left = TrackedShipmentEvent(type="DEPARTURE_FROM_STOP", date_time=LEFT, stop_id=chicago)
    receive(tenant, lambda s: store.add_event(s, shipment["id"], left, "LTL"))
    return str(shipment["id"])


async def _synced(
    client: ApiClient, tenant: TenantHandle, tmp_path: Path
) -> tuple[str, Cache, SummaryRow]:
    """A shipment due in Chicago, a cache, and its row after a first sync into that cache."""
    shipment_id = _shipment_due_in_chicago(tenant)
    cache = Cache(tmp_path / "cache.sqlite3")
    service = ShipmentsService(lambda: client, cache, interval=3600)
    try:
        assert await service.coordinator.fetch_now()
        assert service.coordinator.data is not None
        return shipment_id, cache, service.coordinator.data.summaries[shipment_id]
    finally:
        await service.coordinator.aclose()


async def test_the_zone_comes_with_the_row_and_stays_in_the_cache(
    client: ApiClient, tenant_: TenantHandle, tmp_path: Path
) -> None:
    shipment_id, cache, row = await _synced(client, tenant_, tmp_path)
    assert (row.next_eta, row.next_eta_zone) == (ETA, "America/Chicago")
    assert place_time(row.next_eta, row.next_eta_zone) == "Jan 15 2030 12:00 CST"
    assert (row.latest_event_time, row.latest_event_zone) == (LEFT, "America/Chicago")
    assert place_time(row.latest_event_time, row.latest_event_zone) == "Jan 14 2030 03:00 CST"
    # The row built from the history (a deployment without the search) says the same.
    history = await client.tracking.history(shipment_id)
    summary = summary_from_history(history)
    assert summary.next_eta_time_zone == "America/Chicago"
    assert summary.latest_event is not None
    assert summary.latest_event.time_zone == "America/Chicago"
    reread = {r.id: r for r in cached_rows(cache)}
    assert reread[shipment_id].next_eta_zone == "America/Chicago"
    assert reread[shipment_id].latest_event_zone == "America/Chicago"
    cache.close()


# Rows as older apps cached them: before either zone (no mark on the rows), and with the
# ETA's zone only (marked "eta-zone").
OLDER_CACHES = [
    pytest.param(b',"America/Chicago","America/Chicago"]', None, id="before-both-zones"),
    pytest.param(b',"America/Chicago"]', "eta-zone", id="before-the-event-zone"),
]


@pytest.mark.parametrize(("cut", "mark"), OLDER_CACHES)
async def test_a_row_cached_before_the_zones_loads_and_gets_them_at_the_next_sync(
    client: ApiClient, tenant_: TenantHandle, tmp_path: Path, cut: bytes, mark: str | None
) -> None:
    shipment_id, cache, synced = await _synced(client, tenant_, tmp_path)
    # The cache as an older app left it: rows of fewer fields, a cursor, and its mark.
    old_body = row_json(synced)[: -len(cut)] + b"]"
    cache.clear()
    cache.put_many(SUMMARIES, [(shipment_id, old_body)])
    cache.set_meta(CURSOR_KEY, datetime.now(UTC).isoformat())
    if mark is not None:
        cache.set_meta(ROWS_KEY, mark)

    reopened = ShipmentsService(lambda: client, cache, interval=3600)
    set_user_zone(UserZone.UTC)
    try:
        cached = await reopened.load_cached()
        row = cached.summaries[shipment_id]
        assert row.latest_event_zone is None
        assert row.next_eta_zone == (None if mark is None else "America/Chicago")
        # Until then its event reads as a time without a place, in the user's zone.
        assert place_time(row.latest_event_time, row.latest_event_zone) == "Jan 14 2030 09:00 UTC"
        # The cursor is after the shipment's last change, yet the next sync lists it again.
        assert await reopened.coordinator.fetch_now()
        assert reopened.coordinator.data is not None
        fresh = reopened.coordinator.data.summaries[shipment_id]
        assert (fresh.next_eta_zone, fresh.latest_event_zone) == ("America/Chicago",) * 2
    finally:
        set_user_zone(UserZone.LOCAL)
        await reopened.coordinator.aclose()
    kept = {r.id: r for r in cached_rows(cache)}[shipment_id]
    assert (kept.next_eta_zone, kept.latest_event_zone) == ("America/Chicago",) * 2
    cache.close()
