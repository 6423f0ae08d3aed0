"""Push configurations, the delivery outbox (payloads, deliveries, failed attempts) and the
journal cursor.

`webhook_chain_leases` says which running service instance sends the messages of one
configuration and shipment (`webhooks.leases`); `migrations.upgrade` creates it in older databases.

Databases made before the outbox was split into payloads and deliveries have the tables
`webhook_messages` and `webhook_attempts`; `webhooks.migrate` moves their rows over.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, JsonType, UtcDateTime, UuidStr, utcnow


class WebhookConfigRow(Base):
    __tablename__ = "webhook_configs"
    __table_args__ = (UniqueConstraint("tenant_id", "config_name"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    config_name: Mapped[str] = mapped_column(String(200))
    url: Mapped[str] = mapped_column(String(2048))
    method: Mapped[str] = mapped_column(String(10), default="POST")
    method_headers: Mapped[dict[str, str]] = mapped_column(JsonType, default=dict)
    method_params: Mapped[dict[str, str]] = mapped_column(JsonType, default=dict)
    payload_format: Mapped[str] = mapped_column(String(10), default="JSON")
    version: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # [{type, parameters}]; secret parameters encrypted (webhooks.secrets): the service must
    # present them to receivers, so they cannot be hashed.
    authentication_methods: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    # None means a classic push (the shipment's whole tracking history on every change).
    event_type: Mapped[str | None] = mapped_column(String(60), nullable=True)
    include_context: Mapped[list[str]] = mapped_column(JsonType, default=list)
    filters: Mapped[dict[str, Any] | None] = mapped_column(JsonType, nullable=True)
    # Encrypted (webhooks.secrets); an encrypted signing secret takes 93 characters.
    signing_secret: Mapped[str] = mapped_column(String(100))
    previous_signing_secret: Mapped[str | None] = mapped_column(String(100), nullable=True)
    previous_secret_expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    disabled_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    # The highest journal id (`shipment_changes.id`) when it was created (or enabled again,
    # `configs.resume`): it gets the changes above it only. Times cannot say which changes
    # came after it (a change stamped before may commit after; the fan-out may read a change
    # long after its commit), journal ids taken under the fan-out's lock can
    # (`cursor.journal_mark`). 0: every change. The server defaults are migrations 9's and 11's,
    # written alike: a new database has the schema of an upgraded one.
    journal_after: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))
    # While paused (`enabled` false): the highest journal id when it was paused; the changes
    # above it are not its to receive. None while enabled.
    journal_paused_after: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # [[after, through], ...]: the journal ids of earlier pauses (after < id <= through),
    # kept while the fan-out may not have passed them (`configs.resume`).
    journal_paused: Mapped[list[list[int]]] = mapped_column(
        JsonType, default=list, server_default=text("'[]'")
    )


class WebhookPayloadRow(Base):
    """What is sent: one body, shared by every configuration that receives the same message
    (a change fanned out to 20 configurations is stored once, not 20 times)."""

    __tablename__ = "webhook_payloads"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    event_id: Mapped[str] = mapped_column(UuidStr)
    event_type: Mapped[str] = mapped_column(String(60))
    shipment_id: Mapped[str | None] = mapped_column(UuidStr, nullable=True)
    # The exact bytes sent on every attempt, so the signature covers the same body each time.
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)


class WebhookDeliveryRow(Base):
    """The outbox: one payload to one configuration, delivered at least once, in order per
    shipment and configuration. Kept narrow (ids, state, the successful attempt) because
    every change writes one row per configuration and every attempt updates one."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        # The delivery log of a configuration, newest first; deleting a configuration.
        Index("ix_webhook_deliveries_log", "config_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    config_id: Mapped[int] = mapped_column(ForeignKey("webhook_configs.id", ondelete="CASCADE"))
    payload_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_payloads.id", ondelete="CASCADE"), index=True
    )
    # What the worker loads at start: the PENDING ones.
    status: Mapped[str] = mapped_column(String(12), default="PENDING", index=True)
    # Failed attempts since the message was (re)queued: the position in the retry schedule.
    attempt_count: Mapped[int] = mapped_column(Integer, default=0)
    # When a PENDING message is due; None: at once (a new message, not tried yet).
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # The successful attempt (failed ones are rows of webhook_delivery_attempts).
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    latency_ms: Mapped[float | None] = mapped_column(Float, nullable=True)


class WebhookAttemptRow(Base):
    """A failed attempt to deliver (a delivery's successful attempt is on its own row)."""

    __tablename__ = "webhook_delivery_attempts"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    delivery_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE"), index=True
    )
    attempted_at: Mapped[datetime] = mapped_column(UtcDateTime)
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    latency_ms: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(String(500), nullable=True)


class WebhookJournalCursor(Base):
    """How far the fan-out has read the shipment change journal (one row, id 1).

    Every journal id at or below `position` has been fanned out (or given up as a rolled-back
    gap); ids above it up to `highest_seen` have been fanned out except those in `gaps`,
    which may still appear when a slower transaction commits (PostgreSQL sequences do not
    commit in order).
    """

    __tablename__ = "webhook_journal_cursor"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    position: Mapped[int] = mapped_column(BigInteger, default=0)
    highest_seen: Mapped[int] = mapped_column(BigInteger, default=0)
    # [[journal id, first noticed as ISO date-time], ...]
    gaps: Mapped[list[list[Any]]] = mapped_column(JsonType, default=list)


class WebhookChainLease(Base):
    """Which service instance sends the messages of one configuration and one shipment (a
    chain), until when (`webhooks.leases`; PostgreSQL only: on SQLite one instance owns the
    database). One owner per chain keeps its messages in order across instances; a lease
    that is not renewed (its instance died) is taken over by another instance."""

    __tablename__ = "webhook_chain_leases"
    __table_args__ = (Index("ix_webhook_chain_leases_owner", "owner"),)

    config_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_configs.id", ondelete="CASCADE"), primary_key=True
    )
    # The shipment id, or "#<delivery id>" for a message of no shipment.
    chain: Mapped[str] = mapped_column(String(40), primary_key=True)
    # The instance (`leases.instance_id`): host, process and a random part.
    owner: Mapped[str] = mapped_column(String(100))
    # Database time (UTC); past it, any instance may take the chain over.
    lease_until: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
