"""Reported positions: validated or trusted, written in bulk straight to the driver."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from freightdesk.models.common import utc_datetime
from freightdesk.models.tracking import (
    SpeedUnit,
)
from freightdesk.server.db import sqlite_utc_text, utcnow
from freightdesk.server.domain.shipments.journal import (
    change_entry,
    journal,
    table_of,
)
from freightdesk.server.domain.shipments.locking import (
    lock_shipments,
    missing,
    no_autoflush,
    uuid_text,
)
from freightdesk.server.domain.shipments.rows import (
    check_source,
)
from freightdesk.server.tables.tracking import (
    ChangeKind,
    Shipment,
    ShipmentPosition,
)

# What a batch of positions sets on its shipments (`_write_summaries`).
_SUMMARY_COLUMNS = ("last_latitude", "last_longitude", "last_position_at", "last_modified_at")
_KMH = {
    SpeedUnit.KILOMETERS_PER_HOUR: 1.0,
    SpeedUnit.MILES_PER_HOUR: 1.609344,
    SpeedUnit.KNOTS: 1.852,
}


class PositionLike(Protocol):
    """What the position writers read: a `TrackedShipmentPosition` or a `Position`."""

    @property
    def date_time(self) -> datetime: ...
    @property
    def latitude(self) -> float: ...
    @property
    def longitude(self) -> float: ...
    @property
    def speed(self) -> float | None: ...
    @property
    def speed_unit(self) -> SpeedUnit | None: ...
    @property
    def heading(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class Position:
    """A reported position for bulk writes of trusted, generated data: not validated, so
    `date_time` must be aware and the values in range (TrackedShipmentPosition checks them)."""

    date_time: datetime
    latitude: float
    longitude: float
    speed: float | None = None
    heading: float | None = None
    speed_unit: SpeedUnit | None = None


def add_positions(
    session: Session, shipment_id: str, positions: Sequence[PositionLike], source: str
) -> int:
    """Record reported positions; a position at an instant already recorded is ignored.
    Returns how many were new. Speeds are converted to km/h."""
    return add_positions_bulk(session, {shipment_id: positions}, source)


@no_autoflush
def add_positions_bulk(
    session: Session, tracks: Mapping[str, Sequence[PositionLike]], source: str
) -> int:
    """`add_positions` for many shipments in a few statements (seeding, batch pushes)."""
    check_source(source)
    if not tracks:
        return 0
    keys = {key: uuid_text(key) for key in tracks}
    found = lock_shipments(session, [k for k in keys.values() if k])
    now = utcnow()
    position_rows: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    summaries: list[tuple[Shipment, dict[str, Any]]] = []
    wanted: dict[str, tuple[Shipment, dict[datetime, PositionLike]]] = {}
    for given, key in keys.items():
        row = found.get(key or "")
        if row is None:
            raise missing(given)
        instants = _ordered_instants(tracks[given])
        if instants:
            wanted[given] = (row, instants)
    stored = _stored_instants(session, {row.pk: (min(i), max(i)) for row, i in wanted.values()})
    for row, instants in wanted.values():
        pk = row.pk
        fresh = (
            [(at, p) for at, p in instants.items() if (pk, at) not in stored]
            if stored
            else list(instants.items())
        )
        if not fresh:
            continue
        added, wires = _position_records(pk, fresh, source)
        position_rows.extend(added)
        last_at, last = fresh[-1]
        summary = {
            "last_latitude": row.last_latitude,
            "last_longitude": row.last_longitude,
            "last_position_at": row.last_position_at,
            "last_modified_at": now,
        }
        if row.last_position_at is None or last_at >= row.last_position_at:
            summary["last_latitude"], summary["last_longitude"] = last.latitude, last.longitude
            summary["last_position_at"] = last_at
        summaries.append((row, summary))
        changes.append(
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.POSITIONS_ADDED,
                {"positions": wires, "source": source},
                now,
            )
        )
    session.flush()
    _write_summaries(session, summaries)
    _insert_positions(session, position_rows)
    journal(session, changes)
    return len(position_rows)


_SHIPMENTS = table_of(Shipment)
_SUMMARY_UPDATE = (
    update(_SHIPMENTS)
    .where(_SHIPMENTS.c.pk == bindparam("s_pk"))
    .values({name: bindparam(f"s_{name}") for name in _SUMMARY_COLUMNS})
)


def _write_summaries(session: Session, summaries: list[tuple[Shipment, dict[str, Any]]]) -> None:
    """Set the shipments' position summaries in one executemany, and on their loaded rows as
    stored (not as changes to flush): through the ORM, a row at a time, writing them cost
    about as much as inserting the positions (issue 18)."""
    if not summaries:
        return
    session.connection().execute(
        _SUMMARY_UPDATE,
        [
            {"s_pk": row.pk, **{f"s_{name}": value for name, value in summary.items()}}
            for row, summary in summaries
        ],
    )
    for row, summary in summaries:
        for name, value in summary.items():
            set_committed_value(row, name, value)


_POSITION_COLUMNS = (
    "shipment_pk",
    "date_time",
    "latitude",
    "longitude",
    "speed",
    "heading",
    "source",
)


def _insert_positions(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert position rows, ignoring an instant a concurrent writer stored meanwhile.

    Positions come by the hundred thousand when demo data is seeded, so they go to the driver
    directly: SQLAlchemy's per-value parameter processing would cost more than SQLite's own
    work. The values are exactly what `UtcDateTime` stores (see `sqlite_utc_text`).
    """
    if not rows:
        return
    connection = session.connection()
    dialect = connection.dialect.name
    names = ", ".join(_POSITION_COLUMNS)
    table = ShipmentPosition.__tablename__
    if dialect == "sqlite":
        connection.exec_driver_sql(
            f"INSERT OR IGNORE INTO {table} ({names}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r["shipment_pk"],
                    sqlite_utc_text(r["date_time"]),
                    r["latitude"],
                    r["longitude"],
                    r["speed"],
                    r["heading"],
                    r["source"],
                )
                for r in rows
            ],
        )
    elif dialect == "postgresql":
        connection.exec_driver_sql(
            f"INSERT INTO {table} ({names}) VALUES (%s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            [
                (
                    r["shipment_pk"],
                    r["date_time"].astimezone(UTC).replace(tzinfo=None),
                    r["latitude"],
                    r["longitude"],
                    r["speed"],
                    r["heading"],
                    r["source"],
                )
                for r in rows
            ],
        )
    else:  # pragma: no cover - we run on SQLite and PostgreSQL only
        session.execute(insert(table_of(ShipmentPosition)), rows)


