"""The capacity co-op's pool of available truckload vehicles.

The pool is shared by the co-op's members, so rows belong to a sharing pool, not to a tenant.
Radius searches read a small box of grid cells through the (pool, cell_lat, cell_lon) index
and measure exact distances only for the vehicles in it.
"""

from __future__ import annotations

import math
from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, UtcDateTime, UuidStr, utcnow

# Grid cell size in degrees (about 55 km north-south): a search box of the largest radius
# (80 km) spans a handful of cells.
CELL_DEGREES = 0.5


def cell(value: float) -> int:
    return math.floor(value / CELL_DEGREES)


class VehicleRow(Base):
    __tablename__ = "available_vehicles"
    __table_args__ = (Index("ix_available_vehicles_grid", "sharing_pool", "cell_lat", "cell_lon"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    vehicle_id: Mapped[str] = mapped_column(UuidStr, unique=True)
    sharing_pool: Mapped[str] = mapped_column(String(60))
    carrier_scac: Mapped[str] = mapped_column(String(4))
    carrier_name: Mapped[str] = mapped_column(String(200))
    contact_given_name: Mapped[str] = mapped_column(String(100))
    contact_family_name: Mapped[str] = mapped_column(String(100))
    contact_phone: Mapped[str] = mapped_column(String(40))
    contact_email: Mapped[str] = mapped_column(String(200))
    truck_type: Mapped[str] = mapped_column(String(40))
    latitude: Mapped[float] = mapped_column(Float)
    longitude: Mapped[float] = mapped_column(Float)
    cell_lat: Mapped[int] = mapped_column(Integer)
    cell_lon: Mapped[int] = mapped_column(Integer)
    city: Mapped[str] = mapped_column(String(100))
    state: Mapped[str | None] = mapped_column(String(10))
    country: Mapped[str] = mapped_column(String(2))
    available_from: Mapped[datetime] = mapped_column(UtcDateTime)
    available_until: Mapped[datetime] = mapped_column(UtcDateTime)
    # The tenant whose shipment the vehicle is hauling or just delivered, if any.
    shipper_tenant_id: Mapped[int | None] = mapped_column(
        ForeignKey("tenants.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
