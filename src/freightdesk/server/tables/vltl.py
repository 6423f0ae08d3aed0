"""Volume LTL quotes (kept so a dispatch can name its quote) and dispatched shipments."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, JsonType, UtcDateTime, UuidStr, utcnow


class VltlQuoteRow(Base):
    __tablename__ = "vltl_quotes"
    __table_args__ = (Index("ix_vltl_quotes_tenant_created", "tenant_id", "created_at"),)

    id: Mapped[str] = mapped_column(UuidStr, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    quote_number: Mapped[str] = mapped_column(String(40), unique=True)
    scac: Mapped[str] = mapped_column(String(4))
    service_level: Mapped[str] = mapped_column(String(20))
    total_usd: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    document: Mapped[dict[str, Any]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class VltlDispatchRow(Base):
    __tablename__ = "vltl_dispatches"
    __table_args__ = (Index("ix_vltl_dispatches_tenant_created", "tenant_id", "created_at"),)

    id: Mapped[str] = mapped_column(UuidStr, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    scac: Mapped[str] = mapped_column(String(4))
    quote_number: Mapped[str] = mapped_column(String(100))
    rate_quote_id: Mapped[str | None] = mapped_column(UuidStr)
    master_shipment_id: Mapped[str | None] = mapped_column(UuidStr)
    # The request as accepted and the answer given, in wire form.
    request: Mapped[dict[str, Any]] = mapped_column(JsonType)
    answer: Mapped[dict[str, Any]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
