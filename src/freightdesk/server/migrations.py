"""The schema's migrations: a database made by an earlier release is brought to this one's
in place, on SQLite and PostgreSQL alike; and whether a database's schema is the one this
release serves."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

import freightdesk.server.tables  # noqa: F401  (registers every table on Base.metadata)
from freightdesk.server.db import Base
from freightdesk.server.domain.shipments.summary import (
    fill_latest_event_zones,
    fill_next_eta_zones,
)
from freightdesk.server.tables.tracking import (
    ShipmentTrack,
    make_change_seq_triggers,
    make_track_triggers,
)

log = logging.getLogger(__name__)


# How much of a migration is done, in percent: said by one that can take minutes.
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    apply: Callable[[Connection, Progress], None]


# What `upgrade` says as it goes: the migration begun (None: no share known yet) or how much of
# it is done. `freightdesk serve` tells its supervisor, which waits for an upgrade past its
# start limit (`cli.UPGRADING_LINE`).
Upgrading = Callable[[Migration, int | None], None]


def _quiet(apply: Callable[[Connection], None]) -> Callable[[Connection, Progress], None]:
    """A migration that says no progress of its own (only that it begins)."""
    return lambda conn, _progress: apply(conn)


def add_column_if_missing(conn: Connection, table: str, column_ddl: str) -> None:
    """Idempotent ALTER TABLE ADD COLUMN, because create_all may already have made it."""
    name = column_ddl.split()[0]
    existing = {c["name"] for c in inspect(conn).get_columns(table)}
    if name not in existing:
        conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column_ddl}"))


def add_indexes_if_missing(conn: Connection, table: str, *names: str) -> None:
    """Create indexes declared on a table's model that an older database lacks (create_all
    makes them only with the table)."""
    for index in Base.metadata.tables[table].indexes:
        if index.name in names:
            index.create(conn, checkfirst=True)


def _search_indexes(conn: Connection) -> None:
    add_indexes_if_missing(conn, "shipments", "ix_shipments_tenant_mode_state")
    add_indexes_if_missing(conn, "shipment_identifiers", "ix_shipment_identifiers_prefix")


def _next_eta_zones(conn: Connection) -> None:
    add_column_if_missing(conn, "shipments", "next_eta_zone VARCHAR(64)")
    fill_next_eta_zones(conn)


def _latest_event_zones(conn: Connection) -> None:
    add_column_if_missing(conn, "shipments", "latest_event_zone VARCHAR(64)")
    fill_latest_event_zones(conn)


def _kept_tracks(conn: Connection) -> None:
    """The table of kept tracks and its triggers. create_all made the table (and, through the
    metadata's after_create, the triggers) before the migrations run; made again here in case
    it was an earlier create_all. Each track is built by the first history read of its
    shipment, not here: a large database would otherwise spend its upgrade on tracks that
    nobody may open."""
    ShipmentTrack.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    make_track_triggers(conn)


def _account_group_codes_without_case(conn: Connection) -> None:
    """The unique index on a tenant's account group codes whatever their case. A database
    that already holds codes differing only in case keeps them and goes without the index:
    the service refuses new ones either way, only two creates racing are not caught."""
    folded = text(
        "SELECT 1 FROM account_groups GROUP BY tenant_id, lower(code) HAVING count(*) > 1"
    )
    if conn.execute(folded).first() is not None:
        log.warning("account group codes differing only in case: their unique index is left out")
        return
    # Not add_indexes_if_missing: its check does not see an index on an expression.
    conn.execute(
        text(
            "CREATE UNIQUE INDEX IF NOT EXISTS ux_account_groups_tenant_code_lower "
            "ON account_groups (tenant_id, lower(code))"
        )
    )


def _change_seq(conn: Connection) -> None:
    """The shipments' change sequence for the list's incremental sync, and what keeps it.
    Shipments written before have none (NULL): the apps that sync with tokens list every
    shipment once at their first such sync."""
    add_column_if_missing(conn, "shipments", "change_seq BIGINT")
    add_indexes_if_missing(conn, "shipments", "ix_shipments_tenant_change")
    make_change_seq_triggers(conn)


def _change_seq_everywhere(conn: Connection) -> None:
    """A change sequence for the shipments written before version 7 (NULL until they
    changed): keyset pages in change order need a value on every row. The triggers number
    them (`CHANGE_SEQ_*`); the next token sync lists them once more. The change index gets
    the primary key after the sequence, the keyset's order on both databases."""
    conn.exec_driver_sql("UPDATE shipments SET change_seq = 0 WHERE change_seq IS NULL")
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_shipments_tenant_change")
    add_indexes_if_missing(conn, "shipments", "ix_shipments_tenant_change_pk")


def _webhook_journal_marks(conn: Connection) -> None:
    """Where each push configuration's changes begin in the journal. Configurations made
    before have 0 and get what they got before: every change fanned out while they exist."""
    add_column_if_missing(conn, "webhook_configs", "journal_after BIGINT NOT NULL DEFAULT 0")


# The journal as version 10 made it, written out, not taken from the model: a later version
# that changes the table (a column more) does so in its own migration, after this one.
_JOURNAL_V10 = (
    "CREATE TABLE {name} (id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, tenant_id INTEGER "
    "NOT NULL, shipment_id VARCHAR(36) NOT NULL, kind VARCHAR(50) NOT NULL, payload JSON NOT "
    "NULL, created_at DATETIME NOT NULL, CONSTRAINT fk_shipment_changes_tenant_id_tenants "
    "FOREIGN KEY(tenant_id) REFERENCES tenants (id) ON DELETE CASCADE)"
)
_JOURNAL_V10_COLUMNS = "id, tenant_id, shipment_id, kind, payload, created_at"
_JOURNAL_V10_INDEXES = (
    "CREATE INDEX ix_shipment_changes_tenant ON shipment_changes (tenant_id, id)",
    "CREATE INDEX ix_shipment_changes_shipment_id ON shipment_changes (shipment_id)",
)
# Rows copied between two reports of progress: a fraction of a second each (200,000 rows,
# 264 MB, took 7.7 s at load 3.4), so the app sees the upgrade move on.
JOURNAL_COPY_ROWS = 10_000
# How far the journal's upgrade has got once each step after the copy is done (the copy
# goes up to the first): the old table's drop and the two indexes took 4 s of 5 after a
# copy of 300,000 rows, and the app showed "100%" all that time (80 s for 2,000,000).
_JOURNAL_COPIED, _OLD_DROPPED, _FIRST_INDEX, _SECOND_INDEX = 50, 65, 80, 95


def _journal_ids_never_reused(conn: Connection, progress: Progress) -> None:
    """The journal's ids with AUTOINCREMENT on SQLite (PostgreSQL's sequence never goes
    back): without it, once the newest rows are gone, SQLite numbers new changes at or below
    where the webhook fan-out's cursor and the configurations' marks stand, and those changes
    are never sent. SQLite cannot add AUTOINCREMENT to a table: the table is made again, its
    rows and ids kept, and numbering goes on above every id any reader remembers. The rows
    are copied a part at a time, each part reported (`progress`): a large journal takes
    minutes."""
    if conn.dialect.name != "sqlite":
        return
    name = "shipment_changes"
    built = f"{name}_autoincrement"
    # An upgrade that stopped before its commit may have left it (SQLite runs DDL outside a
    # transaction until the first write: the copy below opens the one that the rest is in).
    conn.exec_driver_sql(f"DROP TABLE IF EXISTS {built}")
    conn.exec_driver_sql(_JOURNAL_V10.format(name=built))
    rows = conn.exec_driver_sql(f"SELECT count(*) FROM {name}").scalar_one()
    copied, after = 0, None
    while True:
        # Each part from after the last id copied, found through the primary key.
        later, since = ("", ()) if after is None else ("WHERE id > ?", (after,))
        part = conn.exec_driver_sql(
            f"INSERT INTO {built} ({_JOURNAL_V10_COLUMNS}) SELECT {_JOURNAL_V10_COLUMNS} "
            f"FROM {name} {later} ORDER BY id LIMIT ?",
            (*since, JOURNAL_COPY_ROWS),
        ).rowcount
        copied += part
        if part < JOURNAL_COPY_ROWS:
            break
        progress(copied * _JOURNAL_COPIED // rows)
        after = conn.exec_driver_sql(f"SELECT max(id) FROM {built}").scalar_one()
    progress(_JOURNAL_COPIED)
    conn.exec_driver_sql(f"DROP TABLE {name}")
    progress(_OLD_DROPPED)
    conn.exec_driver_sql(f"ALTER TABLE {built} RENAME TO {name}")
    for index, done in zip(_JOURNAL_V10_INDEXES, (_FIRST_INDEX, _SECOND_INDEX), strict=True):
        conn.exec_driver_sql(index)
        progress(done)
    remembered = conn.exec_driver_sql(
        f"SELECT max(v) FROM (SELECT max(id) AS v FROM {name} "
        "UNION ALL SELECT max(highest_seen) FROM webhook_journal_cursor "
        "UNION ALL SELECT max(journal_after) FROM webhook_configs)"
    ).scalar()
    conn.exec_driver_sql(f"DELETE FROM sqlite_sequence WHERE name = '{name}'")
    conn.exec_driver_sql(
        "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, remembered or 0)
    )


def _webhook_pause_marks(conn: Connection) -> None:
    """Where each push configuration's pauses lie in the journal (`configs.resume`). One paused
    before has no mark: it gets nothing until it is enabled again, as before."""
    add_column_if_missing(conn, "webhook_configs", "journal_paused_after BIGINT")
    json = "JSONB" if conn.dialect.name == "postgresql" else "JSON"
    add_column_if_missing(conn, "webhook_configs", f"journal_paused {json} NOT NULL DEFAULT '[]'")
    conn.exec_driver_sql(
        "UPDATE webhook_configs SET journal_paused_after = journal_after "
        "WHERE NOT enabled AND journal_paused_after IS NULL"
    )


# Append only; never edit a released migration. Version 1 is the first released schema.
MIGRATIONS: list[Migration] = [
    Migration(1, "initial schema", lambda conn, _progress: None),
    Migration(2, "shipment search indexes", _quiet(_search_indexes)),
    Migration(3, "the zone of a shipment's next ETA stop", _quiet(_next_eta_zones)),
    Migration(4, "the zone of a shipment's latest event stop", _quiet(_latest_event_zones)),
    Migration(5, "kept down-sampled tracks for history reads", _quiet(_kept_tracks)),
    Migration(
        6,
        "account group codes unique whatever their case",
        _quiet(_account_group_codes_without_case),
    ),
    Migration(7, "the shipments' change sequence for incremental sync", _quiet(_change_seq)),
    Migration(8, "a change sequence on every shipment", _quiet(_change_seq_everywhere)),
    Migration(9, "where each push configuration's changes begin", _quiet(_webhook_journal_marks)),
    Migration(10, "journal ids never handed out twice", _journal_ids_never_reused),
    Migration(11, "where each push configuration's pauses lie", _quiet(_webhook_pause_marks)),
]

SCHEMA_VERSION = MIGRATIONS[-1].version

# The key of the PostgreSQL advisory lock held while the schema is checked and upgraded, so
# that instances starting together on one database take turns: the first migrates, the
# others then find the schema current. Any constant unlikely to be used by another program.
SCHEMA_LOCK_KEY = 0x46445343  # "FDSC"


def _lock_schema(conn: Connection) -> None:
    """Wait for the schema lock, held until this transaction ends (commit or rollback).

    SQLite needs none: a database file belongs to one instance (its data directory's lock),
    and SQLite serializes writers anyway.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})


def readiness_problem(engine: Engine) -> str | None:
    """Why requests that need the database cannot be served now, or None when they can: the
    database answers and its schema is the one this release migrates to (not older, and not
    newer, made by a later release on the same database)."""
    try:
        with engine.connect() as conn:
            row = conn.execute(text("SELECT max(version) FROM schema_version")).scalar()
    except SQLAlchemyError as exc:
        log.warning("readiness: the database does not answer: %s", exc)
        return "The database does not answer"
    if row is None or int(row) != SCHEMA_VERSION:
        return f"The database's schema is version {row}; this release needs {SCHEMA_VERSION}"
    return None


def upgrade(engine: Engine, upgrading: Upgrading | None = None) -> int:
    """Bring the database to the current schema in place; returns the version it had.
    `upgrading` hears each migration as it begins and as it goes (never for a new database)."""
    with engine.begin() as conn:
        # First: two instances creating the same table at once fail on PostgreSQL even with
        # IF NOT EXISTS (a unique violation in its catalog).
        _lock_schema(conn)
        conn.execute(text("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"))
        row = conn.execute(text("SELECT max(version) FROM schema_version")).scalar()
        current = int(row) if row is not None else 0
        existing = set(inspect(conn).get_table_names())
        fresh = current == 0 and "tenants" not in existing
        # Tables of areas added since the database was made are created here. create_all asks
        # the database about each table in turn; a restart, which finds them all, needs none.
        if not existing.issuperset(Base.metadata.tables):
            Base.metadata.create_all(conn)
        if fresh:
            conn.execute(
                text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": SCHEMA_VERSION}
            )
            log.info("created database schema version %d", SCHEMA_VERSION)
            return 0
        for migration in MIGRATIONS:
            if migration.version > current:
                log.info("migrating database to %d: %s", migration.version, migration.description)
                if upgrading is None:
                    migration.apply(conn, lambda _done: None)
                else:
                    upgrading(migration, None)
                    migration.apply(conn, partial(upgrading, migration))
                conn.execute(
                    text("INSERT INTO schema_version (version) VALUES (:v)"),
                    {"v": migration.version},
                )
        return current
