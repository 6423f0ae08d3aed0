"""The booking form: book a quote (prefilled from it), book capacity without a quote, or edit
a booking the carrier has not answered for good (PUT replaces every field, so the fields the
form does not show are sent back as they were)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import Booking, BookingShipmentDetail, BookingShippingDetails
from freightdesk.models.common import Currency
from freightdesk.models.rating import CarrierIdentifierType, Quote
from freightdesk.service.bookings import as_input, check_booking, editable, status_text
from freightdesk.service.carrier_codes import carrier_code
from freightdesk.service.carrier_names import carrier_text
from freightdesk.service.clock import user_now
from freightdesk.service.messages import BOOK_ANOTHER, refusal
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_text import (
    carrier_of,
    charge_text,
    equipment_text,
    rate_choice_text,
    reference_text,
    units_text,
)
from freightdesk.ui.dialogs.shipment_choice import ShipmentChoice
from freightdesk.ui.formatting import amount_text
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.carrier_field import complete_carriers
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.forms import ErrorLabel
from freightdesk.ui.widgets.key_values import KeyValueTable
from freightdesk.ui.widgets.row_table import RowTable, fold_rows, number
from freightdesk.ui.widgets.tabbed_form import TabbedFormDialog
from freightdesk.ui.widgets.time_edit import UserTimeEdit

if TYPE_CHECKING:
    from freightdesk.service.shipments import ShipmentList

CURRENCIES = tuple(c.value for c in Currency)
RATE_SOURCES = ("EXTERNAL", "CAPACITY_PROVIDER")
RATE_TYPES = ("CONTRACT", "SPOT")
CHARGE_CODES = ("LINE_HAUL", "FUEL_SURCHARGE", "LIFTGATE", "DETENTION", "STOP_OFF", "LUMPER", "")
CONTACT_FIELDS = ("companyName", "givenName", "familyName", "phoneNumber", "mobilePhoneNumber",
                  "email")  # fmt: skip
TABS = {"rate": 0, "notes": 1, "contacts": 2}


def _tab_of(path: str) -> int:
    if path.startswith(("notes", "attributes")):
        return TABS["notes"]
    if path.startswith(("shipperContactInfo", "carrierContacts")):
        return TABS["contacts"]
    return TABS["rate"]


class MoneyEdit(QWidget):
    """An amount and its currency (blank amount: not given)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.amount = QLineEdit(self)
        self.amount.setPlaceholderText("amount")
        self.currency = QComboBox(self)
        self.currency.addItems(CURRENCIES)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.amount, 1)
        layout.addWidget(self.currency)

    def set_money(self, money: dict[str, Any] | None) -> None:
        self.amount.setText(f"{money['amount']:.2f}" if money else "")
        self.currency.setCurrentText(str(money["currency"]) if money else "USD")

    def wire(self) -> dict[str, Any] | None:
        if not self.amount.text().strip():
            return None
        return {"amount": number(self.amount.text()), "currency": self.currency.currentText()}


