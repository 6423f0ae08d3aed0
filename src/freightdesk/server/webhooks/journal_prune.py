"""Pruning the shipment change journal (`shipment_changes`), which otherwise grows forever.

A row goes only once no reader can still need it:
- the webhook fan-out has passed it: at or below its cursor's `position`, which stays below
  every gap it still means to read (an id skipped over, waited for in case its transaction
  commits late). Nothing is pruned before the cursor exists (the first round has not run);
- it is older than the retention (`Tuning.journal_retention_seconds`, setting
  `webhooks.journal_retention_days`, 7 days), and never less than `MIN_RETENTION_SECONDS`:
  the capacity statistics' cache (`domain.capacity_stats.FactsCache`) reads the changes
  since the last id it saw, and reads everything again after 10 minutes;
- it is not the newest row: `max(id)` is where the journal stands for a configuration being
  created, paused or enabled again (`cursor.journal_mark`) and for the cursor's first start.

A paused configuration's marks (`journal_paused_after`, the ranges of `journal_paused`) need
nothing beyond the cursor: the changes up to its pause are fanned out to it like any other
(queued in the outbox, bodies stored there, sent once it is enabled again), and the changes
made while it was paused are never its own. Holding rows for its marks would let one
configuration disabled for good (a receiver's 410) keep the whole journal forever.

Ids never go back (AUTOINCREMENT on SQLite, a sequence on PostgreSQL), so readers that
remember an id keep reading the right rows after a prune. Rows go in batches (`batch_size`),
one transaction each, from the delivery worker's cycles (`delivery.DeliveryWorker`), so the
write lock is never held for long. With several instances on one PostgreSQL database one
prunes at a time (a transaction-scoped advisory lock, tried, not waited for); the others
skip their turn. A prune is idempotent anyway: a delete of rows already gone does nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import case, delete, func, select
from sqlalchemy.orm import Session

from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import WebhookJournalCursor
from freightdesk.server.webhooks.tuning import Tuning

# Rows deleted in one transaction at most (`batch_size`), each batch holding the write lock
# for a few milliseconds: about 25 ms on SQLite (a thousand rows of a large journal, measured
# with bench/bench_journal_prune.py), 8 ms on PostgreSQL (five thousand).
SQLITE_BATCH = 1000
BATCH = 5000
MIN_RETENTION_SECONDS = 3600.0
# The PostgreSQL advisory lock of the instance pruning (any constant no other program uses).
PRUNE_LOCK_KEY = 0x4644504A  # "FDPJ"


def prunable_through(session: Session) -> int:
    """The highest journal id the readers have done with (0: none): the fan-out's position,
    below the newest row. Read without locking the cursor (it only moves forward, so a value
    read a moment ago is still safe), so a prune never holds up a fan-out round."""
    position = session.scalar(
        select(WebhookJournalCursor.position).where(WebhookJournalCursor.id == 1)
    )
    if position is None:
        return 0
    newest = session.scalar(select(func.max(ShipmentChange.id))) or 0
    return max(0, min(position, newest - 1))


def batch_size(session: Session) -> int:
    return SQLITE_BATCH if session.get_bind().dialect.name == "sqlite" else BATCH


def prune(session: Session, tuning: Tuning, now: datetime, batch: int | None = None) -> int:
    """Delete up to `batch` (`batch_size`) of the oldest journal rows no reader needs;
    returns how many. Fewer: nothing more to prune for now."""
    if session.get_bind().dialect.name == "postgresql" and not session.scalar(
        select(func.pg_try_advisory_xact_lock(PRUNE_LOCK_KEY))
    ):
        return 0  # another instance is pruning
    through = prunable_through(session)
    if through <= 0:
        return 0
    retention = max(tuning.journal_retention_seconds, MIN_RETENTION_SECONDS)
    before = now - timedelta(seconds=retention)
    # The oldest rows by id (the primary key's order, no scan of the rest): they go up to
    # the first one within the retention. Ids roughly follow time; a row stamped later than
    # one above it stops the batch at it.
    oldest = (
        select(ShipmentChange.id, ShipmentChange.created_at)
        .where(ShipmentChange.id <= through)
        .order_by(ShipmentChange.id)
        .limit(batch or batch_size(session))
        .subquery()
    )
    recent = case((oldest.c.created_at >= before, oldest.c.id))
    highest, first_recent = session.execute(select(func.max(oldest.c.id), func.min(recent))).one()
    if highest is None:
        return 0
    # Every row up to there is among those just read (they are the lowest ids), bar one
    # committed since by a transaction the fan-out gave up on: never to be read either.
    if first_recent is None:
        gone = ShipmentChange.id <= highest
    else:
        gone = ShipmentChange.id < first_recent
    deleted = session.execute(delete(ShipmentChange).where(gone))
    return int(getattr(deleted, "rowcount", 0) or 0)
