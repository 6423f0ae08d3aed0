"""One booking with everything a dispatcher needs: the carrier's answer first (in words, with
the rejection reason and notes, the carrier's identifiers and contacts), rates and itemized
charges, the expiry counting down, route, freight, notes, and the identifiers shared with the
carrier. An answer arriving while the booking is shown is pointed out."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QFont, QGuiApplication, QTextOption
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import Booking, BookingStatus
from freightdesk.models.code_words import code_text, mode_text, response_method_text, words
from freightdesk.models.common import LogisticsIdentifier
from freightdesk.models.rating import RateIdentifier
from freightdesk.service.bookings import editable, status_text
from freightdesk.service.clock import user_time
from freightdesk.ui.dialogs.booking_text import (
    RATE_SOURCES,
    carrier_of,
    charge_text,
    contact_text,
    equipment_text,
    reference_text,
    status_color,
    status_html,
    units_text,
)
from freightdesk.ui.formatting import amount_text, countdown_text, money_text, place_text

COUNTDOWN_MS = 1000
# The scheme of an id's Copy link in the detail: "copy:<the id>".
COPY_SCHEME = "copy"


def _when(moment: datetime | None) -> str:
    return user_time(moment)


def _rows(pairs: list[tuple[str, str]]) -> str:
    cells = "".join(
        f"<tr><td style='padding-right:12px;color:#7a8294'>{escape(k)}</td>"
        f"<td>{escape(v)}</td></tr>"
        for k, v in pairs
        if v
    )
    return f"<table>{cells}</table>" if cells else ""


def _ids(pairs: list[tuple[str, str]]) -> str:
    """Each id under its name with a Copy link, on a line of its own and never broken: beside
    its name in the detail's 420 px it was broken mid-token ("…333fa0c4936 / d")."""
    return "".join(
        f"<p style='margin:0'><span style='color:#7a8294'>{escape(name)}</span> "
        f"<a href='{COPY_SCHEME}:{escape(value)}'>Copy</a></p>"
        f"<p style='margin:0 0 2px 0; white-space:nowrap'>{escape(value)}</p>"
        for name, value in pairs
        if value
    )


def identifier_text(identifier: LogisticsIdentifier) -> str:
    """PURCHASE_ORDER PO-71437 -> "Purchase order PO-71437"."""
    return f"{code_text(identifier.type)} {identifier.value}"


def _identifiers(identifiers: list[LogisticsIdentifier]) -> str:
    return ", ".join(identifier_text(i) for i in identifiers)


def rate_text(rate: RateIdentifier) -> str:
    """CONTRACT C-1 from CAPACITY_PROVIDER -> "Contract C-1 (the carrier's)"."""
    source = RATE_SOURCES.get(rate.source) or words(rate.source).lower()
    return f"{words(rate.type)} {rate.value} ({source})"


def answer_text(booking: Booking) -> str:
    """The carrier's answer in a sentence, as a dispatcher would say it."""
    carrier = carrier_of(booking)
    status = booking.status
    if status is BookingStatus.PROCESSING:
        return f"Sent to {carrier}; waiting for the carrier's answer."
    if status is BookingStatus.UNDER_REVIEW:
        return f"{carrier} is reviewing the booking; the answer will show here when it comes."
    if status is BookingStatus.BOOKED:
        when = _when(booking.last_accepted_date_time)
        text = f"{carrier} accepted the booking" + (f" on {when}" if when else "") + "."
        if booking.master_shipment_id is not None:
            text += " Tracking has started: open the tracked shipment to follow it."
        return text
    if status is BookingStatus.REJECTED:
        if booking.automated_failure_reason:
            return (
                f"The booking failed in {carrier}'s system "
                f"({words(booking.automated_failure_reason).lower()}); book again or call them."
            )
        reason = words(booking.rejection_reason).lower()
        return f"{carrier} declined the booking" + (f": {reason}." if reason else ".")
    if status is BookingStatus.CANCELLED:
        text = f"Cancelled on {_when(booking.last_modified_date_time)}"
        if booking.master_shipment_id is not None:
            return text + f", after {carrier} had accepted it; the tracked shipment stays."
        return text + "."
    expired = _when(booking.expiration_date_time)
    return f"Expired{f' on {expired}' if expired else ''}: {carrier} did not answer in time."


