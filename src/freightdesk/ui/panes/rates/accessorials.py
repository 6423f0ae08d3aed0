"""The accessorial services a rate request asks the carriers to price, and the people to call
at its stops: two parts of the rate request form."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from freightdesk.models.rating import (
    OPEN_TRAILERS,
    REQUESTABLE_ACCESSORIALS,
    TRUCKLOAD_ONLY_ACCESSORIALS,
    Accessorial,
    RateStop,
)
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.row_table import RowTable, number

PATH = "rateDetail.shippingDetails.accessorials"
COLUMNS = 3
TEMPERATURE_UNITS = {"FAHRENHEIT": "°F", "CELSIUS": "°C"}
_DETAIL = re.compile(r"^\[\d+\]\.details\.(\w+)")
_DETAIL_WORDS = {"min": "lowest", "max": "highest", "unit": "unit"}

CONTACTS = "stopContacts"
CONTACT_FIELDS = ("companyName", "givenName", "familyName", "phoneNumber", "mobilePhoneNumber",
                  "email")  # fmt: skip
CONTACT_WORDS = dict(zip(CONTACT_FIELDS, ("company", "given name", "family name", "phone",
                                          "mobile", "email"), strict=True))  # fmt: skip
STOP_NAMES = ("Pickup", "Delivery")
_STOP_CONTACT = re.compile(r"^rateDetail\.routeInfo\.stops\[(\d+)\]\.contacts(?:\[(\d+)\])?(.*)$")


def _rule(code: str) -> str:
    if code == "REFRIGERATED":
        return "Truckload with a reefer trailer only."
    if code == "TARP":
        trailers = ", ".join(t.value.replace("_", " ").lower() for t in sorted(OPEN_TRAILERS))
        return f"Truckload with an open trailer only ({trailers})."
    if code in TRUCKLOAD_ONLY_ACCESSORIALS:
        return "Truckload only; LTL carriers do not offer it."
    return "Truckload and LTL."


class AccessorialPicker(QGroupBox):
    """A box per service the carriers price, and the temperature range of a reefer load.

    Registers `rateDetail.shippingDetails.accessorials` with `errors`; the service's messages
    about single accessorials are gathered there by `fold`."""

    changed = Signal()

    def __init__(self, errors: FieldErrors, parent: QWidget | None = None) -> None:
        super().__init__("Accessorial &services (priced by each carrier)", parent)
        self.setObjectName("accessorials")
        self.boxes: dict[str, QCheckBox] = {}
        self.grid = QGridLayout(self)
        self.grid.setHorizontalSpacing(16)
        self.grid.setVerticalSpacing(2)
        for code, text in REQUESTABLE_ACCESSORIALS.items():
            self._add_box(code, text)
        self.lowest = QLineEdit(self)
        self.lowest.setObjectName("temperatureMin")
        self.lowest.setPlaceholderText("lowest")
        self.highest = QLineEdit(self)
        self.highest.setObjectName("temperatureMax")
        self.highest.setPlaceholderText("highest")
        self.unit = QComboBox(self)
        self.unit.setObjectName("temperatureUnit")
        for value, text in TEMPERATURE_UNITS.items():
            self.unit.addItem(text, value)
        for edit in (self.lowest, self.highest):
            edit.setMaximumWidth(90)
        temperature = QHBoxLayout()
        temperature.setContentsMargins(0, 0, 0, 0)
        self.temperature_label = QLabel("Reefer te&mperature", self)
        self.temperature_label.setBuddy(self.lowest)
        temperature.addWidget(self.temperature_label)
        temperature.addWidget(self.lowest)
        temperature.addWidget(QLabel("to", self))
        temperature.addWidget(self.highest)
        temperature.addWidget(self.unit)
        temperature.addStretch(1)
        self.temperature = QWidget(self)
        self.temperature.setLayout(temperature)
        self.error = ErrorLabel(self)
        self._place_footer()
        # The first box takes the focus when the picker has a problem.
        errors.register(PATH, next(iter(self.boxes.values())), self.error)
        for edit in (self.lowest, self.highest):
            edit.textEdited.connect(lambda _t: self.changed.emit())
        self.unit.activated.connect(lambda _i: self.changed.emit())
        self._temperature_enabled()

    def _add_box(self, code: str, text: str) -> QCheckBox:
        box = QCheckBox(text, self)
        box.setObjectName(f"accessorial{code}")
        box.setToolTip(f"{code}. {_rule(code)}")
        box.toggled.connect(lambda _on: self.changed.emit())
        if code == "REFRIGERATED":
            box.toggled.connect(self._temperature_enabled)
        index = len(self.boxes)
        self.grid.addWidget(box, index // COLUMNS, index % COLUMNS)
        self.boxes[code] = box
        return box

    def _place_footer(self) -> None:
        rows = (len(self.boxes) + COLUMNS - 1) // COLUMNS
        self.grid.addWidget(self.temperature, rows, 0, 1, COLUMNS)
        self.grid.addWidget(self.error, rows + 1, 0, 1, COLUMNS)

    def _temperature_enabled(self, *_args: object) -> None:
        self.temperature.setEnabled(self.boxes["REFRIGERATED"].isChecked())

    def codes(self) -> list[str]:
        return [code for code, box in self.boxes.items() if box.isChecked()]

    def set_checked(self, code: str, on: bool = True) -> None:
        box = self.boxes.get(code)
        if box is None:
            # A code this app does not know (from an earlier request): kept, so the service
            # can say what it makes of it.
            box = self._add_box(code, code)
            self._place_footer()
        box.setChecked(on)

    def wire(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for code in self.codes():
            accessorial: dict[str, Any] = {"code": code}
            if code == "REFRIGERATED" and (
                self.lowest.text().strip() or self.highest.text().strip()
            ):
                details: dict[str, Any] = {"unit": self.unit.currentData()}
                for key, edit in (("min", self.lowest), ("max", self.highest)):
                    if edit.text().strip():
                        details[key] = number(edit.text())
                accessorial["details"] = details
            found.append(accessorial)
        return found

    def load(self, accessorials: Sequence[Accessorial]) -> None:
        for box in self.boxes.values():
            box.setChecked(False)
        self.lowest.clear()
        self.highest.clear()
        self.unit.setCurrentIndex(0)
        for accessorial in accessorials:
            self.set_checked(accessorial.code)
            details = accessorial.details
            if accessorial.code == "REFRIGERATED" and details is not None:
                self.lowest.setText(f"{details.min:g}" if details.min is not None else "")
                self.highest.setText(f"{details.max:g}" if details.max is not None else "")
                self.unit.setCurrentIndex(max(0, self.unit.findData(details.unit)))

    @staticmethod
    def fold(problems: dict[str, str]) -> dict[str, str]:
        """Messages about single accessorials gathered under the picker's name (the ones about
        a code name it; those about the temperature say so)."""
        shown: dict[str, str] = {}
        for path, message in problems.items():
            if not path.startswith(PATH):
                shown.setdefault(path, message)
                continue
            detail = _DETAIL.match(path[len(PATH) :])
            if detail is not None:
                word = _DETAIL_WORDS.get(detail.group(1), detail.group(1))
                message = f"Temperature, {word}: {message}"
            shown[PATH] = f"{shown[PATH]}\n{message}" if PATH in shown else message
        return shown


class StopContacts(RowTable):
    """The people to call at the pickup and the delivery, one row each (the first column says
    at which stop). Registered with `errors` as `stopContacts`."""

    def __init__(self, errors: FieldErrors, parent: QWidget | None = None) -> None:
        super().__init__(
            ["Stop", "Company", "Given name", "Family name", "Phone", "Mobile", "Email"],
            "contact",
            parent,
            choices={0: STOP_NAMES},
            defaults={0: STOP_NAMES[0]},
            widths={0: 90, 1: 130, 2: 100, 3: 100, 4: 125, 5: 125},
        )
        self.setObjectName(CONTACTS)
        self.table.setMinimumHeight(90)
        self.error = ErrorLabel(self)
        layout = self.layout()
        assert layout is not None
        layout.addWidget(self.error)
        errors.register(CONTACTS, self, self.error)
        # (stop index, contact index) -> table row, as last sent: the service's messages
        # name the contact by its place in its stop's list.
        self.rows_sent: dict[tuple[int, int], int] = {}

    def per_stop(self) -> list[list[dict[str, str]]]:
        """The contacts of the pickup and of the delivery, as the request sends them."""
        self.rows_sent.clear()
        found: list[list[dict[str, str]]] = [[] for _ in STOP_NAMES]
        for row in self.filled_rows(range(1, len(CONTACT_FIELDS) + 1)):
            stop = STOP_NAMES.index(self.text(row, 0))
            self.rows_sent[(stop, len(found[stop]))] = row
            found[stop].append(
                {
                    field: self.text(row, column)
                    for column, field in enumerate(CONTACT_FIELDS, start=1)
                    if self.text(row, column)
                }
            )
        return found

    def load(self, stops: Sequence[RateStop | None]) -> None:
        self.clear()
        for index, stop in enumerate(stops):
            for contact in stop.contacts if stop else []:
                wire = contact.wire()
                self.add_row([STOP_NAMES[index], *(str(wire.get(f) or "") for f in CONTACT_FIELDS)])

    def fold(self, problems: dict[str, str], last_stop: int) -> dict[str, str]:
        """Messages about stop contacts gathered under `stopContacts`, by table row."""
        shown: dict[str, str] = {}
        for path, message in problems.items():
            match = _STOP_CONTACT.match(path)
            if match is None:
                shown.setdefault(path, message)
                continue
            stop = 0 if int(match.group(1)) == 0 else 1 if int(match.group(1)) == last_stop else -1
            where = STOP_NAMES[stop] if stop >= 0 else f"Stop {int(match.group(1)) + 1}"
            if match.group(2) is not None:
                row = self.rows_sent.get((stop, int(match.group(2))))
                where = f"Row {row + 1}" if row is not None else where
                field = match.group(3).lstrip(".").split(".")[0]
                if field in CONTACT_WORDS:
                    where += f", {CONTACT_WORDS[field]}"
            line = f"{where}: {message}"
            shown[CONTACTS] = f"{shown[CONTACTS]}\n{line}" if CONTACTS in shown else line
        return shown
