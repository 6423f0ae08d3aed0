"""Capacity provider account groups."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, func
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, UtcDateTime, utcnow


class AccountGroupRow(Base):
    __tablename__ = "account_groups"
    __table_args__ = (UniqueConstraint("tenant_id", "code"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    code: Mapped[str] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


# Codes unique whatever their case (server/domain/account_groups.py compares them by
# casefold; this catches two creates racing, for the ASCII letters SQLite's lower() folds).
Index(
    "ux_account_groups_tenant_code_lower",
    AccountGroupRow.tenant_id,
    func.lower(AccountGroupRow.code),
    unique=True,
)
