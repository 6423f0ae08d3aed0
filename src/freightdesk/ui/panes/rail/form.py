"""The Rail pane's form: one piece of equipment, its bills of lading and waybills or the time
tracking starts, and the origin and destination stops with their appointment windows.

The form builds the request's wire fields and leaves every rule to the models
(`service/rail.check_leg`); a problem at an identifier's or a stop's position in the request
is put back beside the field it came from.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo
from typing import Any

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QWidget,
)

from freightdesk.models.rail import (
    EquipmentIdentifierType,
    RailShipmentIdentifierType,
    RailStopType,
)
from freightdesk.service.clock import user_now, zone_named
from freightdesk.ui.widgets.code_combo import choose_code, code_of
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.time_edit import DATE_TIME_FORMAT, UserTimeEdit, clock_days

EQUIPMENT_TYPES = {
    EquipmentIdentifierType.CONTAINER_ID: "Container",
    EquipmentIdentifierType.TRAILER_ID: "Trailer",
    EquipmentIdentifierType.RAIL_CAR_ID: "Rail car",
}
IDENTIFIER_FIELDS = {
    RailShipmentIdentifierType.BILL_OF_LADING: "billsOfLading",
    RailShipmentIdentifierType.WAYBILL: "waybills",
}
_POSITION = re.compile(r"^(\w+)\[(\d+)\]")


def renamed(problems: dict[str, str], prefix: str, names: list[str]) -> dict[str, str]:
    """Problems at `prefix[i]` moved to `names[i]` (the field that item came from)."""
    moved: dict[str, str] = {}
    for key, message in problems.items():
        found = _POSITION.match(key)
        if found and found.group(1) == prefix and int(found.group(2)) < len(names):
            key = names[int(found.group(2))] + key[found.end() :]
        moved.setdefault(key, message)
    return moved


def _date_time_edit(parent: QWidget, name: str, value: datetime) -> QDateTimeEdit:
    edit = QDateTimeEdit(parent)
    edit.setObjectName(name)
    edit.setCalendarPopup(True)
    clock_days(edit, DATE_TIME_FORMAT)  # no zone named: the stop's is typed below it
    edit.setDateTime(QDateTime(value.year, value.month, value.day, value.hour, value.minute, 0))
    return edit


def _naive(edit: QDateTimeEdit) -> datetime:
    value = edit.dateTime().toPython()
    assert isinstance(value, datetime)
    return value.replace(tzinfo=None)


def _local_zone() -> tzinfo | None:
    return datetime.now().astimezone().tzinfo


def _zone(name: str) -> tzinfo | None:
    """The zone named (the user's own when blank or unknown: the models then say why the
    name is refused, beside it)."""
    return (zone_named(name) if name else None) or _local_zone()


class StopBox(QGroupBox):
    """One stop: a place named by the railroad or an address, and its appointment window in
    the stop's own time zone."""

    def __init__(self, number: int, errors: FieldErrors, parent: QWidget | None = None) -> None:
        self.number = number
        self.kind = RailStopType.ORIGIN if number == 1 else RailStopType.DESTINATION
        super().__init__("Origin" if number == 1 else "Destination", parent)
        side = self.kind.value.lower()
        self.setObjectName(f"{side}Stop")
        form = QFormLayout(self)
        self.prefix = f"shipmentStops[{number - 1}]"
        general = ErrorLabel(self)
        form.addRow(general)
        errors.register(self.prefix, self, general)
        address = f"{self.prefix}.location.address"
        self.place = self._edit(f"{side}Place", "ramp or station, e.g. BNSF Hobart")
        self.city = self._edit(f"{side}City", "city")
        self.state = self._edit(f"{side}State", "state or province, e.g. IL")
        self.country = self._edit(f"{side}Country", "country, e.g. US")
        place_error = errors.add_row(form, "Place", f"{address}.pointName", self.place)
        errors.register(f"{self.prefix}.stopName", self.place, place_error)
        errors.add_row(form, "City", f"{address}.city", self.city)
        errors.add_row(form, "State", f"{address}.state", self.state)
        errors.add_row(form, "Country", f"{address}.country", self.country)
        self.windowed = QCheckBox("Appointment window", self)
        self.windowed.setObjectName(f"{side}Windowed")
        start = datetime.now() + timedelta(days=1 if number == 1 else 5)
        self.start = _date_time_edit(self, f"{side}WindowStart", start.replace(minute=0))
        self.end = _date_time_edit(
            self, f"{side}WindowEnd", start.replace(minute=0) + timedelta(hours=4)
        )
        for edit in (self.start, self.end):  # the one clock: a stop's time is in its zone
            edit.setToolTip("The stop's own time, in the Time zone below (blank: yours).")
        span = QWidget(self)
        row = QHBoxLayout(span)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.windowed)
        row.addStretch(1)  # a click beside the box's text does not tick it
        form.addRow(span)
        window = f"{self.prefix}.appointmentWindow"
        errors.add_row(form, "From", window, self.start)
        errors.add_row(form, "To", f"{window}.endDateTime", self.end)
        self.zone = self._edit(f"{side}Zone", "IANA zone, e.g. America/Chicago (blank: yours)")
        errors.add_row(form, "Time zone", f"{window}.localTimeZoneIdentifier", self.zone)
        self.windowed.toggled.connect(self._enable_window)
        self._enable_window(False)

    def _edit(self, name: str, hint: str) -> QLineEdit:
        edit = QLineEdit(self)
        edit.setObjectName(name)
        edit.setPlaceholderText(hint)
        return edit

    def _enable_window(self, on: bool) -> None:
        for widget in (self.start, self.end, self.zone):
            widget.setEnabled(on)

    def given(self) -> bool:
        texts = (self.place, self.city, self.state, self.country)
        return self.windowed.isChecked() or any(e.text().strip() for e in texts)

    def wire(self) -> dict[str, Any]:
        """The stop as the request holds it (only what was typed)."""
        stop: dict[str, Any] = {"stopNumber": self.number, "type": self.kind.value}
        fields = {
            "pointName": self.place.text().strip(),
            "city": self.city.text().strip(),
            "state": self.state.text().strip(),
            "country": self.country.text().strip(),
        }
        address = {key: value for key, value in fields.items() if value}
        if address:
            stop["location"] = {"address": address}
        if fields["pointName"]:
            stop["stopName"] = fields["pointName"]
        if self.windowed.isChecked():
            zone_name = self.zone.text().strip()
            zone = _zone(zone_name)
            window: dict[str, Any] = {
                "startDateTime": _naive(self.start).replace(tzinfo=zone),
                "endDateTime": _naive(self.end).replace(tzinfo=zone),
            }
            if zone_name:
                window["localTimeZoneIdentifier"] = zone_name
            stop["appointmentWindow"] = window
        return stop