class BookingFormDialog(TabbedFormDialog):
    # Not "Discard this booking?" when editing: it read like cancelling the booking.
    discard_text = "Discard this new booking?"

    def __init__(
        self,
        session: AppSession,
        *,
        booking: Booking | None = None,
        draft: dict[str, Any] | None = None,
        quote: Quote | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """`booking`: edit it. `draft` (and the `quote` it was made from): a new booking
        prefilled. Neither: a new booking of capacity without a quote."""
        super().__init__(session, parent)
        self.setObjectName("bookingForm")
        self.booking = booking
        self.quote = quote
        self.from_quote = quote is not None or bool(booking and booking.route_segments)
        self.carried: dict[str, Any] = {}  # fields sent back as they are
        if booking is not None:
            self.setWindowTitle(f"Edit booking with {carrier_of(booking)}")
            self.discard_text = "Discard your changes to this booking?"
        elif quote is not None:
            self.setWindowTitle(f"Book {quote.carrier_name}")
        else:
            self.setWindowTitle("New booking")
        self.setMinimumSize(800, 600)
        above = QWidget(self)
        self.summary = QLabel(above)
        self.summary.setObjectName("bookingSummary")
        self.summary.setWordWrap(True)
        # The service's refusal of a booking answered or cancelled meanwhile names its
        # `status`: said under the summary naming the booking, as the booking answer dialog
        # says it under its booking, not as "status: ..." under the form.
        status_error = ErrorLabel(above)
        status_error.setObjectName("statusError")
        summary = QVBoxLayout(above)
        summary.setContentsMargins(0, 0, 0, 0)
        summary.setSpacing(2)
        summary.addWidget(self.summary)
        summary.addWidget(status_error)
        self.errors.register("status", self.summary, status_error)
        self.build(
            [
                (self._rate_tab, "Carrier and &rate"),
                (self._notes_tab, "&Notes and attributes"),
                (self._contacts_tab, "C&ontacts"),
            ],
            above=above,
            save_text="&Save changes" if booking else "&Book",
        )
        self.load(as_input(booking) if booking else draft or {})
        self._watch_changes()

    # --- building --------------------------------------------------------------------------

    def _rate_tab(self) -> QWidget:
        tab = QWidget(self)
        self.carrier_type = QComboBox(tab)
        self.carrier_type.setObjectName("carrierType")
        add_codes(self.carrier_type, [t.value for t in CarrierIdentifierType])
        self.scac = QLineEdit(tab)
        self.scac.setObjectName("scac")
        self.scac.setPlaceholderText("the carrier's name or SCAC")
        complete_carriers(self.scac)
        carrier = QHBoxLayout()
        carrier.setContentsMargins(0, 0, 0, 0)
        carrier.addWidget(self.carrier_type)
        carrier.addWidget(self.scac, 1)
        carrier_holder = QWidget(tab)
        carrier_holder.setLayout(carrier)
        # Chosen by an identifier from the shipments the app lists; its id is sent.
        self.shipment_choice = ShipmentChoice(self._listed_shipments, tab)
        self.shipment_id = self.shipment_choice.edit
        self.rate_identifiers = RowTable(
            ["Source", "Type", "Value"],
            "rate identifier",
            tab,
            # The interface's values, chosen (no empty choice: a typed one was sent as it
            # was, "EXTERNAL-10"); a booking's other value is kept and shown as it is.
            choices={0: RATE_SOURCES, 1: RATE_TYPES},
            defaults={0: "EXTERNAL", 1: "CONTRACT"},
            widths={0: 200, 1: 120},
            label=rate_choice_text,  # "The carrier's" shown, CAPACITY_PROVIDER sent
        )
        self.rate_identifiers.setObjectName("rateIdentifiers")
        self.rate_identifiers.table.setMinimumHeight(80)
        self.total_rate = MoneyEdit(tab)
        self.total_rate.setObjectName("totalRate")
        self.fuel = MoneyEdit(tab)
        self.fuel.setObjectName("fuelSurchargeRate")
        self.charges = RowTable(
            ["Code", "Amount", "Currency"],
            "charge",
            tab,
            choices={0: CHARGE_CODES, 2: CURRENCIES},
            defaults={2: "USD"},
            widths={0: 200, 1: 120},
            label=charge_text,  # "Line haul" shown, LINE_HAUL sent
        )
        self.charges.setObjectName("charges")
        self.expires = QCheckBox("E&xpires", tab)
        self.expires.setObjectName("expires")
        self.expiration = UserTimeEdit(
            tab, note="A booking the carrier has not answered by then expires."
        )
        self.expiration.setObjectName("expirationDateTime")
        expiry = QHBoxLayout()
        expiry.setContentsMargins(0, 0, 0, 0)
        expiry.addWidget(self.expires)
        expiry.addWidget(self.expiration, 1)
        expiry_holder = QWidget(tab)
        expiry_holder.setLayout(expiry)
        self.freight = QLabel(tab)
        self.freight.setObjectName("freight")
        self.freight.setWordWrap(True)
        form = QFormLayout(tab)
        error = self.errors.add_row(form, "&Carrier", "capacityProviderIdentifier", carrier_holder)
        self.errors.register("capacityProviderIdentifier.value", self.scac, error)
        self.errors.register("capacityProviderIdentifier.type", self.carrier_type, error)
        self.shipment_error = self.errors.add_row(
            form, "Parent s&hipment", "shipmentId", self.shipment_choice, focus=self.shipment_id
        )
        self.shipment_id.editingFinished.connect(self._say_unknown_shipment)
        self.shipment_row = form.rowCount() - 1
        self.rate_form = form
        self.errors.add_row(form, "Rate &identifiers", "rateIdentifiers", self.rate_identifiers)
        self.errors.add_row(form, "&Total rate", "totalRate", self.total_rate)
        self.errors.add_row(form, "&Fuel surcharge", "fuelSurchargeRate", self.fuel)
        self.errors.add_row(form, "Char&ges", "charges", self.charges)
        self.errors.add_row(form, "Expiry", "expirationDateTime", expiry_holder)
        error = self.errors.add_row(form, "Freight", "shipmentDetails", self.freight)
        for name in ("shippingDetails", "routeSegmentIds"):
            self.errors.register(name, self.freight, error)
        self.expires.toggled.connect(self.expiration.setEnabled)
        return tab

    def _listed_shipments(self) -> ShipmentList | None:
        service = self.session.shipments
        return service.coordinator.data if service is not None else None

    def _say_unknown_shipment(self) -> None:
        """An identifier no listed shipment has is said at once, beside the field."""
        _chosen, problem = self.shipment_choice.chosen()
        if problem and not self.shipment_choice.choosing():
            self.shipment_error.show_message(problem)

    def _notes_tab(self) -> QWidget:
        tab = QWidget(self)
        self.notes = QPlainTextEdit(tab)
        self.notes.setObjectName("notes")
        self.notes.setPlaceholderText("For the carrier, e.g. dock hours, appointment number")
        self.notes.setTabChangesFocus(True)
        self.attributes = KeyValueTable("Name", "Values (comma-separated)", tab, add_text="Add")
        self.attributes.setObjectName("attributes")
        form = QFormLayout(tab)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self.errors.add_row(form, "&Notes (shared with the carrier)", "notes", self.notes)
        self.errors.add_row(
            form, "&Attributes (shared with the carrier)", "attributes", self.attributes
        )
        return tab

    def _contacts_tab(self) -> QWidget:
        tab = QWidget(self)
        box = QGroupBox("Shipper contact", tab)
        contact = QFormLayout(box)
        self.contact: dict[str, QLineEdit] = {}
        for field, label in zip(
            CONTACT_FIELDS,
            ("Co&mpany", "Given name", "Family name", "&Phone", "Mobile", "&Email"),
            strict=True,
        ):
            edit = QLineEdit(box)
            edit.setObjectName(field)
            self.contact[field] = edit
            self.errors.add_row(contact, label, f"shipperContactInfo.{field}", edit)
        self.carrier_contacts = RowTable(
            ["Company", "Given name", "Family name", "Phone", "Mobile", "Email"],
            "carrier contact",
            tab,
        )
        self.carrier_contacts.setObjectName("carrierContacts")
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self.errors.add_row(
            form, "Carrier &contacts (people at the carrier)", "carrierContacts",
            self.carrier_contacts,
        )  # fmt: skip
        layout = QVBoxLayout(tab)
        layout.addWidget(box)
        layout.addLayout(form, 1)
        return tab

    def _watch_changes(self) -> None:
        for edit in (self.scac, self.shipment_id, self.total_rate.amount, self.fuel.amount,
                     *self.contact.values()):  # fmt: skip
            edit.textEdited.connect(self.mark_dirty)
        for signal in (
            self.carrier_type.activated,
            self.total_rate.currency.activated,
            self.fuel.currency.activated,
            self.rate_identifiers.changed,
            self.charges.changed,
            self.carrier_contacts.changed,
            self.attributes.changed,
            self.expires.toggled,
            self.expiration.dateTimeChanged,
            self.notes.textChanged,
        ):
            signal.connect(self.mark_dirty)

    # --- loading and reading ---------------------------------------------------------------

    def load(self, wire: dict[str, Any]) -> None:
        """Fill the form from booking wire fields; marks it clean."""
        carrier = wire.get("capacityProviderIdentifier") or {}
        choose_code(self.carrier_type, str(carrier.get("type") or "CARRIER_SCAC"))
        self.scac.setText(carrier_text(str(carrier.get("value") or "")))
        quoted = self.quote is not None
        # A quote's carrier and parent shipment are fixed: the quote names them.
        self.carrier_type.setEnabled(not quoted)
        self.scac.setReadOnly(quoted)
        self.shipment_choice.set_shipment(str(wire.get("shipmentId") or ""))
        fixed = quoted or self.booking is not None
        self.shipment_id.setReadOnly(fixed)
        # Fixed, the id only shows a uuid no dispatcher knows the shipment by: it is kept.
        self.rate_form.setRowVisible(self.shipment_row, not fixed)
        self.rate_identifiers.clear()
        for identifier in wire.get("rateIdentifiers") or []:
            self.rate_identifiers.add_row(
                [identifier.get("source", ""), identifier.get("type", ""), identifier["value"]]
            )
        if not wire.get("rateIdentifiers"):
            self.rate_identifiers.add_row()
        self.total_rate.set_money(wire.get("totalRate"))
        self.fuel.set_money(wire.get("fuelSurchargeRate"))
        self.charges.clear()
        for charge in wire.get("charges") or []:
            self.charges.add_row(
                [charge["code"], f"{charge['amount']:.2f}", str(charge["currency"])]
            )
        expires = wire.get("expirationDateTime")
        self.expires.setChecked(bool(expires))
        self.expiration.setEnabled(bool(expires))
        self.expiration.set_value(
            datetime.fromisoformat(str(expires))
            if expires
            else user_now().replace(second=0, microsecond=0)
        )
        self.notes.setPlainText(str(wire.get("notes") or ""))
        self.attributes.set_values({})
        for attribute in wire.get("attributes") or []:
            self.attributes.add_row(attribute["name"], ", ".join(attribute.get("values") or []))
        contact = wire.get("shipperContactInfo") or {}
        for field, edit in self.contact.items():
            edit.setText(str(contact.get(field) or ""))
        self.carrier_contacts.clear()
        for person in wire.get("carrierContacts") or []:
            self.carrier_contacts.add_row([str(person.get(f) or "") for f in CONTACT_FIELDS])
        self.carried = {
            key: wire[key]
            for key in ("shipmentDetails", "shippingDetails", "routeSegmentIds")
            if wire.get(key)
        }
        details = [BookingShipmentDetail.model_validate(d) for d in wire.get("shipmentDetails", [])]
        shipping = BookingShippingDetails.model_validate(wire.get("shippingDetails") or {})
        freight = "; ".join(t for t in (units_text(details), equipment_text(shipping)) if t)
        self.freight.setText(freight or "(none given)")
        self.summary.setText(self._summary())
        self.errors.clear()
        self.mark_clean()

    def _summary(self) -> str:
        if self.booking is not None:
            booking = self.booking
            reference = reference_text(booking)
            named = (
                f"Booking {reference + ' ' if reference else ''}with "
                f"{carrier_of(booking)}, {status_text(booking.status).lower()}."
            )
            if not editable(booking):  # answered or cancelled meanwhile: nothing to resend
                return named
            return (
                f"{named} Saving sends the changed booking to the carrier again (it goes "
                "back to processing)."
            )
        if self.quote is not None:
            quote = self.quote
            number = quote.rate_identifiers[0].value if quote.rate_identifiers else ""
            return (
                f"{quote.carrier_name} ({quote.capacity_provider_identifier.value}), "
                f"{quote.quote_type.value.lower()} quote {number}: "
                f"{amount_text(quote.total_rate)}, {quote.transit_days} days in transit."
            )
        return (
            "A booking without a quote needs its parent shipment (type its PRO, bill of "
            "lading, container or tracking number) and a rate identifier."
        )

    def wire(self) -> dict[str, Any]:
        """The form as the wire fields of a booking (checked by `check_booking`)."""
        wire: dict[str, Any] = dict(self.carried)
        wire["capacityProviderIdentifier"] = {
            "type": code_of(self.carrier_type),
            # The code of the carrier typed; what names none as typed, to be refused in words.
            "value": carrier_code(self.scac.text())[0] or self.scac.text().strip(),
        }
        shipment_id, _problem = self.shipment_choice.chosen()
        if shipment_id is not None:
            wire["shipmentId"] = shipment_id
        identifiers = self.rate_identifiers
        wire["rateIdentifiers"] = [
            {"source": identifiers.text(r, 0), "type": identifiers.text(r, 1),
             "value": identifiers.text(r, 2)}
            for r in identifiers.filled_rows([2])
        ]  # fmt: skip
        for key, edit in (("totalRate", self.total_rate), ("fuelSurchargeRate", self.fuel)):
            money = edit.wire()
            if money is not None:
                wire[key] = money
        charges = self.charges
        wire["charges"] = [
            {"code": charges.text(r, 0), "amount": number(charges.text(r, 1)),
             "currency": charges.text(r, 2)}
            for r in charges.filled_rows([0, 1])
        ]  # fmt: skip
        if self.expires.isChecked():
            wire["expirationDateTime"] = self.expiration.value().isoformat()
        notes = self.notes.toPlainText().strip()
        if notes:
            wire["notes"] = notes
        wire["attributes"] = [
            {"name": key, "values": [v.strip() for v in value.split(",") if v.strip()]}
            for key, value in self.attributes.rows()
        ]
        contact = {k: e.text().strip() for k, e in self.contact.items() if e.text().strip()}
        if contact:
            wire["shipperContactInfo"] = contact
        people = self.carrier_contacts
        wire["carrierContacts"] = [
            {
                field: people.text(r, c)
                for c, field in enumerate(CONTACT_FIELDS)
                if people.text(r, c)
            }
            for r in people.filled_rows(range(len(CONTACT_FIELDS)))
        ]
        return wire

    # --- errors and saving -----------------------------------------------------------------

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        # Another quote of the request is booked already: nothing typed is wrong, so it is
        # said under the form, not beside the rate identifiers the service names.
        said = problems.get("rateIdentifiers", "")
        if said.endswith(BOOK_ANOTHER):
            problems = {k: v for k, v in problems.items() if k != "rateIdentifiers"}
            general = "\n".join(t for t in (general, said) if t)
        shown = fold_rows(
            problems,
            {
                "rateIdentifiers": ("rateIdentifiers", {"source": "source", "type": "type",
                                                        "value": "value"}),
                "charges": ("charges", {"code": "code", "amount": "amount",
                                        "currency": "currency"}),
                "attributes": ("attributes", {"name": "name", "values": "values"}),
                "carrierContacts": ("carrierContacts", {"email": "email"}),
            },
        )  # fmt: skip
        self.errors.show(shown, general=general)
        # The first problem on a tab shows its tab (the booking's status is above them).
        on_tabs = [path for path in shown if path != "status"]
        if on_tabs:
            self.tabs.setCurrentIndex(_tab_of(on_tabs[0]))

    def save(self) -> None:
        body, problems = check_booking(self.wire(), from_quote=self.from_quote)
        _chosen, unknown = self.shipment_choice.chosen()
        if unknown and self.shipment_choice.isVisibleTo(self):
            problems["shipmentId"] = unknown  # not "required": something was typed
            body = None
        if body is None:
            self.show_problems(problems)
            return
        service = self.session.bookings
        if self.can_send(service):
            booking = self.booking
            work = service.update(booking.id, body) if booking else service.create(body)
            self.send(work, "save-booking", on_error=self._reread_if_status)

    def _reread_if_status(self, error: BaseException) -> bool:
        """A refusal because the booking was answered or cancelled meanwhile: read it again,
        so that the summary above the refusal says the status it has now, not the one the
        form was opened with. The refusal itself is shown as any other (returns False)."""
        service = self.session.bookings
        if self.booking is None or service is None or "status" not in refusal(error)[0]:
            return False

        def reread(booking: Booking) -> None:
            self.booking = booking
            self.summary.setText(self._summary())

        spawn(service.get(self.booking.id), on_done=reread, name="reread-booking", owner=self)
        return False
