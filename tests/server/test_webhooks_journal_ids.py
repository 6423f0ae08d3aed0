"""The change journal's ids never go back, so that no reader that remembers one (the webhook
fan-out's cursor, a configuration's start) passes a later change by: on SQLite once the
newest rows were deleted (the journal emptied) the next change used to be numbered again
from 1, below the cursor, and no webhook ever received it. Also an older SQLite database's
journal, upgraded, keeps its rows and ids and numbers on above them."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete, event, func, insert, select, text

from freightdesk.server.db import make_engine, transaction, utcnow
from freightdesk.server.migrations import SCHEMA_VERSION, upgrade
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import WebhookJournalCursor
from tests.server.test_carrier_push_support import create_shipment, unique
from tests.server.test_webhooks_delivery import configure
from tests.server.test_webhooks_support import receiver, settled, tuned
from tests.support import make_tenant, running_service

CREATED = "shipments.v1.shipment.created"


def test_a_change_after_the_journal_was_emptied_is_delivered(database_url: str) -> None:
    with receiver() as hooks, running_service(database_url) as service, tuned(service):
        tenant = make_tenant(service)
        try:
            config = configure(tenant, hooks.url(), CREATED)
            first = create_shipment(tenant, [("BILL_OF_LADING", unique("BOL"))])
            settled(service, config["id"])
            with transaction(service.context.sessions) as session:
                newest = session.scalar(select(func.max(ShipmentChange.id)))
                session.execute(delete(ShipmentChange))
            second = create_shipment(tenant, [("BILL_OF_LADING", unique("BOL"))])
            settled(service, config["id"])
            with transaction(service.context.sessions) as session:
                numbered = session.scalar(select(func.max(ShipmentChange.id)))
        finally:
            tenant.http.close()
    shipments = [body["context"]["shipment"]["shipmentId"] for body in hooks.bodies()]
    assert shipments == [first["id"], second["id"]]
    assert newest is not None and numbered is not None and numbered > newest


KEPT = [(3, str(uuid.uuid4())), (7, str(uuid.uuid4())), (8, str(uuid.uuid4()))]


def _older_journal(engine: Engine) -> int:
    """A database at version 9 whose journal holds `KEPT` in a plain rowid table, as made
    before version 10; the fan-out had read up to 12 (rows since deleted). Its tenant's id."""
    upgrade(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE shipment_changes")
        conn.exec_driver_sql(
            "CREATE TABLE shipment_changes (id INTEGER NOT NULL, tenant_id INTEGER NOT "
            "NULL, shipment_id VARCHAR(36) NOT NULL, kind VARCHAR(50) NOT NULL, payload "
            "JSON NOT NULL, created_at DATETIME NOT NULL, CONSTRAINT pk_shipment_changes "
            "PRIMARY KEY (id), CONSTRAINT fk_shipment_changes_tenant_id_tenants FOREIGN "
            "KEY(tenant_id) REFERENCES tenants (id) ON DELETE CASCADE)"
        )
        conn.exec_driver_sql("DELETE FROM schema_version")
        conn.exec_driver_sql("INSERT INTO schema_version (version) VALUES (9)")
        tenant: int = conn.execute(
            insert(Tenant).values(uuid=str(uuid.uuid4()), name="older").returning(Tenant.id)
        ).scalar_one()
        conn.execute(
            insert(ShipmentChange),
            [
                {
                    "id": id_,
                    "tenant_id": tenant,
                    "shipment_id": shipment,
                    "kind": CREATED,
                    "payload": {"shipmentId": shipment},
                    "created_at": utcnow(),
                }
                for id_, shipment in KEPT
            ],
        )
        conn.execute(
            insert(WebhookJournalCursor).values(id=1, position=12, highest_seen=12, gaps=[])
        )
    return tenant


def _kept(engine: Engine) -> list[tuple[int, str]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(ShipmentChange.id, ShipmentChange.shipment_id).order_by(ShipmentChange.id)
        )
        return [(id_, shipment) for id_, shipment in rows]


def test_an_older_sqlite_journal_keeps_its_ids_and_numbers_on_above_them(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'older.sqlite3'}")
    try:
        tenant = _older_journal(engine)
        assert upgrade(engine) == 9
        assert upgrade(engine) == SCHEMA_VERSION
        assert _kept(engine) == KEPT
        with engine.begin() as conn:
            made = conn.exec_driver_sql(
                "SELECT sql FROM sqlite_master WHERE name = 'shipment_changes'"
            ).scalar_one()
            assert "AUTOINCREMENT" in made
            indexes = conn.execute(
                text("SELECT name FROM sqlite_master WHERE tbl_name = 'shipment_changes'")
            ).scalars()
            assert {"ix_shipment_changes_tenant", "ix_shipment_changes_shipment_id"} <= set(indexes)
            conn.execute(delete(ShipmentChange))
            new_id = conn.execute(
                insert(ShipmentChange)
                .values(
                    tenant_id=tenant,
                    shipment_id=str(uuid.uuid4()),
                    kind=CREATED,
                    payload={},
                    created_at=utcnow(),
                )
                .returning(ShipmentChange.id)
            ).scalar_one()
        assert new_id == 13  # above every id the fan-out had seen, not 1
    finally:
        engine.dispose()


def test_an_upgrade_stopped_while_the_journal_is_made_again_loses_nothing(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'older.sqlite3'}")

    def stop_at_the_rename(*args: Any) -> None:
        if str(args[2]).startswith("ALTER TABLE shipment_changes_autoincrement RENAME"):
            raise OSError("the service stopped")

    try:
        _older_journal(engine)
        event.listen(engine, "before_cursor_execute", stop_at_the_rename)
        with pytest.raises(OSError):
            upgrade(engine)
        event.remove(engine, "before_cursor_execute", stop_at_the_rename)
        assert _kept(engine) == KEPT  # the copy, the drop and the version rolled back
        assert upgrade(engine) == 9
        assert _kept(engine) == KEPT
        with engine.connect() as conn:
            tables = conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE name LIKE 'shipment_changes%' "
                "AND type = 'table'"
            ).scalars()
            assert list(tables) == ["shipment_changes"]
    finally:
        engine.dispose()
