"""What the stop location form asks the map picker (`ui/maps/picker.py`) and gets back.

Plain data, so that the form needs no QtWebEngine until a map is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from freightdesk.models.stop_locations import GeofenceGeometry
from freightdesk.ui.panes.stop_locations.geofence import FenceChoice


@dataclass(frozen=True)
class PickRequest:
    """What the form knows: the point, the address, the geofence (and its kept geometry)."""

    point: tuple[float, float] | None = None
    country: str | None = None
    state: str | None = None
    fence: FenceChoice | None = None
    geometry: GeofenceGeometry | None = None
    name: str = ""


@dataclass(frozen=True)
class Picked:
    """The point chosen on the map, and the geofence as left in the picker."""

    latitude: float
    longitude: float
    fence: FenceChoice | None
