"""The capacity co-op's pool of available truckload vehicles.

The pool is shared by the co-op's members, so rows belong to a sharing pool, not to a tenant.
A radius search looks up the few grid cells around its centre, each an equality lookup in
the (pool, cell, ...) index, which also holds what the search filters and sorts on, so only
the vehicles of the page answered are read from the table itself.
"""

from __future__ import annotations

import math
from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from freightdesk.server.db import Base, BigId, UtcDateTime, UuidStr, utcnow

# Grid cell size in degrees (about 55 km north-south): a search box of the largest radius
# (80 km) spans some twenty cells.
CELL_DEGREES = 0.5
_COLUMNS_OF_CELLS = 1000  # more than the 720 cells round a parallel


def cell_row(latitude: float) -> int:
    # The pole itself belongs to the last row rather than to a row of its own.
    return math.floor((min(latitude, 89.999) + 90) / CELL_DEGREES)


def cell_column(longitude: float) -> int:
    return math.floor((longitude + 180) / CELL_DEGREES) % int(360 / CELL_DEGREES)


def cell_key(row: int, column: int) -> int:
    return row * _COLUMNS_OF_CELLS + column


def cell_of(latitude: float, longitude: float) -> int:
    return cell_key(cell_row(latitude), cell_column(longitude))


class VehicleRow(Base):
    __tablename__ = "available_vehicles"
    __table_args__ = (
        # Covers the search: the radius, time and equipment filters and the distance sort.
        Index(
            "ix_available_vehicles_search",
            "sharing_pool",
            "cell",
            "available_from",
            "available_until",
            "latitude",
            "longitude",
            "truck_type",
            "shipper_tenant_id",
            # SQLite keys every index by the row id anyway; PostgreSQL needs it named to
            # answer the first pass from the index alone.
            "id",
        ),
    )

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
    cell: Mapped[int] = mapped_column(Integer)
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
