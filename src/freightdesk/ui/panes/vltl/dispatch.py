"""Dispatch a volume LTL quote: the locations with their contacts (left out where the carrier
account has a default contact), the pickup window as hh:mm, the quote number, an emergency
contact for hazardous freight, notes and references. Every rule of the interface's dispatch
section is checked beside its field before sending (`service.vltl.check_dispatch`, the
models' rules); what the service refuses goes beside the field it names."""

from __future__ import annotations

import copy
import html
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import CarrierProfile
from freightdesk.models.code_words import code_text
from freightdesk.models.vltl import VLTL_ACCESSORIAL_NAMES, RateQuote
from freightdesk.service.messages import refusal
from freightdesk.service.vltl import LastDispatch, VltlService, check_dispatch
from freightdesk.ui.panes.vltl.fields import (
    AddressFields,
    ContactFields,
    WindowFields,
)
from freightdesk.ui.panes.vltl.form import ITEM_WORDS
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import FormDialog
from freightdesk.ui.widgets.forms import ErrorLabel, plain
from freightdesk.ui.widgets.row_table import fold_rows

LOCATIONS = (
    ("originLocation", "Pickup at", "origin"),
    ("destinationLocation", "Deliver to", "destination"),
    ("requesterLocation", "Requested by", "requester"),
)
IDENTIFIERS = (("BILL_OF_LADING", "&Bill of lading"), ("PURCHASE_ORDER", "P&urchase order"))


