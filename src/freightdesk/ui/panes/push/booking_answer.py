"""Answer a booking as its carrier (an extension of the local service): one of the bookings a
carrier has yet to answer, accepted (with an identifier tracking can follow) or rejected (with
a reason and notes), the way the carrier says it answered.

What is sent is what the dialog shows: the reason and notes apply to a rejection only and the
identifier to an acceptance only; the ones that do not apply are greyed, say why, and hold
nothing (what was typed in them is set aside and comes back with the other choice).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import (
    Booking,
    CarrierDecision,
    CarrierResponseMethod,
    RejectionReason,
)
from freightdesk.models.code_words import code_text, mode_text, words
from freightdesk.service.bookings import (
    STATUS_TEXT,
    BookingsService,
    check_carrier_response,
    tracking_key_types,
)
from freightdesk.service.carrier_names import carrier_text
from freightdesk.service.messages import explain, passing, refusal
from freightdesk.ui.bridge import answering_again
from freightdesk.ui.dialogs.booking_text import booking_names, reference_text
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import FormDialog

NONE_WAITING = (
    "No booking is waiting for a carrier's answer. A booking to a carrier whose profile says "
    "Review stays under review until it is answered here (Set up → Carrier profiles)."
)
REJECT_ONLY = "Goes with Reject only."
ACCEPT_ONLY = "Goes with Accept only: tracking follows the booked shipment by it."
METHOD_TEXT = {
    CarrierResponseMethod.API: "Through its API",
    CarrierResponseMethod.EMAIL: "By email",
    CarrierResponseMethod.PHONE: "By phone",
    CarrierResponseMethod.PORTAL: "On its portal",
}


def booking_text(booking: Booking) -> str:
    carrier = booking.capacity_provider_identifier
    who = carrier_text(carrier.value) if carrier is not None else "a carrier"
    status = STATUS_TEXT.get(booking.status, booking.status.value)
    mode = f", {mode_text(booking.transportation_mode)}" if booking.transportation_mode else ""
    reference = reference_text(booking)  # as the Bookings list names it, not by its id
    return f"{who}: {status.lower()}{mode}" + (f", {reference}" if reference else "")


class BookingAnswerDialog(FormDialog):
    """`answered` carries the booking as the service answered."""

    answered = Signal(object)

    def __init__(self, bookings: BookingsService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bookingAnswer")
        self.setWindowTitle("Answer a booking as its carrier")
        self.setMinimumWidth(620)
        self.bookings = bookings
        self.waiting: list[Booking] = []
        self._aside: dict[str, str] = {}  # typed into fields the decision greyed
        # The bookings could not be read because the service could not be reached: read
        # them once it answers again (its words go by themselves then, see forms.py).
        self._unread = False
        answering_again().connect(self._answering_again)

        intro = QLabel(
            "Plays the carrier's side: the booking is answered as if its carrier had, and "
            "the shipper sees the answer in Bookings.",
            self,
        )
        intro.setWordWrap(True)
        self.booking = QComboBox(self)
        self.booking.setObjectName("booking")
        self.accept_choice = QRadioButton("Acce&pt: book it (tracking starts)", self)
        self.reject_choice = QRadioButton("Re&ject it", self)
        self.accept_choice.setChecked(True)
        decision = QWidget(self)
        decision_row = QHBoxLayout(decision)
        decision_row.setContentsMargins(0, 0, 0, 0)
        decision_row.addWidget(self.accept_choice)
        decision_row.addWidget(self.reject_choice)
        decision_row.addStretch(1)
        self.identifier_type = QComboBox(self)
        self.identifier_type.setObjectName("identifierType")
        self.identifier_type.setMinimumWidth(170)  # filled once the bookings are read
        self.identifier_value = QLineEdit(self)
        self.identifier_value.setObjectName("identifierValue")
        self.identifier_value.setPlaceholderText("e.g. a bill of lading number")
        identifier = QWidget(self)
        identifier_row = QHBoxLayout(identifier)
        identifier_row.setContentsMargins(0, 0, 0, 0)
        identifier_row.addWidget(self.identifier_type)
        identifier_row.addWidget(self.identifier_value, 1)
        self.reason = QComboBox(self)
        self.reason.setObjectName("rejectionReason")
        self.reason.addItem("(none given)", "")
        for reason in RejectionReason:
            self.reason.addItem(words(reason.value), reason.value)
        self.notes = QLineEdit(self)
        self.notes.setObjectName("carrierRejectionNotes")
        self.method = QComboBox(self)
        self.method.setObjectName("responseMethod")
        for method, text in METHOD_TEXT.items():
            self.method.addItem(text, method.value)

        form = QFormLayout()
        chosen = self.errors.add_row(form, "&Booking", "booking", self.booking)
        # The service's refusal of a booking answered or cancelled meanwhile names its
        # `status`: said under the booking it is about, not as "status: ..." under the form.
        self.errors.register("status", self.booking, chosen)
        self.errors.add_row(form, "Decision", "decision", decision, focus=self.accept_choice)
        error = self.errors.add_row(form, "&Identifier", "carrierProvidedIdentifiers", identifier)
        self.errors.register("carrierProvidedIdentifiers[0].type", self.identifier_type, error)
        self.errors.register("carrierProvidedIdentifiers[0].value", self.identifier_value, error)
        self.errors.add_row(form, "Reas&on", "rejectionReason", self.reason)
        self.errors.add_row(form, "&Notes", "carrierRejectionNotes", self.notes)
        self.errors.add_row(form, "Answered", "responseMethod", self.method)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.send_button = self.buttons.addButton(
            "Send answer", QDialogButtonBox.ButtonRole.AcceptRole
        )
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)

        self.buttons.accepted.connect(self.send)
        self.buttons.rejected.connect(self.reject)
        self.accept_choice.toggled.connect(self._decided)
        self.booking.currentIndexChanged.connect(self._booking_chosen)
        for edit in (self.identifier_value, self.notes):
            edit.textEdited.connect(self.mark_dirty)
        # A decision, reason or method chosen is an answer as much as typed text is.
        self.reject_choice.toggled.connect(self.mark_dirty)
        for combo in (self.booking, self.identifier_type, self.reason, self.method):
            combo.activated.connect(self.mark_dirty)
        self._decided()
        self.send_button.setEnabled(False)

    # --- loading ---------------------------------------------------------------------------

    def load(self) -> None:
        """Ask the service which bookings wait for an answer."""
        self.general_error.show_message("Reading the bookings waiting for an answer…")
        spawn(
            self.bookings.awaiting_answer(),
            on_done=self._listed,
            on_error=self._not_listed,
            name="bookings-awaiting-answer",
            owner=self,
        )

    def _not_listed(self, error: BaseException) -> None:
        words = explain(error)
        self._unread = passing(words)
        self.general_error.show_message(words)

    def _answering_again(self) -> None:
        if self._unread and self.isVisible():
            self._unread = False
            self.load()

    def _listed(self, waiting: list[Booking]) -> None:
        self.waiting = waiting
        self.booking.clear()
        for booking, name in zip(waiting, booking_names(waiting), strict=True):
            self.booking.addItem(name, str(booking.id))
        self.general_error.show_message(None if waiting else NONE_WAITING)
        self.send_button.setEnabled(bool(waiting))
        self._booking_chosen()

    def _booking_chosen(self, *_args: object) -> None:
        """The identifier types tracking can follow for the chosen booking's mode."""
        index = self.booking.currentIndex()
        types = tracking_key_types(self.waiting[index]) if 0 <= index < len(self.waiting) else []
        kept = self.identifier_type.currentData()
        self.identifier_type.clear()
        for kind in types:
            self.identifier_type.addItem(code_text(kind), kind)  # "Bill of lading", its code
        self.identifier_type.setCurrentIndex(max(0, self.identifier_type.findData(kept)))

    # --- what applies ----------------------------------------------------------------------

    def _decided(self, *_args: object) -> None:
        accepting = self.accept_choice.isChecked()
        for field, applies, why in (
            (self.identifier_value, accepting, ACCEPT_ONLY),
            (self.notes, not accepting, REJECT_ONLY),
        ):
            name = field.objectName()
            if not applies and field.text():
                self._aside[name] = field.text()
                field.clear()
            elif applies and name in self._aside:
                field.setText(self._aside.pop(name))
            field.setEnabled(applies)
            field.setToolTip("" if applies else why)
        self.identifier_type.setEnabled(accepting)
        self.identifier_type.setToolTip("" if accepting else ACCEPT_ONLY)
        if accepting:
            if self.reason.currentIndex() > 0:
                self._aside["rejectionReason"] = str(self.reason.currentData())
            self.reason.setCurrentIndex(0)
        elif "rejectionReason" in self._aside:
            kept = self.reason.findData(self._aside.pop("rejectionReason"))
            self.reason.setCurrentIndex(max(0, kept))
        self.reason.setEnabled(not accepting)
        self.reason.setToolTip("" if not accepting else REJECT_ONLY)

    def wire(self) -> dict[str, Any]:
        """The answer as the dialog shows it."""
        accepting = self.accept_choice.isChecked()
        wire: dict[str, Any] = {
            "decision": (CarrierDecision.ACCEPT if accepting else CarrierDecision.REJECT).value,
            "responseMethod": self.method.currentData(),
        }
        value = self.identifier_value.text().strip()
        if accepting and value:
            wire["carrierProvidedIdentifiers"] = [
                {"type": self.identifier_type.currentData(), "value": value}
            ]
        if not accepting and self.reason.currentData():
            wire["rejectionReason"] = self.reason.currentData()
        if not accepting and self.notes.text().strip():
            wire["carrierRejectionNotes"] = self.notes.text().strip()
        return wire

    # --- sending ---------------------------------------------------------------------------

    def send(self) -> None:
        index = self.booking.currentIndex()
        if not 0 <= index < len(self.waiting):
            self.errors.show({"booking": "Choose the booking to answer"})
            return
        answer, problems = check_carrier_response(self.wire())
        if answer is None:
            self.errors.show(problems)
            return
        self.errors.clear()
        self.send_button.setEnabled(False)

        def done(booking: Booking) -> None:
            self.mark_clean()
            self.answered.emit(booking)
            self.accept()

        def failed(error: BaseException) -> None:
            self.send_button.setEnabled(True)
            self.errors.show(*refusal(error))

        spawn(
            self.bookings.answer_as_carrier(self.waiting[index].id, answer),
            on_done=done,
            on_error=failed,
            name="answer-booking",
            owner=self,
        )
