"""The rate request form: stops (a saved location or a validated address) and the people to
call there, pickup date, the request's expiry, the truck or LTL freight with its handling units
and the accessorial services wanted, the carriers and account groups to ask, the quote types
wanted, the shipper's contact and attributes.

The service's rules are checked before sending (each problem beside its field, the tab of the
first one shown); the service's own answer is shown the same way.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from PySide6.QtCore import QDate, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.account_groups import AccountGroup, code_key, find_code
from freightdesk.models.booking import CarrierProfile
from freightdesk.models.code_words import words
from freightdesk.models.rating import (
    LoadPreference,
    QuoteTypeFilter,
    RateRequest,
    TrailerType,
)
from freightdesk.service.carrier_codes import carrier_codes
from freightdesk.service.clock import user_now
from freightdesk.service.messages import NOT_CONNECTED, explain, refusal
from freightdesk.service.rating import check_rate_request
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.rates.accessorials import AccessorialPicker, StopContacts
from freightdesk.ui.panes.rates.handling_units import (
    UNIT_WORDS,
    UNITS,
    handling_unit_table,
    unit_cells,
    unit_wires,
)
from freightdesk.ui.panes.rates.stops import StopEditor
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.carrier_field import complete_carriers
from freightdesk.ui.widgets.code_combo import add_codes
from freightdesk.ui.widgets.form_dialog import FormDialog
from freightdesk.ui.widgets.forms import ErrorLabel, plain
from freightdesk.ui.widgets.group_follower import GroupFollower, renamed
from freightdesk.ui.widgets.key_values import KeyValueTable
from freightdesk.ui.widgets.row_table import fold_rows
from freightdesk.ui.widgets.screen_fit import fitting_height
from freightdesk.ui.widgets.time_edit import UserTimeEdit, day_edit

STOPS = "rateDetail.routeInfo.stops"
TABS = {"route": 0, "freight": 1, "carriers": 2, "contact": 3}
# What the service takes when a request names no expiry (docs/spec-gaps.md).
DEFAULT_EXPIRY = timedelta(hours=72)
QUOTE_TYPES = {
    QuoteTypeFilter.ALL: "Contract and spot",
    QuoteTypeFilter.CONTRACT: "Contract rates only",
    QuoteTypeFilter.SPOT: "Spot rates only",
}


def _tab_of(path: str) -> int:
    if path.startswith(("rateDetail.shippingDetails", "rateDetail.shipmentDetails")):
        return TABS["freight"]
    if path.startswith(("capacityProvider", "otherCarriers", "quoteTypeFilter")):
        return TABS["carriers"]
    if path.startswith(("rateDetail.shipperContactInfo", "attributes", "identifiers")):
        return TABS["contact"]
    return TABS["route"]


class RateRequestFormDialog(FormDialog):
    saved = Signal(object)  # RateRequest

    discard_text = "Discard this rate request?"
    # The tab bar is made before the tabs' fields: Qt would start on it.
    starts_in_first_field = True

    def __init__(
        self,
        session: AppSession,
        template: RateRequest | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("rateRequestForm")
        self.session = session
        self.service = session.rating
        self.stop_ids = [uuid.uuid4(), uuid.uuid4()]
        self._wanted_groups: list[str] = []  # the template's, ticked once the groups are listed
        self.setWindowTitle("New rate request")
        self.setMinimumSize(860, 640)
        # Taller where the screen allows: the freight tab then shows without scrolling.
        self.resize(920, max(640, fitting_height(self, 780)))
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._scrolled(self._route_tab()), "&Route")
        self.tabs.addTab(self._scrolled(self._freight_tab()), "&Freight")
        self.tabs.addTab(self._carriers_tab(), "&Carriers")
        self.tabs.addTab(self._contact_tab(), "Contact and a&ttributes")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("&Ask for quotes")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.load(template)
        self._watch_changes()
        self._load_choices()
        # A group renamed while the form is open is ticked under its new code.
        self.group_follower = GroupFollower(session, self)
        self.group_follower.changed.connect(self.show_groups)

    # --- building --------------------------------------------------------------------------

    def _scrolled(self, widget: QWidget) -> QScrollArea:
        area = QScrollArea(self)
        area.setWidgetResizable(True)
        area.setWidget(widget)
        return area

    def _route_tab(self) -> QWidget:
        tab = QWidget(self)
        self.name = QLineEdit(tab)
        self.name.setObjectName("name")
        self.name.setPlaceholderText("e.g. Chicago to Dallas, week 32 (optional)")
        self.pickup_date = day_edit(tab)
        self.pickup_date.setObjectName("pickupDate")
        self.expires = QCheckBox("E&xpires at", tab)
        self.expires.setObjectName("expires")
        self.expiration = UserTimeEdit(tab)
        self.expiration.setObjectName("expirationDateTime")
        expiry_note = QLabel(
            "Otherwise 72 hours after asking. Quotes expire with the request.", tab
        )
        expiry_note.setEnabled(False)  # drawn as a hint
        expiry = QHBoxLayout()
        expiry.setContentsMargins(0, 0, 0, 0)
        expiry.addWidget(self.expires)
        expiry.addWidget(self.expiration)
        expiry.addWidget(expiry_note, 1)
        expiry_holder = QWidget(tab)
        expiry_holder.setLayout(expiry)
        self.expires.toggled.connect(self.expiration.setEnabled)
        general = QFormLayout()
        self.errors.add_row(general, "&Name", "name", self.name)
        self.errors.add_row(general, "Pickup &date", "rateDetail.pickupDate", self.pickup_date)
        self.errors.add_row(general, "Request expiry", "expirationDateTime", expiry_holder)
        self.pickup = StopEditor("&Pickup", f"{STOPS}[0].location", self.errors, self.service, tab)
        self.delivery = StopEditor(
            "De&livery", f"{STOPS}[1].location", self.errors, self.service, tab
        )
        for index, editor in enumerate((self.pickup, self.delivery)):
            self.errors.register(f"{STOPS}[{index}]", editor.city, editor.city_error)
        stops = QHBoxLayout()
        stops.addWidget(self.pickup)
        stops.addWidget(self.delivery)
        self.stop_contacts = StopContacts(self.errors, tab)
        contacts_label = QLabel(
            "&Stop contacts: the people to call at the pickup and the delivery", tab
        )
        contacts_label.setBuddy(self.stop_contacts.table)
        layout = QVBoxLayout(tab)
        layout.addLayout(general)
        layout.addLayout(stops)
        layout.addWidget(contacts_label)
        layout.addWidget(self.stop_contacts)
        layout.addStretch(1)
        return tab

    def _freight_tab(self) -> QWidget:
        tab = QWidget(self)
        self.truckload = QRadioButton("&Truckload (a truck for this freight)", tab)
        self.truckload.setObjectName("truckload")
        self.ltl = QRadioButton("&Less than truckload (rated by weight and class)", tab)
        self.ltl.setObjectName("ltl")
        self.mode = QButtonGroup(tab)
        self.mode.addButton(self.truckload)
        self.mode.addButton(self.ltl)
        modes = QHBoxLayout()
        modes.addWidget(self.truckload)
        modes.addWidget(self.ltl)
        modes.addStretch(1)

        self.truck_box = QGroupBox("Truck", tab)
        self.load_preference = QComboBox(self.truck_box)
        self.load_preference.setObjectName("loadPreference")
        for preference in LoadPreference:
            self.load_preference.addItem(
                "Full truckload" if preference is LoadPreference.FULL else "Partial load",
                preference.value,
            )
        self.trailer_type = QComboBox(self.truck_box)
        self.trailer_type.setObjectName("trailerType")
        for trailer in TrailerType:
            self.trailer_type.addItem(words(trailer.value), trailer.value)
        self.trailer_length = QDoubleSpinBox(self.truck_box)
        self.trailer_length.setObjectName("trailerLength")
        self.trailer_length.setRange(0, 10_000)
        self.trailer_length.setDecimals(1)
        self.trailer_length.setSpecialValueText("any length")
        self.length_unit = QComboBox(self.truck_box)
        add_codes(self.length_unit, ("FT", "M"))  # "Feet" shown, FT sent
        length = QHBoxLayout()
        length.setContentsMargins(0, 0, 0, 0)
        length.addWidget(self.trailer_length)
        length.addWidget(self.length_unit)
        length.addStretch(1)
        length_holder = QWidget(self.truck_box)
        length_holder.setLayout(length)
        truck = QFormLayout(self.truck_box)
        truck_path = "rateDetail.shippingDetails.truck"
        self.errors.add_row(truck, "L&oad", f"{truck_path}.loadPreference", self.load_preference)
        self.errors.add_row(truck, "Trailer t&ype", f"{truck_path}.trailerType", self.trailer_type)
        self.errors.add_row(truck, "Trailer len&gth", f"{truck_path}.trailerLength", length_holder)

        self.units = handling_unit_table(tab)
        help_text = QLabel(
            "Weight and dimensions are those of one unit. LTL needs a weight, and a class or "
            "the dimensions (the class then follows from the density).",
            tab,
        )
        help_text.setWordWrap(True)
        units_label = QLabel("&Handling units", tab)
        units_label.setBuddy(self.units.table)
        # Every error label is placed in the tab: one registered without a place would be drawn
        # over the tab's corner.
        units_error = ErrorLabel(tab)
        self.errors.register(UNITS, self.units, units_error)
        self.errors.register("rateDetail.shipmentDetails", self.units, units_error)
        mode_error = ErrorLabel(tab)
        self.errors.register("rateDetail.shippingDetails", self.truckload, mode_error)
        self.accessorials = AccessorialPicker(self.errors, tab)

        layout = QVBoxLayout(tab)
        layout.addLayout(modes)
        layout.addWidget(mode_error)
        layout.addWidget(self.truck_box)
        layout.addWidget(help_text)
        layout.addWidget(units_label)
        layout.addWidget(self.units, 1)  # the table takes the room left
        layout.addWidget(units_error)
        layout.addWidget(self.accessorials)
        self.truckload.toggled.connect(self._mode_changed)
        return tab

    def _carriers_tab(self) -> QWidget:
        tab = QWidget(self)
        self.quote_types = QComboBox(tab)
        self.quote_types.setObjectName("quoteTypeFilter")
        for value, text in QUOTE_TYPES.items():
            self.quote_types.addItem(text, value.value)
        self.carriers = QListWidget(tab)
        self.carriers.setObjectName("carriers")
        self.other_carriers = QLineEdit(tab)
        self.other_carriers.setObjectName("otherCarriers")
        self.other_carriers.setPlaceholderText("Other carriers by name or SCAC, e.g. ABCD, EFGH")
        complete_carriers(self.other_carriers, many=True)
        self.groups = QListWidget(tab)
        self.groups.setObjectName("accountGroups")
        self.groups.setMaximumHeight(120)
        # At its height under its label, not centred in the row's room.
        self.groups.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.choices_note = QLabel(tab)
        self.choices_note.setWordWrap(True)
        hint = QLabel(
            "Tick the carriers to ask, or account groups (each asks the carriers in it). "
            "Nothing ticked asks every carrier you are connected to that hauls this freight.",
            tab,
        )
        hint.setWordWrap(True)
        form = QFormLayout(tab)
        form.addRow(hint)
        self.errors.add_row(form, "&Quotes wanted", "quoteTypeFilter", self.quote_types)
        self.errors.add_row(form, "Ca&rriers", "capacityProviderIdentifiers", self.carriers)
        self.errors.add_row(form, "&Other carriers", "otherCarriers", self.other_carriers)
        self.errors.add_row(form, "Account &groups", "capacityProviderAccountGroups", self.groups)
        form.addRow(self.choices_note)
        return tab

    def _contact_tab(self) -> QWidget:
        tab = QWidget(self)
        box = QGroupBox("Shipper contact (the carrier's point of contact)", tab)
        contact = QFormLayout(box)
        path = "rateDetail.shipperContactInfo"
        self.contact: dict[str, QLineEdit] = {}
        for field, label in (
            ("companyName", "Co&mpany"),
            ("givenName", "Given name"),
            ("familyName", "Family name"),
            ("phoneNumber", "&Phone"),
            ("mobilePhoneNumber", "Mobile"),
            ("email", "&Email"),
        ):
            edit = QLineEdit(box)
            edit.setObjectName(field)
            self.contact[field] = edit
            self.errors.add_row(contact, label, f"{path}.{field}", edit)
        self.attributes = KeyValueTable("Name", "Values (comma-separated)", tab, add_text="Add")
        self.attributes.setObjectName("attributes")
        attributes = QFormLayout()
        attributes.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        note = QLabel(
            "Attributes are yours (e.g. customer, cost centre); carriers do not see them."
        )
        note.setWordWrap(True)
        attributes.addRow(note)
        self.errors.add_row(attributes, "&Attributes", "attributes", self.attributes)
        layout = QVBoxLayout(tab)
        layout.addWidget(box)
        layout.addLayout(attributes, 1)
        return tab

    def _watch_changes(self) -> None:
        edits = [self.name, self.other_carriers, *self.contact.values()]
        for edit in edits:
            edit.textEdited.connect(self.mark_dirty)
        for signal in (
            self.pickup.changed,
            self.delivery.changed,
            self.stop_contacts.changed,
            self.expires.toggled,
            self.expiration.dateTimeChanged,
            self.accessorials.changed,
            self.units.changed,
            self.attributes.changed,
            self.pickup_date.dateChanged,
            self.truckload.toggled,
            self.load_preference.activated,
            self.trailer_type.activated,
            self.trailer_length.valueChanged,
            self.quote_types.activated,
            self.carriers.itemChanged,
            self.groups.itemChanged,
        ):
            signal.connect(self.mark_dirty)

    def _mode_changed(self, *_args: object) -> None:
        self.truck_box.setEnabled(self.truckload.isChecked())

    # --- choices from the service ----------------------------------------------------------

    def _load_choices(self) -> None:
        service = self.service
        if service is None or self.session.client is None:
            self.choices_note.setText("Not connected: the carriers and groups cannot be listed.")
            return
        spawn(
            service.carriers(),
            on_done=self.show_carriers,
            on_error=lambda error: self.choices_note.setText(explain(error)),
            name="rate-form-carriers",
            owner=self,
        )
        spawn(
            service.account_groups(),
            on_done=self.show_groups,
            on_error=lambda error: self.choices_note.setText(explain(error)),
            name="rate-form-groups",
            owner=self,
        )
        for editor in (self.pickup, self.delivery):
            editor.search()

    def show_carriers(self, carriers: list[CarrierProfile]) -> None:
        wanted = self._wanted_scacs
        self.carriers.blockSignals(True)
        self.carriers.clear()
        for carrier in carriers:
            modes = ", ".join(m.value for m in carrier.modes)
            item = QListWidgetItem(f"{carrier.name} ({carrier.scac}) — {modes}")
            item.setData(Qt.ItemDataRole.UserRole, carrier.scac)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = carrier.scac in wanted
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.carriers.addItem(item)
        listed = {c.scac for c in carriers}
        others = [s for s in wanted if s not in listed]
        if not self.other_carriers.text().strip() and others:
            self.other_carriers.setText(", ".join(others))
        self.carriers.blockSignals(False)
        if not carriers:
            self.choices_note.setText(
                "This service does not list its carriers: name them under Other carriers, by "
                "name or SCAC."
            )

    def show_groups(
        self, groups: Sequence[AccountGroup], renames: dict[str, str] | None = None
    ) -> None:
        """`groups` to tick, those ticked kept ticked (by their new code when `renames`, from
        `renamed_codes`, renames them); before the first list, those the template named."""
        listed = any(
            self.groups.item(row).data(Qt.ItemDataRole.UserRole)
            for row in range(self.groups.count())
        )
        texts = [f"{group.code} — {group.name}" for group in groups]
        if listed and texts == [self.groups.item(r).text() for r in range(self.groups.count())]:
            return  # as shown (the form's own answer, then the list's): ticks and row stay
        renames = renames or {}
        self._wanted_groups = [renamed(code, renames) for code in self._wanted_groups]
        if listed:
            wanted = [renamed(code, renames) for code in self._checked(self.groups)]
        else:
            wanted = self._wanted_groups
        current = self.groups.currentItem()
        at = renamed(str(current.data(Qt.ItemDataRole.UserRole) or ""), renames) if current else ""
        self.groups.blockSignals(True)
        self.groups.clear()
        for group, text in zip(groups, texts, strict=True):
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, group.code)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = find_code(wanted, group.code) is not None
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.groups.addItem(item)
            if at and code_key(group.code) == code_key(at):
                self.groups.setCurrentItem(item)  # the keyboard stays on the same group
        if not groups:
            placeholder = QListWidgetItem("No account groups yet (Account groups pane)")
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self.groups.addItem(placeholder)
        self.groups.blockSignals(False)

    @staticmethod
    def _checked(widget: QListWidget) -> list[str]:
        found = []
        for row in range(widget.count()):
            item = widget.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                found.append(str(item.data(Qt.ItemDataRole.UserRole)))
        return found

    def check_carrier(self, scac: str, on: bool = True) -> None:
        for row in range(self.carriers.count()):
            item = self.carriers.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == scac:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def check_group(self, code: str, on: bool = True) -> None:
        for row in range(self.groups.count()):
            item = self.groups.item(row)
            if code_key(item.data(Qt.ItemDataRole.UserRole) or "") == code_key(code):
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    # --- loading and reading ---------------------------------------------------------------

    def load(self, template: RateRequest | None) -> None:
        """Fill the form from an earlier request (to ask again), or with the defaults."""
        detail = template.rate_detail if template else None
        stops = detail.route_info.stops if detail else []
        self.name.setText(template.name or "" if template else "")
        self.pickup.load(stops[0] if stops else None)
        self.delivery.load(stops[-1] if len(stops) > 1 else None)
        self.stop_contacts.load(
            [stops[0] if stops else None, stops[-1] if len(stops) > 1 else None]
        )
        today = date.today()
        pickup = detail.pickup_date if detail and detail.pickup_date else today
        pickup = max(pickup, today)
        self.pickup_date.setDate(QDate(pickup.year, pickup.month, pickup.day))
        # A request asked again gets an expiry of its own: the earlier one has passed or will.
        self.expires.setChecked(False)
        self.expiration.setEnabled(False)
        self.expiration.set_value((user_now() + DEFAULT_EXPIRY).replace(second=0, microsecond=0))
        shipping = detail.shipping_details if detail else None
        self.accessorials.load(shipping.accessorials if shipping else [])
        self.ltl.setChecked(bool(shipping and shipping.ltl is not None))
        self.truckload.setChecked(not self.ltl.isChecked())
        truck = shipping.truck if shipping else None
        if truck is not None:
            self.load_preference.setCurrentIndex(
                self.load_preference.findData(truck.load_preference.value)
            )
            self.trailer_type.setCurrentIndex(self.trailer_type.findData(truck.trailer_type.value))
            if truck.trailer_length is not None:
                self.trailer_length.setValue(truck.trailer_length.value)
                self.length_unit.setCurrentIndex(
                    max(0, self.length_unit.findData(truck.trailer_length.unit.value))
                )
        self.units.clear()
        for shipment in detail.shipment_details if detail else []:
            for unit in shipment.handling_units:
                self.units.add_row(unit_cells(unit))
        self._wanted_scacs = (
            [c.value for c in template.capacity_provider_identifiers] if (template) else []
        )
        self._wanted_groups = (
            [g.code for g in template.capacity_provider_account_groups] if template else []
        )
        quote_filter = template.quote_type_filter if template else QuoteTypeFilter.ALL
        self.quote_types.setCurrentIndex(self.quote_types.findData(quote_filter.value))
        contact = (
            detail.shipper_contact_info.wire() if detail and detail.shipper_contact_info else {}
        )
        for field, edit in self.contact.items():
            edit.setText(str(contact.get(field) or ""))
        self.attributes.set_values({})
        for attribute in template.attributes if template else []:
            values = attribute.values or ([attribute.value] if attribute.value else [])
            self.attributes.add_row(attribute.name, ", ".join(values))
        self._mode_changed()
        self.errors.clear()
        self.mark_clean()

    def wire(self) -> dict[str, Any]:
        """The form as the wire fields of a rate request (checked by `check_rate_request`)."""
        contacts = self.stop_contacts.per_stop()
        stops: list[dict[str, Any]] = [
            {
                "id": str(self.stop_ids[0]),
                "type": "PICKUP",
                "location": self.pickup.location_wire(),
            },
            {
                "id": str(self.stop_ids[1]),
                "type": "DELIVERY",
                "location": self.delivery.location_wire(),
            },
        ]
        for stop, people in zip(stops, contacts, strict=True):
            if people:
                stop["contacts"] = people
        detail: dict[str, Any] = {
            "routeInfo": {"stops": stops},
            "pickupDate": self.pickup_date.date().toString("yyyy-MM-dd"),
        }
        if self.truckload.isChecked():
            truck: dict[str, Any] = {
                "loadPreference": self.load_preference.currentData(),
                "trailerType": self.trailer_type.currentData(),
            }
            if self.trailer_length.value() > 0:
                truck["trailerLength"] = {
                    "value": self.trailer_length.value(),
                    "unit": self.length_unit.currentData(),
                }
            detail["shippingDetails"] = {"truck": truck}
        else:
            detail["shippingDetails"] = {"ltl": {}}
        accessorials = self.accessorials.wire()
        if accessorials:
            detail["shippingDetails"]["accessorials"] = accessorials
        units = unit_wires(self.units)
        if units:
            detail["shipmentDetails"] = [
                {
                    "pickupStopId": str(self.stop_ids[0]),
                    "deliveryStopId": str(self.stop_ids[1]),
                    "handlingUnits": units,
                }
            ]
        contact = {k: e.text().strip() for k, e in self.contact.items() if e.text().strip()}
        if contact:
            detail["shipperContactInfo"] = contact
        wire: dict[str, Any] = {"rateDetail": detail}
        name = self.name.text().strip()
        if name:
            wire["name"] = name
        if self.expires.isChecked():
            wire["expirationDateTime"] = self.expiration.value().isoformat()
        # The carriers typed that name none stay out: `save` refuses them beside the field.
        scacs = self._checked(self.carriers) + carrier_codes(self.other_carriers.text())[0]
        wire["capacityProviderIdentifiers"] = [
            {"type": "CARRIER_SCAC", "value": s} for s in dict.fromkeys(scacs)
        ]
        wire["capacityProviderAccountGroups"] = [{"code": c} for c in self._checked(self.groups)]
        wire["quoteTypeFilter"] = self.quote_types.currentData()
        wire["attributes"] = [
            {"name": key, "values": [v.strip() for v in value.split(",") if v.strip()]}
            for key, value in self.attributes.rows()
        ]
        return wire

    # --- errors and saving -----------------------------------------------------------------

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        # Plain words before the rows are gathered: the rules match a message's field path.
        problems = self.stop_contacts.fold(self.accessorials.fold(plain(problems)), last_stop=1)
        shown = fold_rows(
            problems,
            {
                UNITS: (UNITS, UNIT_WORDS),
                "attributes": ("attributes", {"name": "name", "values": "values"}),
                "capacityProviderIdentifiers": ("capacityProviderIdentifiers", {"value": "SCAC"}),
                "capacityProviderAccountGroups": ("capacityProviderAccountGroups", {}),
            },
        )
        self.errors.show(shown, general=general)
        if shown:
            # The first tab with a problem (problems come malformed fields first, rules next).
            self.tabs.setCurrentIndex(min(_tab_of(path) for path in shown))
            self._reveal_errors()

    def _reveal_errors(self) -> None:
        """Scroll the tab shown to its first problem (a tab may be taller than the dialog)."""
        area = self.tabs.currentWidget()
        if not isinstance(area, QScrollArea):
            return
        inside = area.widget()
        if inside is None:
            return
        shown = [e for e in inside.findChildren(ErrorLabel) if not e.isHidden()]
        if shown:
            first = min(shown, key=lambda e: e.mapTo(inside, e.rect().topLeft()).y())
            area.ensureWidgetVisible(first, 50, 80)

    def save(self) -> None:
        request, problems = check_rate_request(self.wire())
        others_problem = carrier_codes(self.other_carriers.text())[1]
        if others_problem:
            request, problems = None, {**problems, "otherCarriers": others_problem}
        if request is None:
            self.show_problems(problems)
            return
        service = self.service
        if service is None or self.session.client is None:
            self.show_problems({}, general=NOT_CONNECTED)
            return
        self.buttons.setEnabled(False)
        self.errors.clear()

        def failed(error: BaseException) -> None:
            self.buttons.setEnabled(True)
            self.show_problems(*refusal(error))

        spawn(
            service.create(request),
            on_done=self._saved,
            on_error=failed,
            name="create-rate-request",
            owner=self,
        )

    def _saved(self, request: RateRequest) -> None:
        self.buttons.setEnabled(True)
        self.mark_clean()
        self.saved.emit(request)
        self.accept()
