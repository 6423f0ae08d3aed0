"""Carrier push: the worker that applies accepted pushes to shipments.

Pushes are stored by the intake (`push_intake`). The worker takes PENDING rows in arrival order
and, in one transaction per batch, writes their data into the shipments through
`push_applier.PushApplier` and marks the rows done. Marking and applying commit together, so a
crash in between replays the batch from scratch instead of duplicating its events; event and
exception ids are also derived from the ingestion id, so even a replay that did commit could
not add them twice.

A push that matches no shipment is kept UNMATCHED and tried again with a growing delay for a
week, so that an update sent before the shipper created the shipment still lands on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import Table, bindparam, delete, func, select, update
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session

from freightdesk.models.push import (
    IngestionStatus,
)
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import PUSHES_CHANNEL, transaction, utcnow, wakeups
from freightdesk.server.domain.push_applier import Claimed, Outcome, PushApplier
from freightdesk.server.domain.push_intake import ingestion_queue
from freightdesk.server.errors import ApiError
from freightdesk.server.tables.push import PushIngestion
from freightdesk.server.workers import (
    IDLE_POLL_SECONDS,
    Worker,
    setter,
    wait_for_any,
)

log = logging.getLogger(__name__)

__all__ = ["WORKERS", "prune_receipts"]

_INGESTIONS: Table = PushIngestion.__table__  # type: ignore[assignment]


# Pushes claimed per transaction: positions of many pushes to one shipment are written
# together, so big batches cost less per push (a batch stops taking pushes after
# push_applier.BATCH_SECONDS).
PROCESS_BATCH = 1000
# After a wake-up, let more pushes arrive so that they are applied in one transaction; while
# pushes keep coming, batches start at least this far apart. Taken back to back, batches held
# only what arrived during the previous one, and their fixed costs (the claim, locking and
# reading the shipments, the commit, the webhooks' fan-out of the changes) were paid for a few
# pushes each, on the GIL that the event loop answering the pushes needs (issue 18). A push
# waits at most this long more before it is applied.
COALESCE_SECONDS = 0.1
# UNMATCHED pushes are tried again after 2, 4, 8, ... seconds, at most 10 minutes apart,
# for a week after they were received.
RETRY_FIRST = timedelta(seconds=2)
RETRY_LONGEST = timedelta(minutes=10)
RETRY_FOR = timedelta(days=7)
# A transient database failure (locked, connection lost) is retried after this pause.
BACKOFF_SECONDS = 1.0
# Receipts of finished pushes are readable this long after their last attempt, then deleted
# (a live feed pushes millions a month); pruned in batches, at most once per interval.
RECEIPTS_KEPT_FOR = timedelta(days=30)
PRUNE_EVERY_SECONDS = 3600.0
PRUNE_BATCH = 5000


_CLAIM_COLUMNS = (
    _INGESTIONS.c.id,
    _INGESTIONS.c.ingestion_id,
    _INGESTIONS.c.kind,
    _INGESTIONS.c.target_tenant_id,
    _INGESTIONS.c.payload,
    _INGESTIONS.c.received_at,
    _INGESTIONS.c.attempts,
)

# The database failed, not the push: retry later rather than mark the push FAILED.
_TRANSIENT = (OperationalError, InterfaceError)


def process_pending(context: ServiceContext, limit: int = PROCESS_BATCH) -> int:
    """Apply up to `limit` PENDING pushes in arrival order; returns how many were taken."""
    query = (
        select(*_CLAIM_COLUMNS)
        .where(_INGESTIONS.c.status == IngestionStatus.PENDING.value)
        .order_by(_INGESTIONS.c.id)
        .limit(limit)
    )
    return _process(context, query)


def retry_unmatched(context: ServiceContext, limit: int = PROCESS_BATCH) -> int:
    """Try again the UNMATCHED pushes whose retry is due; returns how many were taken."""
    query = (
        select(*_CLAIM_COLUMNS)
        .where(
            _INGESTIONS.c.status == IngestionStatus.UNMATCHED.value,
            _INGESTIONS.c.retry_at.is_not(None),
            _INGESTIONS.c.retry_at <= utcnow(),
        )
        .order_by(_INGESTIONS.c.retry_at)
        .limit(limit)
    )
    return _process(context, query)


def next_retry_in(context: ServiceContext) -> float | None:
    """Seconds until the first UNMATCHED push's retry is due (None: no retry waits)."""
    with context.sessions() as session:
        first = session.scalar(
            select(func.min(_INGESTIONS.c.retry_at)).where(
                _INGESTIONS.c.status == IngestionStatus.UNMATCHED.value,
                _INGESTIONS.c.retry_at.is_not(None),
            )
        )
    return None if first is None else (first - utcnow()).total_seconds()


