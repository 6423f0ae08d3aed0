"""Push configurations, the delivery outbox, delivery attempts and the journal cursor."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
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
    # [{type, parameters}] with secrets in clear: the service must present them to receivers.
    authentication_methods: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    # None means a classic push (the shipment's whole tracking history on every change).
    event_type: Mapped[str | None] = mapped_column(String(60), nullable=True)
    include_context: Mapped[list[str]] = mapped_column(JsonType, default=list)
    filters: Mapped[dict[str, Any] | None] = mapped_column(JsonType, nullable=True)
    signing_secret: Mapped[str] = mapped_column(String(100))
    previous_signing_secret: Mapped[str | None] = mapped_column(String(100), nullable=True)
    previous_secret_expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    disabled_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class WebhookMessageRow(Base):
    """The outbox: one message for one configuration, delivered at least once, in order per
    shipment and configuration."""

    __tablename__ = "webhook_messages"
    __table_args__ = (
        # What the dispatcher asks for: due pending messages.
        Index("ix_webhook_messages_due", "status", "next_attempt_at"),
        # The ordering check: is an earlier message of this shipment still pending?
        Index("ix_webhook_messages_chain", "config_id", "shipment_id", "status", "id"),
        Index("ix_webhook_messages_log", "config_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    config_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_configs.id", ondelete="CASCADE"), index=False
    )
    event_id: Mapped[str] = mapped_column(UuidStr)
    event_type: Mapped[str] = mapped_column(String(60))
    shipment_id: Mapped[str | None] = mapped_column(UuidStr, nullable=True)
    # The exact bytes sent on every attempt, so the signature covers the same body each time.
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(12), default="PENDING")
    attempt_count: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class WebhookAttemptRow(Base):
    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    message_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_messages.id", ondelete="CASCADE"), index=True
    )
    attempted_at: Mapped[datetime] = mapped_column(UtcDateTime)
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    latency_ms: Mapped[float] = mapped_column(default=0.0)
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
