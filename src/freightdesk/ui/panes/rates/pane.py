"""The Rate requests pane: the requests made here, the quotes of the one selected arriving in
the background and compared in a sortable table beside the market's rates, book a quote in
one step, cancel a request (its outcome said in words)."""

from __future__ import annotations

import asyncio
import time
import uuid

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import OPEN_STATUSES, Booking
from freightdesk.models.rating import Quote, RateRequest, RateRequestStatus
from freightdesk.service.bookings import status_text
from freightdesk.service.carrier_names import carrier_text
from freightdesk.service.clock import day_text
from freightdesk.service.messages import booked_already, explain
from freightdesk.service.rating import (
    OPEN,
    Cancellation,
    RateRequests,
    RateRequestsChange,
    booking_draft,
    cancel_refusal_text,
    effective_status,
    quote_open,
)
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.formatting import amount_text, valid_until_text
from freightdesk.ui.panes.rates.form import RateRequestFormDialog
from freightdesk.ui.panes.rates.quotes import (
    NOT_COMPARED,
    MarketModel,
    QuotesModel,
    RequestsModel,
    cheapest_per_currency,
    lane_of,
    mode_of,
    request_status_text,
    services_of,
)
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.elided import cut_at_end, tip_elided
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.listing import ListBinding
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.sort_arrow import arrow_follows_order

COUNTDOWN_MS = 1000
# While the chosen request's booking waits for the carrier's answer, how often it is looked
# up again, so that "Being booked" turns "Booked" (or off, once declined) on its own.
BOOKING_LOOKUP_S = 5.0