def _process(context: ServiceContext, query: Any) -> int:
    """Apply the pushes `query` selects; returns how many were applied (0: none waiting)."""
    rows: list[Claimed] = []
    try:
        # The fast path: the batch and its marks in one transaction. Pushes left over when
        # the batch ran out of time are not marked and stay for the next batch.
        with transaction(context.sessions) as session:
            # SKIP LOCKED: a second service on the same PostgreSQL database takes other rows.
            found = session.execute(query.with_for_update(skip_locked=True))
            rows = [Claimed(**item._mapping) for item in found]
            if not rows:
                return 0
            outcomes = PushApplier(session).apply(rows)
            _mark(session, rows[: len(outcomes)], outcomes)
        return len(outcomes)
    except _TRANSIENT:
        raise
    except Exception:
        if not rows:
            raise
        log.warning("a batch of %d pushes failed; applying them one by one", len(rows))
    # One push of the batch is at fault: apply each alone so that the others still land.
    for row in rows:
        _process_one(context, row)
    return len(rows)


def _claim_again(session: Session, row: Claimed) -> bool:
    """Lock the push alone and check that nobody took it since the failed batch let it go
    (every mark counts an attempt); False: another service has it or has applied it."""
    found = session.execute(
        select(_INGESTIONS.c.id)
        .where(
            _INGESTIONS.c.id == row.id,
            _INGESTIONS.c.attempts == row.attempts,
            _INGESTIONS.c.status.in_(
                [IngestionStatus.PENDING.value, IngestionStatus.UNMATCHED.value]
            ),
        )
        .with_for_update(skip_locked=True)
    )
    return found.first() is not None


def _process_one(context: ServiceContext, row: Claimed) -> None:
    try:
        with transaction(context.sessions) as session:
            if _claim_again(session, row):
                _mark(session, [row], PushApplier(session).apply([row]))
        return
    except _TRANSIENT:
        raise
    except Exception as exc:
        if isinstance(exc, ApiError):
            log.warning("carrier push %s refused by the shipment: %s", row.ingestion_id, exc)
        else:
            log.exception("carrier push %s could not be applied", row.ingestion_id)
        failure = Outcome(IngestionStatus.FAILED, [], _describe(exc))
    with transaction(context.sessions) as session:
        if _claim_again(session, row):
            _mark(session, [row], [failure])


def _describe(exc: Exception) -> str:
    if isinstance(exc, ApiError):
        return exc.message
    return f"The update could not be applied ({type(exc).__name__}); it is kept for support"


_MARK = (
    update(_INGESTIONS)
    .where(_INGESTIONS.c.id == bindparam("row_id"))
    .values(
        status=bindparam("status"),
        matched_shipment_ids=bindparam("matched", type_=_INGESTIONS.c.matched_shipment_ids.type),
        error=bindparam("error"),
        processed_at=bindparam("processed_at", type_=_INGESTIONS.c.processed_at.type),
        attempts=bindparam("attempts"),
        retry_at=bindparam("retry_at", type_=_INGESTIONS.c.retry_at.type),
    )
)


