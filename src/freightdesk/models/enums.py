"""The code lists the app's first paint needs (the shipment list's filters and columns).

Kept apart from the pydantic models that use them, so the window can show the cached list
before pydantic is imported (a sixth of the app's start). `models.common` and
`models.tracking` use these same classes.
"""

from __future__ import annotations

from enum import StrEnum


class TransportationMode(StrEnum):
    """Every mode the interface names for tracking and documents."""

    TL = "TL"
    LTL = "LTL"
    VLTL = "VLTL"
    PARCEL = "PARCEL"
    RAIL = "RAIL"
    OCEAN = "OCEAN"
    AIR = "AIR"
    BARGE = "BARGE"


class ShipmentStateType(StrEnum):
    """The lifecycle: SCHEDULED -> IN_TRANSIT <-> AT_STOP ... -> COMPLETED."""

    SCHEDULED = "SCHEDULED"
    IN_TRANSIT = "IN_TRANSIT"
    AT_STOP = "AT_STOP"
    COMPLETED = "COMPLETED"
