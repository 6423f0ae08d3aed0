"""Bringing an older database's webhook data up to date, when the delivery worker starts.

Two changes came after databases were made (and the shared migration list is not this area's
to extend, so the worker does this itself, idempotently, in one transaction):
- secrets stored in clear (authentication parameters, signing secrets) are sealed with the
  service's key (`secret_box`);
- the outbox of `webhook_messages` (a full body per configuration) and `webhook_attempts` is
  moved to `webhook_payloads` (each distinct body once), `webhook_deliveries` and
  `webhook_delivery_attempts`, keeping every message's state and attempts and the order of
  messages; the old tables are then dropped. Message ids change.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from sqlalchemy import Connection, MetaData, Table, insert, inspect, select
from sqlalchemy.orm import Session, sessionmaker

from freightdesk.models.webhooks import DeliveryStatus
from freightdesk.server.db import transaction
from freightdesk.server.tables.webhooks import (
    WebhookAttemptRow,
    WebhookConfigRow,
    WebhookDeliveryRow,
    WebhookPayloadRow,
)
from freightdesk.server.webhooks.cursor import lock_cursor
from freightdesk.server.webhooks.failures import ERROR_LENGTH
from freightdesk.server.webhooks.outbox import table_of
from freightdesk.server.webhooks.secret_box import SecretBox

log = logging.getLogger(__name__)

LEGACY_MESSAGES = "webhook_messages"
LEGACY_ATTEMPTS = "webhook_attempts"
_BATCH = 2000


def upgrade(sessions: sessionmaker[Session], box: SecretBox) -> None:
    with transaction(sessions) as session:
        # Two services starting on one database take turns here.
        lock_cursor(session)
        sealed = seal_secrets(session, box)
        if sealed:
            log.info("sealed the secrets of %d push configurations", sealed)
        connection = session.connection()
        if inspect(connection).has_table(LEGACY_MESSAGES):
            moved = _move_outbox(connection)
            log.info("moved %d webhook messages to the new outbox", moved)


def seal_secrets(session: Session, box: SecretBox) -> int:
    """Encrypt every secret still stored in clear; returns how many configurations changed."""
    changed = 0
    for row in session.scalars(select(WebhookConfigRow)):
        methods = list(row.authentication_methods or [])
        previous = row.previous_signing_secret
        if (
            box.sealed(row.signing_secret)
            and (previous is None or box.sealed(previous))
            and not box.clear_methods(methods)
        ):
            continue
        row.signing_secret = box.seal(row.signing_secret)
        if previous is not None:
            row.previous_signing_secret = box.seal(previous)
        row.authentication_methods = box.seal_methods(methods)
        changed += 1
    session.flush()
    return changed


def _move_outbox(connection: Connection) -> int:
    legacy = MetaData()
    messages = Table(LEGACY_MESSAGES, legacy, autoload_with=connection)
    attempts = (
        Table(LEGACY_ATTEMPTS, legacy, autoload_with=connection)
        if inspect(connection).has_table(LEGACY_ATTEMPTS)
        else None
    )
    moved = 0
    after = 0
    while True:
        batch = connection.execute(
            select(messages).where(messages.c.id > after).order_by(messages.c.id).limit(_BATCH)
        ).all()
        if not batch:
            break
        after = batch[-1].id
        tried: dict[int, list[Any]] = defaultdict(list)
        if attempts is not None:
            for attempt in connection.execute(
                select(attempts)
                .where(attempts.c.message_id.in_([m.id for m in batch]))
                .order_by(attempts.c.id)
            ):
                tried[attempt.message_id].append(attempt)
        _move_batch(connection, list(batch), tried)
        moved += len(batch)
    if attempts is not None:
        attempts.drop(connection)
    messages.drop(connection)
    return moved


def _move_batch(connection: Connection, batch: list[Any], tried: dict[int, list[Any]]) -> None:
    payloads: dict[tuple[str, str, str], int] = {}
    rows: list[dict[str, Any]] = []
    for message in batch:
        key = (message.event_id, message.event_type, message.body)
        if key not in payloads:
            payloads[key] = len(rows)
            rows.append(
                {
                    "event_id": message.event_id,
                    "event_type": message.event_type,
                    "shipment_id": message.shipment_id,
                    "body": message.body,
                    "created_at": message.created_at,
                }
            )
    payload_table = table_of(WebhookPayloadRow)
    payload_ids = list(
        connection.execute(
            insert(payload_table).returning(
                payload_table.c.id,
                sort_by_parameter_order=True,
            ),
            rows,
        ).scalars()
    )
    deliveries: list[dict[str, Any]] = []
    for message in batch:
        success = None
        if message.status == DeliveryStatus.DELIVERED.value:
            successes = [a for a in tried[message.id] if _ok(a.status_code)]
            success = successes[-1] if successes else None
        deliveries.append(
            {
                "config_id": message.config_id,
                "payload_id": payload_ids[
                    payloads[(message.event_id, message.event_type, message.body)]
                ],
                "status": message.status,
                "attempt_count": message.attempt_count,
                "next_attempt_at": message.next_attempt_at,
                "delivered_at": message.delivered_at,
                "status_code": success.status_code if success is not None else None,
                "latency_ms": success.latency_ms if success is not None else None,
                "success": success,
            }
        )
    delivery_table = table_of(WebhookDeliveryRow)
    delivery_ids = list(
        connection.execute(
            insert(delivery_table).returning(
                delivery_table.c.id,
                sort_by_parameter_order=True,
            ),
            [{k: v for k, v in row.items() if k != "success"} for row in deliveries],
        ).scalars()
    )
    attempt_rows = [
        {
            "delivery_id": delivery_id,
            "attempted_at": attempt.attempted_at,
            "status_code": attempt.status_code,
            "latency_ms": attempt.latency_ms,
            # One line: a line break would part words from detail (`failures.parsed`).
            "error": " ".join(attempt.error.split())[:ERROR_LENGTH] if attempt.error else None,
        }
        for delivery_id, message, row in zip(delivery_ids, batch, deliveries, strict=True)
        for attempt in tried[message.id]
        if attempt is not row["success"]
    ]
    if attempt_rows:
        connection.execute(insert(table_of(WebhookAttemptRow)), attempt_rows)


def _ok(status_code: int | None) -> bool:
    return status_code is not None and 200 <= status_code < 300