def _mark(session: Session, rows: Sequence[Claimed], outcomes: Sequence[Outcome]) -> None:
    now = utcnow()
    values = []
    for row, outcome in zip(rows, outcomes, strict=True):
        attempts = row.attempts + 1
        retry_at = None
        if outcome.status is IngestionStatus.UNMATCHED and now - row.received_at < RETRY_FOR:
            retry_at = now + min(RETRY_FIRST * 2 ** (attempts - 1), RETRY_LONGEST)
        values.append(
            {
                "row_id": row.id,
                "status": outcome.status.value,
                "matched": outcome.matched,
                "error": outcome.error,
                "processed_at": now,
                "attempts": attempts,
                "retry_at": retry_at,
            }
        )
    session.execute(_MARK, values)


def prune_receipts(context: ServiceContext, limit: int = PRUNE_BATCH) -> int:
    """Delete up to `limit` receipts of pushes finished longer than RECEIPTS_KEPT_FOR ago.

    PENDING pushes and UNMATCHED ones still due a retry are never deleted: they are not
    finished. Returns how many were deleted.
    """
    cutoff = utcnow() - RECEIPTS_KEPT_FOR
    expired = (
        select(_INGESTIONS.c.id)
        .where(
            _INGESTIONS.c.status != IngestionStatus.PENDING.value,
            _INGESTIONS.c.retry_at.is_(None),
            _INGESTIONS.c.processed_at < cutoff,
        )
        .limit(limit)
    )
    with transaction(context.sessions) as session:
        ids = list(session.scalars(expired))
        if ids:
            session.execute(delete(_INGESTIONS).where(_INGESTIONS.c.id.in_(ids)))
    return len(ids)


async def process_pushes(context: ServiceContext, stop: asyncio.Event) -> None:
    """Apply accepted pushes to shipments until the service stops.

    Database work runs in a thread, one batch at a time, so the event loop stays free.
    """
    # Pushes committed by the intake of this instance or (PostgreSQL) of another.
    arrived = setter(ingestion_queue(context).arrived)
    unsubscribe = wakeups(context.engine).subscribe(PUSHES_CHANNEL, arrived)
    try:
        await _process_pushes(context, stop)
    finally:
        unsubscribe()


async def _process_pushes(context: ServiceContext, stop: asyncio.Event) -> None:
    queue = ingestion_queue(context)
    # When UNMATCHED pushes are next tried (loop time), known after each look for them.
    next_retry = 0.0
    loop = asyncio.get_running_loop()
    next_prune = loop.time() + PRUNE_EVERY_SECONDS / 60  # not in the way of the start
    while not stop.is_set():
        queue.arrived.clear()
        try:
            while not stop.is_set():
                started = loop.time()
                applied: int = await asyncio.to_thread(process_pending, context)
                if not applied:
                    break
                next_retry = 0.0  # it may have left pushes UNMATCHED
                # At least COALESCE_SECONDS from one batch's start to the next: a long batch (a
                # backlog) is followed at once, after a short one the next gathers more.
                if (pause := started + COALESCE_SECONDS - loop.time()) > 0:
                    await _sleep(stop, pause)
            if loop.time() >= next_retry:
                await asyncio.to_thread(retry_unmatched, context)
                due = await asyncio.to_thread(next_retry_in, context)
                # Retries at most every second; none waiting: the idle poll looks again.
                wait = IDLE_POLL_SECONDS if due is None else due
                next_retry = loop.time() + max(RETRY_FIRST.total_seconds() / 2, wait)
            if loop.time() >= next_prune:
                while await asyncio.to_thread(prune_receipts, context) == PRUNE_BATCH:
                    if stop.is_set():
                        break
                next_prune = loop.time() + PRUNE_EVERY_SECONDS
        except _TRANSIENT:
            log.warning("push processing paused: the database failed", exc_info=True)
            await _sleep(stop, BACKOFF_SECONDS)
            continue
        idle = min(IDLE_POLL_SECONDS, max(0.0, next_retry - loop.time()))
        await wait_for_any(idle, stop, queue.arrived)
        await _sleep(stop, COALESCE_SECONDS)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


WORKERS: list[Worker] = [process_pushes]
