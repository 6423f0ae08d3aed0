"""Choosing a stop location's point on a map, its geofence drawn around it.

The dialog shows the same map page as the shipment and fleet maps (the `fdmap:` scheme, local
Leaflet, the app's tiles with the offline basemap under them) plus `assets/picker.js`. It opens
on the location's coordinates; without them on the area of its address (its US state, else its
country, from the basemap's outlines: there is no geocoder to ask); else on the United States.
A click or a dragged pin chooses the point, shown as text the user may also type; the
geofence inputs redraw the fence as they change. OK hands the point and the fence back;
Cancel (or Escape) hands back nothing.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.addresses import country_code, subdivision_code
from freightdesk.models.common import Address, GeoCoordinates
from freightdesk.models.numbers import NOT_A_NUMBER, NumberRefused, read_number
from freightdesk.models.stop_locations import (
    Geofence,
    GeofenceGeometry,
    GeofenceUnits,
    StopLocation,
)
from freightdesk.ui.maps import ASSETS
from freightdesk.ui.maps.basemap import basemap_geojson
from freightdesk.ui.maps.page import MapView, NotePlace, TileSettings
from freightdesk.ui.maps.payload import Json, fence_of
from freightdesk.ui.panes.stop_locations.geofence import FenceChoice, GeofenceInputs
from freightdesk.ui.panes.stop_locations.picking import Picked, PickRequest
from freightdesk.ui.widgets.forms import ErrorLabel
from freightdesk.ui.widgets.screen_fit import resize_to_fit

log = logging.getLogger(__name__)

SCRIPT = "picker.js"
POINT_ZOOM = 15  # a few streets around the point: enough to put the pin on the right yard
DIGITS = 6  # about 0.1 m: finer than any GPS fix a location would be checked against
PICK_PREFIX = "pick:"
ESCAPE_KEY = "key:Escape"
NOTE_STYLE = (
    "border-left: 4px solid #e39b16; padding: 3px 8px; background: #fff7e6; color: #1f2937;"
)


# --- where to start without coordinates ----------------------------------------------------------


@dataclass(frozen=True)
class Region:
    """The outline's bounding box of a country or US state."""

    name: str
    kind: str  # "state" or "country"
    south: float
    west: float
    north: float
    east: float

    def wire(self) -> Json:
        return {"south": self.south, "west": self.west, "north": self.north, "east": self.east}


def _country_names(name: str) -> Iterable[str]:
    """The basemap's name of a country and the names it may be known by ("Britain (UK)")."""
    yield name
    if name.lower().startswith("the "):
        yield name[4:]
    if "(" in name and name.endswith(")"):
        before, _, inside = name[:-1].partition("(")
        yield inside
        yield before


def _ring_area(ring: list[list[float]]) -> float:
    return abs(
        sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1], strict=True))
    )


def _main_outline(geometry: dict[str, Any]) -> list[list[float]] | None:
    """The outer ring of the largest part: the lower 48 for the US, not the whole Pacific."""
    if geometry.get("type") == "Polygon":
        polygons = [geometry["coordinates"]]
    elif geometry.get("type") == "MultiPolygon":
        polygons = geometry["coordinates"]
    else:
        return None
    rings = [polygon[0] for polygon in polygons if polygon and polygon[0]]
    return max(rings, key=_ring_area) if rings else None


@lru_cache(maxsize=1)
def regions() -> dict[str, Region]:
    """Countries by ISO code ("US") and US states by "US-" and their code ("US-TX")."""
    found: dict[str, Region] = {}
    for feature in json.loads(basemap_geojson()).get("features", []):
        properties = feature.get("properties") or {}
        name = str(properties.get("name") or "")
        if not name:
            continue
        key: str | None = None
        if properties.get("kind") == "state":
            state = subdivision_code("US", name)
            key = f"US-{state}" if state else None
        else:
            key = next((c for n in _country_names(name) if (c := country_code(n))), None)
        ring = _main_outline(feature.get("geometry") or {})
        if key is None or ring is None or key in found:
            continue
        longitudes = [point[0] for point in ring]
        latitudes = [point[1] for point in ring]
        kind = "state" if key.startswith("US-") else "country"
        found[key] = Region(
            name, kind, min(latitudes), min(longitudes), max(latitudes), max(longitudes)
        )
    return found


