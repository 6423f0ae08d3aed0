"""The stop location form: name and supplied id, address with validation, coordinates,
opening hours as a weekday grid, special opening hours by date range, geofence, contacts.

The service's rules are checked before sending (every problem beside its field, the tab
holding the first one shown); the service's answer is shown the same way. When someone else
saved a newer version meanwhile, the conflict dialog shows both and the user chooses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.addresses import AddressInput
from freightdesk.models.common import Address
from freightdesk.models.stop_locations import (
    OpeningHours,
    SpecialOpeningHours,
    StopLocation,
)
from freightdesk.models.weekdays import DAY_NAMES
from freightdesk.service.errors import BadRequest
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.service.stop_locations import StaleLocation
from freightdesk.service.validation import coordinate_problems
from freightdesk.ui.panes.stop_locations.conflict import StopLocationConflictDialog
from freightdesk.ui.panes.stop_locations.geofence import FenceChoice, GeofenceInputs
from freightdesk.ui.panes.stop_locations.picking import Picked, PickRequest
from freightdesk.ui.panes.stop_locations.problems import every_problem, form_words
from freightdesk.ui.panes.stop_locations.tables import (
    TableWithButtons,
    cell,
    check_item,
    checked,
    grid,
)
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.address_check import address_checked
from freightdesk.ui.widgets.forms import ErrorLabel, plain
from freightdesk.ui.widgets.key_values import KeyValueTable
from freightdesk.ui.widgets.row_table import number
from freightdesk.ui.widgets.tabbed_form import TabbedFormDialog
from freightdesk.ui.widgets.time_edit import day_edit

# Opens a map over the form and calls back with the point (and geofence) chosen there.
MapPicker = Callable[[QWidget, PickRequest, Callable[[Picked], None]], QDialog | None]


def open_map_picker(
    parent: QWidget, request: PickRequest, on_picked: Callable[[Picked], None]
) -> QDialog:
    """The map picker, imported when first asked for: QtWebEngine is not loaded with the
    pane."""
    from freightdesk.ui.maps.picker import open_location_picker

    return open_location_picker(parent, request, on_picked)


map_picker: MapPicker | None = open_map_picker

WEEKDAY_FIELDS = (
    "appliesMonday",
    "appliesTuesday",
    "appliesWednesday",
    "appliesThursday",
    "appliesFriday",
    "appliesSaturday",
    "appliesSunday",
)
OPENS, CLOSES = 7, 8  # columns after the seven days
FROM, THROUGH = 0, 1  # special hours: the dates come first
SPECIAL_DAYS = 2
TABS = {"location": 0, "hours": 1, "more": 2}
_ROW_PATH = re.compile(r"^(openingHours|specialOpeningHours|contacts)\[(\d+)\](?:\.(.*))?$")
_FIELD_WORDS = {
    "opens": "opens",
    "closes": "closes",
    "validFrom": "from",
    "validThrough": "through",
    "contactId": "contact id",
    "type": "type",
    "hours": "days",
}


class StopLocationFormDialog(TabbedFormDialog):
    discard_text = "Discard your changes to this stop location?"

    def __init__(
        self, session: AppSession, location: StopLocation | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(session, parent)
        self.setObjectName("stopLocationForm")
        self.location = location
        self.conflict: StopLocationConflictDialog | None = None
        self.picker: QDialog | None = None
        self.suggested: Address | None = None
        self.setWindowTitle(f"Edit {location.name}" if location else "New stop location")
        self.setMinimumSize(820, 600)
        self.build(
            [
                (self._location_tab, "&Location"),
                (self._hours_tab, "&Hours"),
                (self._more_tab, "&Geofence and contacts"),
            ]
        )
        self.load(location)
        self._watch_changes()

    # --- building --------------------------------------------------------------------------

    def _location_tab(self) -> QWidget:
        tab = QWidget(self)
        self.name = QLineEdit(tab)
        self.name.setObjectName("name")
        self.supplied_id = QLineEdit(tab)
        self.supplied_id.setObjectName("suppliedId")
        self.supplied_id.setPlaceholderText("Your own code for this place (optional)")
        self.version = QLabel(tab)
        self.version.setObjectName("version")
        general = QFormLayout()
        self.errors.add_row(general, "&Name", "name", self.name)
        self.errors.add_row(general, "S&upplied id", "suppliedId", self.supplied_id)
        version_error = self.errors.add_row(general, "Version", "version", self.version)
        version_error.setObjectName("versionError")

        address_box = QGroupBox("Address", tab)
        address = QFormLayout(address_box)
        self.lines = [QLineEdit(address_box) for _ in range(3)]
        for index, line in enumerate(self.lines, start=1):
            line.setObjectName(f"addressLine{index}")
        self.lines[0].setPlaceholderText("Street and number")
        self.lines[1].setPlaceholderText("Suite, dock, building (optional)")
        self.lines[2].setPlaceholderText("(optional)")
        lines = QWidget(address_box)
        lines_layout = QVBoxLayout(lines)
        lines_layout.setContentsMargins(0, 0, 0, 0)
        lines_layout.setSpacing(4)
        for line in self.lines:
            lines_layout.addWidget(line)
        self.city = QLineEdit(address_box)
        self.city.setObjectName("city")
        self.state = QLineEdit(address_box)
        self.state.setObjectName("state")
        self.state.setPlaceholderText("e.g. TX, ON, Jalisco")
        self.postal_code = QLineEdit(address_box)
        self.postal_code.setObjectName("postalCode")
        self.country = QLineEdit("US", address_box)
        self.country.setObjectName("country")
        self.country.setPlaceholderText("ISO code such as US, CA, MX, DE")
        self.errors.add_row(address, "&Street", "address.addressLines", lines)
        self.errors.add_row(address, "&City", "address.city", self.city)
        self.errors.add_row(address, "S&tate", "address.state", self.state)
        self.errors.add_row(address, "&Postal code", "address.postalCode", self.postal_code)
        self.errors.add_row(address, "C&ountry", "address.country", self.country)
        self.validate_button = QPushButton("&Validate address", address_box)
        self.validation = QLabel(address_box)
        self.validation.setObjectName("validation")
        self.validation.setWordWrap(True)
        self.accept_suggestion = QPushButton("Use the &suggested address", address_box)
        self.accept_suggestion.setVisible(False)
        check = QHBoxLayout()
        check.addWidget(self.validate_button)
        check.addWidget(self.validation, 1)
        check.addWidget(self.accept_suggestion)
        address.addRow(check)
        address_error = ErrorLabel(address_box)
        address.addRow(address_error)
        self.errors.register("address", self.lines[0], address_error)

        place_box = QGroupBox("Coordinates (instead of, or besides, a street address)", tab)
        place = QFormLayout(place_box)
        self.latitude = QLineEdit(place_box)
        self.latitude.setObjectName("latitude")
        self.latitude.setPlaceholderText("-90 to 90, e.g. 30.2672")
        self.longitude = QLineEdit(place_box)
        self.longitude.setObjectName("longitude")
        self.longitude.setPlaceholderText("-180 to 180, e.g. -97.7431")
        self.pick_on_map = QPushButton("Pick on &map…", place_box)
        self.pick_on_map.setObjectName("pickOnMap")
        self.pick_on_map.setToolTip(
            "Choose the point on a map, with the geofence drawn around it (Alt+M)"
        )
        self.pick_on_map.setEnabled(map_picker is not None)
        # Each box's problem under it, the pair's (from the service) under both.
        self.latitude_error = ErrorLabel(place_box)
        self.longitude_error = ErrorLabel(place_box)
        coordinates = QGridLayout()
        coordinates.addWidget(self.latitude, 0, 0)
        coordinates.addWidget(self.longitude, 0, 1)
        coordinates.addWidget(self.pick_on_map, 0, 2)
        coordinates.addWidget(self.latitude_error, 1, 0)
        coordinates.addWidget(self.longitude_error, 1, 1)
        coordinates.setVerticalSpacing(2)
        holder = QWidget(place_box)
        holder.setLayout(coordinates)
        coordinates.setContentsMargins(0, 0, 0, 0)
        self.coordinates_error = self.errors.add_row(
            place, "Latitude, &longitude", "coordinates", holder
        )
        self.errors.register("coordinates.latitude", self.latitude, self.latitude_error)
        self.errors.register("coordinates.longitude", self.longitude, self.longitude_error)

        layout = QVBoxLayout(tab)
        layout.addLayout(general)
        layout.addWidget(address_box)
        layout.addWidget(place_box)
        layout.addStretch(1)
        self.validate_button.clicked.connect(self.validate_address)
        self.accept_suggestion.clicked.connect(self.use_suggestion)
        self.pick_on_map.clicked.connect(self._pick_on_map)
        return tab

    def _hours_tab(self) -> QWidget:
        tab = QWidget(self)
        self.hours = grid([*DAY_NAMES, "Opens", "Closes"], tab)
        self.hours.setObjectName("openingHours")
        self.special = grid(["From", "Through", *DAY_NAMES, "Opens", "Closes"], tab)
        self.special.setObjectName("specialOpeningHours")
        self.hours_box = TableWithButtons(self.hours, lambda: self.add_hours(focus=True), "hours")
        self.special_box = TableWithButtons(
            self.special, lambda: self.add_special(focus=True), "date range"
        )
        hours_help = QLabel(
            "Tick the days each row applies to; times as HH:MM in the location's local time. "
            "Closing before opening is a night shift; all day is 00:00 to 24:00.",
            tab,
        )
        hours_help.setWordWrap(True)
        special_help = QLabel(
            "Hours that replace the regular ones on the dates given; leave both times empty "
            "for closed (a holiday).",
            tab,
        )
        special_help.setWordWrap(True)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        form.addRow(hours_help)
        self.errors.add_row(
            form, "&Regular opening hours", "openingHours", self.hours_box, focus=self.hours
        )
        form.addRow(special_help)
        self.errors.add_row(
            form,
            "Special opening hours (&dates)",
            "specialOpeningHours",
            self.special_box,
            focus=self.special,
        )
        layout = QVBoxLayout(tab)
        layout.addLayout(form)
        return tab

    def _more_tab(self) -> QWidget:
        tab = QWidget(self)
        self.fence = GeofenceInputs(tab)
        self.use_geofence = self.fence.use
        self.geofence_type = self.fence.type
        self.geofence_units = self.fence.units
        self.geofence_value = self.fence.value
        fence = QFormLayout()
        fence.addRow(self.use_geofence)
        self.errors.add_row(fence, "T&ype", "geofence.type", self.geofence_type)
        self.errors.add_row(fence, "&Units", "geofence.units", self.geofence_units)
        self.errors.add_row(fence, "&Value", "geofence.value", self.geofence_value)
        fence_error = ErrorLabel(tab)
        fence.addRow(fence_error)
        self.errors.register("geofence", self.use_geofence, fence_error)
        self.contacts = KeyValueTable("Contact id", "Type", tab, add_text="Add contact")
        self.contacts.setObjectName("contacts")
        contacts_form = QFormLayout()
        self.errors.add_row(contacts_form, "&Contacts", "contacts", self.contacts)
        fence_box = QGroupBox("Geofence", tab)
        fence_box.setLayout(fence)
        layout = QVBoxLayout(tab)
        layout.addWidget(fence_box)
        layout.addLayout(contacts_form)
        layout.addStretch(1)
        return tab

    def _watch_changes(self) -> None:
        edits = [
            self.name,
            self.supplied_id,
            *self.lines,
            self.city,
            self.state,
            self.postal_code,
            self.country,
            self.latitude,
            self.longitude,
        ]
        for edit in edits:
            edit.textEdited.connect(self.mark_dirty)
        for table in (self.hours, self.special):
            table.itemChanged.connect(self.mark_dirty)
            table.model().rowsInserted.connect(self.mark_dirty)
            table.model().rowsRemoved.connect(self.mark_dirty)
        self.contacts.changed.connect(self.mark_dirty)
        self.use_geofence.toggled.connect(self.mark_dirty)
        self.geofence_type.activated.connect(self.mark_dirty)
        self.geofence_units.activated.connect(self.mark_dirty)
        self.geofence_value.valueChanged.connect(self.mark_dirty)

    # --- rows ------------------------------------------------------------------------------

    def add_hours(self, hours: OpeningHours | None = None, *, focus: bool = False) -> None:
        table = self.hours
        row = table.rowCount()
        table.insertRow(row)
        days = hours.weekdays() if hours else (True,) * 5 + (False,) * 2
        for column, on in enumerate(days):
            table.setItem(row, column, check_item(on))
        table.setItem(row, OPENS, QTableWidgetItem(hours.opens or "" if hours else "08:00"))
        table.setItem(row, CLOSES, QTableWidgetItem(hours.closes or "" if hours else "17:00"))
        if focus:
            table.setCurrentCell(row, OPENS)

    def add_special(
        self, special: SpecialOpeningHours | None = None, *, focus: bool = False
    ) -> None:
        table = self.special
        row = table.rowCount()
        table.insertRow(row)
        for column, value in (
            (FROM, special.valid_from if special else None),
            (THROUGH, special.valid_through if special else None),
        ):
            edit = day_edit(table, value)
            edit.dateChanged.connect(self.mark_dirty)
            table.setCellWidget(row, column, edit)
        hours = special.hours if special else None
        days = hours.weekdays() if hours else (True,) * 7
        for offset, on in enumerate(days):
            table.setItem(row, SPECIAL_DAYS + offset, check_item(on))
        table.setItem(row, SPECIAL_DAYS + 7, QTableWidgetItem(hours.opens or "" if hours else ""))
        table.setItem(row, SPECIAL_DAYS + 8, QTableWidgetItem(hours.closes or "" if hours else ""))
        if focus:
            table.setCurrentCell(row, SPECIAL_DAYS)

    # --- loading and reading ---------------------------------------------------------------

    def load(self, location: StopLocation | None) -> None:
        """Fill the form from `location` (or the defaults of a new one); marks it clean."""
        self.location = location
        self.name.setText(location.name if location else "")
        self.supplied_id.setText(location.supplied_id or "" if location else "")
        self.version.setText(
            f"Version {location.version} (saving makes version {(location.version or 0) + 1})"
            if location
            else "New location (version 1 once saved)"
        )
        address = location.address if location else Address()
        for index, line in enumerate(self.lines):
            line.setText(address.address_lines[index] if index < len(address.address_lines) else "")
        self.city.setText(address.city or "")
        self.state.setText(address.state or "")
        self.postal_code.setText(address.postal_code or "")
        self.country.setText(address.country or "US")
        coordinates = location.coordinates if location else None
        self.latitude.setText(f"{coordinates.latitude}" if coordinates else "")
        self.longitude.setText(f"{coordinates.longitude}" if coordinates else "")
        self.hours.setRowCount(0)
        for hours in location.opening_hours if location else []:
            self.add_hours(hours)
        if location is None:
            self.add_hours()
        self.special.setRowCount(0)
        for special in location.special_opening_hours if location else []:
            self.add_special(special)
        fence = location.geofence if location else None
        self.fence.set_choice(
            FenceChoice(fence.type or "", fence.units or "", fence.value or 0)
            if fence is not None
            else None
        )
        self.contacts.set_values({})
        for contact in location.contacts if location else []:
            self.contacts.add_row(contact.contact_id or "", contact.type or "")
        self.validation.clear()
        self.accept_suggestion.setVisible(False)
        self.errors.clear()
        self.mark_clean()

    def address_wire(self) -> dict[str, Any]:
        return {
            "addressLines": [line.text() for line in self.lines if line.text().strip()],
            "city": self.city.text().strip() or None,
            "state": self.state.text().strip() or None,
            "postalCode": self.postal_code.text().strip() or None,
            "country": self.country.text().strip() or None,
        }

    def wire(self) -> dict[str, Any]:
        """The form as the wire fields of a stop location (checked by `check_location`)."""
        wire: dict[str, Any] = {
            "name": self.name.text(),
            "address": self.address_wire(),
            "suppliedId": self.supplied_id.text().strip() or None,
        }
        latitude, longitude = number(self.latitude.text()), number(self.longitude.text())
        if latitude is not None or longitude is not None:
            wire["coordinates"] = {"latitude": latitude, "longitude": longitude}
        wire["openingHours"] = [
            self._hours_row(self.hours, row, 0) for row in range(self.hours.rowCount())
        ]
        specials = []
        for row in range(self.special.rowCount()):
            hours = self._hours_row(self.special, row, SPECIAL_DAYS)
            if not hours.get("opens") and not hours.get("closes"):
                hours.pop("opens", None)
                hours.pop("closes", None)
            dates = []
            for column in (FROM, THROUGH):
                edit = self.special.cellWidget(row, column)
                dates.append(
                    edit.date().toString("yyyy-MM-dd") if isinstance(edit, QDateEdit) else None
                )
            specials.append({"hours": hours, "validFrom": dates[0], "validThrough": dates[1]})
        wire["specialOpeningHours"] = specials
        choice = self.fence.choice()
        if choice is not None:
            previous = self.location.geofence if self.location else None
            fence: dict[str, Any] = {
                "type": choice.type,
                "units": choice.units,
                "value": choice.value,
            }
            if previous is not None and previous.geometry is not None:
                fence["geometry"] = previous.geometry.wire()  # kept: not edited here
            wire["geofence"] = fence
        wire["contacts"] = [
            {"contactId": key, "type": value.strip()} for key, value in self.contacts.rows()
        ]
        if self.location is not None:
            wire["version"] = self.location.version
        return wire

    def _hours_row(self, table: QTableWidget, row: int, first_day: int) -> dict[str, Any]:
        hours: dict[str, Any] = {
            field: checked(table, row, first_day + offset)
            for offset, field in enumerate(WEEKDAY_FIELDS)
        }
        hours["opens"] = cell(table, row, first_day + 7) or None
        hours["closes"] = cell(table, row, first_day + 8) or None
        return hours

    # --- errors ----------------------------------------------------------------------------

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        """Every problem beside its field (rows of tables named), the first one's tab shown."""
        shown: dict[str, str] = {}
        # Plain words before the rows are gathered: the rules match a message's field path;
        # the form's own words where it says better.
        said = {path: form_words(path, message) for path, message in plain(problems).items()}
        for path, message in said.items():
            match = _ROW_PATH.match(path)
            if match is None:
                shown.setdefault(path, message)
                continue
            table, row, rest = match.group(1), int(match.group(2)) + 1, match.group(3) or ""
            field = _FIELD_WORDS.get(rest.split(".")[-1], "") if rest else ""
            where = f"Row {row}" + (f", {field}" if field else "")
            key = table
            shown[key] = (shown[key] + "\n" if key in shown else "") + f"{where}: {message}"
        self.general_error.setStyleSheet("color: #d0453a;")
        self.errors.show(shown, general=general)
        if shown:
            self.tabs.setCurrentIndex(self._tab_of(next(iter(shown))))

    @staticmethod
    def _tab_of(path: str) -> int:
        if path.startswith(("openingHours", "specialOpeningHours")):
            return TABS["hours"]
        if path.startswith(("geofence", "contacts")):
            return TABS["more"]
        return TABS["location"]

    # --- actions ---------------------------------------------------------------------------

    def validate_address(self) -> None:
        service = self.session.stop_locations
        try:
            address = AddressInput.model_validate(self.address_wire())
        except ValueError as exc:
            self.validation.setText(str(exc))
            return
        if service is None or self.session.client is None:
            self.validation.setText("Validating needs a connection to the service.")
            return
        self.validate_button.setEnabled(False)
        self.validation.setText("Checking…")
        self.accept_suggestion.setVisible(False)

        def done(normal: Address) -> None:
            self.validate_button.setEnabled(True)
            self.errors.show({})
            text, self.suggested = address_checked(normal, self.address_wire())
            self.validation.setText(text)
            self.accept_suggestion.setVisible(self.suggested is not None)

        def failed(error: BaseException) -> None:
            self.validate_button.setEnabled(True)
            self.validation.setText("The address cannot be valid as entered.")
            if isinstance(error, BadRequest):
                fields = {f"address.{k}": v for k, v in error.field_errors().items()}
                self.show_problems(fields)
            else:
                self.validation.setText(explain(error))

        spawn(service.validate_address(address), on_done=done, on_error=failed, name="validate")

    def use_suggestion(self) -> None:
        normal = self.suggested
        if normal is None:
            return
        for index, line in enumerate(self.lines):
            line.setText(normal.address_lines[index] if index < len(normal.address_lines) else "")
        self.city.setText(normal.city or "")
        self.state.setText(normal.state or "")
        self.postal_code.setText(normal.postal_code or "")
        self.country.setText(normal.country)
        self.accept_suggestion.setVisible(False)
        self.validation.setText("✓ Using the suggested address.")
        self.mark_dirty()

    def pick_request(self) -> PickRequest:
        """What the map picker starts from: the point typed (if it is one), the address's
        country and state, the geofence as set in the form."""
        latitude, longitude = number(self.latitude.text()), number(self.longitude.text())
        typed = {"latitude": latitude, "longitude": longitude}
        point = (
            (latitude, longitude)
            if isinstance(latitude, float)
            and isinstance(longitude, float)
            and not coordinate_problems(typed, "coordinates")
            else None
        )
        previous = self.location.geofence if self.location else None
        return PickRequest(
            point=point,
            country=self.country.text().strip() or None,
            state=self.state.text().strip() or None,
            fence=self.fence.choice(),
            geometry=previous.geometry if previous is not None else None,
            name=self.name.text(),
        )

    def _pick_on_map(self) -> None:
        if map_picker is None or self.picker is not None:
            return
        self.picker = map_picker(self, self.pick_request(), self.use_picked)
        if self.picker is not None:
            self.picker.finished.connect(self._picker_closed)

    def _picker_closed(self) -> None:
        self.picker = None

    def use_picked(self, picked: Picked) -> None:
        """The point (and geofence) chosen on the map, in the fields, still editable."""
        before = (self.latitude.text(), self.longitude.text(), self.fence.choice())
        self.latitude.setText(f"{picked.latitude:.6f}")
        self.longitude.setText(f"{picked.longitude:.6f}")
        self.fence.set_choice(picked.fence)
        if (self.latitude.text(), self.longitude.text(), self.fence.choice()) != before:
            self.mark_dirty()
        for error in (self.coordinates_error, self.latitude_error, self.longitude_error):
            error.show_message(None)

    def save(self) -> None:
        body, problems = every_problem(self.wire())
        if body is None:
            self.show_problems(problems)
            return
        service = self.session.stop_locations
        if self.can_send(service):
            location_id = self.location.id if self.location else None
            self.send(service.save(body, location_id), "save-stop-location", on_error=self._stale)

    def _stale(self, error: BaseException) -> bool:
        """Someone else saved a newer version meanwhile: both are shown, the user chooses."""
        if isinstance(error, StaleLocation):
            self.show_conflict(error)
            return True
        return False

    def show_conflict(self, stale: StaleLocation) -> None:
        dialog = StopLocationConflictDialog(stale, self)
        dialog.keepMine.connect(lambda: self._keep_mine(stale))
        dialog.takeTheirs.connect(lambda: self._take_theirs(stale))
        self.conflict = dialog
        dialog.open()

    def _keep_mine(self, stale: StaleLocation) -> None:
        service = self.session.stop_locations
        if self.can_send(service):
            # Someone may have saved yet again: then the question comes again.
            self.send(service.overwrite(stale), "overwrite", on_error=self._stale)

    def _take_theirs(self, stale: StaleLocation) -> None:
        self.load(stale.theirs)
        self.general_error.setStyleSheet("color: #2e9d5b;")
        self.general_error.show_message(
            f"Showing version {stale.theirs.version} as saved by someone else; your changes "
            "were set aside."
        )
