"""The Available vehicles search form: around an address or a point, within a radius in the
unit chosen, in a time window, of one truck type.

The form reads itself as the interface's body (`wire`) and puts a cached search back
(`fill`). Problems are shown beside the part they are about: each part of the address, the
point and the window has its own message line, prefixed with the part's name, so "is
required" under the address says which part is missing, whether the app or the service found
it.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from PySide6.QtWidgets import (
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text, unit_name
from freightdesk.models.vehicles import (
    DEFAULT_WINDOW_HOURS,
    RADIUS_RULES,
    RadiusUnit,
    TruckType,
)
from freightdesk.service.clock import user_now
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.row_table import number
from freightdesk.ui.widgets.time_edit import UserTimeEdit

ADDRESS, POINT = "address", "point"
ADDRESS_PARTS = (
    ("city", "city", "City"),
    ("state", "state", "State"),
    ("postalCode", "ZIP", "Postal code"),
    ("country", "country", "Country"),
)
STREET_PARTS = (("addressLines", "street and number", "Street"),)
# A postal code of six characters (a ZIP's five, Canada's and India's six) reads whole.
POSTAL_SAMPLE = "000000"
# The form's parts top to bottom.
_ORDER = ("where", "address", "geoCoordinates", "radius", "timeRange", "truckType")


def truck_text(truck: TruckType) -> str:
    """FLATBED_AIR_RIDE -> "Flatbed air ride"."""
    return truck.value.replace("_", " ").capitalize()


def _whole(text: str) -> int | str | None:
    """The whole number typed, else the text as typed (for the models to refuse), None if
    empty."""
    typed = text.strip()
    if not typed:
        return None
    try:
        return int(typed)
    except ValueError:
        return typed


def _rows(widget: QWidget) -> tuple[QVBoxLayout, QHBoxLayout]:
    """A column for `widget`: a row of inputs first, their message lines to go under it."""
    box = QVBoxLayout(widget)
    box.setContentsMargins(0, 0, 0, 0)
    box.setSpacing(2)
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    box.addLayout(row)
    return box, row


class PartError(ErrorLabel):
    """A part's message, named: "State: is required for an address in US"."""

    def __init__(self, part: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.part = part

    def show_message(self, message: str | None) -> None:
        # A message that names its part already ("Latitude is between -90 and 90") once.
        named = message and self.part.casefold() not in message.casefold()
        super().show_message(f"{self.part}: {message}" if named else message)


class Parts(QWidget):
    """Line edits in a row with a message line for each, registered as `{prefix}.{key}` with
    the form's errors: under the row one above the other, each named, or with `under_each`
    each under its own box (the point's two: the longitude's was under the latitude)."""

    def __init__(
        self,
        prefix: str,
        parts: tuple[tuple[str, str, str], ...],
        errors: FieldErrors,
        parent: QWidget | None = None,
        *,
        under_each: bool = False,
    ) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(2)
        self.edits: dict[str, QLineEdit] = {}
        self.messages: list[PartError] = []
        for column, (key, hint, name) in enumerate(parts):
            edit = QLineEdit(self)
            edit.setObjectName(f"{prefix}.{key}")
            edit.setPlaceholderText(hint)
            edit.setToolTip(name)
            # Each hint read whole, and a postal code as typed ("60436" was cut by a box as wide
            # as "ZIP"): a row too wide for it beside its label goes below it, across the
            # form's width (the form's rows wrap).
            widest = max(hint, POSTAL_SAMPLE, key=len) if key == "postalCode" else hint
            edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance(widest) + 16)
            grid.addWidget(edit, 0, column)
            grid.setColumnStretch(column, 2 if key in ("city", "addressLines") else 1)
            label = PartError(name, self)
            if under_each:
                grid.addWidget(label, 1, column)
            else:
                grid.addWidget(label, 1 + column, 0, 1, len(parts))
            errors.register(f"{prefix}.{key}", edit, label)
            self.edits[key] = edit
            self.messages.append(label)


