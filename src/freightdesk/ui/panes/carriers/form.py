"""The form of one carrier's profile: how the simulated carrier answers quotes and bookings,
what it hauls and in which units, and the contacts a volume LTL dispatch falls back on.

A save replaces the tenant's settings for the carrier as a whole, so the form sends every
field it shows, as shown (a blank contact line is not sent), and holds no field it does not
show: what the service had is what the form shows after a look-up.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import (
    CarrierBehaviour,
    CarrierMode,
    CarrierProfile,
    DistanceUnit,
    SystemOfMeasurement,
)
from freightdesk.models.code_words import code_text, mode_text
from freightdesk.models.common import Currency
from freightdesk.models.durations import duration_text
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.group_follower import renamed

BEHAVIOUR_TEXT = {
    CarrierBehaviour.ACCEPT: "Accept: books what it is sent",
    CarrierBehaviour.DECLINE: "Decline: rejects with a reason and notes",
    CarrierBehaviour.REVIEW: "Review: keeps it under review until the carrier answers",
    CarrierBehaviour.SLOW: "Slow: accepts, but late (15 minutes unless a delay is set)",
}
ROLES = (("origin", "Origin"), ("destination", "Destination"), ("requester", "Requester"))
CONTACT_PARTS = (
    ("companyName", "Company"),
    ("contactName", "Contact name"),
    ("phoneNumber", "Phone"),
    ("phoneNumberCountryCode", "Phone country code"),
    ("phoneNumber2", "Second phone"),
    ("phoneNumber2CountryCode", "Second phone country code"),
    ("faxNumber", "Fax"),
    ("faxNumberCountryCode", "Fax country code"),
    ("email", "Email"),
)
MAX_DELAY_SECONDS = 7 * 86400  # the model's limits, shown by the spin boxes
MAX_QUOTE_DELAY_SECONDS = 60
FIELD_WIDTH = 200  # numbers and short codes: a narrow box reads better than a form-wide one


def _span_hint(seconds: float) -> str:
    """A delay of a minute or more in days, hours and minutes (432000 s: "= 5 d")."""
    return f"= {duration_text(timedelta(seconds=seconds))}" if seconds >= 60 else ""


def _with_hint(field: QWidget, hint: QLabel) -> QWidget:
    holder = QWidget(field.parentWidget())
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(field)
    row.addWidget(hint, 1)
    return holder


def _codes(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _combo(parent: QWidget, name: str, values: dict[str, str]) -> QComboBox:
    combo = QComboBox(parent)
    combo.setObjectName(name)
    for value, text in values.items():
        combo.addItem(text, value)
    return combo


class CarrierProfileForm(QWidget):
    """Shows one profile (`load`) and reads what it shows (`wire`); `changed` on any edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("carrierProfileForm")
        self.general_error = ErrorLabel(self)
        self.general_error.setObjectName("generalError")
        self.errors = FieldErrors(self.general_error)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._answers_tab(), "&Profile")
        self.tabs.addTab(self._contacts_tab(), "Default c&ontacts")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.general_error)
        self._watch()

    # --- building --------------------------------------------------------------------------

    def _answers_tab(self) -> QWidget:
        area = QScrollArea(self)
        area.setWidgetResizable(True)
        tab = QWidget(area)
        self.name = QLineEdit(tab)
        self.name.setObjectName("name")
        self.behaviour = _combo(tab, "behaviour", {b.value: t for b, t in BEHAVIOUR_TEXT.items()})
        self.response_delay = QDoubleSpinBox(tab)
        self.response_delay.setObjectName("responseDelaySeconds")
        self.response_delay.setRange(0, MAX_DELAY_SECONDS)
        self.response_delay.setDecimals(1)
        self.response_delay.setSuffix(" s")
        self.response_delay.setToolTip("How long the carrier takes to answer a booking.")
        self.response_delay_hint = QLabel(tab)
        self.response_delay_hint.setObjectName("responseDelayHint")
        self.response_delay.valueChanged.connect(
            lambda value: self.response_delay_hint.setText(_span_hint(value))
        )
        self.quote_delay = QDoubleSpinBox(tab)
        self.quote_delay.setObjectName("quoteDelaySeconds")
        self.quote_delay.setRange(0, MAX_QUOTE_DELAY_SECONDS)
        self.quote_delay.setDecimals(3)
        self.quote_delay.setSingleStep(0.01)
        self.quote_delay.setSuffix(" s")
        self.quote_delay.setToolTip("How long the carrier takes to answer a rate request.")
        self.modes: dict[CarrierMode, QCheckBox] = {}
        modes = QWidget(tab)
        modes_row = QHBoxLayout(modes)
        modes_row.setContentsMargins(0, 0, 0, 0)
        for mode in CarrierMode:
            box = QCheckBox(mode_text(mode), modes)
            box.setObjectName(f"mode{mode.value}")
            self.modes[mode] = box
            modes_row.addWidget(box)
        modes_row.addStretch(1)
        self.account_groups = QLineEdit(tab)
        self.account_groups.setObjectName("accountGroupCodes")
        self.account_groups.setPlaceholderText("codes of your account groups, comma-separated")
        self.account_groups.setToolTip(
            "A rate request naming one of these account groups asks this carrier."
        )
        self.alternate_scacs = QLineEdit(tab)
        self.alternate_scacs.setObjectName("alternateScacs")
        self.alternate_scacs.setPlaceholderText("other SCACs it dispatches under, comma-separated")
        self.distance_unit = _combo(
            tab, "distanceUnit", {u.value: code_text(u.value) for u in DistanceUnit}
        )
        self.currency = _combo(tab, "currency", {c.value: c.value for c in Currency})
        self.measurement = _combo(
            tab, "systemOfMeasurement", {s.value: s.value.title() for s in SystemOfMeasurement}
        )
        self.max_line_items = QSpinBox(tab)
        self.max_line_items.setObjectName("maxLineItems")
        self.max_line_items.setRange(1, 100)
        for narrow in (
            self.response_delay,
            self.quote_delay,
            self.max_line_items,
            self.distance_unit,
            self.currency,
            self.measurement,
        ):
            narrow.setFixedWidth(FIELD_WIDTH)
        self.enhanced_units = QCheckBox("Ta&kes enhanced handling units", tab)
        self.enhanced_units.setObjectName("supportsEnhancedHandlingUnits")
        self.terms_overrides = QCheckBox("Allo&ws overrides of direction and payment terms", tab)
        self.terms_overrides.setObjectName("acceptsTermsOverrides")

        form = QFormLayout(tab)
        self.errors.add_row(form, "&Name", "name", self.name)
        self.errors.add_row(form, "&Behaviour", "behaviour", self.behaviour)
        self.errors.add_row(
            form,
            "&Answers a booking after",
            "responseDelaySeconds",
            _with_hint(self.response_delay, self.response_delay_hint),
            focus=self.response_delay,
        )
        self.errors.add_row(form, "Answers a &quote after", "quoteDelaySeconds", self.quote_delay)
        self.errors.add_row(form, "&Modes", "modes", modes)
        self.errors.add_row(form, "Account &groups", "accountGroupCodes", self.account_groups)
        self.errors.add_row(form, "Alternate S&CACs", "alternateScacs", self.alternate_scacs)
        self.errors.add_row(form, "D&istance unit", "distanceUnit", self.distance_unit)
        self.errors.add_row(form, "Currenc&y", "currency", self.currency)
        self.errors.add_row(form, "&Units", "systemOfMeasurement", self.measurement)
        self.errors.add_row(form, "Ma&x line items", "maxLineItems", self.max_line_items)
        self.errors.add_row(form, "", "supportsEnhancedHandlingUnits", self.enhanced_units)
        self.errors.add_row(form, "", "acceptsTermsOverrides", self.terms_overrides)
        area.setWidget(tab)
        return area

    def _contacts_tab(self) -> QWidget:
        area = QScrollArea(self)
        area.setWidgetResizable(True)
        tab = QWidget(area)
        note = QLabel(
            "Used for a volume LTL dispatch to this carrier when a location gives no contact "
            "of its own. Leave a column empty for no default.",
            tab,
        )
        note.setWordWrap(True)
        grid = QGridLayout()
        self.contacts: dict[str, dict[str, QLineEdit]] = {}
        for column, (role, title) in enumerate(ROLES, start=1):
            grid.addWidget(QLabel(f"<b>{title}</b>", tab), 0, column)
            self.contacts[role] = {}
            for row, (key, label) in enumerate(CONTACT_PARTS, start=1):
                if column == 1:
                    grid.addWidget(QLabel(label, tab), row * 2 - 1, 0)
                edit = QLineEdit(tab)
                edit.setObjectName(f"defaultContacts.{role}.{key}")
                grid.addWidget(edit, row * 2 - 1, column)
                error = ErrorLabel(tab)
                grid.addWidget(error, row * 2, column)
                self.errors.register(f"defaultContacts.{role}.{key}", edit, error)
                self.contacts[role][key] = edit
        layout = QVBoxLayout(tab)
        layout.addWidget(note)
        layout.addLayout(grid)
        layout.addStretch(1)
        area.setWidget(tab)
        return area

    def _watch(self) -> None:
        edits = [self.name, self.account_groups, self.alternate_scacs]
        edits += [edit for role in self.contacts.values() for edit in role.values()]
        for edit in edits:
            edit.textEdited.connect(self.changed)
        for combo in (self.behaviour, self.distance_unit, self.currency, self.measurement):
            combo.activated.connect(self.changed)
        for spin in (self.response_delay, self.quote_delay, self.max_line_items):
            spin.valueChanged.connect(self.changed)
        for box in [*self.modes.values(), self.enhanced_units, self.terms_overrides]:
            box.toggled.connect(self.changed)

    # --- showing and reading ---------------------------------------------------------------

    def load(self, profile: CarrierProfile) -> None:
        """Show `profile` as the service answered it (signals held: not a user's edit)."""
        widgets = self.findChildren(QWidget)
        blocked = [w.blockSignals(True) for w in widgets]
        try:
            self.name.setText(profile.name)
            self._choose(self.behaviour, profile.behaviour.value)
            self.response_delay.setValue(profile.response_delay_seconds)
            self.quote_delay.setValue(profile.quote_delay_seconds)
            for mode, box in self.modes.items():
                box.setChecked(mode in profile.modes)
            self.account_groups.setText(", ".join(profile.account_group_codes))
            self.alternate_scacs.setText(", ".join(profile.alternate_scacs))
            self._choose(self.distance_unit, profile.distance_unit.value)
            self._choose(self.currency, profile.currency.value)
            self._choose(self.measurement, profile.system_of_measurement.value)
            self.max_line_items.setValue(profile.max_line_items)
            self.enhanced_units.setChecked(profile.supports_enhanced_handling_units)
            self.terms_overrides.setChecked(profile.accepts_terms_overrides)
            contacts = profile.default_contacts
            for role, edits in self.contacts.items():
                contact = getattr(contacts, role) if contacts is not None else None
                wire = contact.wire() if contact is not None else {}
                for key, edit in edits.items():
                    edit.setText(str(wire.get(key) or ""))
        finally:
            for widget, was in zip(widgets, blocked, strict=True):
                widget.blockSignals(was)
        self.response_delay_hint.setText(_span_hint(profile.response_delay_seconds))
        self.errors.clear()

    def rename_groups(self, renames: dict[str, str]) -> None:
        """Name the account groups renamed since the profile was read by their new codes
        (`renames` from `renamed_codes`): the service renamed them in the profile too, and a
        save would send the old ones. The rest of the field, as typed, stays."""
        codes = _codes(self.account_groups.text())
        named = [renamed(code, renames) for code in codes]
        if named != codes:
            self.account_groups.setText(", ".join(named))

    @staticmethod
    def _choose(combo: QComboBox, value: str) -> None:
        combo.setCurrentIndex(max(0, combo.findData(value)))

    def wire(self) -> dict[str, Any]:
        """The body a save sends: every field as shown."""
        wire: dict[str, Any] = {
            "name": self.name.text().strip(),
            "behaviour": self.behaviour.currentData(),
            "responseDelaySeconds": self.response_delay.value(),
            "quoteDelaySeconds": self.quote_delay.value(),
            "accountGroupCodes": _codes(self.account_groups.text()),
            "modes": [mode.value for mode, box in self.modes.items() if box.isChecked()],
            "distanceUnit": self.distance_unit.currentData(),
            "currency": self.currency.currentData(),
            "systemOfMeasurement": self.measurement.currentData(),
            "maxLineItems": self.max_line_items.value(),
            "supportsEnhancedHandlingUnits": self.enhanced_units.isChecked(),
            "acceptsTermsOverrides": self.terms_overrides.isChecked(),
            "alternateScacs": _codes(self.alternate_scacs.text()),
        }
        contacts = {}
        for role, edits in self.contacts.items():
            typed = {key: edit.text().strip() for key, edit in edits.items()}
            given = {key: text for key, text in typed.items() if text}
            if given:
                contacts[role] = given
        if contacts:
            wire["defaultContacts"] = contacts
        return wire

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        """Each problem beside its field, on the tab that holds it."""
        first = next(iter(problems), "")
        self.tabs.setCurrentIndex(1 if first.startswith("defaultContacts") else 0)
        self.errors.show(problems, general=general)