class DispatchDialog(FormDialog):
    dispatched = Signal(object)  # LastDispatch

    discard_text = "Discard this dispatch?"

    def __init__(
        self,
        service: VltlService,
        quote: RateQuote,
        title: str,
        draft: dict[str, Any],
        carrier: CarrierProfile | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("vltlDispatch")
        self.setWindowTitle(f"Dispatch to {quote.carrier_name}")
        self.service = service
        self.quote = quote
        self.draft = copy.deepcopy(draft)
        self.defaults = carrier.default_contacts if carrier else None
        self.resize(960, 680)
        self.title = QLabel(f"<b>{html.escape(title)}</b>", self)
        self.title.setObjectName("quoteTitle")
        inside = QWidget(self)
        grid = QGridLayout(inside)
        self.addresses: dict[str, AddressFields] = {}
        self.contacts: dict[str, ContactFields] = {}
        for column, (path, title, role) in enumerate(LOCATIONS):
            box = QGroupBox(title, inside)
            form = QFormLayout(box)
            self.addresses[path] = AddressFields(form, self.errors, f"{path}.address", box)
            default = getattr(self.defaults, role) if self.defaults else None
            if default is not None:
                hint = QLabel("Contact: the account's default unless given here", box)
                hint.setWordWrap(True)
                form.addRow(hint)
            parts = ("companyName", "contactName", "phoneNumber") + (
                ("email",) if role == "requester" else ()
            )
            self.contacts[path] = ContactFields(
                form, self.errors, f"{path}.contact", box, parts=parts
            )
            grid.addWidget(box, 0, column)

        general = QGroupBox("Dispatch", inside)
        form = QFormLayout(general)
        self.quote_number = QLineEdit(general)
        self.quote_number.setObjectName("capacityProviderQuoteNumber")
        self.errors.add_row(form, "&Quote number", "capacityProviderQuoteNumber", self.quote_number)
        self.carrier_code = QComboBox(general)
        self.carrier_code.setObjectName("carrierCode")
        scacs = [carrier.scac, *carrier.alternate_scacs] if carrier else [quote.carrier_code]
        if len(scacs) > 1:
            self.carrier_code.addItem("Choose the SCAC that picks up", None)
        for scac in scacs:
            self.carrier_code.addItem(scac, scac)
        self.carrier_code.setEnabled(len(scacs) > 1)
        if len(scacs) <= 1:
            self.carrier_code.setToolTip("This carrier picks up under one SCAC")
        self.errors.add_row(form, "Picking-up &SCAC", "carrierCode", self.carrier_code)
        self.pickup = WindowFields("pickupWindow", general)
        self.pickup.register(self.errors, form, "&Pickup day, from, to")
        self.delivery_wanted = QCheckBox("Deli&very window", general)
        self.delivery_wanted.setObjectName("deliveryWanted")
        self.delivery = WindowFields("deliveryWindow", general)
        self.delivery_wanted.toggled.connect(self.delivery.setEnabled)
        form.addRow(self.delivery_wanted)
        self.delivery.register(self.errors, form, "Delivery day, from, to")
        self.freight = QLabel(general)
        self.freight.setObjectName("freight")
        self.freight.setWordWrap(True)
        self.errors.add_row(form, "Freight", "lineItems", self.freight)
        self.accessorials = QLabel(general)
        self.errors.add_row(form, "Accessorials", "accessorialServices", self.accessorials)
        self.identifiers: dict[str, QLineEdit] = {}
        for kind, label in IDENTIFIERS:
            edit = QLineEdit(general)
            edit.setObjectName(kind)
            self.identifiers[kind] = edit
            self.errors.add_row(form, label, f"identifiers.{kind}", edit)
        self.pickup_note = QLineEdit(general)
        self.pickup_note.setObjectName("pickupNote")
        self.errors.add_row(form, "Pickup &note", "pickupNote", self.pickup_note)
        grid.addWidget(general, 1, 0, 1, 2)

        emergency = QGroupBox("Emergency contact (hazardous materials)", inside)
        form = QFormLayout(emergency)
        hazardous = any("hazmatDetail" in item for item in self.draft.get("lineItems") or [])
        need = QLabel(
            "Required: the freight has hazardous materials."
            if hazardous
            else "Only needed for hazardous materials.",
            emergency,
        )
        need.setWordWrap(True)
        form.addRow(need)
        self.emergency = ContactFields(form, self.errors, "emergencyContact", emergency)
        self.emergency_error = ErrorLabel(emergency)
        self.errors.register(
            "emergencyContact", self.emergency.edits["contactName"], self.emergency_error
        )
        form.addRow(self.emergency_error)
        grid.addWidget(emergency, 1, 2)

        area = QScrollArea(self)
        area.setWidgetResizable(True)
        area.setWidget(inside)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("&Dispatch")
        ok.setObjectName("dispatchButton")
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(area, 1)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.send)
        self.buttons.rejected.connect(self.reject)
        self._fill()
        # Connected after `_fill`: only the user's changes count, and each kind of field
        # does (a SCAC picked or a day changed alone is as much to lose as typed text).
        for edit in self.findChildren(QLineEdit):
            edit.textEdited.connect(self.mark_dirty)
        self.carrier_code.activated.connect(self.mark_dirty)
        self.delivery_wanted.toggled.connect(self.mark_dirty)
        for window in (self.pickup, self.delivery):
            window.day.dateChanged.connect(self.mark_dirty)

    def _fill(self) -> None:
        draft = self.draft
        for path, fields in self.addresses.items():
            fields.fill((draft.get(path) or {}).get("address") or {})
        self.quote_number.setText(str(draft.get("capacityProviderQuoteNumber") or ""))
        self.pickup.fill(draft.get("pickupWindow"))
        self.delivery.day.setDate(self.pickup.day.date().addDays(3))
        self.delivery.fill(draft.get("deliveryWindow"))
        self.delivery_wanted.setChecked("deliveryWindow" in draft)
        self.delivery.setEnabled("deliveryWindow" in draft)
        items = draft.get("lineItems") or []
        weight = sum(float(i.get("totalWeight") or 0) for i in items)
        hazardous = any("hazmatDetail" in i for i in items)
        self.freight.setText(
            f"{len(items)} line item{'s' if len(items) != 1 else ''}, "
            f"{weight:g} {code_text(str(draft.get('weightUnit') or 'LB')).lower()}"
            + (" — hazardous materials" if hazardous else "")
        )
        codes = [a["code"] for a in draft.get("accessorialServices") or []]
        names = [VLTL_ACCESSORIAL_NAMES.get(c) or c for c in codes]
        self.accessorials.setText(", ".join(names) or "none")

    def wire(self, problems: dict[str, str]) -> dict[str, Any]:
        wire = copy.deepcopy(self.draft)
        for path, fields in self.addresses.items():
            location: dict[str, Any] = {"address": fields.wire()}
            contact = self.contacts[path].wire()
            if contact is not None:
                location["contact"] = contact
            wire[path] = location
        wire["capacityProviderQuoteNumber"] = self.quote_number.text().strip()
        wire["pickupWindow"] = self.pickup.wire(problems)
        wire.pop("deliveryWindow", None)
        if self.delivery_wanted.isChecked():
            wire["deliveryWindow"] = self.delivery.wire(problems)
        if self.carrier_code.isEnabled() and self.carrier_code.currentData():
            wire["carrierCode"] = self.carrier_code.currentData()
        emergency = self.emergency.wire()
        if emergency is not None:
            wire["emergencyContact"] = emergency
        wire["shipmentIdentifiers"] = [
            {"type": kind, "value": edit.text().strip()}
            for kind, edit in self.identifiers.items()
            if edit.text().strip()
        ]
        note = self.pickup_note.text().strip()
        if note:
            wire["pickupNote"] = note
        return wire

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        kinds = [kind for kind, _label in IDENTIFIERS if self.identifiers[kind].text().strip()]
        named: dict[str, str] = {}
        for path, message in problems.items():
            for index, kind in enumerate(kinds):
                if path.startswith(f"shipmentIdentifiers[{index}]"):
                    path = f"identifiers.{kind}"
            named.setdefault(path, message)
        shown = fold_rows(plain(named), {"lineItems": ("lineItems", ITEM_WORDS)})
        self.errors.show(shown, general=general)

    def send(self) -> None:
        problems: dict[str, str] = {}
        wire = self.wire(problems)
        request, found = check_dispatch(wire, self.defaults)
        problems = {**found, **problems}
        if request is None or problems:
            self.show_problems(problems)
            return
        self.buttons.setEnabled(False)
        self.errors.clear()

        def failed(error: BaseException) -> None:
            self.buttons.setEnabled(True)
            self.show_problems(*refusal(error))

        spawn(
            self.service.dispatch(request),
            on_done=self._done,
            on_error=failed,
            name="vltl-dispatch",
            owner=self,
        )

    def _done(self, last: LastDispatch) -> None:
        self.buttons.setEnabled(True)
        self.mark_clean()
        self.dispatched.emit(last)
        self.accept()
