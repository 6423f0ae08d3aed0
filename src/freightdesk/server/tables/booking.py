"""Bookings, their attributes (for filtering) and the tenants' simulated carrier profiles."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, JsonType, UtcDateTime, UuidStr, utcnow


class BookingRow(Base):
    __tablename__ = "bookings"
    __table_args__ = (
        Index("ix_bookings_tenant_status_created", "tenant_id", "status", "created_at"),
        Index("ix_bookings_status_expires", "status", "expires_at"),
        Index("ix_bookings_status_response_due", "status", "response_due_at"),
    )

    id: Mapped[str] = mapped_column(UuidStr, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(20))
    scac: Mapped[str] = mapped_column(String(4))
    shipment_id: Mapped[str | None] = mapped_column(UuidStr)
    rate_request_id: Mapped[str | None] = mapped_column(
        ForeignKey("rate_requests.id", ondelete="SET NULL"), index=True
    )
    quote_id: Mapped[str | None] = mapped_column(UuidStr)
    # Set to rate_request_id while the booking is open or BOOKED, NULL otherwise: the unique
    # constraint keeps one live booking per rate request even under concurrent requests.
    active_rate_request_id: Mapped[str | None] = mapped_column(UuidStr, unique=True)
    master_shipment_id: Mapped[str | None] = mapped_column(UuidStr)
    transportation_mode: Mapped[str | None] = mapped_column(String(20))
    # The shipper's fields (BookingInput in wire form), replaced by PUT.
    document: Mapped[dict[str, Any]] = mapped_column(JsonType)
    shipment_identifiers: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    carrier_provided_identifiers: Mapped[list[dict[str, Any]]] = mapped_column(
        JsonType, default=list
    )
    reference_keys: Mapped[list[dict[str, Any]]] = mapped_column(JsonType, default=list)
    carrier_response_method: Mapped[str | None] = mapped_column(String(20))
    rejection_reason: Mapped[str | None] = mapped_column(String(40))
    carrier_rejection_notes: Mapped[str | None] = mapped_column(Text)
    automated_failure_reason: Mapped[str | None] = mapped_column(String(40))
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # When the simulated carrier answers a PROCESSING booking; NULL when it waits for a person.
    response_due_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    accepted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class BookingAttributeRow(Base):
    """One (name, value) of a booking's attributes, so the list filter runs in SQL."""

    __tablename__ = "booking_attributes"
    __table_args__ = (Index("ix_booking_attributes_lookup", "tenant_id", "name", "value"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    booking_id: Mapped[str] = mapped_column(
        ForeignKey("bookings.id", ondelete="CASCADE"), index=True
    )
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    value: Mapped[str | None] = mapped_column(String(500))


class CarrierProfileRow(Base):
    """A tenant's settings for one simulated carrier; absent settings keep the defaults."""

    __tablename__ = "carrier_profiles"
    __table_args__ = (UniqueConstraint("tenant_id", "scac"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    scac: Mapped[str] = mapped_column(String(4))
    settings: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