def _answer_section(booking: Booking) -> str:
    color = status_color(booking.status).name()
    sentence = (
        f"<p style='margin:0 0 4px 0'><b style='color:{color}'>"
        f"{escape(status_text(booking.status))}.</b> {escape(answer_text(booking))}</p>"
    )
    details = _rows(
        [
            ("Rejection reason", words(booking.rejection_reason)),
            ("Carrier's notes", booking.carrier_rejection_notes or ""),
            ("Automated failure", words(booking.automated_failure_reason)),
            ("Answered by", response_method_text(booking.carrier_response_method)),
            ("Accepted", _when(booking.last_accepted_date_time)),
            ("Carrier's identifiers", _identifiers(booking.carrier_provided_identifiers)),
            (
                "Reference keys",
                "; ".join(
                    f"{code_text(k.key)}: {', '.join(k.values)}"
                    for k in booking.capacity_provider_reference_keys
                ),
            ),
        ]
        + [("Carrier contact", contact_text(c)) for c in booking.carrier_contacts]
    )
    return sentence + details


def booking_html(booking: Booking) -> str:
    """The booking's sections as rich text (also readable as plain text)."""
    sections: list[tuple[str, str]] = [("Carrier's answer", _answer_section(booking))]
    charges = "".join(
        f"<tr><td style='padding-right:12px'>{escape(charge_text(c.code))}</td>"
        f"<td align='right'>{escape(money_text(c.amount, c.currency.value))}</td></tr>"
        for c in booking.charges
    )
    rates = _rows(
        [
            ("Total", amount_text(booking.total_rate)),
            ("Fuel surcharge", amount_text(booking.fuel_surcharge_rate)),
            (
                "Rate",
                "; ".join(rate_text(r) for r in booking.rate_identifiers),
            ),
        ]
    )
    if charges:
        rates += f"<p style='margin:4px 0 0 0'><i>Itemized charges</i></p><table>{charges}</table>"
    sections.append(("Rates", rates))
    route = "<br>".join(
        f"{escape(place_text(s.from_location) or str(s.from_stop_id))} → "
        f"{escape(place_text(s.to_location) or str(s.to_stop_id))}"
        for s in booking.route_segments
    )
    sections.append(("Route", route or "Not linked to a rate request"))
    freight = _rows(
        [
            ("Handling units", units_text(booking.shipment_details)),
            ("Equipment", equipment_text(booking.shipping_details)),
            ("Mode", mode_text(booking.transportation_mode) if booking.transportation_mode else ""),
        ]
    )
    sections.append(("Freight", freight))
    if booking.notes:
        sections.append(("Notes", escape(booking.notes).replace("\n", "<br>")))
    shared = _rows(
        [
            ("Shipment identifiers", _identifiers(booking.shipment_identifiers)),
            (
                "Attributes",
                "; ".join(f"{a.name}: {', '.join(a.values)}" for a in booking.attributes),
            ),
            ("Shipper contact", contact_text(booking.shipper_contact_info)),
        ]
    )
    sections.append(("Shared with the carrier", shared or "Nothing yet"))
    ids = _ids(
        [
            ("Booking id", str(booking.id)),
            ("Shipment id", str(booking.shipment_id or "")),
            ("Tracked shipment id", str(booking.master_shipment_id or "")),
        ]
    ) + _rows(
        [
            ("Created", _when(booking.created_date_time)),
            ("Last changed", _when(booking.last_modified_date_time)),
        ]
    )
    sections.append(("Ids", ids))
    return "".join(
        f"<h4 style='margin:10px 0 2px 0'>{escape(title)}</h4>{body}"
        for title, body in sections
        if body
    )


