"""A shipment's kept track: its positions down-sampled for a history, read from one row.

A track can hold 100,000 positions and the open shipment's history is polled, so the
instants and coordinates are read from the shipment's kept track (`ShipmentTrack`, one row)
rather than from its positions, and the other columns and the models are made for the kept
positions alone (issue 18). The down-sampling is the one over all positions: the kept track
holds every position's instant and coordinates, only packed (numpy records).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from freightdesk.models.tracking import SpeedUnit, TrackedShipmentPosition
from freightdesk.server.db import sqlite_utc_text
from freightdesk.server.domain.position_sampling import TRACK_RECORD, Instants, kept_instants
from freightdesk.server.tables.tracking import ShipmentPosition, ShipmentTrack

log = logging.getLogger(__name__)

_POSITIONS = ShipmentPosition.__tablename__
_TRACKS = ShipmentTrack.__tablename__
# How long keeping a track may wait for the database's lock before the read goes without.
_WAIT_MS = 100


def kept_positions(session: Session, pk: int, limit: int) -> list[TrackedShipmentPosition]:
    """The positions of the shipment `pk` in ascending time; beyond `limit`, down-sampled
    keeping the first, the last and the shape of the track."""
    connection = session.connection()
    kept = _kept_if_current(connection, pk, limit)
    if kept is None:
        kept = _keep_track(session, pk, limit)
    if kept is None:  # not kept now (see `_keep_track`): sampled here, as it would have been
        kept = _sample(connection, pk, limit).kept
    return kept.positions()


# A kept position: its instant (microseconds since the epoch), coordinates, speed (km/h) and
# heading, NaN when not reported.
KEPT_RECORD = np.dtype(
    [
        ("at", "<i8"),
        ("latitude", "<f8"),
        ("longitude", "<f8"),
        ("speed", "<f8"),
        ("heading", "<f8"),
    ]
)


@dataclass(frozen=True)
class _Kept:
    """The positions a down-sampling kept, in time order."""

    records: npt.NDArray[np.void]
    sources: list[str]

    @classmethod
    def stored(cls, records: Any, sources: str) -> _Kept:
        return cls(np.frombuffer(bytes(records), KEPT_RECORD), sources.split("\n"))

    def positions(self) -> list[TrackedShipmentPosition]:
        instants: list[datetime] = self.records["at"].astype("datetime64[us]").tolist()
        latitudes: list[float] = self.records["latitude"].tolist()
        longitudes: list[float] = self.records["longitude"].tolist()
        speeds: list[float] = self.records["speed"].tolist()
        headings: list[float] = self.records["heading"].tolist()
        positions = []
        for index, at in enumerate(instants):
            fields: dict[str, Any] = {
                "date_time": at.replace(tzinfo=UTC),
                "latitude": latitudes[index],
                "longitude": longitudes[index],
                "source": self.sources[index],
            }
            if not math.isnan(speed := speeds[index]):
                fields["speed"] = speed
                fields["speed_unit"] = SpeedUnit.KILOMETERS_PER_HOUR
            if not math.isnan(heading := headings[index]):
                fields["heading"] = heading
            positions.append(TrackedShipmentPosition.model_construct(**fields))
        return positions


@dataclass(frozen=True)
class _Sample:
    kept: _Kept
    # The track to keep, and its latest instant as stored; None when the kept one is current.
    points: npt.NDArray[np.void] | None = None
    last_at: Any = None


def _mark(connection: Connection) -> str:
    return "?" if connection.dialect.name == "sqlite" else "%s"


def _kept_if_current(connection: Connection, pk: int, limit: int) -> _Kept | None:
    """The kept positions when the kept track is current for `limit`: kept, none later than
    its latest instant stored since (the triggers remove it on any other change), and
    sampled for the same limit. Two indexed reads."""
    mark = _mark(connection)
    stored = connection.exec_driver_sql(
        f"SELECT last_at, kept_limit, kept, kept_sources FROM {_TRACKS} WHERE shipment_pk = {mark}",
        (pk,),
    ).first()
    if stored is None or stored[1] != limit:
        return None
    later = connection.exec_driver_sql(
        f"SELECT 1 FROM {_POSITIONS} WHERE shipment_pk = {mark} AND date_time > {mark} LIMIT 1",
        (pk, stored[0]),
    ).first()
    if later is not None:
        return None
    return _Kept.stored(stored[2], stored[3])


def _keep_track(session: Session, pk: int, limit: int) -> _Kept | None:
    """Bring the shipment's kept track up to date in a transaction of its own and return the
    positions kept; None when that cannot be done at once.

    Positions are written under the shipment's lock (FOR UPDATE), so on PostgreSQL the lock
    held here (FOR SHARE) keeps them still between the read and the write. SQLite has one
    writer: a write committed after this transaction's first read makes its own write fail
    (its snapshot is stale) instead of storing an outdated track. Waits are short either way,
    since the read can be answered without keeping the track: and a session that has
    written itself (webhook fan-out reads histories in its write transaction) would wait for
    itself on SQLite, so it does not try."""
    own = session.connection()
    sqlite = own.dialect.name == "sqlite"
    if sqlite and getattr(own.connection.dbapi_connection, "in_transaction", False):
        return None
    engine = own.engine
    try:
        with engine.connect() as connection:
            patience = None
            if sqlite:
                patience = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
                connection.exec_driver_sql(f"PRAGMA busy_timeout = {_WAIT_MS}")
                connection.commit()  # SQLAlchemy's transaction begun by the pragmas: none here
            try:
                with connection.begin():
                    if not sqlite:
                        connection.exec_driver_sql(f"SET LOCAL lock_timeout = '{_WAIT_MS}ms'")
                        connection.exec_driver_sql(
                            "SELECT pk FROM shipments WHERE pk = %s FOR SHARE", (pk,)
                        )
                    sample = _sample(connection, pk, limit)
                    if sample.points is not None:
                        _store(connection, pk, limit, sample)
            finally:
                if patience is not None:
                    connection.exec_driver_sql(f"PRAGMA busy_timeout = {int(patience)}")
                    connection.commit()
    except DBAPIError as exc:
        log.debug("track of shipment %s not kept now: %s", pk, exc)
        return None
    return sample.kept


def _sample(connection: Connection, pk: int, limit: int) -> _Sample:
    """The kept track brought up to date (positions later than it appended, or all of them
    read when none is kept) and down-sampled for `limit`."""
    mark = _mark(connection)
    stored = connection.exec_driver_sql(
        f"SELECT last_at, kept_limit, kept, kept_sources, points FROM {_TRACKS} "
        f"WHERE shipment_pk = {mark}",
        (pk,),
    ).first()
    rows = _raw_track(connection, pk, None if stored is None else stored[0])
    if stored is not None and not rows and stored[1] == limit:
        return _Sample(_Kept.stored(stored[2], stored[3]))
    added = _packed(rows)
    points = added if stored is None else np.concatenate([_unpacked(stored[4]), added])
    if not len(points):
        return _Sample(_Kept(np.empty(0, KEPT_RECORD), []))
    last_at = rows[-1][0] if rows else stored[0] if stored is not None else None
    kept = _kept_at(connection, pk, kept_instants(points, limit))
    return _Sample(kept, points, last_at)


def _raw_track(connection: Connection, pk: int, after: Any) -> list[Any]:
    """Instants (as stored) and coordinates of the positions later than `after` (all when
    None), in time order: the DB-API cursor itself, since SQLAlchemy's result would wrap
    each of up to 100,000 rows again."""
    mark = _mark(connection)
    query = f"SELECT date_time, latitude, longitude FROM {_POSITIONS} WHERE shipment_pk = {mark}"
    parameters: tuple[Any, ...] = (pk,)
    if after is not None:
        query += f" AND date_time > {mark}"
        parameters = (pk, after)
    cursor = connection.connection.cursor()
    try:
        cursor.execute(query + " ORDER BY date_time", parameters)
        return list(cursor.fetchall())
    finally:
        cursor.close()


def _packed(rows: list[Any]) -> npt.NDArray[np.void]:
    points = np.empty(len(rows), TRACK_RECORD)
    if rows:
        # SQLite's text ("2026-01-02 03:04:05.000000") and PostgreSQL's naive UTC datetimes
        # both parse as numpy instants.
        points["at"] = np.array([r[0] for r in rows], "datetime64[us]").astype(np.int64)
        points["latitude"] = np.fromiter((r[1] for r in rows), np.float64, len(rows))
        points["longitude"] = np.fromiter((r[2] for r in rows), np.float64, len(rows))
    return points


def _unpacked(blob: Any) -> npt.NDArray[np.void]:
    return np.frombuffer(bytes(blob), TRACK_RECORD)


def _store(connection: Connection, pk: int, limit: int, sample: _Sample) -> None:
    assert sample.points is not None
    mark = _mark(connection)
    connection.exec_driver_sql(
        f"INSERT INTO {_TRACKS} (shipment_pk, last_at, points, kept_limit, kept, kept_sources) "
        f"VALUES ({mark}, {mark}, {mark}, {mark}, {mark}, {mark}) "
        "ON CONFLICT (shipment_pk) DO UPDATE SET last_at = excluded.last_at, "
        "points = excluded.points, kept_limit = excluded.kept_limit, kept = excluded.kept, "
        "kept_sources = excluded.kept_sources",
        (
            pk,
            sample.last_at,
            sample.points.astype(TRACK_RECORD, copy=False).tobytes(),
            limit,
            sample.kept.records.tobytes(),
            "\n".join(sample.kept.sources),
        ),
    )


def _kept_at(connection: Connection, pk: int, kept: Instants) -> _Kept:
    """The positions at the kept instants, in their order; one removed meanwhile drops out."""
    sqlite = connection.dialect.name == "sqlite"
    mark = _mark(connection)
    instants: list[datetime] = kept.astype("datetime64[us]").tolist()
    # As `UtcDateTime` stores them: SQLAlchemy's text on SQLite, naive UTC datetimes elsewhere.
    keys: list[Any] = (
        [sqlite_utc_text(at.replace(tzinfo=UTC)) for at in instants] if sqlite else instants
    )
    details: dict[Any, tuple[Any, ...]] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ", ".join([mark] * len(chunk))
        for at, *detail in connection.exec_driver_sql(
            f"SELECT date_time, latitude, longitude, speed, heading, source FROM {_POSITIONS} "
            f"WHERE shipment_pk = {mark} AND date_time IN ({marks})",
            (pk, *chunk),
        ):
            details[at] = tuple(detail)
    pairs = zip(kept.tolist(), keys, strict=True)
    found = [(at, details[key]) for at, key in pairs if key in details]
    records = np.empty(len(found), KEPT_RECORD)
    records["at"] = [at for at, _detail in found]
    for field, index in (("latitude", 0), ("longitude", 1), ("speed", 2), ("heading", 3)):
        records[field] = [math.nan if d[index] is None else d[index] for _at, d in found]
    return _Kept(records, [d[4] for _at, d in found])