def address_region(country: str | None, state: str | None) -> Region | None:
    """Where an address is, as far as its US state or its country tells (None when neither is
    given or known)."""
    if not (country and country.strip()):
        return None
    code = country_code(country)
    if code is None:
        return None
    known = regions()
    if code == "US" and state and state.strip():
        subdivision = subdivision_code("US", state)
        if subdivision and f"US-{subdivision}" in known:
            return known[f"US-{subdivision}"]
    return known.get(code)


# --- the fence ------------------------------------------------------------------------------


def fence_drawing(
    choice: FenceChoice | None,
    geometry: GeofenceGeometry | None,
    point: tuple[float, float] | None,
) -> Json | None:
    """The fence as the page draws it (the shipment map's way: `payload.fence_of`), or None."""
    if choice is None or point is None:
        return None
    location = StopLocation(
        name="",
        address=Address(),
        coordinates=GeoCoordinates(latitude=point[0], longitude=point[1]),
        geofence=Geofence(
            type=choice.type, units=choice.units, value=choice.value, geometry=geometry
        ),
    )
    return fence_of(location, point[0], point[1])


def parse_point(latitude: str, longitude: str) -> tuple[float, float] | str:
    """The point typed, or why it is not one."""
    values: list[float] = []
    for text, name, limit in ((latitude, "Latitude", 90), (longitude, "Longitude", 180)):
        # The one number rule of every field (`models/numbers.py`): 41,88 reads as 41.88.
        try:
            read = read_number(text)
        except NumberRefused as refused:
            two_way = str(refused) != NOT_A_NUMBER
            return f"{name}: {refused}." if two_way else f"{name} is not a number."
        if read is None:
            return f"{name} is missing."
        value = read
        if not math.isfinite(value) or not -limit <= value <= limit:
            return f"{name} is -{limit} to {limit}."
        values.append(value)
    return values[0], values[1]


# --- the map ---------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def picker_script() -> str:
    """assets/picker.js (its errors are reported as map.html's, at picker.js's line)."""
    return (ASSETS / SCRIPT).read_text(encoding="utf-8")


class PickerMapView(MapView):
    """The map page with the picker's script; `picked` tells the point chosen on the map,
    `escaped` that Escape was pressed in it (QtWebEngine does not hand that key on)."""

    picked = Signal(float, float)
    escaped = Signal()

    def __init__(self, parent: QWidget | None = None, *, tiles: TileSettings | None = None):
        # Not the page's offline note: a box over the map's bottom left, where a click picks
        # nothing (a control keeps its clicks). The dialog says it above the map instead.
        super().__init__("picker", parent, tiles=tiles, note=NotePlace.NONE)
        self.setObjectName("pickerMap")
        self.start_options: Callable[[], Json] | None = None
        self.itemClicked.connect(self._item_clicked)

    def _configure(self) -> None:
        # Runs first whenever the page is ready (also after a reload), before queued calls.
        super()._configure()
        self.map_page.runJavaScript(picker_script(), 0)

    def restore(self) -> None:
        # A page loaded anew starts from what the dialog shows now.
        if self.start_options is not None:
            self.call("pickerStart", self.start_options())

    def _item_clicked(self, key: str) -> None:
        if key == ESCAPE_KEY:
            self.escaped.emit()
            return
        if not key.startswith(PICK_PREFIX):
            return
        latitude, _, longitude = key.removeprefix(PICK_PREFIX).partition(",")
        try:
            self.picked.emit(float(latitude), float(longitude))
        except ValueError:
            log.warning("the picker page told an odd point: %r", key)


# --- the dialog ------------------------------------------------------------------------------