class LegForm(QGroupBox):
    """The fields of a new rail leg; `wire()` is the request as typed, `show_problems` puts
    each problem (the models' or the service's) beside its field."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Track a rail leg", parent)
        self.setObjectName("legForm")
        form = QFormLayout(self)
        self.errors = FieldErrors(ErrorLabel(self))
        self.equipment_type = QComboBox(self)
        self.equipment_type.setObjectName("equipmentType")
        for value, text in EQUIPMENT_TYPES.items():
            self.equipment_type.addItem(text, value.value)
        self.equipment = QLineEdit(self)
        self.equipment.setObjectName("equipmentValue")
        self.equipment.setPlaceholderText("e.g. MSKU1234565")
        equipment = QWidget(self)
        row = QHBoxLayout(equipment)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.equipment_type)
        row.addWidget(self.equipment, 1)
        self.errors.add_row(
            form, "E&quipment", "equipmentIdentifiers", equipment, focus=self.equipment
        )
        self.bills = QLineEdit(self)
        self.bills.setObjectName("billsOfLading")
        self.bills.setPlaceholderText("bills of lading, separated by commas")
        self.waybills = QLineEdit(self)
        self.waybills.setObjectName("waybills")
        self.waybills.setPlaceholderText("waybills, separated by commas")
        bills_error = self.errors.add_row(form, "&Bills of lading", "billsOfLading", self.bills)
        self.errors.register("shipmentIdentifiers", self.bills, bills_error)
        self.errors.add_row(form, "&Waybills", "waybills", self.waybills)
        self.starts = QCheckBox("Start tracking at", self)
        self.starts.setObjectName("trackingStarts")
        # A time without a place: the user's zone (a window's is its stop's, in its field).
        self.start = UserTimeEdit(self, user_now().replace(second=0, microsecond=0))
        self.start.setObjectName("trackingStart")
        start = QWidget(self)
        row = QHBoxLayout(start)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.starts)
        row.addWidget(self.start, 1)
        self.errors.add_row(form, "Trac&king", "trackingStartDateTime", start, focus=self.starts)
        # The interface links legs by their master shipment's uuid; a dispatcher knows the
        # other leg by its equipment and bill of lading, so the legs listed are offered by
        # those, their uuid the item's data (one pasted from elsewhere is taken as typed).
        self.master = QComboBox(self)
        self.master.setObjectName("masterShipmentId")
        self.master.setEditable(True)
        self.master.addItem("", "")
        line = self.master.lineEdit()
        if line is not None:
            # Short enough to read whole in the form's width at 1366 px; the tooltip says more.
            line.setPlaceholderText("optional: a leg already tracked")
        self.master.setToolTip("Optional: a leg already tracked, to follow both as one move")
        self.errors.add_row(form, "Same &move as", "masterShipmentId", self.master)
        stops_error = ErrorLabel(self)
        form.addRow(stops_error)
        self.errors.register("shipmentStops", self, stops_error)
        self.stops = (StopBox(1, self.errors, self), StopBox(2, self.errors, self))
        for box in self.stops:
            form.addRow(box)
        form.addRow(self.errors.general)
        self.starts.toggled.connect(self.start.setEnabled)
        self.start.setEnabled(False)
        self._identifier_fields: list[str] = []
        self._stop_names: list[str] = []

    def set_moves(self, moves: list[tuple[str, str]]) -> None:
        """The legs the user may join, as (how the leg reads, its master shipment id); what is
        chosen or typed stays."""
        kept = code_of(self.master)
        self.master.blockSignals(True)
        self.master.clear()
        self.master.addItem("", "")
        seen: set[str] = set()
        for text, master in moves:
            if master not in seen:
                seen.add(master)
                self.master.addItem(text, master)
        if kept:
            choose_code(self.master, kept, str)
        else:
            self.master.setCurrentIndex(0)
        self.master.blockSignals(False)

    def _identifiers(self) -> list[dict[str, str]]:
        found: list[dict[str, str]] = []
        self._identifier_fields = []
        for kind, edit in (
            (RailShipmentIdentifierType.BILL_OF_LADING, self.bills),
            (RailShipmentIdentifierType.WAYBILL, self.waybills),
        ):
            for value in edit.text().split(","):
                if value.strip():
                    found.append({"type": kind.value, "value": value.strip()})
                    self._identifier_fields.append(IDENTIFIER_FIELDS[kind])
        return found

    def wire(self) -> dict[str, Any]:
        """The request as typed (the models decide whether it holds)."""
        body: dict[str, Any] = {
            "equipmentIdentifiers": [
                {"type": self.equipment_type.currentData(), "value": self.equipment.text()}
            ]
        }
        identifiers = self._identifiers()
        if identifiers:
            body["shipmentIdentifiers"] = identifiers
        if self.starts.isChecked():
            body["trackingStartDateTime"] = self.start.value()
        if code_of(self.master):
            body["masterShipmentId"] = code_of(self.master)
        given = [box for box in self.stops if box.given()]
        self._stop_names = [box.prefix for box in given]
        if given:
            body["shipmentStops"] = [box.wire() for box in given]
        return body

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        """Each problem of the request last built by `wire()` beside its field."""
        moved = renamed(problems, "shipmentIdentifiers", self._identifier_fields)
        moved = renamed(moved, "shipmentStops", self._stop_names)
        self.errors.show(moved, general=general)