def _ordered_instants(positions: Sequence[PositionLike]) -> dict[datetime, PositionLike]:
    """One position per instant (the first given) keyed by its UTC instant, in time order."""
    by_time: dict[datetime, PositionLike] = {}
    for position in positions:
        at = position.date_time
        if at.tzinfo is not UTC:  # validated models are UTC already
            at = utc_datetime(at)
        by_time.setdefault(at, position)
    return {at: by_time[at] for at in sorted(by_time)}


def _stored_instants(
    session: Session, spans: Mapping[int, tuple[datetime, datetime]]
) -> set[tuple[int, datetime]]:
    """Which (shipment, instant) pairs within these spans are stored already: one query per
    500 shipments rather than one per shipment."""
    stored: set[tuple[int, datetime]] = set()
    items = list(spans.items())
    for start in range(0, len(items), 500):
        chunk = items[start : start + 500]
        rows = session.execute(
            select(ShipmentPosition.shipment_pk, ShipmentPosition.date_time).where(
                ShipmentPosition.shipment_pk.in_([pk for pk, _span in chunk]),
                ShipmentPosition.date_time >= min(span[0] for _pk, span in chunk),
                ShipmentPosition.date_time <= max(span[1] for _pk, span in chunk),
            )
        )
        stored.update((pk, at) for pk, at in rows)
    return stored


def _position_records(
    pk: int, positions: Sequence[tuple[datetime, PositionLike]], source: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows to store and the same positions as on the wire (speeds in km/h), in one pass:
    seeding runs this for hundreds of thousands of positions."""
    rows: list[dict[str, Any]] = []
    wires: list[dict[str, Any]] = []
    kmh = SpeedUnit.KILOMETERS_PER_HOUR.value
    for at, position in positions:
        speed, heading = position.speed, position.heading
        wire: dict[str, Any] = {
            "dateTime": at.isoformat(),
            "latitude": position.latitude,
            "longitude": position.longitude,
            "source": source,
        }
        if speed is not None:
            unit = position.speed_unit
            speed = round(speed * _KMH[unit], 2) if unit is not None else speed
            wire["speed"] = speed
            wire["speedUnit"] = kmh
        if heading is not None:
            wire["heading"] = heading
        rows.append(
            {
                "shipment_pk": pk,
                "date_time": at,
                "latitude": position.latitude,
                "longitude": position.longitude,
                "speed": speed,
                "heading": heading,
                "source": source,
            }
        )
        wires.append(wire)
    return rows, wires
