"""The Carrier push console: acting as a carrier (a carrier testing its integration, a
dispatcher reproducing what a carrier sent), compose a truckload tracking update or a parcel
status update, send it, and follow its receipt until the service has applied it to the
shipments it matched, or found none; below, what was sent (kept in the profile's cache), to
send again. Beside, a booking a carrier has yet to answer is answered as that carrier would
(`booking_answer.py`).

Each field shows the interface's rule beside it and its problem under it, from the models
before sending or from the service's refusal. A push goes as the profile's own client
application (for its own tenant's shipments) or as a carrier's, whose id and secret are typed
here and kept only in memory (see `service/carrier_push.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import Booking
from freightdesk.models.code_words import words
from freightdesk.models.push import IngestionStatus
from freightdesk.service.carrier_push import (
    TRUCKLOAD,
    Push,
    SentPush,
    check_parcel,
    check_truckload,
    status_text,
)
from freightdesk.service.clock import user_time
from freightdesk.service.errors import ApiError, AuthenticationFailed
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.booking_answer import BookingAnswerDialog, booking_text
from freightdesk.ui.panes.push.forms import ParcelForm, TruckloadForm
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors, show_error
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED


def _update_text(sent: SentPush) -> str:
    """What was pushed, its event in words: `BOL 0614…: Arrival at stop + readings`."""
    names, _, what = sent.summary().rpartition(": ")
    said = " + ".join(words(part) if part.isupper() else part for part in what.split(" + "))
    return f"{names}: {said}"


def _receipt_text(receipt: str | None) -> str:
    """A receipt as a dispatcher tells one from another: its first 8 characters (`fed2a722…`);
    the whole id, which only support reads, is over it (`_receipt_tip`)."""
    return f"{receipt[:8]}…" if receipt and len(receipt) > 8 else receipt or ""


def _receipt_tip(receipt: str | None) -> str:
    return f"Receipt {receipt}: give it to support to trace this push" if receipt else ""


def _sent_text(sent: SentPush) -> str:
    return user_time(datetime.fromtimestamp(sent.sent_at, UTC))


HISTORY_COLUMNS: list[Column[SentPush]] = [
    Column("Sent", _sent_text, 150),
    Column("Kind", lambda s: "Truckload" if s.kind == TRUCKLOAD else "Parcel", 70),
    Column("Update", _update_text, 260),
    Column("As", lambda s: "this profile" if s.sent_as == "profile" else s.sent_as, 110),
    Column(
        "Receipt",
        lambda s: _receipt_text(s.ingestion_id),
        90,
        tooltip=lambda s: _receipt_tip(s.ingestion_id),
        header_tip="The service's receipt, for support: its full id over it and in exports",
        value=lambda s: s.ingestion_id or "",
    ),
    Column("Status", status_text, 300),
]


class PushPane(QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.service = session.carrier_push
        self.following: asyncio.Task[SentPush] | None = None
        self.sending = False
        self.last: SentPush | None = None  # the push the status line is about
        self._identity: tuple[str, str] | None = None  # the carrier's, as last applied

        self.truckload = TruckloadForm(self)
        self.parcel = ParcelForm(self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("pushKinds")
        for form, title in ((self.truckload, "Truckload update"), (self.parcel, "Parcel update")):
            scroll = QScrollArea(self.tabs)
            scroll.setWidgetResizable(True)
            # The rules wrap to the room there is, rather than widen the form past it; the
            # vertical bar stays, so that its coming and going does not change that room
            # (wrapped text and a bar that appears with it negotiate without end).
            scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
            scroll.setWidget(form)
            self.tabs.addTab(scroll, title)

        # --- who pushes ---
        who = QGroupBox("Push as", self)
        self.as_profile = QRadioButton("This profile's client application (its own shipments)", who)
        self.as_profile.setChecked(True)
        self.as_carrier = QRadioButton("A &carrier's client application", who)
        self.client_id = QLineEdit(who)
        self.client_id.setObjectName("carrierClientId")
        self.secret = QLineEdit(who)
        self.secret.setObjectName("carrierSecret")
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.who_errors = FieldErrors(ErrorLabel(who))
        who_form = QFormLayout(who)
        who_form.addRow(self.as_profile)
        who_form.addRow(self.as_carrier)
        self.who_errors.add_row(who_form, "Client &ID", "clientId", self.client_id)
        self.who_errors.add_row(who_form, "Secret", "clientSecret", self.secret)
        note = QLabel(
            "Every push carries a bearer token of a client application. A carrier's pushes "
            "name the customer in Customer account; its secret is kept only until the app "
            "closes.",
            who,
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: #6b7280;")
        who_form.addRow(note)
        who_form.addRow(self.who_errors.general)
        self.as_carrier.toggled.connect(self._carrier_toggled)
        self._carrier_toggled(False)

        # --- the carrier's answer to a booking ---
        answer_box = QGroupBox("Bookings", self)
        answer_note = QLabel(
            "A booking under review waits for its carrier: answer it as the carrier would.",
            answer_box,
        )
        answer_note.setWordWrap(True)
        self.answer_button = QPushButton("Answer a boo&king…", answer_box)
        self.answer_button.setObjectName("answerBookingButton")
        self.dialog: BookingAnswerDialog | None = None
        answer_layout = QVBoxLayout(answer_box)
        answer_layout.addWidget(answer_note)
        answer_layout.addWidget(self.answer_button)

        # --- sending and the receipt ---
        self.send_button = QPushButton("&Send", self)
        self.send_button.setDefault(True)
        self.status = QLabel(self)
        self.status.setObjectName("pushStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # busy: how long the service takes is not known
        self.progress.setMaximumWidth(120)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop following the receipt (the push is not undone)")
        self.cancel_button.setVisible(False)
        self.notice = Notice(self)
        status_row = QHBoxLayout()
        status_row.addWidget(self.send_button)
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.progress)
        status_row.addWidget(self.cancel_button)

        # --- history ---
        history_box = QGroupBox("Sent", self)
        self.history_model: ListingModel[SentPush] = ListingModel(HISTORY_COLUMNS, self)
        self.history = ItemTable(
            self.history_model, lambda s: s.id, history_box, name="pushHistory"
        )
        self.empty = say_when_empty(
            self.history,
            "The updates you send appear here with the service's receipt: fill in an update "
            "above, then Send.",
        )
        self.resend_button = QPushButton("Resen&d", history_box)
        self.resend_button.setToolTip("Send the selected update again, exactly as it was sent")
        history_layout = QVBoxLayout(history_box)
        history_layout.addWidget(self.history, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.resend_button)
        history_layout.addLayout(buttons)

        top = QWidget(self)
        top_layout = QHBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.tabs, 3)
        side = QVBoxLayout()
        side.addWidget(who)
        side.addWidget(answer_box)
        side.addStretch(1)
        top_layout.addLayout(side, 1)
        upper = QWidget(self)
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addWidget(top, 1)
        upper_layout.addLayout(status_row)
        upper_layout.addWidget(self.notice)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(upper)
        splitter.addWidget(history_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addWidget(splitter)

        self.send_button.clicked.connect(self.send)
        self.answer_button.clicked.connect(self.answer_booking)
        self.cancel_button.clicked.connect(self.cancel)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.send)
        self.history.on_open(self.resend, "Resend", button=self.resend_button)
        spawn(self.service.history(), on_done=self._show_history, name="push-history", owner=self)

    # --- who pushes ------------------------------------------------------------------------

    def _carrier_toggled(self, on: bool) -> None:
        for field in (self.client_id, self.secret):
            field.setEnabled(on)
            field.setToolTip("" if on else "Choose “A carrier's client application” to type it")

    def _wanted_identity(self) -> tuple[str, str] | None:
        if not self.as_carrier.isChecked():
            return None
        return self.client_id.text().strip(), self.secret.text()

    async def _as_wanted(self, push: Coroutine[Any, Any, SentPush]) -> SentPush:
        """`push`, once the service pushes as the form says (a changed carrier first)."""
        wanted = self._wanted_identity()
        if wanted != self._identity:
            await self.service.use_carrier(*(wanted or (None, None)))
            self._identity = wanted
        return await push

    # --- sending ---------------------------------------------------------------------------

    def current_form(self) -> TruckloadForm | ParcelForm:
        return self.truckload if self.tabs.currentIndex() == 0 else self.parcel

    def send(self) -> None:
        form = self.current_form()
        update: Push | None
        if isinstance(form, TruckloadForm):
            update, problems = check_truckload(form.typed())
        else:
            update, problems = check_parcel(form.typed())
        wanted = self._wanted_identity()
        who: dict[str, str] = {}
        if wanted is not None and not wanted[0]:
            who["clientId"] = "Enter the carrier's client application id"
        if wanted is not None and not wanted[1]:
            who["clientSecret"] = "Enter its secret"
        self.who_errors.show(who)
        if update is None or who:
            form.show_problems(problems)
            return
        if self.session.client is None or self.sending:
            form.errors.show({}, general=NOT_CONNECTED if not self.sending else None)
            return
        form.errors.clear()
        self._push(self.service.send(update), form)

    def resend(self) -> None:
        chosen = self.history.selected()
        if chosen is None or self.sending:
            return
        if self.session.client is None:
            show_error(self.notice, NOT_CONNECTED)
            return
        self._push(self.service.resend(chosen), None)

    def _push(
        self, push: Coroutine[Any, Any, SentPush], form: TruckloadForm | ParcelForm | None
    ) -> None:
        self.cancel()
        self.sending = True
        self.send_button.setEnabled(False)
        self.notice.clear_message()
        self.status.setToolTip("")
        self._show_status("Sending…", busy=True)

        def done(sent: SentPush) -> None:
            self.sending = False
            self.send_button.setEnabled(True)
            self.follow(sent)
            self.history.select_when_listed(sent.id)

        def failed(error: BaseException) -> None:
            self.sending = False
            self.send_button.setEnabled(True)
            self._show_status("Not sent.", busy=False)
            fields = error.field_errors() if isinstance(error, ApiError) else {}
            if isinstance(error, AuthenticationFailed) and self._identity is not None:
                # The carrier's credentials were refused, not the profile's.
                self.who_errors.show(
                    {"clientSecret": "The service refused this client id and secret"}
                )
            elif form is not None and fields:
                form.show_problems(fields)  # the service's refusal beside the fields it names
            else:
                show_error(self.notice, explain(error))

        spawn(self._as_wanted(push), on_done=done, on_error=failed, name="push-send", owner=self)

    # --- the carrier's answer to a booking --------------------------------------------------

    def answer_booking(self) -> None:
        bookings = self.session.bookings
        if bookings is None or self.session.client is None:
            show_error(self.notice, NOT_CONNECTED)
            return
        dialog = BookingAnswerDialog(bookings, self)
        dialog.answered.connect(self._answered)
        self.dialog = dialog
        dialog.open()
        dialog.load()

    def _answered(self, booking: Booking) -> None:
        self.notice.show_info(f"Answered as the carrier: {booking_text(booking)}.")

    # --- the receipt -----------------------------------------------------------------------

    def follow(self, sent: SentPush) -> None:
        """Follow `sent`'s receipt until the service is done with it, or Cancel."""
        self.last = sent
        self.status.setToolTip(_receipt_tip(sent.ingestion_id))
        self._show_status(_receipt_line(sent), busy=sent.ingestion_id is not None)
        self._show_one(sent)
        if sent.ingestion_id is None:
            self._show_status("Accepted (this service gives no receipts).", busy=False)
            return

        def done(final: SentPush) -> None:
            self.following = None
            self._progressed(final)
            self._show_status(_receipt_line(final), busy=False)

        def failed(error: BaseException) -> None:
            self.following = None
            self._show_status(
                f"{_receipt_line(self.last or sent)} Receipt: {explain(error)}", busy=False
            )

        self.following = spawn(
            self.service.follow(sent, self._progressed),
            on_done=done,
            on_error=failed,
            name="push-follow",
            owner=self,
        )

    def _progressed(self, sent: SentPush) -> None:
        self.last = sent
        self.status.setText(_receipt_line(sent))
        self._show_one(sent)

    def cancel(self) -> None:
        """Stop following the receipt (the push itself stands)."""
        if self.following is not None and not self.following.done():
            self.following.cancel()
            line = _receipt_line(self.last) if self.last is not None else ""
            self._show_status(f"{line} Stopped following.".strip(), busy=False)
        self.following = None

    def _show_status(self, text: str, *, busy: bool) -> None:
        self.status.setText(text)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)

    # --- history ---------------------------------------------------------------------------

    def _reload_history(self) -> None:
        spawn(self.service.history(), on_done=self._show_history, name="push-history", owner=self)

    def _show_history(self, sent: list[SentPush]) -> None:
        # A row shown already is as new as the cache's or newer (a receipt followed since).
        shown = {item.id: item for item in self.history_model.items}
        self.history.set_items([shown.get(item.id, item) for item in sent])

    def _show_one(self, sent: SentPush) -> None:
        """`sent` as now known, in its row (first, if new): at once, in order, rather than by
        reading the cache again, whose answers could arrive out of order."""
        items = list(self.history_model.items)
        rows = [row for row, item in enumerate(items) if item.id == sent.id]
        if rows:
            items[rows[0]] = sent
        else:
            items.insert(0, sent)
        self.history.set_items(items)

    # --- pane actions ----------------------------------------------------------------------

    def refresh(self) -> None:
        self._reload_history()

    def focus_search(self) -> None:
        self.history.setFocus()

    def new_item(self) -> None:
        self.tabs.setCurrentIndex(0)
        self.truckload.bill_of_lading.setFocus()

    def shutdown(self) -> None:
        self.cancel()
        # Back to pushing as the profile: the carrier's client and secret go with the pane.
        spawn(self.service.aclose(), name="push-close")


def _receipt_line(sent: SentPush) -> str:
    receipt = f" (receipt {_receipt_text(sent.ingestion_id)})" if sent.ingestion_id else ""
    text = status_text(sent)
    if sent.status in ("SENT", IngestionStatus.PENDING.value):
        text += "…"
    return f"{_update_text(sent)}: {text}{receipt}"
