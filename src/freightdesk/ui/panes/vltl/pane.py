"""The Volume LTL pane: ask the carriers of an account group for quotes on a shipment, see
them side by side (carrier, service, transit, total with its currency, linear feet), and
dispatch the one chosen (a dialog with every rule of the interface's dispatch section checked
beside its field). The last quotes and the last dispatch come from the cache at start, with
their age; the form keeps what was typed whatever the answer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import CarrierProfile
from freightdesk.models.vltl import AlertSeverity, RateQuote, VltlQuoteRequest
from freightdesk.service.clock import day_text, user_time
from freightdesk.service.messages import explain, plain_words, refusal
from freightdesk.service.session import AppSession
from freightdesk.service.vltl import (
    LastDispatch,
    LastQuotes,
    check_quote,
    dispatch_draft,
)
from freightdesk.ui.formatting import money_text
from freightdesk.ui.panes.vltl.dispatch import DispatchDialog
from freightdesk.ui.panes.vltl.form import QuoteForm
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.elided import tip_elided
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import export_view
from freightdesk.ui.widgets.group_follower import GroupFollower
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.search_form import age_text
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED


def expired(quote: RateQuote) -> bool:
    moment = quote.expiration_date_time
    return moment is not None and moment <= datetime.now(UTC)


def _problem(quote: RateQuote) -> str:
    """Why a carrier did not quote (its ERROR alerts), else its warnings, in the app's words
    (the service's name wire fields); an expired quote says so first."""
    errors = [a for a in quote.alerts if a.severity is AlertSeverity.ERROR]
    said = [plain_words(a.code, a.message) for a in errors or quote.alerts]
    if expired(quote) and quote.rate_quote_detail is not None:
        said = ["expired", *said]
    return "; ".join(said)


def quote_title(quote: RateQuote) -> str:
    """ "Redrun Logistics (RDRN), Standard, 1,163.93 USD": the quote in one line."""
    parts = [f"{quote.carrier_name} ({quote.carrier_code})"]
    if quote.service_level is not None:
        parts.append(quote.service_level.description)
    return ", ".join([*parts, _total(quote)])


def _carrier_tip(quote: RateQuote) -> str:
    """The quote in one line, then its number and expiry (their column may be scrolled off)."""
    lines = [quote_title(quote)]
    if quote.capacity_provider_quote_number:
        lines.append(f"Quote number {quote.capacity_provider_quote_number}")
    if quote.expiration_date_time is not None:
        lines.append(f"Expires {user_time(quote.expiration_date_time)}")
    return "\n".join(lines)


def _total(quote: RateQuote) -> str:
    detail = quote.rate_quote_detail
    if detail is None:
        return "no quote"
    return money_text(detail.total, quote.currency_code.value if quote.currency_code else "USD")


def _total_tip(quote: RateQuote) -> str:
    detail = quote.rate_quote_detail
    if detail is None:
        return _problem(quote)
    currency = quote.currency_code.value if quote.currency_code else "USD"
    lines = [f"{c.description}: {money_text(c.amount, currency)}" for c in detail.charges]
    return "\n".join(lines)


def _service(quote: RateQuote) -> str:
    """Its service level; for a carrier that did not quote, why (the row spans it over the
    empty cells beside the carrier, where the eye goes)."""
    if quote.rate_quote_detail is None:
        return f"No quote: {_problem(quote)}"
    return quote.service_level.description if quote.service_level else ""


def _transit(quote: RateQuote) -> str:
    """ "4 days, Dec 3": the days and the delivery day (its weekday in the tooltip)."""
    if quote.transit_days is None:
        return ""
    days = f"{quote.transit_days} day{'s' if quote.transit_days != 1 else ''}"
    when = quote.delivery_date
    return f"{days}, {day_text(when)}" if when else days


def _transit_tip(quote: RateQuote) -> str:
    when = quote.delivery_date
    return f"Delivery by {day_text(when, weekday=True)}" if when else ""


# What a dispatcher compares the quotes by comes first, each column fitted to its text (the
# table fits them left to right): the carrier's whole name, the service, the transit and the
# total are in sight beside the form at 1366x768. The rest may scroll sideways; the quote's
# number and expiry are also in the carrier's tooltip.
SERVICE = 1  # where a carrier's "No quote: <why>" starts, spanning the rest of its row
COLUMNS: list[Column[RateQuote]] = [
    Column("Carrier", lambda q: f"{q.carrier_name} ({q.carrier_code})", 150, _carrier_tip),
    Column(
        "Service",
        _service,
        80,
        lambda q: q.service_level.description if q.service_level else _problem(q),
        # A no-quote's reason spans the row: it must not widen the service for the others.
        most=110,
    ),
    Column("Transit", _transit, 105, _transit_tip),
    Column("Total", _total, 100, _total_tip, header_tip="The carrier's charges in its tooltip"),
    Column(
        "Linear ft",
        lambda q: "" if q.total_linear_feet is None else str(q.total_linear_feet),
        65,
        header_tip="Trailer length the freight takes",
    ),
    Column(
        "Quote number",
        lambda q: q.capacity_provider_quote_number or "",
        140,
        lambda q: f"Expires {user_time(q.expiration_date_time)}" if q.expiration_date_time else "",
    ),
    # Notes takes the room left.
    Column("Notes", _problem, 100, _problem),
]


# The service's own reference, by its identifier type's name (SYSTEM_GENERATED) beside the
# dialog's "bill of lading" and "purchase order".
REFERENCE_WORDS = {"SYSTEM_GENERATED": "service reference"}


def dispatch_text(last: LastDispatch) -> str:
    """The carrier's answer in a dispatcher's words: what to hand to the dock and how to find
    the shipment (its status is always DISPATCHED, and its id a uuid: neither helps)."""
    answer = last.answer
    ids = ", ".join(
        f"{REFERENCE_WORDS.get(i.type) or i.type.replace('_', ' ').lower()} {i.value}"
        for i in answer.shipment_identifiers
    )
    window = answer.pickup_window
    # Times of day at the pickup (no day, no zone: the clock has no instant to place), in
    # the clock's 24-hour HH:MM.
    start, end = window.start_time, window.end_time
    times = f", {start:%H:%M} to {end:%H:%M}" if start and end else ""
    lines = [
        f"Dispatched to {answer.carrier_name} ({answer.carrier_code}), {age_text(last.at)}",
        f"Pickup {day_text(window.date, weekday=True)}{times}",
        f"Pickup number {answer.pickup_number or '—'}, PRO {answer.pro_number or '—'}",
        f"References: {ids}",
    ]
    if answer.shipment_id is not None:
        lines.append("Tracked in the Shipments pane: find it by its PRO or bill of lading")
    lines += [f"{a.severity.value.capitalize()}: {a.message}" for a in answer.alerts]
    return "\n".join(lines)


class VltlPane(QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.service = session.vltl
        self.last: LastQuotes | None = None
        self.carriers: dict[str, CarrierProfile] = {}
        self.dialog: DispatchDialog | None = None

        self.form = QuoteForm(self)
        self.quote_button = QPushButton("&Get quotes", self.form)
        self.quote_button.setObjectName("getQuotes")
        self.quote_button.setDefault(True)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setMaximumHeight(10)
        self.busy.setTextVisible(False)
        self.busy.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.busy, 1)
        buttons.addWidget(self.quote_button)
        form_layout = self.form.layout()
        assert isinstance(form_layout, QVBoxLayout)
        form_layout.addLayout(buttons)
        self.form_area = scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        # Room for the line items' key columns (Pieces to Description) at 1366x768; the quotes
        # beside keep theirs (Carrier to Linear ft), and a wider window widens both.
        scroll.setMinimumWidth(600)
        scroll.setMaximumWidth(700)

        self.notice = Notice(self)
        self.age = QLabel(self)
        self.age.setObjectName("answerAge")
        self.age.setStyleSheet("color: #6b7280;")
        self.model: ListingModel[RateQuote] = ListingModel(COLUMNS, self)
        self.table: ItemTable[RateQuote] = ItemTable(
            self.model, lambda q: str(q.id), self, name="quotesTable", fit=True
        )
        tip_elided(self.table)
        # Why a carrier did not quote reads beside its name (in the notes at the row's end it
        # was off to the side at 1366x768).
        self.model.modelReset.connect(self._span_refusals)
        self.empty = say_when_empty(
            self.table,
            "The carriers' quotes appear here, side by side: fill in the shipment on the left "
            "and choose Get quotes.",
        )
        self.dispatch_button = QPushButton("&Dispatch…", self)
        self.dispatch_button.setObjectName("dispatch")
        self.dispatch_button.setEnabled(False)
        self.table.on_open(self.open_dispatch, "Dispatch this quote")
        self.table.selectedChanged.connect(self._picked)
        result_box = QGroupBox("Last dispatch", self)
        self.result = QLabel("Nothing dispatched yet.", result_box)
        self.result.setObjectName("dispatchResult")
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        QVBoxLayout(result_box).addWidget(self.result)

        top = QHBoxLayout()
        top.addWidget(self.age, 1)
        top.addWidget(self.dispatch_button)
        right = QVBoxLayout()
        right.addWidget(self.notice)
        right.addLayout(top)
        right.addWidget(self.table, 1)
        right.addWidget(result_box)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addWidget(scroll, 1)
        layout.addLayout(right, 1)

        self.quote_button.clicked.connect(self.ask_quotes)
        self.clock = QTimer(self)
        self.clock.setInterval(60_000)
        self.clock.timeout.connect(self._tick)
        self.clock.start()
        self.dispatch_button.clicked.connect(self.open_dispatch)
        self._unconnected = session.listen_connected(self.load_choices)
        # A group renamed while the pane is open stays chosen, under its new code.
        self.group_follower = GroupFollower(session, self.form)
        self.group_follower.changed.connect(self.form.show_groups)
        spawn(self._restore(), name="vltl-cached", owner=self)
        if session.client is not None:
            self.load_choices()

    # --- start -----------------------------------------------------------------------------

    async def _restore(self) -> None:
        """What the cache holds, shown until something newer is asked."""
        # Both read before either is shown: the pane appears whole, not quotes first.
        last = await self.service.last_quotes()
        dispatched = await self.service.last_dispatch()
        if last is not None and self.last is None:
            self.form.fill(last.request.wire())
            self.show_quotes(last)
        if dispatched is not None and self.result.text() == "Nothing dispatched yet.":
            self.result.setText(dispatch_text(dispatched))

    def load_choices(self) -> None:
        def carriers(found: list[CarrierProfile]) -> None:
            self.carriers = {c.scac: c for c in found}

        for work, done, name in (
            (self.service.account_groups(), self.form.show_groups, "vltl-groups"),
            (self.service.carriers(), carriers, "vltl-carriers"),
        ):
            spawn(
                work,
                on_done=done,  # type: ignore[arg-type]
                on_error=lambda error: self.notice.show_error(explain(error)),
                name=name,
                owner=self,
            )

    # --- quotes ----------------------------------------------------------------------------

    def request(self) -> VltlQuoteRequest | None:
        """The request as typed, or None with every problem beside its field."""
        problems: dict[str, str] = {}
        wire = self.form.wire(problems)
        request, found = check_quote(wire)
        problems = {**found, **problems}
        if request is None or problems:
            self.form.show_problems(problems)
            return None
        return request

    def ask_quotes(self) -> None:
        request = self.request()
        if request is None:
            return
        if self.session.client is None:
            self.form.show_problems({}, general=NOT_CONNECTED)
            return
        self.form.errors.clear()
        self.quote_button.setEnabled(False)
        self.busy.setVisible(True)

        def done(last: LastQuotes) -> None:
            self._idle()
            self.notice.clear_message()
            self.show_quotes(last)

        def failed(error: BaseException) -> None:
            self._idle()
            self.form.show_problems(*refusal(error))
            # Once the form is laid out with the message in it.
            QTimer.singleShot(0, self, self._reveal_refusal)

        spawn(
            self.service.quote(request),
            on_done=done,
            on_error=failed,
            name="vltl-quotes",
            owner=self,
        )

    def _reveal_refusal(self) -> None:
        """Scroll the form to why it was refused: the field in error (it has the focus), else
        the message under the form. At 1366x768 the message made the form taller than its
        area, below the fold, and the focus had left the disabled button for the form's
        first field, scrolling the form to its top."""
        general = self.form.errors.general
        target = general if not general.isHidden() else self.form.focusWidget()
        if target is not None:
            self.form_area.ensureWidgetVisible(target)

    @property
    def running(self) -> bool:
        return self.busy.isVisible()

    def _idle(self) -> None:
        self.quote_button.setEnabled(True)
        self.busy.setVisible(False)

    def show_quotes(self, last: LastQuotes) -> None:
        self.last = last
        self.table.set_items(last.quotes)
        self.show_age()

    def _span_refusals(self) -> None:
        self.table.clearSpans()
        for row, quote in enumerate(self.model.items):
            if quote.rate_quote_detail is None:
                self.table.setSpan(row, SERVICE, 1, len(COLUMNS) - SERVICE)

    def show_age(self) -> None:
        """How old the quotes on screen are (said again every minute: they expire)."""
        last = self.last
        if last is None:
            return
        priced = sum(1 for q in last.quotes if q.rate_quote_detail is not None)
        self.age.setText(
            f"{priced} of {len(last.quotes)} carriers quoted, {age_text(last.at)}"
            if last.quotes
            else f"No volume LTL carrier to ask ({age_text(last.at)}): connect carriers or "
            "choose another account group"
        )

    def _picked(self) -> None:
        self.dispatch_button.setEnabled(False)
        quote = self.table.selected()
        if quote is None or quote.rate_quote_detail is None:
            self.dispatch_button.setToolTip("Pick a quote with a price")
        elif expired(quote):
            self.dispatch_button.setToolTip("This quote has expired: get quotes again")
        else:
            self.dispatch_button.setEnabled(True)
            self.dispatch_button.setToolTip("")

    # --- dispatch --------------------------------------------------------------------------

    def open_dispatch(self) -> None:
        quote = self.table.selected()
        if quote is None or quote.rate_quote_detail is None or self.last is None:
            return
        if expired(quote):
            self._picked()
            return
        draft: dict[str, Any] = dispatch_draft(quote, self.last.request)
        dialog = DispatchDialog(
            self.service,
            quote,
            quote_title(quote),
            draft,
            self.carriers.get(quote.carrier_code),
            self,
        )
        dialog.dispatched.connect(self._dispatched)
        self.dialog = dialog
        dialog.open()

    def _dispatched(self, last: LastDispatch) -> None:
        self.result.setText(dispatch_text(last))
        self.notice.show_info(
            f"Dispatched to {last.answer.carrier_name}: PRO {last.answer.pro_number or '—'}."
        )

    # --- pane actions ----------------------------------------------------------------------

    def export_view(self) -> None:
        export_view(self, self.table, self.notice, noun="quotes")

    def focus_search(self) -> None:
        self.form.origin.edits["city"].setFocus()

    def _tick(self) -> None:
        self.show_age()
        self._picked()  # the quote picked may have expired meanwhile

    def shutdown(self) -> None:
        self.clock.stop()
        self._unconnected()
        self.group_follower.stop()