class BookingDetailView(QWidget):
    editRequested = Signal(object)  # Booking
    cancelRequested = Signal(object)  # Booking
    shipmentRequested = Signal(str)  # the tracked shipment's id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.booking: Booking | None = None
        self.can_open_shipments = False
        self.title = QLabel("Select a booking", self)
        self.title.setObjectName("bookingTitle")
        # Wrapped at spaces: a long reference must not widen the detail.
        self.title.setWordWrap(True)
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title.setFont(font)
        self.countdown = QLabel(self)
        self.countdown.setObjectName("bookingCountdown")
        self.countdown.setWordWrap(True)  # it must not widen the detail
        # The carrier's answer that arrived while this booking was shown, until another is.
        self.news = QLabel(self)
        self.news.setObjectName("bookingNews")
        self.news.setWordWrap(True)
        self.news.setVisible(False)
        self.edit_button = QPushButton("&Edit…", self)
        self.cancel_button = QPushButton("Cance&l booking…", self)
        self.shipment_button = QPushButton("Open tracked &shipment", self)
        self.shipment_button.setObjectName("openTrackedShipment")
        # The countdown on its own line: beside the buttons it would widen the detail's
        # minimum and take the list's room at 1366x768.
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.shipment_button)
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.cancel_button)
        self.body = QTextBrowser(self)
        self.body.setObjectName("bookingBody")
        self.body.setOpenLinks(False)
        # Lines break between words only: anywhere, they cut ids and numbers mid-token.
        self.body.setWordWrapMode(QTextOption.WrapMode.WordWrap)
        self.body.anchorClicked.connect(self._copy)
        # Short: a text edit's placeholder is drawn on one line, not wrapped.
        self.body.setPlaceholderText("Pick a booking in the list to see it here")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.news)
        layout.addWidget(self.countdown)
        layout.addLayout(buttons)
        layout.addWidget(self.body, 1)
        self.edit_button.clicked.connect(self._edit)
        self.cancel_button.clicked.connect(self._cancel)
        self.shipment_button.clicked.connect(self._open_shipment)
        self._timer = QTimer(self)
        self._timer.setInterval(COUNTDOWN_MS)
        self._timer.timeout.connect(self._tick)
        self.show_booking(None)

    def show_booking(self, booking: Booking | None, *, news: str | None = None) -> None:
        """Show `booking`; `news`: the announcement of an answer that just arrived for it.
        An older version of the booking shown is not shown over it (a list read before a
        cancel, arriving after its answer, would show the booking as still processing)."""
        shown = self.booking
        if (
            booking is not None
            and shown is not None
            and booking.id == shown.id
            and booking.last_modified_date_time < shown.last_modified_date_time
        ):
            return
        if (
            booking is None
            or shown is None
            or booking.id != shown.id
            or (not news and booking.status is not shown.status)  # the news is out of date
        ):
            self.news.setVisible(False)
        if news and booking is not None:
            color = status_color(booking.status).name()
            stamp = user_time(datetime.now(UTC), seconds=True)
            self.news.setText(
                f"<span style='color:{color}'>&#9679;</span> {escape(news)} "
                f"<span style='color:#7a8294'>(arrived {stamp})</span>"
            )
            self.news.setVisible(True)
        self.booking = booking
        if booking is None:
            self.title.setText("Select a booking")
            self.body.clear()
            self.countdown.clear()
        else:
            # Led by the reference the Bookings list names it by, not the carrier alone.
            named = " · ".join(
                escape(p) for p in (reference_text(booking), carrier_of(booking)) if p
            )
            color = status_color(booking.status).name()
            self.title.setText(f"{named} · <span style='color:{color}'>"
                               f"{status_text(booking.status)}</span>")  # fmt: skip
            self.title.setTextFormat(Qt.TextFormat.RichText)
            scroll = self.body.verticalScrollBar().value()
            self.body.setHtml(booking_html(booking))
            self.body.verticalScrollBar().setValue(scroll)
        self._tick()
        self._update_buttons()
        if booking is not None and editable(booking) and booking.expiration_date_time:
            self._timer.start()
        else:
            self._timer.stop()

    def _tick(self) -> None:
        booking = self.booking
        if booking is None:
            return
        if booking.status is BookingStatus.BOOKED:
            self.countdown.setText(f"Booked {_when(booking.last_accepted_date_time)}")
        elif editable(booking) and booking.expiration_date_time is not None:
            left = countdown_text(booking.expiration_date_time)
            if booking.expiration_date_time <= datetime.now(UTC):
                self.countdown.setText(f"The carrier did not answer in time ({left})")
            else:
                self.countdown.setText(f"Waiting for the carrier; expires {left}")
        elif editable(booking):
            self.countdown.setText("Waiting for the carrier (no expiry)")
        else:
            self.countdown.setText(status_html(booking.status))

    def _update_buttons(self) -> None:
        booking = self.booking
        open_ = booking is not None and editable(booking)
        self.edit_button.setEnabled(open_)
        self.edit_button.setToolTip(
            ""
            if open_ or booking is None
            else "Only a booking the carrier has not answered for good can be changed."
        )
        self.cancel_button.setEnabled(
            booking is not None and booking.status is not BookingStatus.CANCELLED
        )
        tracked = (
            booking is not None
            and booking.status is BookingStatus.BOOKED
            and booking.master_shipment_id is not None
        )
        self.shipment_button.setEnabled(tracked and self.can_open_shipments)
        self.shipment_button.setToolTip(
            "Shows the shipment the carrier's acceptance started tracking."
            if tracked
            else "A booked booking has a tracked shipment."
        )

    def _copy(self, link: QUrl) -> None:
        """An id's Copy link: the whole id on the clipboard."""
        if link.scheme() == COPY_SCHEME:
            QGuiApplication.clipboard().setText(link.path())

    def _edit(self) -> None:
        if self.booking is not None:
            self.editRequested.emit(self.booking)

    def _cancel(self) -> None:
        if self.booking is not None:
            self.cancelRequested.emit(self.booking)

    def _open_shipment(self) -> None:
        booking = self.booking
        if booking is not None and booking.master_shipment_id is not None:
            self.shipmentRequested.emit(str(booking.master_shipment_id))

    def stop(self) -> None:
        self._timer.stop()