class RatesPane(ListExport, QWidget):
    export_table = "request_table"

    bookingCreated = Signal(object)  # Booking: made from a quote here

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.requests = RequestsModel(self)
        self.quotes = QuotesModel(self)
        self.market = MarketModel(self)
        self.dialog: QWidget | None = None
        self.question: QMessageBox | None = None
        self.last_cancellation: Cancellation | None = None
        self._lookup: asyncio.Task[dict[str, Booking]] | None = None
        self._looked_up_at = 0.0  # time.monotonic()
        # Counts the bookings made here: a look-up begun before the last one may answer
        # without it, so its answer must not replace what the pane knows.
        self._booked_here = 0

        self.new_button = QPushButton("&New rate request…", self)
        self.again_button = QPushButton("As&k again…", self)
        self.again_button.setToolTip(
            "A new request with the stops, freight and carriers of this one"
        )
        self.open_id = QLineEdit(self)
        self.open_id.setObjectName("openRateRequest")
        self.open_id.setPlaceholderText("Open a rate request by its id")
        self.open_id.setClearButtonEnabled(True)
        self.refresh_button = QPushButton("&Refresh", self)
        top = QHBoxLayout()
        top.addWidget(self.new_button)
        top.addWidget(self.again_button)
        top.addStretch(1)
        top.addWidget(self.open_id, 1)
        top.addWidget(self.refresh_button)
        self.notice = Notice(self)

        # The lane (here), a quote's carrier and the market's name take the room left.
        self.request_table = ItemTable(
            self.requests, lambda r: str(r.id), self, name="rateRequestsTable", stretch=1
        )
        # A lane too long for its room is cut in its middle, so where it goes still reads;
        # the name at its end.
        self.request_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        cut_at_end(self.request_table, 0)

        detail = QWidget(self)
        self.title = QLabel("Select a rate request", detail)
        self.title.setObjectName("rateRequestTitle")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title.setFont(font)
        self.subtitle = QLabel(detail)
        self.subtitle.setObjectName("rateRequestSubtitle")
        self.subtitle.setWordWrap(True)
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The figures as wide as their text (bold too): the carrier has the rest, whole with
        # its SCAC at 1366 px ("Maple Leaf Freightways (MP…" beside 125 px totals before).
        self.quote_table = ItemTable(
            self.quotes, lambda q: str(q.id), detail, name="quotesTable", stretch=0, fit=True
        )
        # No sort indicator at first: the service's order (cheapest first) until a click.
        self.quote_table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.quote_table.setSortingEnabled(True)
        self.waiting = QLabel(detail)
        self.waiting.setObjectName("quotesWaiting")
        self.book_button = QPushButton("&Book this quote…", detail)
        self.cancel_button = QPushButton("&Cancel rate request…", detail)
        self.forget_button = QPushButton("Remove from &list", detail)
        self.forget_button.setToolTip("Takes it off this list only; the service keeps it.")
        actions = QHBoxLayout()
        self.waiting.setWordWrap(True)
        actions.addWidget(self.waiting, 1)
        actions.addWidget(self.forget_button)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.book_button)
        market_label = QLabel("Market rates on this lane, for reference (all-in, USD)", detail)
        self.market_table = ItemTable(
            self.market,
            lambda m: (m.provider_name, m.quote_type),
            detail,
            name="marketTable",
            stretch=0,
        )
        self.market_table.setMaximumHeight(90)
        for table in (self.request_table, self.quote_table, self.market_table):
            tip_elided(table)
        arrow_follows_order(self.quote_table)
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.title)
        detail_layout.addWidget(self.subtitle)
        detail_layout.addWidget(self.quote_table, 1)
        detail_layout.addLayout(actions)
        detail_layout.addWidget(market_label)
        detail_layout.addWidget(self.market_table)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.request_table)
        self.splitter.addWidget(detail)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.splitter, 1)

        self.new_button.clicked.connect(self.new_item)
        self.again_button.clicked.connect(self.ask_again)
        self.open_id.returnPressed.connect(self.open_by_id)
        self.refresh_button.clicked.connect(self.refresh)
        self.book_button.clicked.connect(self.book_selected)
        self.cancel_button.clicked.connect(self.confirm_cancel)
        self.forget_button.clicked.connect(self.forget_selected)
        # The buttons are enabled by the pane (a quote expires, a request is cancelled),
        # not by the selection alone.
        self.request_table.on_open(self.quote_table.setFocus, "Show its quotes")
        self.request_table.on_delete(self.confirm_cancel, "Cancel it")
        self.request_table.selectedChanged.connect(self._detail)
        self.quote_table.on_open(self.book_selected, "Book the quote")
        self.quote_table.selectedChanged.connect(self._update_actions)
        self._timer = QTimer(self)
        self._timer.setInterval(COUNTDOWN_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

        # The requests the app follows, polled (their quotes arriving) while the pane shows.
        self.binding = ListBinding(self, session, lambda s: s.rating)
        self.binding.changed.connect(self._show)
        self.binding.statusChanged.connect(self.notice.show_status)
        self._update_actions()

    # --- showing ---------------------------------------------------------------------------

    def selected(self) -> RateRequest | None:
        return self.request_table.selected()

    def selected_quote(self) -> Quote | None:
        return self.quote_table.selected()

    def _show(self, _change: RateRequestsChange | None = None) -> None:
        data: RateRequests | None = self.binding.data
        if data is None:
            return
        self.request_table.set_items(data.items())  # the chosen request stays chosen
        if self.selected() is None and data.order:
            self.select_request(data.order[0])
        self.look_up_bookings()

    def booking_of(self, request: RateRequest | None) -> Booking | None:
        """The request's live booking as last looked up (or just made here)."""
        return self.requests.booked.get(str(request.id)) if request else None

    def look_up_bookings(self) -> None:
        """Which requests are booked (or being booked), from the service's bookings: one
        booked meanwhile, in Bookings or elsewhere, or cancelled there, shows here."""
        bookings = self.session.bookings
        busy = self._lookup is not None and not self._lookup.done()
        if self.session.client is None or bookings is None or busy:
            return
        self._looked_up_at = time.monotonic()
        begun = self._booked_here
        # A failed look-up keeps what was known: the list's status line says the trouble.
        self._lookup = spawn(
            bookings.live_by_rate_request(),
            on_done=lambda booked: self._looked_up(booked, begun),
            on_error=lambda _e: None,
            name="rates-bookings",
            owner=self,
        )

    def _looked_up(self, booked: dict[str, Booking], begun: int) -> None:
        if begun != self._booked_here:  # older than a booking made here: ask again
            self.look_up_bookings()
        else:
            self._set_booked(booked)

    def _set_booked(self, booked: dict[str, Booking]) -> None:
        if booked == self.requests.booked:
            return
        self.requests.set_booked(booked)
        self._detail()

    def select_request(self, request_id: str) -> None:
        """Select the request now, or once the list has it (one just asked or opened)."""
        self.request_table.select_when_listed(request_id)

    def _detail(self) -> None:
        request = self.selected()
        self.quotes.for_request(request, self.booking_of(request))
        self.quote_table.set_items(request.quotes if request else [])  # the quote stays chosen
        self.market_table.set_items(request.market_quotes if request else [])
        if request is None:
            self.title.setText("Select a rate request" if self.requests.items else "")
            self.subtitle.setText(
                ""
                if self.requests.items
                else "No rate requests yet: ask carriers for quotes with New rate request (Ctrl+N)."
            )
        else:
            self.title.setText(request.name or lane_of(request))
        self._tick()
        self._update_actions()

    def _tick(self) -> None:
        """Countdowns and the waiting note move with the clock."""
        request = self.selected()
        self.quotes.refresh_countdowns()
        if request is None:
            self.waiting.clear()
            return
        status = effective_status(request)
        carriers = ", ".join(carrier_text(c.value) for c in request.capacity_provider_identifiers)
        groups = ", ".join(g.code for g in request.capacity_provider_account_groups)
        asked = carriers or "every connected carrier"
        if groups:
            asked += f"; account groups {groups}"
        parts = [
            lane_of(request),
            f"pickup {day_text(request.rate_detail.pickup_date)}"
            if request.rate_detail.pickup_date
            else "",
            mode_of(request),
            services_of(request),
            f"{request.quote_type_filter.value.lower()} quotes",
            f"asked {asked}",
            request_status_text(request, self.booking_of(request)),
        ]
        if status in OPEN:
            parts.append(f"request {valid_until_text(request.expiration_date_time)}")
        self.subtitle.setText(" · ".join(p for p in parts if p))
        booking = self.booking_of(request)
        if booking is not None:
            self.waiting.setText(f"{booked_already(booking.status.value)}.")
            self.waiting.setToolTip("")
            waited = time.monotonic() - self._looked_up_at
            if booking.status in OPEN_STATUSES and self.isVisible() and waited > BOOKING_LOOKUP_S:
                self.look_up_bookings()
        elif status is RateRequestStatus.QUOTES_REQUESTED:
            dots = "." * (1 + int(time.monotonic()) % 3)
            self.waiting.setText(
                f"Carriers are answering{dots} ({len(request.quotes)} quotes so far)"
            )
        elif not request.quotes:
            self.waiting.setText("No carrier quoted this request.")
        else:
            cheapest = cheapest_per_currency(request.quotes)
            best = [f"{q.carrier_name} ({amount_text(q.total_rate)})" for q in cheapest]
            if len(best) == 1:
                self.waiting.setText(f"{len(request.quotes)} quotes; cheapest {best[0]}")
                self.waiting.setToolTip("")
            else:  # the service gives no exchange rate: each currency on its own
                self.waiting.setText(
                    f"{len(request.quotes)} quotes; cheapest per currency: {' · '.join(best)}"
                )
                self.waiting.setToolTip(NOT_COMPARED)

    def _update_actions(self, *_args: object) -> None:
        request = self.selected()
        quote = self.selected_quote()
        booking = self.booking_of(request)
        bookable = (
            request is not None
            and quote is not None
            and booking is None
            and quote_open(quote, request)
        )
        self.book_button.setEnabled(bookable)
        if booking is not None:
            self.book_button.setToolTip(f"{booked_already(booking.status.value)}.")
        else:
            self.book_button.setToolTip(
                "" if bookable or quote is None else "This quote can no longer be booked."
            )
        cancellable = request is not None and request.status is not RateRequestStatus.CANCELLED
        self.cancel_button.setEnabled(cancellable)
        self.again_button.setEnabled(request is not None)
        self.forget_button.setEnabled(request is not None)

    # --- actions ---------------------------------------------------------------------------

    def new_item(self) -> None:
        self._open_form(None)

    def ask_again(self) -> None:
        request = self.selected()
        if request is not None:
            self._open_form(request)

    def _open_form(self, template: RateRequest | None) -> None:
        dialog = RateRequestFormDialog(self.session, template, self)
        dialog.saved.connect(self._asked)
        self.dialog = dialog
        dialog.open()

    def _asked(self, request: RateRequest) -> None:
        self.notice.show_info("Asked the carriers for quotes; they arrive below as they answer.")
        self.select_request(str(request.id))
        self.binding.start()

    def book_selected(self) -> None:
        request = self.selected()
        quote = self.selected_quote()
        if request is None or quote is None:
            return
        booking = self.booking_of(request)
        if booking is not None:  # Return on a quote: the button says why it is off
            self.notice.show_error(f"{booked_already(booking.status.value)}.")
            return
        if not quote_open(quote, request):
            self.notice.show_error("This quote can no longer be booked (expired or cancelled).")
            return
        dialog = BookingFormDialog(
            self.session, draft=booking_draft(request, quote), quote=quote, parent=self
        )
        dialog.saved.connect(self._booked)
        self.dialog = dialog
        dialog.open()

    def _booked(self, booking: Booking) -> None:
        self._booked_here += 1
        if booking.shipment_id is not None:  # shown booked now, not at the next look-up
            self._set_booked({**self.requests.booked, str(booking.shipment_id): booking})
        self.notice.show_info(
            f"Booked with {carrier_text(booking.capacity_provider_identifier.value)}: "
            f"{status_text(booking.status).lower()}; the carrier's answer follows in Bookings."
        )
        self.bookingCreated.emit(booking)

    def confirm_cancel(self) -> None:
        request = self.selected()
        if request is None:
            return
        request_id = str(request.id)
        self.question = ask(
            self,
            "Cancel rate request",
            f"Cancel the rate request {request.name or lane_of(request)}?",
            lambda: self.cancel(request_id),
            yes=QMessageBox.StandardButton.Yes,
            name="confirmCancel",
            informative="Carriers are told; a booking of it still in progress is cancelled too.",
            answers=("Cancel the &request", "&Keep it"),
        )

    def cancel(self, request_id: str) -> None:
        service = self.session.rating
        if service is None:
            return

        def done(outcome: Cancellation) -> None:
            self.last_cancellation = outcome
            self.notice.show_info(outcome.text())
            self._update_actions()

        def failed(error: BaseException) -> None:
            self.notice.show_error(cancel_refusal_text(error) or explain(error))

        spawn(service.cancel(request_id), on_done=done, on_error=failed, name="cancel-rate-request",
              owner=self)  # fmt: skip

    def forget_selected(self) -> None:
        request = self.selected()
        service = self.session.rating
        if request is None or service is None:
            return
        spawn(service.forget(request.id), name="forget-rate-request", owner=self)

    def open_by_id(self) -> None:
        text = self.open_id.text().strip()
        service = self.session.rating
        if not text or service is None or self.session.client is None:
            return
        try:
            request_id = uuid.UUID(text)
        except ValueError:
            self.notice.show_error(
                f"{text!r} is not a rate request id: one is 36 letters, digits and dashes, as "
                "a carrier's or a colleague's message gives it."
            )
            return

        def opened(request: RateRequest) -> None:
            self.open_id.clear()
            self.select_request(str(request.id))

        spawn(
            service.open(request_id),
            on_done=opened,
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="open-rate-request",
            owner=self,
        )

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.open_id.setFocus()
        self.open_id.selectAll()

    def refresh(self) -> None:
        service = self.session.rating
        request = self.selected()
        if service is None or self.session.client is None or request is None:
            return
        spawn(
            service.reload(request.id),
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="reload-rate-request",
            owner=self,
        )

    def shutdown(self) -> None:
        if self._lookup is not None:
            self._lookup.cancel()
        self._timer.stop()
        self.binding.shutdown()
