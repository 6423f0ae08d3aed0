"""Rate requests, the carriers asked to quote (solicitations) and the quotes they answered."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, JsonType, UtcDateTime, UuidStr, utcnow


class RateRequestRow(Base):
    __tablename__ = "rate_requests"
    __table_args__ = (Index("ix_rate_requests_tenant_created", "tenant_id", "created_at"),)

    id: Mapped[str] = mapped_column(UuidStr, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(30))
    mode: Mapped[str] = mapped_column(String(10))
    quote_type_filter: Mapped[str] = mapped_column(String(10))
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # The request as accepted, in wire form, with the service-generated ids filled in.
    document: Mapped[dict[str, Any]] = mapped_column(JsonType)
    # What the carriers price (distance, lane, freight), worked out once at creation.
    plan: Mapped[dict[str, Any]] = mapped_column(JsonType)
    market_quotes: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    # Kept so that cancelling again answers exactly what the first cancellation answered.
    cancelled_booking_id: Mapped[str | None] = mapped_column(UuidStr)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class RateSolicitationRow(Base):
    """One carrier asked for a quote; pending until the carrier's quote delay has passed."""

    __tablename__ = "rate_solicitations"
    __table_args__ = (Index("ix_rate_solicitations_pending_due", "pending", "due_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    rate_request_id: Mapped[str] = mapped_column(
        ForeignKey("rate_requests.id", ondelete="CASCADE"), index=True
    )
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    scac: Mapped[str] = mapped_column(String(4))
    due_at: Mapped[datetime] = mapped_column(UtcDateTime)
    pending: Mapped[bool] = mapped_column(Boolean, default=True)
    # QUOTED, NO_QUOTE (the carrier does not serve the mode), WITHDRAWN (request gone), FAILED.
    outcome: Mapped[str | None] = mapped_column(String(20))
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class RateQuoteRow(Base):
    __tablename__ = "rate_quotes"

    id: Mapped[str] = mapped_column(UuidStr, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    rate_request_id: Mapped[str] = mapped_column(
        ForeignKey("rate_requests.id", ondelete="CASCADE"), index=True
    )
    scac: Mapped[str] = mapped_column(String(4))
    quote_type: Mapped[str] = mapped_column(String(10))
    # The value of the quote's rate identifier; a booking names the quote by it.
    quote_number: Mapped[str] = mapped_column(String(40), unique=True)
    total_usd: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    document: Mapped[dict[str, Any]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