def offline_text(tiles: TileSettings) -> str:
    """What the picker says above the map while it shows outlines only (the map page's
    words for its own note)."""
    if not tiles.url:
        return "Map tiles are switched off. Showing outlines."
    host = re.match(r"^[a-z]+://([^/]+)", tiles.url, re.IGNORECASE)
    where = host.group(1).replace("{s}.", "") if host else "the tile server"
    return f"Offline: no map tiles from {where}. Showing outlines."


def _fence_text(drawing: Json | None, choice: FenceChoice | None, has_point: bool) -> str:
    if choice is None:
        return "No geofence."
    if not has_point:
        return "The geofence is drawn around the point once there is one."
    if drawing is None:
        return "This geofence cannot be drawn (its value is 0)."
    text = f"Geofence: {drawing.get('label', '')}"
    radius = drawing.get("radius")
    if isinstance(radius, float | int) and choice.units != GeofenceUnits.METERS:
        metres = f"{radius / 1000:,.1f} km" if radius >= 10_000 else f"{radius:,.0f} m"
        text += f", a radius of {metres}"
    return text + "."


class LocationPickerDialog(QDialog):
    """Emits `chosen` (a `Picked`) when the user presses OK with a point chosen."""

    chosen = Signal(object)

    def __init__(
        self,
        request: PickRequest,
        parent: QWidget | None = None,
        *,
        tiles: TileSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("locationPicker")
        self.request = request
        self.point: tuple[float, float] | None = request.point
        self.region = None if request.point else address_region(request.country, request.state)
        name = request.name.strip()
        self.setWindowTitle(f"Pick {name} on the map" if name else "Pick the location on the map")
        # Its OK and Cancel in sight on a 1366x768 screen (720 px would reach the taskbar).
        resize_to_fit(self, 980, 720)
        self.setMinimumSize(640, 480)

        self.hint = QLabel(self)
        self.hint.setObjectName("pickerHint")
        self.hint.setWordWrap(True)
        self.map = PickerMapView(self, tiles=tiles)
        self.map.setMinimumHeight(320)
        # Offline, said above the map (not over it): all of the map stays clickable.
        self.offline_note = QLabel(offline_text(self.map.tiles), self)
        self.offline_note.setObjectName("pickerOfflineNote")
        self.offline_note.setWordWrap(True)
        self.offline_note.setStyleSheet(NOTE_STYLE)
        self.offline_note.setVisible(not self.map.tiles.url)
        self.map.start_options = self._start_options

        self.latitude = QLineEdit(self)
        self.latitude.setObjectName("pickerLatitude")
        self.latitude.setPlaceholderText("-90 to 90")
        self.longitude = QLineEdit(self)
        self.longitude.setObjectName("pickerLongitude")
        self.longitude.setPlaceholderText("-180 to 180")
        self.centre_button = QPushButton("Pin at the map's &centre", self)
        self.centre_button.setToolTip(
            "Put the pin where the map is centred (pan with the arrow keys in the map)"
        )
        self.centre_button.setAutoDefault(False)
        self.point_error = ErrorLabel(self)
        self.point_error.setObjectName("pickerPointError")
        point_row = QHBoxLayout()
        latitude_label = QLabel("L&atitude", self)
        latitude_label.setBuddy(self.latitude)
        longitude_label = QLabel("L&ongitude", self)
        longitude_label.setBuddy(self.longitude)
        point_row.addWidget(latitude_label)
        point_row.addWidget(self.latitude)
        point_row.addSpacing(8)
        point_row.addWidget(longitude_label)
        point_row.addWidget(self.longitude)
        point_row.addSpacing(8)
        point_row.addWidget(self.centre_button)
        point_row.addStretch(1)

        self.fence = GeofenceInputs(self, use_text="&Geofence")
        self.fence.set_choice(request.fence)
        self.fence_text = QLabel(self)
        self.fence_text.setObjectName("pickerFence")
        self.fence_text.setWordWrap(True)
        fence_row = QHBoxLayout()
        fence_row.addWidget(self.fence.use)
        fence_row.addWidget(self.fence.type)
        fence_row.addWidget(self.fence.value)
        fence_row.addWidget(self.fence.units)
        fence_row.addStretch(1)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setDefault(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(self.offline_note)
        layout.addWidget(self.map, 1)
        layout.addLayout(point_row)
        layout.addWidget(self.point_error)
        layout.addLayout(fence_row)
        layout.addWidget(self.fence_text)
        layout.addWidget(self.buttons)

        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.map.picked.connect(self._picked_on_map)
        self.map.escaped.connect(self._escaped)
        self.map.tilesChanged.connect(lambda ok: self.offline_note.setVisible(not ok))
        self.latitude.textEdited.connect(self._typed)
        self.longitude.textEdited.connect(self._typed)
        self.centre_button.clicked.connect(lambda: self.map.call("pickerCentre"))
        self.fence.changed.connect(self._fence_changed)
        self.finished.connect(lambda _result: self.map.dispose())

        self._show_point()
        self._show_hint()
        self.fence_text.setText(_fence_text(self._drawing(), self.fence.choice(), bool(self.point)))
        self.map.call("pickerStart", self._start_options())
        self.latitude.setFocus()

    # --- state -----------------------------------------------------------------------------------

    def _drawing(self) -> Json | None:
        return fence_drawing(self.fence.choice(), self.request.geometry, self.point)

    def _start_options(self) -> Json:
        return {
            "point": list(self.point) if self.point else None,
            "region": self.region.wire() if self.region else None,
            "fence": self._drawing(),
            "zoom": POINT_ZOOM,
        }

    def _show_hint(self) -> None:
        if self.request.point is not None:
            where = "Opened on the location's coordinates."
        elif self.region is not None:
            where = f"No coordinates yet: opened on the address's {self.region.kind} "
            where += f"({self.region.name})."
        else:
            where = "No coordinates or address to start from yet."
        self.hint.setText(
            f"{where} Click where the location is, or drag the pin "
            "(in the map, arrow keys pan, + and \u2212 zoom)."
        )

    def _show_point(self) -> None:
        """The point as text, and OK only with a point."""
        if self.point is not None:
            self.latitude.setText(f"{self.point[0]:.{DIGITS}f}")
            self.longitude.setText(f"{self.point[1]:.{DIGITS}f}")
        self.point_error.show_message(None)
        self.ok_button.setEnabled(self.point is not None)

    def _picked_on_map(self, latitude: float, longitude: float) -> None:
        self.point = (round(latitude, DIGITS), round(longitude, DIGITS))
        self._show_point()
        self._fence_changed()

    def _typed(self, _text: str) -> None:
        parsed = parse_point(self.latitude.text(), self.longitude.text())
        if isinstance(parsed, str):
            both_typed = self.latitude.text().strip() and self.longitude.text().strip()
            self.point_error.show_message(parsed if both_typed or self.point else None)
            self.ok_button.setEnabled(False)
            return
        self.point = parsed
        self.point_error.show_message(None)
        self.ok_button.setEnabled(True)
        self.map.call("pickerPoint", parsed[0], parsed[1])
        self._fence_changed()

    def _fence_changed(self) -> None:
        drawing = self._drawing()
        self.map.call("pickerFence", drawing)
        self.fence_text.setText(_fence_text(drawing, self.fence.choice(), bool(self.point)))

    # --- answers ---------------------------------------------------------------------------------

    def _escaped(self) -> None:
        if self.isVisible():
            self.reject()

    def accept(self) -> None:
        parsed = parse_point(self.latitude.text(), self.longitude.text())
        if isinstance(parsed, str):
            self.point_error.show_message(parsed)
            return  # Enter with a half-typed point: nothing is handed back
        self.chosen.emit(Picked(parsed[0], parsed[1], self.fence.choice()))
        super().accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        # Enter in a field accepts as in any dialog; the map page hands its unused keys here.
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not self.ok_button.isEnabled():
            event.accept()
            return
        super().keyPressEvent(event)


def open_location_picker(
    parent: QWidget, request: PickRequest, on_picked: Callable[[Picked], None]
) -> LocationPickerDialog:
    """Open the picker over `parent` (window-modal, without a nested event loop)."""
    dialog = LocationPickerDialog(request, parent)
    dialog.chosen.connect(on_picked)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
