"""Rail legs being tracked, and their shipment identifiers for lookups."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, JsonType, UtcDateTime, UuidStr, utcnow


class RailLegRow(Base):
    __tablename__ = "rail_legs"
    __table_args__ = (
        Index("ix_rail_legs_tenant_master", "tenant_id", "master_shipment_id"),
        Index("ix_rail_legs_tenant_equipment", "tenant_id", "equipment_type", "equipment_value"),
    )

    # The deprecated int64 `id` of the interface.
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    rail_leg_id: Mapped[str] = mapped_column(UuidStr, unique=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    master_shipment_id: Mapped[str] = mapped_column(UuidStr)
    equipment_type: Mapped[str] = mapped_column(String(20))
    equipment_value: Mapped[str] = mapped_column(String(30))
    tracking_start: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # When the simulated movement begins: the tracking start, else the time of creation.
    anchor: Mapped[datetime] = mapped_column(UtcDateTime)
    # The wire shape of the request (identifiers and stops) as accepted.
    body: Mapped[dict[str, Any]] = mapped_column(JsonType)
    # The route fixed at creation (ramps, gateway, timings), so statuses stay consistent.
    plan: Mapped[dict[str, Any]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class RailIdentifierRow(Base):
    __tablename__ = "rail_leg_identifiers"
    __table_args__ = (Index("ix_rail_leg_identifiers_lookup", "tenant_id", "type", "value"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    leg_id: Mapped[int] = mapped_column(ForeignKey("rail_legs.id", ondelete="CASCADE"), index=True)
    type: Mapped[str] = mapped_column(String(20))
    value: Mapped[str] = mapped_column(String(50))
