"""The position summary of a shipment (`last_latitude`, `last_longitude`, `last_position_at`,
`last_modified_at`), written for a whole batch at once, is its newest stored position, in the
database and on the rows a transaction holds, however the positions arrive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.server.db import utcnow
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.shipments import Position
from freightdesk.server.tables.tracking import Shipment, ShipmentPosition
from tests.server.test_tracking_support import air_body, create, receive
from tests.support import TenantHandle

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
SUMMARY = ("last_latitude", "last_longitude", "last_position_at", "last_modified_at")


def _fix(minutes: int, latitude: float) -> Position:
    return Position(date_time=T0 + timedelta(minutes=minutes), latitude=latitude, longitude=-87.0)


def _stored(session: Session, sid: str) -> tuple[object, ...]:
    row = session.execute(
        select(*(getattr(Shipment, name) for name in SUMMARY)).where(Shipment.id == sid)
    ).one()
    return tuple(row)


def _held(session: Session, sid: str) -> tuple[object, ...]:
    row = store.lock_shipments(session, [sid])[sid]
    return tuple(getattr(row, name) for name in SUMMARY)


def _newest(session: Session, sid: str) -> tuple[object, ...]:
    position = ShipmentPosition
    return tuple(
        session.execute(
            select(position.latitude, position.longitude, position.date_time)
            .join(Shipment, Shipment.pk == position.shipment_pk)
            .where(Shipment.id == sid)
            .order_by(position.date_time.desc())
            .limit(1)
        ).one()
    )


def test_the_summary_is_the_newest_position_in_the_database_and_the_held_rows(
    tenant: TenantHandle,
) -> None:
    first, second = (create(tenant, air_body())["id"] for _ in range(2))
    before = utcnow()

    def batches(session: Session) -> None:
        store.add_positions_bulk(session, {first: [_fix(10, 41.0), _fix(5, 40.5)]}, "AIR")
        # Older than what the row holds: the summary keeps the newer one.
        store.add_positions_bulk(session, {first: [_fix(1, 39.0)], second: [_fix(3, 45.0)]}, "AIR")
        store.add_positions_bulk(session, {second: [_fix(7, 46.0), _fix(2, 44.0)]}, "AIR")
        store.add_positions(session, first, [_fix(20, 42.0), _fix(15, 41.5)], "AIR")
        store.add_positions(session, first, [_fix(12, 41.2)], "AIR")
        for sid in (first, second):
            assert _held(session, sid) == _stored(session, sid)

    receive(tenant, batches)

    def check(session: Session) -> None:
        for sid, latitude, minutes in ((first, 42.0, 20), (second, 46.0, 7)):
            stored = _stored(session, sid)
            assert stored[:3] == (latitude, -87.0, T0 + timedelta(minutes=minutes))
            assert stored[:3] == _newest(session, sid)
            modified = stored[3]
            assert isinstance(modified, datetime) and modified >= before

    receive(tenant, check)
