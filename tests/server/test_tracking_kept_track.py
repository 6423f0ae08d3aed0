"""A long track's history is read from the shipment's kept track (issue 18) and answers what
down-sampling all of its positions answers: after positions appended in order, a position
reported late, positions removed with their source, and in a database upgraded from before
the kept tracks existed. Over real HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.position_sampling import downsample
from freightdesk.server.domain.shipments import Position
from freightdesk.server.migrations import SCHEMA_VERSION, upgrade
from tests.server.test_tracking_support import PUT, air_body, create, receive, shipment_path
from tests.support import TenantHandle

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
LIMIT = 2000  # what the service answers at most (its default max_positions_returned)


def _road(first: int, count: int, *, east: float = 0.0) -> list[Position]:
    """A winding road north-east, one fix every 15 s from fix `first` on."""
    return [
        Position(
            date_time=T0 + timedelta(seconds=15 * i),
            latitude=41 + i * 3e-5 + 0.01 * math.sin(i / 300),
            longitude=-87 + i * 4e-5 + east,
            speed=80.0,
            heading=float(i % 360),
        )
        for i in range(first, first + count)
    ]


def _answered(tenant: TenantHandle, sid: str) -> list[tuple[str, float, float]]:
    answer = tenant.http.get(shipment_path(sid, "positionhistory"))
    assert answer.status_code == 200, answer.text
    return [(p["dateTime"], p["latitude"], p["longitude"]) for p in answer.json()["positions"]]


def _precise(track: dict[datetime, Position]) -> list[tuple[str, float, float]]:
    """The down-sampling of every position, as a read of all of them gives it."""
    ordered = [track[at] for at in sorted(track)]
    return [
        (p.date_time.isoformat().replace("+00:00", "Z"), p.latitude, p.longitude)
        for p in downsample(ordered, LIMIT)
    ]


def _add(
    tenant: TenantHandle,
    sid: str,
    track: dict[datetime, Position],
    fixes: list[Position],
    source: str = "AIR",
) -> None:
    receive(tenant, lambda s: store.add_positions_bulk(s, {sid: fixes}, source))
    for fix in fixes:
        track.setdefault(fix.date_time, fix)


def test_the_kept_track_answers_as_all_positions_do_as_they_arrive(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body("020-12345675"))["id"]
    track: dict[datetime, Position] = {}
    _add(tenant, sid, track, _road(0, 6000))
    first = _answered(tenant, sid)
    assert len(first) == LIMIT and first == _precise(track)
    assert _answered(tenant, sid) == first  # read again from the kept track, unchanged

    # Reports arriving in order, in several pushes between polls: appended to the kept track.
    for start in (6000, 6001, 6500):
        _add(tenant, sid, track, _road(start, 1 if start == 6000 else 499))
        assert _answered(tenant, sid) == _precise(track)

    # A fix reported late, in the middle of the track, far off the road: it is kept and the
    # sampling around it is as if it had come in order.
    late = Position(T0 + timedelta(seconds=15 * 3000 + 7), latitude=41.3, longitude=-86.0)
    _add(tenant, sid, track, [late])
    answered = _answered(tenant, sid)
    assert answered == _precise(track)
    assert ("2024-05-01T20:30:07Z", 41.3, -86.0) in answered

    # A repeated report of a known instant changes nothing.
    _add(tenant, sid, track, _road(100, 1, east=1.0))
    assert _answered(tenant, sid) == answered


def test_positions_removed_with_their_source_leave_the_kept_track(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body("020-12345686"))["id"]
    track: dict[datetime, Position] = {}
    # Air fixes on one road; ocean fixes in between (odd seconds), some way east.
    _add(tenant, sid, track, _road(0, 4000))
    ocean = [
        Position(p.date_time + timedelta(seconds=1), p.latitude, p.longitude + 0.5)
        for p in _road(0, 3000)
    ]
    _add(tenant, sid, track, ocean, "OCEAN")
    assert _answered(tenant, sid) == _precise(track)

    # Rule 4: the shipment tracked by ocean identifiers now, so the air positions go.
    changed = {
        "id": sid,
        "identifiers": [
            {"type": "BILL_OF_LADING", "value": "MAEU123456789"},
            {"type": "CARRIER_SCAC", "value": "MAEU"},
        ],
    }
    assert tenant.http.put(PUT, json=changed).status_code == 200
    left = {p.date_time: p for p in ocean}
    answered = _answered(tenant, sid)
    assert answered == _precise(left)
    assert {lon for _at, _lat, lon in answered} == {lon for _at, _lat, lon in _precise(left)}


def test_an_upgraded_database_keeps_tracks_from_the_first_read(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body("020-12345690"))["id"]
    track: dict[datetime, Position] = {}
    _add(tenant, sid, track, _road(0, 5000))

    def back_to_schema_4(session: Any) -> Any:
        # As a database made before the kept tracks: no table, no triggers.
        for name in ("insert", "update", "delete"):
            trigger = f"shipment_positions_track_{name}"
            if session.get_bind().dialect.name == "postgresql":
                session.execute(text(f"DROP TRIGGER IF EXISTS {trigger} ON shipment_positions"))
            else:
                session.execute(text(f"DROP TRIGGER IF EXISTS {trigger}"))
        session.execute(text("DROP TABLE shipment_tracks"))
        session.execute(text("DELETE FROM schema_version"))
        session.execute(text("INSERT INTO schema_version (version) VALUES (4)"))
        return session.get_bind()

    engine = receive(tenant, back_to_schema_4)
    assert upgrade(engine) == 4
    assert upgrade(engine) == SCHEMA_VERSION
    assert _answered(tenant, sid) == _precise(track)
    # The triggers came with the upgrade: a fix reported late is not missed.
    late = Position(T0 + timedelta(seconds=15 * 2500 + 3), latitude=41.2, longitude=-85.5)
    _add(tenant, sid, track, [late])
    _add(tenant, sid, track, _road(5000, 10))
    assert _answered(tenant, sid) == _precise(track)
