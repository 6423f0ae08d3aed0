"""Operators' extensions: the delivery log, redelivery, test pings, signing secret rotation."""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import datetime, timedelta

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from freightdesk.models.webhooks import (
    Delivery,
    DeliveryAttempt,
    DeliveryStatus,
    PingResult,
    Redelivery,
    SigningSecret,
)
from freightdesk.server.db import WEBHOOKS_RELOAD_CHANNEL, utcnow, wake_on_commit
from freightdesk.server.errors import conflict, not_found
from freightdesk.server.tables.webhooks import (
    WebhookAttemptRow,
    WebhookConfigRow,
    WebhookDeliveryRow,
    WebhookPayloadRow,
)
from freightdesk.server.webhooks import failures, signing
from freightdesk.server.webhooks.events import PING_EVENT_TYPE, ping_body
from freightdesk.server.webhooks.outbox import Endpoint
from freightdesk.server.webhooks.secret_box import SecretBox


def delivery_log(
    session: Session,
    config: WebhookConfigRow,
    *,
    status: DeliveryStatus | None,
    offset: int,
    page_size: int,
) -> tuple[list[Delivery], int]:
    """The configuration's messages, newest first, each with its attempts (newest first)."""
    delivery, payload = WebhookDeliveryRow, WebhookPayloadRow
    where = [delivery.config_id == config.id]
    if status is not None:
        where.append(delivery.status == status.value)
    total = session.scalar(select(func.count()).select_from(delivery).where(*where)) or 0
    rows = session.execute(
        select(delivery, payload)
        .join(payload, payload.id == delivery.payload_id)
        .where(*where)
        .order_by(delivery.id.desc())
        .offset(offset)
        .limit(page_size)
    ).all()
    attempts: dict[int, list[DeliveryAttempt]] = defaultdict(list)
    for row, _payload in rows:
        if row.delivered_at is not None and row.status_code is not None:
            attempts[row.id].append(
                DeliveryAttempt(
                    attempted_date_time=row.delivered_at,
                    status_code=row.status_code,
                    latency_ms=row.latency_ms or 0.0,
                )
            )
    if rows:
        for attempt in session.scalars(
            select(WebhookAttemptRow)
            .where(WebhookAttemptRow.delivery_id.in_([row.id for row, _ in rows]))
            .order_by(WebhookAttemptRow.id.desc())
        ):
            error, detail = failures.parsed(attempt.error)
            attempts[attempt.delivery_id].append(
                DeliveryAttempt(
                    attempted_date_time=attempt.attempted_at,
                    status_code=attempt.status_code,
                    latency_ms=attempt.latency_ms,
                    error=error,
                    error_detail=detail,
                )
            )
    return [
        Delivery(
            message_id=row.id,
            event_id=body.event_id,
            event_type=body.event_type,
            shipment_id=body.shipment_id,
            status=DeliveryStatus(row.status),
            created_date_time=body.created_at,
            delivered_date_time=row.delivered_at,
            # A new message has no time of its own: it is due from its creation.
            next_attempt_date_time=row.next_attempt_at
            or (body.created_at if row.status == DeliveryStatus.PENDING.value else None),
            attempt_count=len(attempts[row.id]),
            attempts=attempts[row.id],
        )
        for row, body in rows
    ], total


