"""Tracked shipments, what tracking sources report about them, sharing and the change journal.

Write these tables only through `freightdesk.server.domain.shipments`: it keeps the summary
columns current and journals every change in the same transaction. Reading them directly is
fine (the webhook delivery reads `shipment_changes`).

Child tables refer to a shipment by its integer `shipments.pk`, not its uuid: position rows are
the bulk of the database and a 36-character key in every row and index entry would double them.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    event,
    select,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, column_property, mapped_column

from freightdesk.server.db import Base, BigId, JsonType, UtcDateTime, UuidStr, utcnow

# Identifier values are compared upper-cased; on PostgreSQL with the "C" collation so that a
# prefix range scan over the index matches exactly what byte order says it should.
NormalizedValue = String(200).with_variant(String(200, collation="C"), "postgresql")


class ChangeKind(StrEnum):
    """What a `shipment_changes` row records. The `shipments.v1.*` kinds are the interface's
    granular webhook kinds; the others are ours (classic push, sync)."""

    SHIPMENT_CREATED = "shipments.v1.shipment.created"
    SHIPMENT_DELETED = "shipments.v1.shipment.deleted"
    EVENT_ADDED = "shipments.v1.event.added"
    EVENT_UPDATED = "shipments.v1.event.updated"
    EVENT_REMOVED = "shipments.v1.event.removed"
    STATE_ADDED = "shipments.v1.state.added"
    STATE_UPDATED = "shipments.v1.state.updated"
    STATE_REMOVED = "shipments.v1.state.removed"
    EXCEPTION_ADDED_OR_UPDATED = "shipments.v1.exception.addedOrUpdated"
    # Not webhook kinds of the interface:
    SHIPMENT_REPLACED = "shipment.replaced"
    SHIPMENT_SHARED = "shipment.shared"
    SHIPMENT_UNSHARED = "shipment.unshared"
    EXCEPTION_REMOVED = "exception.removed"
    POSITIONS_ADDED = "positions.added"
    POSITIONS_REMOVED = "positions.removed"


class ShipmentDocument(Base):
    """The user-provided data of a shipment, as on the wire; read it as `Shipment.data`.

    Kept apart so that `shipments` rows stay narrow: browsing filters, counts and sorts over
    100,000 shipments then read a few megabytes instead of every shipment's route.
    """

    __tablename__ = "shipment_documents"

    shipment_pk: Mapped[int] = mapped_column(
        ForeignKey("shipments.pk", ondelete="CASCADE"), primary_key=True
    )
    data: Mapped[dict[str, Any]] = mapped_column(JsonType)


class Shipment(Base):
    """One tracked shipment, with summary columns kept current by every write."""

    __tablename__ = "shipments"
    # Every browse query is "this tenant's live shipments, ordered by X": with deleted_at
    # (IS NULL) in the index the count and the first page come from the index alone.
    __table_args__ = (
        # Covers the filters on summary columns too, so a filtered first page (and its count)
        # in the default order never reads the table.
        Index(
            "ix_shipments_tenant_modified",
            "tenant_id",
            "deleted_at",
            "last_modified_at",
            "current_state",
            "mode",
            "open_exception_count",
        ),
        Index("ix_shipments_tenant_created", "tenant_id", "deleted_at", "created_at"),
        Index("ix_shipments_tenant_eta", "tenant_id", "deleted_at", "next_eta"),
        Index("ix_shipments_tenant_primary", "tenant_id", "deleted_at", "primary_sort"),
        Index("ix_shipments_tenant_state", "tenant_id", "deleted_at", "state_rank"),
        # Counts of a mode and state filter (the search's total) as one range of this index
        # instead of a walk over every live shipment of the tenant.
        Index("ix_shipments_tenant_mode_state", "tenant_id", "deleted_at", "mode", "current_state"),
        # The list's sync: what changed since a change token (`CHANGE_SEQ_*`), in keyset pages
        # after a (change_seq, pk) key: one PostgreSQL transaction's rows share a change_seq.
        Index("ix_shipments_tenant_change_pk", "tenant_id", "change_seq", "pk"),
    )

    pk: Mapped[int] = mapped_column(BigId, primary_key=True)
    id: Mapped[str] = mapped_column(UuidStr, unique=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    mode: Mapped[str] = mapped_column(String(10))
    current_state: Mapped[str | None] = mapped_column(String(12))
    # The position of current_state in the lifecycle (SCHEDULED 0 ... COMPLETED 3), for sorting.
    state_rank: Mapped[int | None] = mapped_column(SmallInteger)
    share_token: Mapped[str] = mapped_column(String(43), unique=True)
    # Summary columns for browsing without opening `data` or the child tables.
    primary_identifier: Mapped[str | None] = mapped_column(String(200))
    # The primary identifier as compared (upper-cased), so sorting by it is case-insensitive
    # and the same on both databases.
    primary_sort: Mapped[str | None] = mapped_column(NormalizedValue)
    carrier: Mapped[str | None] = mapped_column(String(60))
    origin_name: Mapped[str | None] = mapped_column(String(200))
    destination_name: Mapped[str | None] = mapped_column(String(200))
    next_eta: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # The IANA zone of the stop next_eta is for (its appointment window's), so that the list
    # reads the ETA in the stop's time; None when the stop has no zone.
    next_eta_zone: Mapped[str | None] = mapped_column(String(64))
    latest_event_type: Mapped[str | None] = mapped_column(String(60))
    latest_event_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    latest_event_description: Mapped[str | None] = mapped_column(String(1000))
    # The IANA zone of the latest event's stop, read as next_eta_zone is.
    latest_event_zone: Mapped[str | None] = mapped_column(String(64))
    open_exception_count: Mapped[int] = mapped_column(Integer, default=0)
    last_latitude: Mapped[float | None] = mapped_column(Float)
    last_longitude: Mapped[float | None] = mapped_column(Float)
    last_position_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    last_modified_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    # A deleted shipment stays as a tombstone (data and children removed) so that incremental
    # sync can report the removal.
    deleted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # Set by the database on every insert and update (`CHANGE_SEQ_*`), never by the ORM: the
    # order of changes as they become visible, which a timestamp taken before commit is not.
    change_seq: Mapped[int | None] = mapped_column(BigInteger)
    # The user-provided data, as on the wire: identifiers, attributes, accessGroups, costs,
    # plan, routeInfo, relatedShipments; replaced as a whole by PUT tracking. Read-only here
    # (stored in shipment_documents); usable in queries like a column.
    data: Mapped[dict[str, Any]] = column_property(
        select(ShipmentDocument.data)
        .where(ShipmentDocument.shipment_pk == pk)
        .correlate_except(ShipmentDocument)
        .scalar_subquery()
    )


class ShipmentIdentifier(Base):
    __tablename__ = "shipment_identifiers"
    __table_args__ = (
        Index("ix_shipment_identifiers_value", "tenant_id", "value_norm"),
        # The search's identifier prefix (its count and its candidates) from the index alone,
        # without looking up each matching row for its shipment.
        Index("ix_shipment_identifiers_prefix", "tenant_id", "value_norm", "shipment_pk"),
        Index("ix_shipment_identifiers_type_value", "tenant_id", "type", "value_norm"),
    )

    pk: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    shipment_pk: Mapped[int] = mapped_column(
        ForeignKey("shipments.pk", ondelete="CASCADE"), index=True
    )
    type: Mapped[str] = mapped_column(String(60))
    value: Mapped[str] = mapped_column(String(200))
    value_norm: Mapped[str] = mapped_column(NormalizedValue)


class ShipmentAttributeValue(Base):
    """One row per value of each custom attribute (case-folded), for the attribute filter of
    the shipment search; the attributes themselves live in `Shipment.data`."""

    __tablename__ = "shipment_attribute_values"
    __table_args__ = (Index("ix_shipment_attribute_values_lookup", "tenant_id", "name", "value"),)

    pk: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    shipment_pk: Mapped[int] = mapped_column(
        ForeignKey("shipments.pk", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    value: Mapped[str | None] = mapped_column(String(500))


class ShipmentEvent(Base):
    __tablename__ = "shipment_events"
    __table_args__ = (
        UniqueConstraint("shipment_pk", "id"),
        Index("ix_shipment_events_order", "shipment_pk", "occurred_at"),
    )

    pk: Mapped[int] = mapped_column(BigId, primary_key=True)
    id: Mapped[str] = mapped_column(UuidStr)
    shipment_pk: Mapped[int] = mapped_column(ForeignKey("shipments.pk", ondelete="CASCADE"))
    # USER for events recorded through PUT tracking, else the tracking source (a mode).
    source: Mapped[str] = mapped_column(String(12))
    type: Mapped[str] = mapped_column(String(60))
    # When it happened (dateTime), else when it is expected; the order of the event history.
    occurred_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # dateTime alone: the latest of these is the shipment's latest event.
    date_time: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # The event as on the wire.
    data: Mapped[dict[str, Any]] = mapped_column(JsonType)


class ShipmentPosition(Base):
    """Reported positions; the biggest table by far, so rows are kept small.

    The key (shipment_pk, date_time) makes a repeated report of the same instant a no-op and,
    on SQLite, stores each shipment's track contiguously (WITHOUT ROWID).
    """

    __tablename__ = "shipment_positions"
    __table_args__ = {"sqlite_with_rowid": False}

    shipment_pk: Mapped[int] = mapped_column(
        ForeignKey("shipments.pk", ondelete="CASCADE"), primary_key=True
    )
    date_time: Mapped[datetime] = mapped_column(UtcDateTime, primary_key=True)
    latitude: Mapped[float] = mapped_column(Float)
    longitude: Mapped[float] = mapped_column(Float)
    speed: Mapped[float | None] = mapped_column(Float)  # km/h
    heading: Mapped[float | None] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(12))


class ShipmentTrack(Base):
    """A shipment's track kept packed for its history reads (issue 18): every position's
    instant and coordinates in time order, and the positions the last down-sampling kept.

    Reading 100,000 position rows into Python was the floor of a history read; one row with
    the packed track is read in a few milliseconds, and the down-sampling is the same as over
    the rows, so the answer is too. Positions later than `last_at` are appended on the next
    read (reports arrive in order); the triggers below delete the row when a position at or
    before `last_at` is added, or any is changed or removed, and the next read builds it
    again from the positions. Maintained by `tracking_reads.positions_of`.
    """

    __tablename__ = "shipment_tracks"

    shipment_pk: Mapped[int] = mapped_column(
        ForeignKey("shipments.pk", ondelete="CASCADE"), primary_key=True
    )
    # The latest instant packed, stored as the positions' date_time is (compared by triggers).
    last_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # Records of (microseconds since the epoch int64, latitude float64, longitude float64),
    # little-endian (`position_sampling.TRACK_RECORD`).
    points: Mapped[bytes] = mapped_column(LargeBinary)
    # The `limit` of the last down-sampling and the positions it kept, whole, so that a read
    # of a current track needs no other row: records of `tracking_reads.KEPT_RECORD` (speed
    # and heading NaN when not reported), and their sources one per line.
    kept_limit: Mapped[int] = mapped_column(Integer)
    kept: Mapped[bytes] = mapped_column(LargeBinary)
    kept_sources: Mapped[str] = mapped_column(Text)


# Row triggers on SQLite; statement triggers with transition tables on PostgreSQL, where a
# bulk insert of 100,000 positions would otherwise run the function 100,000 times.
TRACK_TRIGGERS_SQLITE = (
    """CREATE TRIGGER IF NOT EXISTS shipment_positions_track_insert
    AFTER INSERT ON shipment_positions BEGIN
        DELETE FROM shipment_tracks
        WHERE shipment_pk = NEW.shipment_pk AND last_at >= NEW.date_time;
    END""",
    """CREATE TRIGGER IF NOT EXISTS shipment_positions_track_update
    AFTER UPDATE ON shipment_positions BEGIN
        DELETE FROM shipment_tracks WHERE shipment_pk IN (OLD.shipment_pk, NEW.shipment_pk);
    END""",
    """CREATE TRIGGER IF NOT EXISTS shipment_positions_track_delete
    AFTER DELETE ON shipment_positions BEGIN
        DELETE FROM shipment_tracks WHERE shipment_pk = OLD.shipment_pk;
    END""",
)

TRACK_TRIGGERS_POSTGRESQL = (
    """CREATE OR REPLACE FUNCTION shipment_tracks_inserted() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN
        DELETE FROM shipment_tracks t USING (
            SELECT shipment_pk, min(date_time) AS first_at FROM added GROUP BY shipment_pk
        ) a WHERE t.shipment_pk = a.shipment_pk AND t.last_at >= a.first_at;
        RETURN NULL;
    END $$""",
    """CREATE OR REPLACE FUNCTION shipment_tracks_updated() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN
        DELETE FROM shipment_tracks WHERE shipment_pk IN (
            SELECT shipment_pk FROM before UNION SELECT shipment_pk FROM after
        );
        RETURN NULL;
    END $$""",
    """CREATE OR REPLACE FUNCTION shipment_tracks_deleted() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN
        DELETE FROM shipment_tracks WHERE shipment_pk IN (SELECT shipment_pk FROM removed);
        RETURN NULL;
    END $$""",
    "DROP TRIGGER IF EXISTS shipment_positions_track_insert ON shipment_positions",
    "DROP TRIGGER IF EXISTS shipment_positions_track_update ON shipment_positions",
    "DROP TRIGGER IF EXISTS shipment_positions_track_delete ON shipment_positions",
    """CREATE TRIGGER shipment_positions_track_insert AFTER INSERT ON shipment_positions
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION shipment_tracks_inserted()""",
    """CREATE TRIGGER shipment_positions_track_update AFTER UPDATE ON shipment_positions
    REFERENCING OLD TABLE AS before NEW TABLE AS after
    FOR EACH STATEMENT EXECUTE FUNCTION shipment_tracks_updated()""",
    """CREATE TRIGGER shipment_positions_track_delete AFTER DELETE ON shipment_positions
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION shipment_tracks_deleted()""",
)


# The change sequence of shipments (`Shipment.change_seq`), kept by the database so that every
# write path (ORM, Core, bulk) has it. A timestamp set before commit cannot page changes: a
# row stamped t1 that commits after a reader saw t2 > t1 is behind that reader's cursor.
# - SQLite has one writer at a time, holding the write lock to its commit: a counter bumped
#   under that lock orders changes as they commit. The reader's token is the counter plus one,
#   read before its other statements: every change numbered below it was committed then.
# - PostgreSQL commits concurrently; the row gets its transaction's id, and the token is the
#   oldest transaction still running when read (`pg_snapshot_xmin`): every id below it has
#   committed (or rolled back). A transaction running meanwhile keeps the token from moving
#   past it, so a sync may list again what it had; the client keeps rows that did not change.
CHANGE_SEQ_SQLITE = (
    """CREATE TABLE IF NOT EXISTS shipment_change_counter (
        id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL
    )""",
    "INSERT OR IGNORE INTO shipment_change_counter (id, value) VALUES (1, 0)",
    """CREATE TRIGGER IF NOT EXISTS shipments_change_seq_insert
    AFTER INSERT ON shipments BEGIN
        UPDATE shipment_change_counter SET value = value + 1 WHERE id = 1;
        UPDATE shipments SET change_seq = (SELECT value FROM shipment_change_counter WHERE id = 1)
        WHERE pk = NEW.pk;
    END""",
    # Not fired by its own UPDATE: SQLite's recursive_triggers is off (the default).
    """CREATE TRIGGER IF NOT EXISTS shipments_change_seq_update
    AFTER UPDATE ON shipments BEGIN
        UPDATE shipment_change_counter SET value = value + 1 WHERE id = 1;
        UPDATE shipments SET change_seq = (SELECT value FROM shipment_change_counter WHERE id = 1)
        WHERE pk = NEW.pk;
    END""",
)
CHANGE_SEQ_POSTGRESQL = (
    """CREATE OR REPLACE FUNCTION shipments_change_seq() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN
        NEW.change_seq := pg_current_xact_id()::text::bigint;
        RETURN NEW;
    END $$""",
    "DROP TRIGGER IF EXISTS shipments_change_seq ON shipments",
    """CREATE TRIGGER shipments_change_seq BEFORE INSERT OR UPDATE ON shipments
    FOR EACH ROW EXECUTE FUNCTION shipments_change_seq()""",
)


def make_change_seq_triggers(conn: Connection) -> None:
    """Create (or replace) what keeps `Shipment.change_seq`; idempotent."""
    statements = CHANGE_SEQ_POSTGRESQL if conn.dialect.name == "postgresql" else CHANGE_SEQ_SQLITE
    for statement in statements:
        conn.exec_driver_sql(statement)


def make_track_triggers(conn: Connection) -> None:
    """Create (or replace) the triggers that keep `ShipmentTrack` honest; idempotent."""
    statements = (
        TRACK_TRIGGERS_POSTGRESQL if conn.dialect.name == "postgresql" else TRACK_TRIGGERS_SQLITE
    )
    for statement in statements:
        conn.exec_driver_sql(statement)


def _after_create(target: Any, conn: Connection, **_kw: Any) -> None:
    # Once every table is there (the triggers join two of them), whenever create_all made
    # any: a new database, or an older one given the tables of areas added since.
    make_track_triggers(conn)
    make_change_seq_triggers(conn)


event.listen(Base.metadata, "after_create", _after_create)


class ShipmentState(Base):
    __tablename__ = "shipment_states"
    __table_args__ = (UniqueConstraint("shipment_pk", "id"),)

    pk: Mapped[int] = mapped_column(BigId, primary_key=True)
    id: Mapped[str] = mapped_column(UuidStr)
    shipment_pk: Mapped[int] = mapped_column(ForeignKey("shipments.pk", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(12))
    type: Mapped[str] = mapped_column(String(12))
    start_at: Mapped[datetime] = mapped_column(UtcDateTime)
    end_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    stop_id: Mapped[str | None] = mapped_column(UuidStr)


class ShipmentExceptionRow(Base):
    __tablename__ = "shipment_exceptions"
    __table_args__ = (UniqueConstraint("shipment_pk", "id"),)

    pk: Mapped[int] = mapped_column(BigId, primary_key=True)
    id: Mapped[str] = mapped_column(UuidStr)
    shipment_pk: Mapped[int] = mapped_column(ForeignKey("shipments.pk", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(12))
    type: Mapped[str] = mapped_column(String(60))
    status: Mapped[str] = mapped_column(String(10))
    severity: Mapped[str] = mapped_column(String(10))
    description: Mapped[str | None] = mapped_column(String(1000))
    stop_id: Mapped[str | None] = mapped_column(UuidStr)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    resolved_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_modified_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ShipmentShare(Base):
    """A shipment shared with another tenant, which may then read it. Revoked shares stay (with
    `revoked_at`) so that the recipient's incremental sync learns of the removal."""

    __tablename__ = "shipment_shares"

    shipment_pk: Mapped[int] = mapped_column(
        ForeignKey("shipments.pk", ondelete="CASCADE"), primary_key=True
    )
    tenant_id: Mapped[int] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class ShipmentChange(Base):
    """The change journal, written in the same transaction as the change it records.

    Readers (webhook delivery, classic push) remember the last `id` they handled and read on
    from there; ids only grow. Old rows the fan-out has passed are pruned
    (`webhooks.journal_prune`): a new reader that needs older ones must hold it back there.
    `tenant_id` is the owner of the shipment; `payload` holds `shipmentId`, `source` where
    there is one, and the delta: `event`, `state`, `exception`, `positions` or `shipment`
    (removed items carry their last value).
    """

    __tablename__ = "shipment_changes"
    __table_args__ = (
        Index("ix_shipment_changes_tenant", "tenant_id", "id"),
        # Without AUTOINCREMENT SQLite hands out max(id) + 1 again once the newest rows are
        # deleted: ids below positions the readers remember, so those changes are never read.
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    shipment_id: Mapped[str] = mapped_column(UuidStr, index=True)
    kind: Mapped[str] = mapped_column(String(50))
    payload: Mapped[dict[str, Any]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
