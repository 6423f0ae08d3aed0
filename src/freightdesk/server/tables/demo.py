"""How far the demo's seeding has got (`server/demo/progress.py`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, UtcDateTime


class DemoSeeding(Base):
    """One row, made with the demo tenant; each seeding step moves it on in the transaction
    that writes the step, so a seeding stopped at any point resumes where it stood."""

    __tablename__ = "demo_seedings"

    tenant_id: Mapped[int] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    seed: Mapped[int] = mapped_column(Integer)
    # "now" rounded down to the hour when the seeding began: the plans are placed around it.
    anchor: Mapped[datetime] = mapped_column(UtcDateTime)
    # 0 until the seeding's first step has counted the plans.
    shipments_total: Mapped[int] = mapped_column(Integer, default=0)
    shipments_ready: Mapped[int] = mapped_column(Integer, default=0)
    stage: Mapped[str] = mapped_column(String(20))
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
