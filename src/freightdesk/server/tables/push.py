"""Carrier push ingestions: the durable queue between the 202 and the shipments.

A row is written (and committed) before the push is answered 202, so an accepted push survives
a crash of the service; the worker turns PENDING rows into shipment data and marks them in the
same transaction, so a crash between the two can neither lose nor duplicate the update.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, JsonType, UtcDateTime, UuidStr


class PushIngestion(Base):
    __tablename__ = "push_ingestions"
    __table_args__ = (
        # The worker's queue scan: PENDING rows in arrival order, UNMATCHED rows due a retry.
        Index("ix_push_ingestions_status_id", "status", "id"),
        Index("ix_push_ingestions_owner_ingestion", "owner_tenant_id", "ingestion_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    ingestion_id: Mapped[str] = mapped_column(UuidStr, unique=True)
    # PARCEL or TRUCKLOAD: which payload shape `payload` holds.
    kind: Mapped[str] = mapped_column(String(16))
    # The tenant that pushed (who may read the receipt) and the tenant whose shipments the
    # update is for (named by customerAccountNumber, else the pusher itself).
    owner_tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    target_tenant_id: Mapped[int] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), index=True
    )
    # The validated request body in wire form (camelCase, ISO 8601 date-times).
    payload: Mapped[dict[str, Any]] = mapped_column(JsonType)
    status: Mapped[str] = mapped_column(String(16), default="PENDING")
    received_at: Mapped[datetime] = mapped_column(UtcDateTime)
    processed_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    matched_shipment_ids: Mapped[list[str]] = mapped_column(JsonType, default=list)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    # Matching attempts so far, and when an UNMATCHED row is next tried again.
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    retry_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
