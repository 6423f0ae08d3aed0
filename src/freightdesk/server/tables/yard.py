"""Yard sites of a tenant (dock doors, opening hours) and the appointments booked there."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, JsonType, UtcDateTime, utcnow


class YardSiteRow(Base):
    __tablename__ = "yard_sites"
    __table_args__ = (UniqueConstraint("tenant_id", "code"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    code: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(200))
    time_zone: Mapped[str] = mapped_column(String(64))
    slot_minutes: Mapped[int] = mapped_column(Integer, default=60)
    # [{"days": ["MON", ...], "opens": "06:00", "closes": "22:00"}], in the site's local time.
    opening_hours: Mapped[list[dict[str, Any]]] = mapped_column(JsonType)
    dock_doors: Mapped[list[str]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class YardAppointmentRow(Base):
    __tablename__ = "yard_appointments"
    __table_args__ = (Index("ix_yard_appointments_site_start", "site_id", "start_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    site_id: Mapped[int] = mapped_column(ForeignKey("yard_sites.id", ondelete="CASCADE"))
    dock_door: Mapped[str] = mapped_column(String(20))
    start_at: Mapped[datetime] = mapped_column(UtcDateTime)
    end_at: Mapped[datetime] = mapped_column(UtcDateTime)
    shipment_reference: Mapped[str] = mapped_column(String(100))
    stop_sequence_number: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
