"""An upgraded database has the schema a new one gets (columns, their types, defaults and
nullability, keys, indexes); a migration that can take minutes says how far it is."""

from __future__ import annotations

import uuid
import warnings
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Inspector, insert, inspect, select
from sqlalchemy.exc import SAWarning

from freightdesk.server.db import make_engine, utcnow
from freightdesk.server.migrations import JOURNAL_COPY_ROWS, SCHEMA_VERSION, Migration, upgrade
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import ShipmentChange

# The journal of a database made before version 10: a plain rowid table, with its indexes.
OLDER_JOURNAL = (
    "CREATE TABLE shipment_changes (id INTEGER NOT NULL, tenant_id INTEGER NOT NULL, "
    "shipment_id VARCHAR(36) NOT NULL, kind VARCHAR(50) NOT NULL, payload JSON NOT NULL, "
    "created_at DATETIME NOT NULL, CONSTRAINT pk_shipment_changes PRIMARY KEY (id), "
    "CONSTRAINT fk_shipment_changes_tenant_id_tenants FOREIGN KEY(tenant_id) REFERENCES "
    "tenants (id) ON DELETE CASCADE)",
    "CREATE INDEX ix_shipment_changes_tenant ON shipment_changes (tenant_id, id)",
    "CREATE INDEX ix_shipment_changes_shipment_id ON shipment_changes (shipment_id)",
)


def _schema(engine: Engine) -> dict[str, Any]:
    """Each table's columns (name, type, nullable, default), keys and indexes, in no order.
    An index on an expression is left out (reflection cannot read it: it warns)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Skipped unsupported reflection", SAWarning)
        return _reflected(inspect(engine))


def _reflected(inspector: Inspector) -> dict[str, Any]:
    return {
        table: {
            "columns": sorted(
                (c["name"], str(c["type"]), c["nullable"], c.get("default"))
                for c in inspector.get_columns(table)
            ),
            "primary key": inspector.get_pk_constraint(table)["constrained_columns"],
            "foreign keys": sorted(
                (tuple(k["constrained_columns"]), k["referred_table"], str(k.get("options")))
                for k in inspector.get_foreign_keys(table)
            ),
            "indexes": sorted(
                (i["name"], tuple(map(str, i["column_names"])), bool(i["unique"]))
                for i in inspector.get_indexes(table)
            ),
            "unique": sorted(
                tuple(map(str, u["column_names"])) for u in inspector.get_unique_constraints(table)
            ),
        }
        for table in sorted(inspector.get_table_names())
    }


def _back_to_version_8(engine: Engine) -> None:
    """The database as version 8 left it: what migrations 9 to 11 add or make again undone."""
    with engine.begin() as conn:
        for column in ("journal_after", "journal_paused_after", "journal_paused"):
            conn.exec_driver_sql(f"ALTER TABLE webhook_configs DROP COLUMN {column}")
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("DROP TABLE shipment_changes")
            for statement in OLDER_JOURNAL:
                conn.exec_driver_sql(statement)
        conn.exec_driver_sql("DELETE FROM schema_version")
        conn.exec_driver_sql("INSERT INTO schema_version (version) VALUES (8)")


def test_an_upgraded_database_has_the_schema_of_a_new_one(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        assert upgrade(engine) == 0
        new = _schema(engine)
        _back_to_version_8(engine)
        assert upgrade(engine) == 8
        assert _schema(engine) == new
    finally:
        engine.dispose()


def older_database(url: str, journal: int) -> None:
    """A database at version 8 whose journal holds `journal` changes (at least one), ids 1,
    3, 5… (with gaps, as after deletions)."""
    engine = make_engine(url)
    try:
        upgrade(engine)
        _back_to_version_8(engine)
        with engine.begin() as conn:
            tenant = conn.execute(
                insert(Tenant).values(uuid=str(uuid.uuid4()), name="older").returning(Tenant.id)
            ).scalar_one()
            conn.execute(
                insert(ShipmentChange),
                [
                    {
                        "id": 2 * n + 1,
                        "tenant_id": tenant,
                        "shipment_id": str(uuid.uuid4()),
                        "kind": "shipments.v1.shipment.created",
                        "payload": {"n": n},
                        "created_at": utcnow(),
                    }
                    for n in range(journal)
                ],
            )
    finally:
        engine.dispose()


def test_a_large_journal_is_copied_a_part_at_a_time_each_part_said(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'older.sqlite3'}"
    rows = JOURNAL_COPY_ROWS * 5 // 2
    older_database(url, rows)
    said: list[tuple[int, int | None]] = []

    def upgrading(migration: Migration, done: int | None) -> None:
        said.append((migration.version, done))

    engine = make_engine(url)
    try:
        assert upgrade(engine, upgrading) == 8
        # Each migration as it begins; the journal's copy after each whole part (half of the
        # way), then each step after it: the old table dropped, each index made.
        parts = [(10, 20), (10, 40), (10, 50), (10, 65), (10, 80), (10, 95)]
        assert said == [(9, None), (10, None), *parts, (11, None)]
        with engine.connect() as conn:
            ids = conn.execute(select(ShipmentChange.id).order_by(ShipmentChange.id)).scalars()
            assert list(ids) == [2 * n + 1 for n in range(rows)]
        assert upgrade(engine, upgrading) == SCHEMA_VERSION
        assert len(said) == 9  # a current schema says nothing
    finally:
        engine.dispose()
