"""Packages: the document itself plus the columns and side tables that searches use."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, JsonType, UtcDateTime, UuidStr, utcnow


class PackageRow(Base):
    __tablename__ = "packages"
    __table_args__ = (Index("ix_packages_tenant_live", "tenant_id", "deleted_at", "created_at"),)

    id: Mapped[str] = mapped_column(UuidStr, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(20))
    # The wire body as last written (items, identifiers, package, accessorials, locations).
    body: Mapped[dict[str, Any]] = mapped_column(JsonType)
    # Normalized copies of the location fields that the search filters compare.
    origin_city: Mapped[str | None] = mapped_column(Text)
    origin_state: Mapped[str | None] = mapped_column(Text)
    origin_country: Mapped[str | None] = mapped_column(Text)
    origin_postal_code: Mapped[str | None] = mapped_column(Text)
    destination_city: Mapped[str | None] = mapped_column(Text)
    destination_state: Mapped[str | None] = mapped_column(Text)
    destination_country: Mapped[str | None] = mapped_column(Text)
    destination_postal_code: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(UtcDateTime, default=None)


class PackageIdentifierRow(Base):
    """Package-level identifiers of live packages; one package per identifier in a tenant."""

    __tablename__ = "package_identifiers"
    __table_args__ = (UniqueConstraint("tenant_id", "type", "value"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    package_id: Mapped[str] = mapped_column(
        ForeignKey("packages.id", ondelete="CASCADE"), index=True
    )
    type: Mapped[str] = mapped_column(String(60))
    value: Mapped[str] = mapped_column(String(200))


class PackageSkuRow(Base):
    """SKU identifiers of a package's items (many packages may carry the same SKU)."""

    __tablename__ = "package_skus"
    __table_args__ = (Index("ix_package_skus_tenant_value", "tenant_id", "value"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    package_id: Mapped[str] = mapped_column(
        ForeignKey("packages.id", ondelete="CASCADE"), index=True
    )
    value: Mapped[str] = mapped_column(String(200))
