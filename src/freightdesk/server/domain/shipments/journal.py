"""The `shipment_changes` journal and Core bulk inserts: every write appends what changed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Table, insert
from sqlalchemy.orm import Session

from freightdesk.server.db import WEBHOOKS_CHANNEL, Base, wake_on_commit
from freightdesk.server.tables.tracking import ChangeKind, Shipment, ShipmentChange


def table_of(entity: type[Base]) -> Table:
    table = entity.__table__
    assert isinstance(table, Table)
    return table


def insert_rows(session: Session, entity: type[Base], rows: list[dict[str, Any]]) -> None:
    """A Core executemany: bulk rows skip the ORM's per-object bookkeeping."""
    if rows:
        # On the connection: a Core insert through the Session would autoflush first.
        session.connection().execute(insert(table_of(entity)), rows)


def change_entry(
    tenant_id: int, shipment_id: str, kind: ChangeKind, payload: dict[str, Any], now: datetime
) -> dict[str, Any]:
    return {
        "tenant_id": tenant_id,
        "shipment_id": shipment_id,
        "kind": kind.value,
        "payload": {"shipmentId": shipment_id, **payload},
        "created_at": now,
    }


def journal(session: Session, changes: list[dict[str, Any]]) -> None:
    """Append `changes` (`change_entry`s) to the journal, the one writer of it: the webhook
    delivery, which fans them out, is woken once they commit."""
    if changes:
        insert_rows(session, ShipmentChange, changes)
        wake_on_commit(session, WEBHOOKS_CHANNEL)


def record_change(
    session: Session, row: Shipment, kind: ChangeKind, payload: dict[str, Any], now: datetime
) -> None:
    """Journal one change of a shipment at once (a write that makes a single change)."""
    journal(session, [change_entry(row.tenant_id, row.id, kind, payload, now)])
