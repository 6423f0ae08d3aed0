"""Stop locations of a tenant.

The nested parts (address, hours, contacts, geofence) are one JSON document: they are always
read and written whole. Columns exist only for what is filtered, sorted or kept unique.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, JsonType, UtcDateTime, UuidStr, utcnow


class StopLocationRow(Base):
    __tablename__ = "stop_locations"
    __table_args__ = (
        # NULLs are distinct in a unique constraint on both databases: many locations may
        # have no supplied id.
        UniqueConstraint("tenant_id", "supplied_id"),
        # The list's order (name, then id) and its paging.
        Index("ix_stop_locations_tenant_order", "tenant_id", "name_key", "id"),
    )

    id: Mapped[str] = mapped_column(UuidStr, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    # Lower-cased name: the sort key, the same on SQLite and PostgreSQL whatever the collation.
    name_key: Mapped[str] = mapped_column(String(200))
    supplied_id: Mapped[str | None] = mapped_column(String(100))
    # Lower-cased name, supplied id, city and postal code for the list's `q` search.
    search_text: Mapped[str] = mapped_column(Text)
    # The location's wire document without `id` and `version`.
    document: Mapped[dict[str, Any]] = mapped_column(JsonType)
    # Optimistic concurrency: SQLAlchemy sets 1 on insert and adds 1 on every update, and an
    # update that finds another version raises StaleDataError instead of overwriting.
    version: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)

    __mapper_args__ = {"version_id_col": version}