class VehicleSearchForm(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Find vehicles", parent)
        self.form = QFormLayout(self)
        self.errors = FieldErrors(ErrorLabel(self))

        self.where = QComboBox(self)
        self.where.setObjectName("where")
        self.where.addItem("An address", ADDRESS)
        self.where.addItem("A point (latitude, longitude)", POINT)
        self.address = QWidget(self)
        address_box = QVBoxLayout(self.address)
        address_box.setContentsMargins(0, 0, 0, 0)
        address_box.setSpacing(2)
        self.street = Parts("address", STREET_PARTS, self.errors, self.address)
        self.place = Parts("address", ADDRESS_PARTS, self.errors, self.address)
        self.place.edits["country"].setText("US")
        address_box.addWidget(self.street)
        address_box.addWidget(self.place)
        self.point = Parts(
            "geoCoordinates",
            (
                ("latitude", "latitude, e.g. 41.88", "Latitude"),
                ("longitude", "longitude, e.g. -87.63", "Longitude"),
            ),
            self.errors,
            self,
            under_each=True,
        )

        self.radius = QLineEdit(self)
        self.radius.setObjectName("radius")
        self.unit = QComboBox(self)
        self.unit.setObjectName("radiusUnit")
        for unit in (RadiusUnit.MI, RadiusUnit.KM, RadiusUnit.FT, RadiusUnit.M):
            self.unit.addItem(code_text(unit), unit.value)
        radius_row = QWidget(self)
        radius_layout = QHBoxLayout(radius_row)
        radius_layout.setContentsMargins(0, 0, 0, 0)
        radius_layout.addWidget(self.radius, 1)
        radius_layout.addWidget(self.unit, 1)

        window = QWidget(self)
        window_layout, edits = _rows(window)
        # From above Until: side by side in the narrow form their times were cut.
        edits.setDirection(QBoxLayout.Direction.TopToBottom)
        self.start = self._time_edit("timeRange.startDateTime", window)
        self.end = self._time_edit("timeRange.endDateTime", window)
        edits.addWidget(self.start)
        edits.addWidget(self.end)
        for edit, name in ((self.start, "From"), (self.end, "Until")):
            label = PartError(name, window)
            window_layout.addWidget(label)
            self.errors.register(edit.objectName(), edit, label)
        self.reset_window()

        self.truck = QComboBox(self)
        self.truck.setObjectName("truckType")
        self.truck.addItem("Any", None)
        for truck in TruckType:
            self.truck.addItem(truck_text(truck), truck.value)
        self.mine = QCheckBox("Include trucks hauling &my shipments", self)
        self.mine.setObjectName("includeMyShipments")
        self.mine.setChecked(True)

        self.errors.add_row(self.form, "Aro&und", "where", self.where)
        address_error = self.errors.add_row(self.form, "&Address", "address", self.address)
        point_error = self.errors.add_row(self.form, "P&oint", "geoCoordinates", self.point)
        # The messages about the address, then those about the point.
        self._messages: dict[str, list[ErrorLabel]] = {
            ADDRESS: [address_error, *self.street.messages, *self.place.messages],
            POINT: [point_error, *self.point.messages],
        }
        self.errors.add_row(self.form, "Rad&ius", "radius", radius_row)
        self.errors.add_row(self.form, "&Window", "timeRange", window)
        self.errors.add_row(self.form, "&Truck type", "truckType", self.truck)
        self.form.addRow(self.mine)

        self.where.currentIndexChanged.connect(self._where_changed)
        self.unit.currentIndexChanged.connect(self._unit_changed)
        self._where_changed()
        self._unit_changed()

    def _time_edit(self, name: str, parent: QWidget) -> UserTimeEdit:
        edit = UserTimeEdit(parent)
        edit.setObjectName(name)
        return edit

    def line_edits(self) -> list[QLineEdit]:
        """Where Return searches."""
        parts = (self.street, self.place, self.point)
        return [self.radius, *(edit for p in parts for edit in p.edits.values())]

    # --- what applies ----------------------------------------------------------------------

    def _where_changed(self) -> None:
        at_point = self.where.currentData() == POINT
        self.address.setEnabled(not at_point)
        self.point.setEnabled(at_point)
        self.address.setToolTip("Choose “An address” above to search round one" if at_point else "")
        self.point.setToolTip("" if at_point else "Choose “A point” above to search round one")
        # A problem of the part that no longer applies is no longer one: it is not sent.
        for message in self._messages[ADDRESS if at_point else POINT]:
            message.clear_message()

    def _unit_changed(self) -> None:
        unit = RadiusUnit(self.unit.currentData())
        low, high, default = RADIUS_RULES[unit]
        self.radius.setPlaceholderText(f"{default:,} ({low:,} to {high:,})")
        self.radius.setToolTip(
            f"From {low:,} to {high:,} {unit_name(unit)}; {default:,} when left empty."
        )

    def reset_window(self, hours: int = DEFAULT_WINDOW_HOURS) -> None:
        now = user_now().replace(second=0, microsecond=0)
        self.start.set_value(now)
        self.end.set_value(now + timedelta(hours=hours))

    # --- the body --------------------------------------------------------------------------

    def wire(self) -> dict[str, Any]:
        """The search as typed, as the interface's body (empty fields left out)."""
        wire: dict[str, Any] = {
            "timeRange": {
                "startDateTime": self.start.value().isoformat(),
                "endDateTime": self.end.value().isoformat(),
            },
            "radiusUnit": self.unit.currentData(),
            "includeMyShipments": self.mine.isChecked(),
        }
        if self.where.currentData() == POINT:
            point = {key: number(edit.text()) for key, edit in self.point.edits.items()}
            wire["geoCoordinates"] = {k: v for k, v in point.items() if v is not None}
        else:
            street = self.street.edits["addressLines"].text().strip()
            address: dict[str, Any] = {"addressLines": [street] if street else []}
            for key, edit in self.place.edits.items():
                if edit.text().strip():
                    address[key] = edit.text().strip()
            wire["address"] = address
        radius = _whole(self.radius.text())
        if radius is not None:
            wire["radius"] = radius
        if self.truck.currentData():
            wire["truckType"] = self.truck.currentData()
        return wire

    def problems(self) -> dict[str, str]:
        """What the form refuses before the models see it: an emptied country. The models
        would fill in the interface's default country ("US") and send it, unseen, in place of
        the empty field the user left; asking for it keeps the body to what the form shows."""
        country = self.place.edits["country"]
        if self.where.currentData() == ADDRESS and not country.text().strip():
            return {"address.country": "is required: its ISO code, e.g. US, CA or MX"}
        return {}

    def fill(self, wire: dict[str, Any]) -> None:
        """Put a search back into the form (the cached answer's, at start)."""
        if not wire:
            return
        point = wire.get("geoCoordinates")
        self.where.setCurrentIndex(self.where.findData(POINT if point else ADDRESS))
        if isinstance(point, dict):
            for key, edit in self.point.edits.items():
                edit.setText(str(point.get(key, "")))
        address = wire.get("address")
        if isinstance(address, dict):
            lines = address.get("addressLines") or [""]
            self.street.edits["addressLines"].setText(str(lines[0]))
            for key, edit in self.place.edits.items():
                edit.setText(str(address.get(key) or ""))
        radius = wire.get("radius")
        self.radius.setText("" if radius is None else str(radius))
        self.unit.setCurrentIndex(max(0, self.unit.findData(wire.get("radiusUnit") or "MI")))
        self.truck.setCurrentIndex(max(0, self.truck.findData(wire.get("truckType"))))
        self.mine.setChecked(wire.get("includeMyShipments", True) is not False)
        window = wire.get("timeRange") or {}
        for moment, key in ((self.start, "startDateTime"), (self.end, "endDateTime")):
            try:
                when = datetime.fromisoformat(str(window.get(key)))
            except ValueError:
                continue
            moment.set_value(when)


def in_form_order(problems: dict[str, str]) -> dict[str, str]:
    """`problems` top to bottom (a part's own in the order given): the first takes the
    keyboard."""

    def place(path: str) -> int:
        top = re.split(r"[.\[]", path, maxsplit=1)[0]
        return _ORDER.index(top) if top in _ORDER else len(_ORDER)

    return dict(sorted(problems.items(), key=lambda item: place(item[0])))
