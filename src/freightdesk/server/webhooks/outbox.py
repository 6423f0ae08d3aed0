"""The durable outbox of webhook messages (synchronous database work, run in a thread).

- `fan_out` reads the shipment change journal on from the cursor and inserts one message per
  configuration that wants the change, and moves the cursor, in one transaction: a change is
  fanned out exactly once, and a restart carries on where the last commit left off.
- `load_pending`, `load_endpoints`, `load_bodies` give the worker's scheduler what it needs.
- `decide` turns an attempt into its outcome: delivered, retry later (the schedule in
  `tuning`) or given up; `record` stores outcomes, and disables a configuration whose
  receiver answered 410.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import (
    Table,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from freightdesk.models.webhooks import DeliveryStatus
from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import (
    WebhookAttemptRow,
    WebhookConfigRow,
    WebhookJournalCursor,
    WebhookMessageRow,
)
from freightdesk.server.webhooks.events import FanOut, Target
from freightdesk.server.webhooks.schedule import Pending
from freightdesk.server.webhooks.tuning import Tuning

log = logging.getLogger(__name__)

PENDING = DeliveryStatus.PENDING.value
DELIVERED = DeliveryStatus.DELIVERED.value
FAILED = DeliveryStatus.FAILED.value
_MAX_GAPS = 10_000
_ERROR_LENGTH = 500

# --- fan-out -------------------------------------------------------------------------------


def _cursor(session: Session) -> WebhookJournalCursor:
    cursor = session.get(WebhookJournalCursor, 1, with_for_update=True)
    if cursor is None:
        # First start: begin at the end of the journal, not by replaying its whole past.
        newest = session.scalar(select(func.max(ShipmentChange.id))) or 0
        cursor = WebhookJournalCursor(id=1, position=newest, highest_seen=newest, gaps=[])
        session.add(cursor)
        session.flush()
    return cursor


def fan_out(
    session: Session,
    tuning: Tuning,
    now: datetime,
    *,
    base_url: str | None,
    max_positions: int,
) -> tuple[int, list[Pending]]:
    """Fan out the next batch of journal rows: (rows read, messages made)."""
    cursor = _cursor(session)
    gaps: dict[int, datetime] = {int(i): datetime.fromisoformat(t) for i, t in cursor.gaps}
    newer = ShipmentChange.id > cursor.highest_seen
    wanted = or_(newer, ShipmentChange.id.in_(gaps)) if gaps else newer
    changes = list(
        session.scalars(
            select(ShipmentChange)
            .where(ShipmentChange.id > cursor.position, wanted)
            .order_by(ShipmentChange.id)
            .limit(tuning.journal_batch)
        )
    )
    highest = cursor.highest_seen
    made: list[Pending] = []
    for change in changes:
        if change.id in gaps:
            del gaps[change.id]
        elif change.id > highest:
            # Ids skipped over may belong to transactions that commit later (PostgreSQL
            # hands out sequence values before commit); look for them again for a while.
            for missing in range(highest + 1, min(change.id, highest + 1 + _MAX_GAPS)):
                gaps[missing] = now
            highest = change.id
    deadline = now - timedelta(seconds=tuning.gap_timeout_seconds)
    expired = [i for i, seen in gaps.items() if seen < deadline]
    for missing in expired:
        del gaps[missing]
    if expired:
        log.debug("journal ids %s never committed; moving on", expired[:10])
    if changes:
        tenants = {c.tenant_id for c in changes}
        targets: dict[int, list[Target]] = {}
        for row in session.scalars(
            select(WebhookConfigRow).where(
                WebhookConfigRow.tenant_id.in_(tenants), WebhookConfigRow.enabled.is_(True)
            )
        ):
            targets.setdefault(row.tenant_id, []).append(Target.of(row))
        outgoing = FanOut(session, base_url, max_positions).messages(changes, targets)
        if outgoing:
            message = WebhookMessageRow
            inserted = session.execute(
                insert(message).returning(
                    message.id,
                    message.config_id,
                    message.shipment_id,
                    message.event_id,
                    message.attempt_count,
                    message.next_attempt_at,
                    sort_by_parameter_order=True,
                ),
                [
                    {
                        "tenant_id": m.tenant_id,
                        "config_id": m.config_id,
                        "event_id": m.event_id,
                        "event_type": m.event_type,
                        "shipment_id": m.shipment_id,
                        "body": m.body,
                        "status": PENDING,
                        "attempt_count": 0,
                        "next_attempt_at": now,
                        "created_at": now,
                    }
                    for m in outgoing
                ],
            )
            made = [_pending(row) for row in inserted]
    cursor.highest_seen = highest
    cursor.position = min(gaps) - 1 if gaps else highest
    cursor.gaps = [[i, seen.isoformat()] for i, seen in sorted(gaps.items())]
    return len(changes), made


# --- what to send ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """A configuration as delivery needs it (secrets in clear: never log this)."""

    id: int
    tenant_id: int
    name: str
    url: str
    method: str
    headers: dict[str, str]
    params: dict[str, str]
    methods: list[dict[str, Any]]
    secrets: tuple[str, ...]
    enabled: bool
    updated_at: datetime

    @classmethod
    def of(cls, row: WebhookConfigRow, now: datetime) -> Endpoint:
        secrets = [row.signing_secret]
        if (
            row.previous_signing_secret
            and row.previous_secret_expires_at is not None
            and row.previous_secret_expires_at > now
        ):
            secrets.append(row.previous_signing_secret)
        return cls(
            id=row.id,
            tenant_id=row.tenant_id,
            name=row.config_name,
            url=row.url,
            method=row.method,
            headers=dict(row.method_headers or {}),
            params=dict(row.method_params or {}),
            methods=list(row.authentication_methods or []),
            secrets=tuple(secrets),
            enabled=row.enabled,
            updated_at=row.updated_at,
        )


def _pending(row: Any) -> Pending:
    return Pending(
        message_id=row.id,
        config_id=row.config_id,
        chain=row.shipment_id or f"#{row.id}",
        event_id=row.event_id,
        failed=row.attempt_count,
        due_at=row.next_attempt_at,
    )


def load_pending(session: Session) -> list[Pending]:
    """Every message still to be sent (never pings, which are not retried)."""
    message = WebhookMessageRow
    rows = session.execute(
        select(
            message.id,
            message.config_id,
            message.shipment_id,
            message.event_id,
            message.attempt_count,
            message.next_attempt_at,
        )
        .where(message.status == PENDING, message.next_attempt_at.is_not(None))
        .order_by(message.id)
    )
    return [_pending(row) for row in rows]


def load_endpoints(
    session: Session, config_ids: Iterable[int], known: dict[int, Endpoint], now: datetime
) -> dict[int, Endpoint]:
    """The current endpoints of these configurations (absent: deleted); rows that did not
    change since `known` are not read again."""
    ids = list(config_ids)
    if not ids:
        return {}
    config = WebhookConfigRow
    versions = session.execute(
        select(config.id, config.updated_at, config.enabled, config.previous_signing_secret).where(
            config.id.in_(ids)
        )
    ).all()
    found: dict[int, Endpoint] = {}
    stale: list[int] = []
    for config_id, updated_at, enabled, previous in versions:
        cached = known.get(config_id)
        if (
            cached is not None
            and cached.updated_at == updated_at
            and cached.enabled == enabled
            and (previous is not None) == (len(cached.secrets) > 1)
        ):
            found[config_id] = cached
        else:
            stale.append(config_id)
    if stale:
        for row in session.scalars(select(config).where(config.id.in_(stale))):
            found[row.id] = Endpoint.of(row, now)
    return found


def load_bodies(session: Session, message_ids: Sequence[int]) -> dict[int, str]:
    """Bodies of these messages if they are still waiting (a deleted configuration takes its
    messages with it)."""
    if not message_ids:
        return {}
    rows = session.execute(
        select(WebhookMessageRow.id, WebhookMessageRow.body).where(
            WebhookMessageRow.id.in_(list(message_ids)), WebhookMessageRow.status == PENDING
        )
    )
    return {message_id: body for message_id, body in rows}


# --- outcomes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One attempt and what it decided: DELIVERED, PENDING again at `next_attempt_at`, or
    FAILED for good."""

    pending: Pending
    attempted_at: datetime
    latency_ms: float
    status: str
    next_attempt_at: datetime | None = None
    status_code: int | None = None
    error: str | None = None

    @property
    def gone(self) -> bool:
        return self.status_code == 410


