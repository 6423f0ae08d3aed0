"""A shipment's positions as the map reads them: long tracks answer about as fast as short
ones (issue 18), and the down-sampled track keeps the first and newest positions and the shape
whatever order the positions arrived in."""

from __future__ import annotations

import math
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from freightdesk.models.tracking import SpeedUnit, TrackedShipmentPosition
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.shipments import Position
from tests.server.test_tracking_support import air_body, create, receive, shipment_path
from tests.support import TenantHandle

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
LIMIT = 2000  # what the service answers at most (its default max_positions_returned)


def _stamp(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def _positions(tenant: TenantHandle, sid: str) -> list[dict[str, Any]]:
    answer = tenant.http.get(shipment_path(sid, "positionhistory"))
    assert answer.status_code == 200, answer.text
    positions: list[dict[str, Any]] = answer.json()["positions"]
    return positions


def test_out_of_order_reports_keep_first_newest_and_detour(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]
    # A northbound track of 6,000 fixes with one detour east, reported as a carrier might:
    # the middle first, then the newest, then the oldest late, and a batch shuffled.
    track = [
        TrackedShipmentPosition(
            date_time=T0 + timedelta(seconds=30 * i),
            latitude=40 + i / 10_000,
            longitude=-90 + (0.7 if i == 4321 else 0.0),
            speed=50.0 if i % 2 else None,
            speed_unit=SpeedUnit.MILES_PER_HOUR if i % 2 else None,
            heading=float(i % 360),
        )
        for i in range(6000)
    ]
    batches = [track[2000:4000], track[5000:], track[:2000], track[4000:5000][::-1]]
    for batch in batches:
        receive(tenant, lambda s, b=batch: store.add_positions(s, sid, b, "AIR"))

    positions = _positions(tenant, sid)
    assert len(positions) == LIMIT
    stamps = [p["dateTime"] for p in positions]
    assert stamps == sorted(stamps) and len(set(stamps)) == LIMIT
    assert stamps[0] == _stamp(track[0].date_time)
    assert stamps[-1] == _stamp(track[-1].date_time)
    assert any(p["longitude"] == -89.3 for p in positions)
    # Each kept position is the stored one, whole: speed in km/h, heading, source.
    by_stamp = {_stamp(p.date_time): p for p in track}
    for kept in positions:
        sent = by_stamp[kept["dateTime"]]
        assert (kept["latitude"], kept["longitude"]) == (sent.latitude, sent.longitude)
        assert kept["heading"] == sent.heading and kept["source"] == "AIR"
        if sent.speed is None:
            assert "speed" not in kept
        else:
            assert kept["speed"] == 80.47 and kept["speedUnit"] == "KILOMETERS_PER_HOUR"

    # A position reported late, older than all, and one newer than all: both shown.
    early, late = T0 - timedelta(hours=1), T0 + timedelta(days=3)
    fixes = [
        TrackedShipmentPosition(date_time=at, latitude=39, longitude=-91) for at in (late, early)
    ]
    receive(tenant, lambda s: store.add_positions(s, sid, fixes, "AIR"))
    again = _positions(tenant, sid)
    assert len(again) == LIMIT
    assert again[0]["dateTime"] == _stamp(early) and again[-1]["dateTime"] == _stamp(late)


def _seed(tenant: TenantHandle, awb: str, count: int) -> str:
    sid: str = create(tenant, air_body(awb))["id"]
    # A winding road track: trusted positions, written in bulk as the demo seeds them.
    track = [
        Position(
            date_time=T0 + timedelta(seconds=15 * i),
            latitude=41 + i * 3e-5 + 0.01 * math.sin(i / 300),
            longitude=-87 + i * 4e-5,
            speed=80.0,
            heading=10.0,
        )
        for i in range(count)
    ]
    receive(tenant, lambda s: store.add_positions_bulk(s, {sid: track}, "AIR"))
    return sid


def test_a_long_track_answers_about_as_fast_as_a_short_one(tenant: TenantHandle) -> None:
    """The open shipment's history is polled: 60,000 positions answer the same 2,000 as a
    track of exactly 2,000 does. Reading the long track costs more, but only its instants and
    coordinates are read (about 4x the short one); read whole and sampled in Python it was
    about 15x. Interleaved medians, so load affects both sides alike."""
    long_id = _seed(tenant, "020-12345675", 60_000)
    short_id = _seed(tenant, "020-12345686", LIMIT)
    times: dict[str, list[float]] = {long_id: [], short_id: []}
    for sid in (long_id, short_id):  # warm up: connection, statement caches
        _positions(tenant, sid)
    for _ in range(9):
        for sid in (long_id, short_id):
            began = time.perf_counter()
            assert len(_positions(tenant, sid)) == LIMIT
            times[sid].append(time.perf_counter() - began)
    long_median = statistics.median(times[long_id])
    short_median = statistics.median(times[short_id])
    assert long_median <= 8.0 * short_median, (long_median, short_median)
