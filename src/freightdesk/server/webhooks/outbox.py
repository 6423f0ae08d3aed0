"""The durable outbox of webhook messages (synchronous database work, run in a thread).

- `fan_out` reads the shipment change journal on from the cursor and inserts one message per
  configuration that wants the change, and moves the cursor, in one transaction: a change is
  fanned out exactly once, and a restart carries on where the last commit left off.
- `due` picks messages to send now: pending, due, of an enabled configuration, and the oldest
  pending one of their (configuration, shipment), so that order is kept per shipment.
- `record` stores the outcome of attempts: delivered, retry later (the schedule in `tuning`),
  given up, or configuration disabled (410).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import (
    Table,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session, aliased

from freightdesk.models.webhooks import DeliveryStatus
from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import (
    WebhookAttemptRow,
    WebhookConfigRow,
    WebhookJournalCursor,
    WebhookMessageRow,
)
from freightdesk.server.webhooks.events import FanOut, Target
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
) -> int:
    """Fan out the next batch of journal rows; returns how many rows were read."""
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
            session.execute(
                insert(WebhookMessageRow),
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
    cursor.highest_seen = highest
    cursor.position = min(gaps) - 1 if gaps else highest
    cursor.gaps = [[i, seen.isoformat()] for i, seen in sorted(gaps.items())]
    return len(changes)


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
            updated_at=row.updated_at,
        )


@dataclass(frozen=True)
class Claim:
    message_id: int
    config_id: int
    event_id: str
    shipment_id: str | None
    body: str
    failed_attempts: int


def due(
    session: Session,
    now: datetime,
    *,
    busy: Iterable[int],
    free_slots: dict[int, int],
    default_slots: int,
    limit: int,
) -> tuple[list[Claim], dict[int, Endpoint]]:
    """Messages to send now, at most the free slots of each configuration, oldest first.

    `busy` are messages in flight or with an outcome not stored yet (still PENDING here);
    `free_slots` holds configurations with fewer free slots than `default_slots`.
    """
    message = WebhookMessageRow
    earlier = aliased(WebhookMessageRow)
    blocked = (
        select(earlier.id)
        .where(
            earlier.config_id == message.config_id,
            earlier.shipment_id == message.shipment_id,
            earlier.status == PENDING,
            earlier.id < message.id,
        )
        .exists()
    )
    busy_ids = list(busy)
    full = [config for config, slots in free_slots.items() if slots <= 0]
    conditions = [
        message.status == PENDING,
        message.next_attempt_at <= now,
        WebhookConfigRow.enabled.is_(True),
        ~blocked,
    ]
    if busy_ids:
        conditions.append(message.id.not_in(busy_ids))
    if full:
        conditions.append(message.config_id.not_in(full))
    ranked = (
        select(
            message.id,
            message.config_id,
            message.event_id,
            message.shipment_id,
            message.attempt_count,
            func.row_number()
            .over(partition_by=message.config_id, order_by=message.id)
            .label("rank"),
        )
        .join(WebhookConfigRow, WebhookConfigRow.id == message.config_id)
        .where(and_(*conditions))
        .subquery()
    )
    rows = session.execute(
        select(ranked).where(ranked.c.rank <= default_slots).order_by(ranked.c.id).limit(limit)
    ).all()
    picked: list[Any] = []
    taken: dict[int, int] = {}
    for row in rows:
        slots = free_slots.get(row.config_id, default_slots)
        if taken.get(row.config_id, 0) < slots:
            taken[row.config_id] = taken.get(row.config_id, 0) + 1
            picked.append(row)
    if not picked:
        return [], {}
    bodies = dict(
        session.execute(
            select(WebhookMessageRow.id, WebhookMessageRow.body).where(
                WebhookMessageRow.id.in_([row.id for row in picked])
            )
        ).all()
    )
    endpoints = {
        row.id: Endpoint.of(row, now)
        for row in session.scalars(
            select(WebhookConfigRow).where(WebhookConfigRow.id.in_(taken.keys()))
        )
    }
    claims = [
        Claim(
            message_id=row.id,
            config_id=row.config_id,
            event_id=row.event_id,
            shipment_id=row.shipment_id,
            body=bodies[row.id],
            failed_attempts=row.attempt_count,
        )
        for row in picked
        if row.id in bodies and row.config_id in endpoints
    ]
    return claims, endpoints


# --- outcomes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    message_id: int
    config_id: int
    attempted_at: datetime
    latency_ms: float
    status_code: int | None = None
    error: str | None = None
    failed_attempts_before: int = 0
    retry_after: float | None = None

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    @property
    def gone(self) -> bool:
        return self.status_code == 410


def record(session: Session, outcomes: Sequence[Outcome], tuning: Tuning, now: datetime) -> None:
    """Store attempts and move each message on; outcomes of deleted messages are dropped."""
    if not outcomes:
        return
    ids = [o.message_id for o in outcomes]
    existing = set(
        session.scalars(select(WebhookMessageRow.id).where(WebhookMessageRow.id.in_(ids)))
    )
    outcomes = [o for o in outcomes if o.message_id in existing]
    if not outcomes:
        return
    session.execute(
        insert(WebhookAttemptRow),
        [
            {
                "message_id": o.message_id,
                "attempted_at": o.attempted_at,
                "status_code": o.status_code,
                "latency_ms": round(o.latency_ms, 1),
                "error": o.error[:_ERROR_LENGTH] if o.error else None,
            }
            for o in outcomes
        ],
    )
    table = cast(Table, WebhookMessageRow.__table__)
    changes: list[dict[str, Any]] = []
    for o in outcomes:
        failed = o.failed_attempts_before + (0 if o.delivered else 1)
        status, next_at = DELIVERED, None
        delivered_at: datetime | None = o.attempted_at
        if not o.delivered:
            delay = tuning.delay_after(failed, o.retry_after)
            delivered_at = None
            if delay is None:
                status = FAILED
                log.warning(
                    "webhook message %d to configuration %d given up after %d attempts",
                    o.message_id,
                    o.config_id,
                    failed,
                )
            else:
                status, next_at = PENDING, now + timedelta(seconds=delay)
        changes.append(
            {
                "m_id": o.message_id,
                "m_status": status,
                "m_count": failed,
                "m_next": next_at,
                "m_delivered": delivered_at,
            }
        )
    session.connection().execute(
        update(table)
        .where(table.c.id == bindparam("m_id"))
        .values(
            status=bindparam("m_status"),
            attempt_count=bindparam("m_count"),
            next_attempt_at=bindparam("m_next"),
            delivered_at=bindparam("m_delivered"),
        ),
        changes,
    )
    gone = {o.config_id: o for o in outcomes if o.gone}
    for config_id, outcome in gone.items():
        session.execute(
            update(WebhookConfigRow)
            .where(WebhookConfigRow.id == config_id, WebhookConfigRow.enabled.is_(True))
            .values(
                enabled=False,
                disabled_at=now,
                disabled_reason=(
                    f"The receiver answered 410 Gone at {outcome.attempted_at.isoformat()}; "
                    "a PUT of this configuration enables it again"
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
