"""The Bookings pane: the list filtered by status and attribute, with paging and the statuses
coloured; the selected booking in detail; edit, cancel, and a BOOKED booking's tracked
shipment one click away. The carriers' answers arrive in the background and are announced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import OPEN_STATUSES, Booking, BookingStatus
from freightdesk.service.bookings import DEFAULT_PAGE_SIZE, StatusChange, status_text
from freightdesk.service.listing import ListChange
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.bookings.detail import BookingDetailView
from freightdesk.ui.panes.bookings.form import BookingFormDialog
from freightdesk.ui.panes.bookings.text import lane_text, short_lane_text, status_color
from freightdesk.ui.panes.rates.common import (
    amount_text,
    countdown_text,
    key_actions,
)
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.listing import Column, Index, ListBinding, ListingModel, current_row
from freightdesk.ui.widgets.notice import Notice

DASH = "\u2013"
EXPIRY_TICK_MS = 15_000


def _expiry(booking: Booking) -> str:
    if booking.status not in OPEN_STATUSES or booking.expiration_date_time is None:
        return ""
    return countdown_text(booking.expiration_date_time)


def _attributes(booking: Booking) -> str:
    return "; ".join(f"{a.name}: {', '.join(a.values)}" for a in booking.attributes)


# What a dispatcher scans first fits beside the detail; attributes and ids after it.
COLUMNS: list[Column[Booking]] = [
    Column("Status", lambda b: status_text(b.status), 96),
    Column("Carrier", lambda b: b.capacity_provider_identifier.value, 64),
    Column("Lane", short_lane_text, 230, tooltip=lane_text),
    Column("Total", lambda b: amount_text(b.total_rate), 100),
    Column("Expires", _expiry, 100),
    Column("Created", lambda b: b.created_date_time.astimezone().strftime("%m-%d %H:%M"), 86),
    Column("Attributes", _attributes, 160, tooltip=_attributes),
    Column("Booking id", lambda b: str(b.id), 120),
]


class BookingsModel(ListingModel[Booking]):
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            booking = self.item_at(index.row())
            return status_color(booking.status) if booking else None
        return super().data(index, role)


class BookingsPane(QWidget):
    bookingStatusChanged = Signal(str)  # a notification: the carrier answered

    def __init__(
        self,
        session: AppSession,
        parent: QWidget | None = None,
        *,
        open_shipment: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.open_shipment = open_shipment
        self.model = BookingsModel(COLUMNS, self)
        self.dialog: BookingFormDialog | None = None
        self.question: QMessageBox | None = None
        self.changes: list[StatusChange] = []
        self._wanted: str | None = None  # a booking to select once the list has it
        self._unwatch: Callable[[], None] | None = None

        self.status_boxes: dict[BookingStatus, QCheckBox] = {}
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Status:", self))
        for status in BookingStatus:
            box = QCheckBox(status_text(status), self)
            box.setObjectName(f"status{status.value}")
            box.setStyleSheet(f"color: {status_color(status).name()};")
            self.status_boxes[status] = box
            filters.addWidget(box)
        filters.addSpacing(12)
        self.attribute_name = QLineEdit(self)
        self.attribute_name.setObjectName("attributeName")
        self.attribute_name.setPlaceholderText("Attribute name")
        self.attribute_values = QLineEdit(self)
        self.attribute_values.setObjectName("attributeValues")
        self.attribute_values.setPlaceholderText("Any of these values (comma-separated)")
        self.apply_button = QPushButton("&Apply", self)
        self.clear_button = QPushButton("Clear", self)
        filters.addWidget(self.attribute_name)
        filters.addWidget(self.attribute_values, 1)
        filters.addWidget(self.apply_button)
        filters.addWidget(self.clear_button)
        self.new_button = QPushButton("&New booking…", self)
        self.new_button.setToolTip("Book capacity without a quote (to book a quote: Rate requests)")
        self.refresh_button = QPushButton("&Refresh", self)
        top = QHBoxLayout()
        intro = QLabel("The carriers' answers arrive in the background.", self)
        top.addWidget(intro, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.new_button)
        self.notice = Notice(self)

        self.table = QTableView(self)
        self.table.setObjectName("bookingsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for index, column in enumerate(COLUMNS):
            self.table.setColumnWidth(index, column.width)
        self.page_label = QLabel(self)
        self.page_label.setObjectName("bookingsPage")
        self.previous_button = QPushButton("◀ &Previous", self)
        self.next_button = QPushButton("Ne&xt ▶", self)
        paging = QHBoxLayout()
        paging.addWidget(self.page_label)
        paging.addStretch(1)
        paging.addWidget(self.previous_button)
        paging.addWidget(self.next_button)
        listing = QWidget(self)
        listing_layout = QVBoxLayout(listing)
        listing_layout.setContentsMargins(0, 0, 0, 0)
        listing_layout.addWidget(self.table, 1)
        listing_layout.addLayout(paging)
        self.detail = BookingDetailView(self)
        self.detail.can_open_shipments = open_shipment is not None
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(listing)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([900, 600])  # the list's columns fit; the detail reads well

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addLayout(filters)
        layout.addWidget(self.notice)
        layout.addWidget(self.splitter, 1)

        for box in self.status_boxes.values():
            box.toggled.connect(lambda _on: self.show_page(1))
        self.apply_button.clicked.connect(lambda: self.show_page(1))
        self.attribute_name.returnPressed.connect(lambda: self.show_page(1))
        self.attribute_values.returnPressed.connect(lambda: self.show_page(1))
        self.clear_button.clicked.connect(self.clear_filters)
        self.new_button.clicked.connect(self.new_item)
        self.refresh_button.clicked.connect(self.refresh)
        self.previous_button.clicked.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(1))
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        self.detail.editRequested.connect(self.edit)
        self.detail.cancelRequested.connect(self.confirm_cancel)
        self.detail.shipmentRequested.connect(self._open_shipment)
        key_actions(
            self.table,
            [
                (QKeySequence(Qt.Key.Key_F2), self.edit_selected, "Edit the booking"),
                (QKeySequence(Qt.Key.Key_Return), self.edit_selected, "Edit the booking"),
                (QKeySequence(QKeySequence.StandardKey.Delete), self._cancel_selected, "Cancel"),
            ],
        )

        self._expiry_timer = QTimer(self)
        self._expiry_timer.setInterval(EXPIRY_TICK_MS)
        self._expiry_timer.timeout.connect(self._tick)
        self._expiry_timer.start()

        self.binding = ListBinding(self, session, lambda s: s.bookings)
        self.binding.changed.connect(self._show)
        self.binding.statusChanged.connect(self.notice.show_status)
        self._unconnected = session.listen_connected(self._follow)
        self._follow()

    # --- following the carriers' answers ---------------------------------------------------

    def _follow(self) -> None:
        """Listen to the watch for as long as the pane lives (announcements come in the
        background, whichever pane is shown)."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        service = self.session.bookings
        if service is None or self.session.client is None:
            return
        self._unwatch = service.watch.listen(self._answered)

    def _answered(self, changes: list[StatusChange]) -> None:
        self.changes.extend(changes)
        for change in changes:
            self.bookingStatusChanged.emit(change.text)
            if self.detail.booking is not None and self.detail.booking.id == change.booking.id:
                self.detail.show_booking(change.booking, news=change.text)
        self.notice.show_info(" ".join(c.text for c in changes))

    # --- showing ---------------------------------------------------------------------------

    def _show(self, _change: ListChange | None = None) -> None:
        data = self.binding.data
        if data is None:
            return
        selected = self.selected()
        self.model.set_items(data.items)
        params = data.params_dict()
        page = int(params.get("pageNumber", 1))
        size = int(params.get("pageSize", DEFAULT_PAGE_SIZE))
        first = (page - 1) * size
        if data.total == 0:
            filtered = bool(params.get("statuses") or params.get("attributeName"))
            self.page_label.setText("No bookings match" if filtered else "No bookings yet")
        else:
            last = min(first + len(data.items), data.total)
            self.page_label.setText(f"{first + 1}{DASH}{last} of {data.total:,} bookings")
        self.previous_button.setEnabled(page > 1)
        self.next_button.setEnabled(first + size < data.total)
        wanted = self._wanted or (str(selected.id) if selected else None)
        if wanted is not None:
            row = next((r for r, b in enumerate(data.items) if str(b.id) == wanted), None)
            if row is not None:
                self._wanted = None
                self.table.selectRow(row)
        current = self.detail.booking
        if current is not None:
            fresh = next((b for b in data.items if b.id == current.id), None)
            if fresh is not None and fresh != current:
                self.detail.show_booking(fresh)

    def _tick(self) -> None:
        """The Expires column counts down."""
        rows = self.model.rowCount()
        if rows:
            column = COLUMNS.index(next(c for c in COLUMNS if c.title == "Expires"))
            self.model.dataChanged.emit(
                self.model.index(0, column), self.model.index(rows - 1, column)
            )

    def selected(self) -> Booking | None:
        if not self.table.selectionModel().selectedRows():
            return None
        return self.model.item_at(current_row(self.table))

    def _selection_changed(self, *_args: object) -> None:
        booking = self.selected()
        if booking is not None:
            self.detail.show_booking(booking)

    def show_booking(self, booking: Booking) -> None:
        """Show a booking (made elsewhere in the app): the detail at once, the list's first
        page without filters, the row selected when it arrives."""
        self.detail.show_booking(booking)
        self._wanted = str(booking.id)
        self.clear_filters()

    # --- filters and paging ----------------------------------------------------------------

    def params(self, page: int) -> dict[str, Any]:
        statuses = [s.value for s, box in self.status_boxes.items() if box.isChecked()]
        name = self.attribute_name.text().strip()
        values = [v.strip() for v in self.attribute_values.text().split(",") if v.strip()]
        params: dict[str, Any] = {
            "statuses": statuses,
            "pageNumber": max(1, page),
            "pageSize": DEFAULT_PAGE_SIZE,
        }
        if name:
            params["attributeName"] = name
            params["attributeValues"] = values
        return params

    def show_page(self, page: int) -> None:
        service = self.session.bookings
        if service is None or self.session.client is None:
            return
        if self.attribute_values.text().strip() and not self.attribute_name.text().strip():
            self.notice.show_error("Values filter an attribute: enter the attribute's name too.")
            self.attribute_name.setFocus()
            return
        spawn(
            service.show(self.params(page)),
            # Shown even when the page fetched is the one held: it may not be on screen yet.
            on_done=lambda _listing: self._show(),
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="bookings-page",
            owner=self,
        )

    def step(self, direction: int) -> None:
        data = self.binding.data
        page = int(data.params_dict().get("pageNumber", 1)) if data else 1
        self.show_page(page + direction)

    def clear_filters(self) -> None:
        for box in self.status_boxes.values():
            box.blockSignals(True)
            box.setChecked(False)
            box.blockSignals(False)
        self.attribute_name.clear()
        self.attribute_values.clear()
        self.show_page(1)

    # --- actions ---------------------------------------------------------------------------

    def new_item(self) -> None:
        self._open_form(BookingFormDialog(self.session, parent=self))

    def edit_selected(self) -> None:
        booking = self.selected() or self.detail.booking
        if booking is not None:
            self.edit(booking)

    def edit(self, booking: Booking) -> None:
        if booking.status not in OPEN_STATUSES:
            self.notice.show_error(
                f"This booking is {status_text(booking.status).lower()}: only a booking the "
                "carrier has not answered for good can be changed."
            )
            return
        self._open_form(BookingFormDialog(self.session, booking=booking, parent=self))

    def _open_form(self, dialog: BookingFormDialog) -> None:
        dialog.saved.connect(self._saved)
        self.dialog = dialog
        dialog.open()

    def _saved(self, booking: Booking) -> None:
        self.notice.show_info(
            f"Sent to {booking.capacity_provider_identifier.value}; the booking is "
            f"{status_text(booking.status).lower()} until the carrier answers."
        )
        self.detail.show_booking(booking)

    def _cancel_selected(self) -> None:
        booking = self.selected()
        if booking is not None:
            self.confirm_cancel(booking)

    def confirm_cancel(self, booking: Booking) -> None:
        carrier = booking.capacity_provider_identifier.value
        informative = (
            "The carrier is told; the tracked shipment stays with its history."
            if booking.status is BookingStatus.BOOKED
            else "The carrier is told."
        )
        self.question = ask(
            self,
            "Cancel booking",
            f"Cancel the booking with {carrier}?",
            lambda: self.cancel(booking),
            name="confirmCancelBooking",
            informative=informative,
            answers=("Cancel the &booking", "&Keep it"),
        )

    def cancel(self, booking: Booking) -> None:
        service = self.session.bookings
        if service is None:
            return

        def done(cancelled: Booking) -> None:
            self.notice.show_info(
                f"The booking with {cancelled.capacity_provider_identifier.value} is cancelled."
            )
            if self.detail.booking is not None and self.detail.booking.id == cancelled.id:
                self.detail.show_booking(cancelled)

        spawn(
            service.cancel(booking.id),
            on_done=done,
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="cancel-booking",
            owner=self,
        )

    def _open_shipment(self, shipment_id: str) -> None:
        if self.open_shipment is not None:
            self.open_shipment(shipment_id)

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.attribute_name.setFocus()
        self.attribute_name.selectAll()

    def refresh(self) -> None:
        self.binding.refresh()
        service = self.session.bookings
        if service is not None and self.session.client is not None:
            service.watch.poke()

    def shutdown(self) -> None:
        self._expiry_timer.stop()
        self.detail.stop()
        self.binding.shutdown()
        self._unconnected()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