def decide(
    pending: Pending,
    *,
    attempted_at: datetime,
    latency_ms: float,
    status_code: int | None,
    error: str | None,
    retry_after: float | None,
    tuning: Tuning,
) -> Outcome:
    if status_code is not None and 200 <= status_code < 300:
        status, next_at = DELIVERED, None
    else:
        delay = tuning.delay_after(pending.failed + 1, retry_after)
        if delay is None:
            status, next_at = FAILED, None
        else:
            status, next_at = PENDING, attempted_at + timedelta(seconds=delay)
    return Outcome(
        pending=pending,
        attempted_at=attempted_at,
        latency_ms=latency_ms,
        status=status,
        next_attempt_at=next_at,
        status_code=status_code,
        error=error,
    )


def record(session: Session, outcomes: Sequence[Outcome], now: datetime) -> None:
    """Store attempts and move each message on; outcomes of deleted messages are dropped."""
    if not outcomes:
        return
    ids = [o.pending.message_id for o in outcomes]
    existing = set(
        session.scalars(select(WebhookMessageRow.id).where(WebhookMessageRow.id.in_(ids)))
    )
    outcomes = [o for o in outcomes if o.pending.message_id in existing]
    if not outcomes:
        return
    session.execute(
        insert(WebhookAttemptRow),
        [
            {
                "message_id": o.pending.message_id,
                "attempted_at": o.attempted_at,
                "status_code": o.status_code,
                "latency_ms": round(o.latency_ms, 1),
                "error": o.error[:_ERROR_LENGTH] if o.error else None,
            }
            for o in outcomes
        ],
    )
    table = cast(Table, WebhookMessageRow.__table__)
    session.connection().execute(
        update(table)
        .where(table.c.id == bindparam("m_id"))
        .values(
            status=bindparam("m_status"),
            attempt_count=bindparam("m_count"),
            next_attempt_at=bindparam("m_next"),
            delivered_at=bindparam("m_delivered"),
        ),
        [
            {
                "m_id": o.pending.message_id,
                "m_status": o.status,
                "m_count": o.pending.failed + (0 if o.status == DELIVERED else 1),
                "m_next": o.next_attempt_at,
                "m_delivered": o.attempted_at if o.status == DELIVERED else None,
            }
            for o in outcomes
        ],
    )
    for o in outcomes:
        if o.status == FAILED:
            log.warning(
                "webhook message %d to configuration %d given up after %d attempts",
                o.pending.message_id,
                o.pending.config_id,
                o.pending.failed + 1,
            )
    gone = {o.pending.config_id: o for o in outcomes if o.gone}
    for config_id, outcome in gone.items():
        session.execute(
            update(WebhookConfigRow)
            .where(WebhookConfigRow.id == config_id, WebhookConfigRow.enabled.is_(True))
            .values(
                enabled=False,
                disabled_at=now,
                disabled_reason=(
                    f"The receiver answered 410 Gone at {outcome.attempted_at.isoformat()}; "
                    "a PUT with enabled true enables it again"
                ),
            )
        )
        log.warning("webhook configuration %d disabled: its receiver answered 410", config_id)


def purge(session: Session, tuning: Tuning, now: datetime) -> int:
    """Forget delivered and failed messages past retention; expire rotated secrets."""
    before = now - timedelta(seconds=tuning.retention_seconds)
    old = select(WebhookMessageRow.id).where(
        WebhookMessageRow.status.in_([DELIVERED, FAILED]), WebhookMessageRow.created_at < before
    )
    ids = list(session.scalars(old.limit(5000)))
    if ids:
        session.execute(delete(WebhookAttemptRow).where(WebhookAttemptRow.message_id.in_(ids)))
        session.execute(delete(WebhookMessageRow).where(WebhookMessageRow.id.in_(ids)))
    session.execute(
        update(WebhookConfigRow)
        .where(
            WebhookConfigRow.previous_secret_expires_at.is_not(None),
            WebhookConfigRow.previous_secret_expires_at <= now,
        )
        .values(previous_signing_secret=None, previous_secret_expires_at=None)
    )
    return len(ids)