def redeliver(session: Session, config: WebhookConfigRow, message_id: int) -> Redelivery:
    """Send one message again now, with the same eventId and a fresh retry schedule.

    Accepted during an attempt (in flight, or its outcome not stored yet), it still sends the
    message again afterwards: the worker's store finds the row changed and leaves it queued
    (`outbox.record`)."""
    # Locked on PostgreSQL: an outcome being stored is waited for, and its success is then
    # kept in the log below.
    row = session.get(WebhookDeliveryRow, message_id, with_for_update=True)
    if row is None or row.config_id != config.id:
        raise not_found(f"Message {message_id} of push configuration {config.id}")
    if not config.enabled:
        raise conflict(
            f"Push configuration {config.id} is disabled ({config.disabled_reason}); "
            "enable it with a PUT first"
        )
    payload = session.get(WebhookPayloadRow, row.payload_id)
    if payload is None or payload.event_type == PING_EVENT_TYPE:
        raise conflict("A test ping is not redelivered; send a new ping instead")
    # The successful attempt lives on the delivery; keep it in the log as an attempt. Copied
    # by the database, from the row as the worker may just have stored it (on SQLite the
    # read above takes no lock; this first write waits for the worker's commit).
    delivery, now = WebhookDeliveryRow, utcnow()
    session.execute(
        insert(WebhookAttemptRow).from_select(
            ["delivery_id", "attempted_at", "status_code", "latency_ms"],
            select(
                delivery.id,
                delivery.delivered_at,
                delivery.status_code,
                func.coalesce(delivery.latency_ms, 0.0),
            ).where(
                delivery.id == row.id,
                delivery.delivered_at.is_not(None),
                delivery.status_code.is_not(None),
            ),
        )
    )
    session.execute(
        update(delivery)
        .where(delivery.id == row.id)
        .values(
            status=DeliveryStatus.PENDING.value,
            attempt_count=0,
            next_attempt_at=now,
            delivered_at=None,
            status_code=None,
            latency_ms=None,
        )
    )
    # Whichever instance owns its chain sends it now (the owner finds only new messages by
    # itself).
    wake_on_commit(session, WEBHOOKS_RELOAD_CHANNEL)
    return Redelivery(
        message_id=row.id,
        event_id=payload.event_id,
        status=DeliveryStatus.PENDING,
        next_attempt_date_time=now,
    )


def rotate_secret(
    session: Session, config: WebhookConfigRow, grace_seconds: float, box: SecretBox
) -> SigningSecret:
    """A new signing secret; the old one keeps signing alongside during the grace period."""
    now = utcnow()
    expires = now + timedelta(seconds=grace_seconds)
    secret = signing.new_secret()
    config.previous_signing_secret = config.signing_secret  # sealed already
    config.previous_secret_expires_at = expires
    config.signing_secret = box.seal(secret)
    config.updated_at = now  # deliveries pick up the new secret at once
    return SigningSecret(signing_secret=secret, previous_secret_expires_date_time=expires)


def new_ping(config: WebhookConfigRow, box: SecretBox) -> tuple[Endpoint, str, str]:
    """What a test ping sends: the endpoint, its eventId and body."""
    now = utcnow()
    event_id = str(uuid.uuid4())
    return Endpoint.of(config, now, box), event_id, ping_body(event_id, config.config_name, now)


def store_ping(
    session: Session,
    endpoint: Endpoint,
    event_id: str,
    body: str,
    *,
    attempted_at: datetime,
    status_code: int | None,
    latency_ms: float,
    error: str | None,
    error_detail: str | None = None,
) -> PingResult:
    """Record a ping and its one attempt in the delivery log (pings are never retried)."""
    delivered = status_code is not None and 200 <= status_code < 300
    payload_id = session.execute(
        insert(WebhookPayloadRow)
        .values(
            event_id=event_id,
            event_type=PING_EVENT_TYPE,
            shipment_id=None,
            body=body,
            created_at=attempted_at,
        )
        .returning(WebhookPayloadRow.id)
    ).scalar_one()
    message_id = session.execute(
        insert(WebhookDeliveryRow)
        .values(
            config_id=endpoint.id,
            payload_id=payload_id,
            status=(DeliveryStatus.DELIVERED if delivered else DeliveryStatus.FAILED).value,
            attempt_count=0 if delivered else 1,
            next_attempt_at=None,
            delivered_at=attempted_at if delivered else None,
            status_code=status_code if delivered else None,
            latency_ms=round(latency_ms, 1) if delivered else None,
        )
        .returning(WebhookDeliveryRow.id)
    ).scalar_one()
    if not delivered:
        session.execute(
            insert(WebhookAttemptRow).values(
                delivery_id=message_id,
                attempted_at=attempted_at,
                status_code=status_code,
                latency_ms=round(latency_ms, 1),
                error=failures.stored(error, error_detail),
            )
        )
    return PingResult(
        message_id=message_id,
        event_id=event_id,
        delivered=delivered,
        status_code=status_code,
        latency_ms=round(latency_ms, 1),
        error=error,
        error_detail=error_detail,
    )
