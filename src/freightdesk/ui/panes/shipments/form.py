"""Create or edit a tracked shipment: identifiers valid for the mode, attributes, stops (a
stop is sent when a place is entered in it; a new truckload or LTL shipment needs its pickup
and delivery)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text
from freightdesk.models.common import Address, CustomAttribute, LogisticsIdentifier
from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.identifier_rules import ACCEPTED_BY_MODE, problems_for
from freightdesk.models.tracking import (
    MAX_ATTRIBUTES,
    MAX_IDENTIFIERS,
    Plan,
    RouteInfo,
    RouteStop,
    RouteStopLocation,
    StopType,
    TrackedShipment,
    TrackedShipmentInput,
)
from freightdesk.service.errors import ApiError
from freightdesk.service.messages import NOT_CONNECTED, explain
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.edit_table import EditTable
from freightdesk.ui.widgets.form_dialog import FormDialog

MODES = [
    (Mode.TL, "Truckload (TL)"),
    (Mode.LTL, "LTL"),
    (Mode.PARCEL, "Parcel"),
    (Mode.OCEAN, "Ocean"),
    (Mode.AIR, "Air"),
    (Mode.RAIL, "Rail"),
]
STOP_TYPE_WIDTH = 150  # px: "Port of discharge" with the drop-down's arrow
STOP_COLUMNS = ["Type", "Name", "Street", "City", "State", "Postal code", "Country"]
NAME, STREET, CITY, STATE, POSTAL_CODE, COUNTRY = range(1, 7)
# A truckload or LTL shipment is planned by road from a pickup to a delivery: the form asks
# for both. A container, an air waybill, a parcel or a railcar is tracked by its identifier
# alone, its route as the carrier reports it (docs/spec-gaps.md, Shipment tracking (app)).
NEEDS_STOPS = {Mode.TL: "a truckload", Mode.LTL: "an LTL shipment"}


def _text(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    return item.text().strip() if item is not None else ""


class ShipmentFormDialog(FormDialog):
    saved = Signal(object)  # TrackedShipment
    discard_text = "Discard the changes to this shipment?"

    def __init__(
        self, session: AppSession, shipment: TrackedShipment | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.shipment = shipment
        self.setWindowTitle("Edit shipment" if shipment else "New shipment")
        self.setMinimumSize(760, 620)

        self.mode = QComboBox(self)
        self.mode.setObjectName("mode")
        for mode, label in MODES:
            self.mode.addItem(label, mode.value)
        tables = [
            self._table(["Type", "Value"], "identifiers", "identifier", self.add_identifier),
            self._table(
                ["Name", "Values (comma separated)"], "attributes", "attribute", self.add_attribute
            ),
            self._table(STOP_COLUMNS, "stops", "stop", self.add_stop),
        ]
        self.identifiers, self.attributes, self.stops = (box.table for box in tables)
        # The stop's type in words ("Port of discharge") whole; the place's columns share the rest.
        stop_header = self.stops.horizontalHeader()
        stop_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.stops.setColumnWidth(0, STOP_TYPE_WIDTH)
        form = QFormLayout()
        self.errors.add_row(form, "&Mode", "plan", self.mode)
        self.errors.add_row(form, "&Identifiers", "identifiers", tables[0])
        self.errors.add_row(form, "&Attributes", "attributes", tables[1])
        self.errors.add_row(form, "&Stops", "routeInfo", tables[2])
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.mode.currentIndexChanged.connect(self._mode_changed)
        self._load(shipment)
        self.mark_clean()

    # --- building ------------------------------------------------------------------------------

    def _table(
        self, headers: list[str], name: str, noun: str, add: Callable[[], None]
    ) -> EditTable:
        box = EditTable(headers, "Add", f"Remove {noun}", self)
        box.table.setObjectName(name)
        box.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        box.table.setMinimumHeight(110)
        box.add_button.clicked.connect(lambda: add())
        box.changed.connect(self.mark_dirty)
        return box

    def current_mode(self) -> Mode:
        return Mode(str(self.mode.currentData()))

    def _type_combo(self, selected: str | None = None) -> QComboBox:
        """The types the mode accepts, in words ("Bill of lading"); the code is sent."""
        combo = QComboBox(self.identifiers)
        add_codes(combo, sorted(ACCEPTED_BY_MODE[self.current_mode()], key=code_text))
        if selected:  # kept even when the mode does not accept it: validation says so
            choose_code(combo, selected)
        combo.currentIndexChanged.connect(self.mark_dirty)
        return combo

    def add_identifier(self, kind: str | None = None, value: str = "") -> None:
        if self.identifiers.rowCount() >= MAX_IDENTIFIERS:
            self.errors.show({"identifiers": f"At most {MAX_IDENTIFIERS} identifiers"})
            return
        row = self.identifiers.rowCount()
        self.identifiers.insertRow(row)
        self.identifiers.setCellWidget(row, 0, self._type_combo(kind))
        self.identifiers.setItem(row, 1, QTableWidgetItem(value))
        self.mark_dirty()

    def add_attribute(self, name: str = "", values: str = "") -> None:
        if self.attributes.rowCount() >= MAX_ATTRIBUTES:
            self.errors.show(
                {"attributes": f"A shipment can have at most {MAX_ATTRIBUTES} attributes"}
            )
            return
        row = self.attributes.rowCount()
        self.attributes.insertRow(row)
        self.attributes.setItem(row, 0, QTableWidgetItem(name))
        self.attributes.setItem(row, 1, QTableWidgetItem(values))
        self.mark_dirty()

    def add_stop(self, stop: RouteStop | None = None) -> None:
        row = self.stops.rowCount()
        self.stops.insertRow(row)
        kind = QComboBox(self.stops)
        add_codes(kind, [t.value for t in StopType])  # "Pickup" shown, PICKUP sent
        if stop is not None and stop.type is not None:
            choose_code(kind, stop.type.value)
        else:
            choose_code(kind, (StopType.PICKUP if row == 0 else StopType.DELIVERY).value)
        kind.currentIndexChanged.connect(self.mark_dirty)
        self.stops.setCellWidget(row, 0, kind)
        address = stop.location.address if stop and stop.location else None
        values = [
            stop.name if stop else "",
            address.address_lines[0] if address and address.address_lines else "",
            address.city if address else "",
            address.state if address else "",
            address.postal_code if address else "",
            address.country if address else "US",
        ]
        for column, text in enumerate(values, start=1):
            self.stops.setItem(row, column, QTableWidgetItem(text or ""))
        self.mark_dirty()

    def _load(self, shipment: TrackedShipment | None) -> None:
        if shipment is None:
            self.add_identifier()
            self.add_stop()
            self.add_stop()
            return
        modes = shipment.plan.expected_transportation_modes if shipment.plan else []
        if modes:
            self.mode.setCurrentIndex(max(0, self.mode.findData(modes[0].value)))
        for identifier in shipment.identifiers:
            self.add_identifier(identifier.type, identifier.value)
        for attribute in shipment.attributes:
            values = attribute.values or ([attribute.value] if attribute.value else [])
            self.add_attribute(attribute.name, ", ".join(values))
        for stop in shipment.route_info.stops if shipment.route_info else []:
            self.add_stop(stop)

    def _mode_changed(self) -> None:
        for row in range(self.identifiers.rowCount()):
            combo = self.identifiers.cellWidget(row, 0)
            current = code_of(combo) if isinstance(combo, QComboBox) else None
            self.identifiers.setCellWidget(row, 0, self._type_combo(current))
        self.mark_dirty()

    # --- validating and saving -------------------------------------------------------------------

    def identifier_rows(self) -> list[tuple[str, str]]:
        rows = []
        for row in range(self.identifiers.rowCount()):
            combo = self.identifiers.cellWidget(row, 0)
            kind = code_of(combo) if isinstance(combo, QComboBox) else ""
            rows.append((kind, _text(self.identifiers, row, 1)))
        return rows

    def validate(self) -> dict[str, str]:
        """The same rules the service applies, checked before sending."""
        problems: dict[str, str] = {}
        identifiers = [(k, v) for k, v in self.identifier_rows() if v]
        if not identifiers:
            problems["identifiers"] = "Add at least one identifier with a value"
        else:
            by_index = problems_for(self.current_mode(), [k for k, _ in identifiers])
            if by_index:
                index, message = min(by_index.items())
                problems["identifiers"] = f"Row {index + 1}: {message}"
        for row in range(self.attributes.rowCount()):
            if not _text(self.attributes, row, 0) and _text(self.attributes, row, 1):
                problems["attributes"] = f"Row {row + 1}: the attribute needs a name"
                break
        stops = self.stop_problems()
        if stops:
            problems["routeInfo"] = "\n".join(stops)
        return problems

    def _typed(self, row: int) -> bool:
        """Whether the user entered a place in the stop's row (its type and the country
        filled in for them are not one)."""
        return any(_text(self.stops, row, c) for c in (NAME, STREET, CITY, STATE, POSTAL_CODE))

    def _old_stop(self, row: int) -> RouteStop | None:
        old = self.shipment.route_info.stops if self.shipment and self.shipment.route_info else []
        return old[row] if row < len(old) else None

    def _sent(self, row: int) -> bool:
        """A stop goes to the service when the user entered a place, or the shipment had it
        (placed by coordinates, say: its cells may be empty)."""
        return self._typed(row) or self._old_stop(row) is not None

    def _placed(self, row: int) -> bool:
        """A city, a postal code or a state (as a rate request's stop), or a stop the
        shipment had: it keeps the place it had (coordinates, a port's code, a name)."""
        typed = any(_text(self.stops, row, c) for c in (CITY, STATE, POSTAL_CODE))
        return typed or self._old_stop(row) is not None

    def _stop_type(self, row: int) -> str:
        combo = self.stops.cellWidget(row, 0)
        return code_of(combo) if isinstance(combo, QComboBox) else ""

    def stop_problems(self) -> list[str]:
        """Each stop sent needs a city, a postal code or a state; a new truckload or LTL
        shipment (or one that had stops) needs a pickup and a delivery. By stop, top down."""
        rows = range(self.stops.rowCount())
        problems: list[tuple[int, str]] = []
        for row in filter(self._sent, rows):
            country = _text(self.stops, row, COUNTRY)
            if country and len(country) != 2:
                problems.append((row, f"Stop {row + 1}: the country is a two-letter code"))
            if not self._placed(row):
                problems.append((row, f"Stop {row + 1}: enter a city, a postal code or a state"))
        mode = NEEDS_STOPS.get(self.current_mode())
        route = self.shipment.route_info if self.shipment else None
        # An edit keeps what the shipment had: one tracked without stops may stay so.
        if mode is None or (self.shipment is not None and not (route and route.stops)):
            return [text for _row, text in sorted(problems)]
        why = f"{mode} is tracked from its pickup to its delivery"
        for kind in (StopType.PICKUP, StopType.DELIVERY):
            of_kind = [row for row in rows if self._stop_type(row) == kind.value]
            if any(self._sent(row) and self._placed(row) for row in of_kind):
                continue
            word = kind.value.lower()
            empty = [row for row in of_kind if not self._sent(row)]
            if empty:
                text = f"Stop {empty[0] + 1}: enter the {word}'s city, postal code or state ({why})"
                problems.append((empty[0], text))
            elif not of_kind:
                problems.append((len(rows), f"Add a {word} stop: {why}"))
        return [text for _row, text in sorted(problems)]

    def build(self) -> TrackedShipmentInput:
        existing = self.shipment
        stops: list[RouteStop] = []
        old_stops = existing.route_info.stops if existing and existing.route_info else []
        for row in range(self.stops.rowCount()):
            if not self._sent(row):
                continue  # nothing but its type and the country filled in: no stop
            code = self._stop_type(row)
            kind = StopType(code) if code else None
            old = old_stops[row] if row < len(old_stops) else None
            street = _text(self.stops, row, STREET)
            address = Address(
                address_lines=[street] if street else [],
                city=_text(self.stops, row, CITY) or None,
                state=_text(self.stops, row, STATE) or None,
                postal_code=_text(self.stops, row, POSTAL_CODE) or None,
                country=_text(self.stops, row, COUNTRY).upper() or "US",
            )
            location = (old.location if old and old.location else RouteStopLocation()).model_copy(
                update={"address": address}
            )
            stops.append(
                RouteStop(
                    id=old.id if old and old.id else uuid.uuid4(),
                    type=kind,
                    name=_text(self.stops, row, NAME) or None,
                    location=location,
                    appointment_window=old.appointment_window if old else None,
                )
            )
        attributes = []
        for row in range(self.attributes.rowCount()):
            name = _text(self.attributes, row, 0)
            values = [v.strip() for v in _text(self.attributes, row, 1).split(",") if v.strip()]
            if name:
                attributes.append(
                    CustomAttribute(
                        name=name, values=values, value=values[0] if len(values) == 1 else None
                    )
                )
        route_segments = (
            existing.route_info.route_segments if existing and existing.route_info else []
        )
        kept_ids = {s.id for s in stops}
        segments = [
            s for s in route_segments if s.from_stop_id in kept_ids and s.to_stop_id in kept_ids
        ]
        return TrackedShipmentInput(
            id=existing.id if existing else None,
            identifiers=[
                LogisticsIdentifier(type=k, value=v) for k, v in self.identifier_rows() if v
            ],
            attributes=attributes,
            access_groups=existing.access_groups if existing else [],
            costs=existing.costs if existing else [],
            plan=Plan(expected_transportation_modes=[self.current_mode()]),
            route_info=RouteInfo(stops=stops, route_segments=segments) if stops else None,
            related_shipments=existing.related_shipments if existing else [],
        )

    def save(self) -> None:
        problems = self.validate()
        if problems:
            self.errors.show(problems)
            return
        try:
            body = self.build()
        except ValueError as exc:
            self.errors.show({}, general=str(exc))
            return
        service = self.session.shipments
        if service is None or self.session.client is None:
            self.errors.show({}, general=NOT_CONNECTED)
            return
        self.buttons.setEnabled(False)
        self.errors.clear()

        def done(saved: object) -> None:
            self.buttons.setEnabled(True)
            self.mark_clean()
            self.saved.emit(saved)
            self.accept()

        def failed(error: BaseException) -> None:
            self.buttons.setEnabled(True)
            if isinstance(error, ApiError) and error.field_errors():
                self.errors.show(error.field_errors(), general=None)
            else:
                self.errors.show({}, general=explain(error))

        spawn(service.save(body), on_done=done, on_error=failed, name="save-shipment", owner=self)
