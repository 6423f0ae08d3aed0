"""The Available vehicles map: the page's vehicles as dots, the search circle round its centre.

The same map page as the shipment and fleet maps (the `fdmap:` scheme, local Leaflet, the
app's tiles over the offline basemap) plus `assets/vehicles.js`. A vehicle's dot is green,
amber when it hauls one of the tenant's shipments; a click on it selects its row, a click
elsewhere hands the point to the form as the next search's centre.

The circle needs the centre: a search round a point has it; the service does not say where it
placed an address, so that search shows its vehicles without a circle.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from freightdesk.models.code_words import unit_text
from freightdesk.models.vehicles import METRES_PER_UNIT, AvailableVehicle, radius_of
from freightdesk.service.clock import user_time
from freightdesk.service.vehicles import query_of
from freightdesk.ui.maps import ASSETS
from freightdesk.ui.maps.page import MapView, TileSettings
from freightdesk.ui.panes.vehicles.form import truck_text

log = logging.getLogger(__name__)

SCRIPT = "vehicles.js"
PICK_PREFIX = "pick:"
VEHICLE_PREFIX = "vehicle:"


@lru_cache(maxsize=1)
def vehicles_script() -> str:
    return (ASSETS / SCRIPT).read_text(encoding="utf-8")


def map_payload(items: tuple[AvailableVehicle, ...], params: dict[str, Any]) -> dict[str, Any]:
    """What the page draws for a listing: the circle (for a search round a point) and a dot
    a vehicle."""
    query = query_of(params)
    centre: list[float] | None = None
    radius = 0.0
    if query is not None and query.geo_coordinates is not None:
        centre = [query.geo_coordinates.latitude, query.geo_coordinates.longitude]
        value, unit = radius_of(query)
        radius = value * METRES_PER_UNIT[unit]
    vehicles = [
        {
            "key": str(v.vehicle_id),
            "at": [v.geo_coordinates.latitude, v.geo_coordinates.longitude],
            "title": f"{v.carrier_name} ({v.carrier_identifier.value})",
            "lines": [
                f"{truck_text(v.truck_type)}, {v.distance.value:,.1f} "
                f"{unit_text(v.distance.unit.value)} away",
                f"Ready {user_time(v.estimated_arrival_date_time)}",
            ]
            + (["Hauling one of your shipments"] if v.my_shipment else []),
            "mine": v.my_shipment,
        }
        for v in items
    ]
    return {"centre": centre, "radius": radius, "vehicles": vehicles}


class VehiclesMapView(MapView):
    picked = Signal(float, float)  # a point clicked on the map
    vehicleClicked = Signal(str)  # a vehicle's id

    def __init__(self, parent: QWidget | None = None, *, tiles: TileSettings | None = None):
        super().__init__("vehicles", parent, tiles=tiles)
        self.setObjectName("vehiclesMap")
        self.itemClicked.connect(self._item_clicked)

    def _configure(self) -> None:
        # Runs first whenever the page is ready (also after a reload), before queued calls.
        super()._configure()
        self.map_page.runJavaScript(vehicles_script(), 0)

    def show_vehicles(self, payload: dict[str, Any]) -> int:
        token = self.next_token()
        self.call("vehiclesShow", payload, {"token": token}, state=True)
        return token

    def select(self, key: str | None) -> None:
        self.call("vehiclesSelect", key)

    def _item_clicked(self, key: str) -> None:
        if key.startswith(VEHICLE_PREFIX):
            self.vehicleClicked.emit(key.removeprefix(VEHICLE_PREFIX))
        elif key.startswith(PICK_PREFIX):
            latitude, _, longitude = key.removeprefix(PICK_PREFIX).partition(",")
            try:
                self.picked.emit(float(latitude), float(longitude))
            except ValueError:
                log.warning("the vehicles map told an odd point: %r", key)
