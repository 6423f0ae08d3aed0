"""The fan-out's cursor on the shipment change journal, and the one order of the locks taken
with it: the cursor, then push configurations' rows (`lock_configs`), then the rows of their
messages and leases. Who takes what:
- a fan-out round holds the cursor, then its new messages and leases hold their
  configurations' rows (the foreign keys);
- the worker's store of outcomes (`outbox.record`) takes the cursor and the rows of the
  configurations a 410 pauses before any message's row;
- a user's create, replace (a pause or a resume reads the journal's mark) and delete (its
  messages and leases go with it) take the cursor, then the row (`configs.owned`);
- the outbox's purge takes configurations' rows (expired secrets) before messages'; the
  journal's prune takes neither (it reads the cursor without locking it).
A pause that held the row (its change flushed by the cursor's query) and then waited for the
cursor deadlocked with a 410's store on PostgreSQL, which failed one side (a 500, or the
worker's cycle rolled back).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.orm import Session

from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import WebhookConfigRow, WebhookJournalCursor


def lock_cursor(session: Session) -> WebhookJournalCursor:
    cursor = session.get(WebhookJournalCursor, 1, with_for_update=True)
    if cursor is None:
        # First start: do not replay the journal's past, only what came after the first
        # configuration (the worker starts a moment after the service, and a configuration
        # made meanwhile must get the changes that followed it).
        before = select(func.max(ShipmentChange.id))
        oldest = session.scalar(select(func.min(WebhookConfigRow.created_at)))
        if oldest is not None:
            before = before.where(ShipmentChange.created_at < oldest)
        newest = session.scalar(before) or 0
        # Instances starting together on one database both find none: the second's insert
        # waits for the first's commit, then adds nothing, and it locks the first's row.
        session.execute(
            pg_insert(WebhookJournalCursor)
            .values(id=1, position=newest, highest_seen=newest, gaps=[])
            .on_conflict_do_nothing(index_elements=["id"])
        )
        cursor = session.get(WebhookJournalCursor, 1, with_for_update=True, populate_existing=True)
        assert cursor is not None
    return cursor


def hold_cursor(session: Session) -> WebhookJournalCursor:
    """The cursor, held until commit on both databases: on PostgreSQL by its row lock; on
    SQLite a read alone takes no lock and no snapshot (the driver begins a transaction at the
    first write), so the cursor is written too, which holds the one write lock from here to
    the commit."""
    cursor = lock_cursor(session)
    if session.get_bind().dialect.name == "sqlite":
        position = WebhookJournalCursor.position
        session.execute(
            update(WebhookJournalCursor)
            .where(WebhookJournalCursor.id == 1)
            .values(position=position)
        )
    return cursor


def lock_configs(session: Session, config_ids: Iterable[int]) -> list[WebhookConfigRow]:
    """The cursor, then these configurations' rows (in id order, read again), held until
    commit: the one order in which every path takes both. Call it before changing a
    configuration: a change made first is flushed (the row locked) by the cursor's query."""
    hold_cursor(session)
    ids = sorted(set(config_ids))
    if not ids:
        return []
    return list(
        session.scalars(
            select(WebhookConfigRow)
            .where(WebhookConfigRow.id.in_(ids))
            .order_by(WebhookConfigRow.id)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
    )


def journal_mark(session: Session) -> int:
    """Where a configuration being created (`journal_after`; also paused or enabled again)
    stands in the journal: the highest journal id now, read holding the cursor, so that no
    fan-out round runs between this read and the configuration's commit. A change at or below
    it was committed before (or was being made while the configuration was): not its to
    receive. One above it was made after, and every round that reads it sees the
    configuration: on SQLite ids follow the commit order; on PostgreSQL a round that read it
    without the configuration would have had to run before the commit, and it waited for the
    cursor instead. A configuration changed is locked with `lock_configs` before."""
    hold_cursor(session)
    return session.scalar(select(func.max(ShipmentChange.id))) or 0
