"""The Bookings pane: the list filtered by status and attribute, with paging and the statuses
coloured; the selected booking in detail; edit, cancel, and a BOOKED booking's tracked
shipment one click away. The carriers' answers arrive in the background and are announced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.booking import OPEN_STATUSES, Booking, BookingStatus
from freightdesk.service.bookings import DEFAULT_PAGE_SIZE, StatusChange, status_text
from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.clock import user_time
from freightdesk.service.export import Cell
from freightdesk.service.listing import Listing, Params
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.dialogs.booking_text import (
    carrier_of,
    carrier_short,
    lane_text,
    reference_text,
    short_lane_text,
    status_color,
)
from freightdesk.ui.formatting import amount_text, countdown_text
from freightdesk.ui.panes.bookings.detail import BookingDetailView, identifier_text, rate_text
from freightdesk.ui.widgets.elided import tip_elided
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import Rows, export_rows, view_rows
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage, ListSearch
from freightdesk.ui.widgets.list_split import ListSplit, list_wanted, turned
from freightdesk.ui.widgets.listing import Column, Index, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.paging import PageBar, Paging

EXPIRY_TICK_MS = 15_000


def _expiry(booking: Booking) -> str:
    if booking.status not in OPEN_STATUSES or booking.expiration_date_time is None:
        return ""
    return countdown_text(booking.expiration_date_time)


def _attributes(booking: Booking) -> str:
    return "; ".join(f"{a.name}: {', '.join(a.values)}" for a in booking.attributes)


def _reference_tip(booking: Booking) -> str:
    """Each reference with its kind, and the booking's id (whole and copyable in the detail)."""
    lines = [identifier_text(i) for i in booking.shipment_identifiers]
    lines += [f"The carrier's: {identifier_text(i)}" for i in booking.carrier_provided_identifiers]
    lines += [f"Rate: {rate_text(r)}" for r in booking.rate_identifiers]
    return "\n".join([*lines, f"Booking id {booking.id}"])


# Each column as wide as its text, from its usual one ("Bloomington, MN → Sacramento, CA",
# "in 23 h 59 min"): the table fits them, left to right. The attributes (the customer) before
# the reference: at 1366x768 the reference, last, takes the room left. A cut cell tells its
# whole text in its tooltip. The booking's id is no column: a dispatcher does not know a
# booking by it (it is in the reference's tooltip, and whole and copyable in the detail).
COLUMNS: list[Column[Booking]] = [
    Column("Status", lambda b: status_text(b.status), 90),
    # The carrier's short name ('Prairie Line'), its whole name and code in the tooltip.
    Column("Carrier", carrier_short, 58, tooltip=carrier_of, most=150),
    Column("Lane", short_lane_text, 232, tooltip=lane_text),
    Column("Total", lambda b: amount_text(b.total_rate), 108),
    Column(
        "Expires",
        _expiry,
        102,
        header_tip="When a booking still waiting for the carrier's answer expires",
        value=lambda b: b.expiration_date_time if _expiry(b) else None,
    ),
    Column(
        "Created",
        lambda b: user_time(b.created_date_time),
        122,
        value=lambda b: b.created_date_time,
    ),
    Column("Attributes", _attributes, 160, tooltip=_attributes, most=320),
    # Its least: the last section stretches from it, never narrower.
    Column(
        "Reference",
        reference_text,
        120,
        tooltip=_reference_tip,
        header_tip="The order numbers shared with the carrier and its own; else the rate's",
    ),
]
# A usual reference (a purchase order and a carrier's PRO), and a cell's text margins.
REFERENCE_SAMPLE = "PO-71437, PRO 4471902"
CELL_PADDING = 14
# The detail's width beside the list, when the window has room for both (1920 px): its
# buttons and the booking's lines.
DETAIL_BESIDE = 420
# The list's share of the height when the detail goes below it (1366 and 1440 px).
STACKED_LIST_SHARE = 0.6
SPLIT_SETTING = "bookings/splitter"


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
        settings: QSettings,
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
        self._unwatch: Callable[[], None] | None = None
        # A booking the detail shows that the list is yet to list (made or opened elsewhere).
        self._waiting: str | None = None

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

        self.table = ItemTable(
            self.model, lambda b: str(b.id), self, name="bookingsTable", fit=True
        )
        tip_elided(self.table)
        # Carriers named after the list came (at a connect): painted with their names.
        self._unnamed = CARRIER_NAMES.listen(lambda _codes: self.table.viewport().update())
        self.destroyed.connect(lambda _gone, unnamed=self._unnamed: unnamed())
        # A usual reference's whole width (it stretches into the room left).
        self.reference_width = (
            self.table.fontMetrics().horizontalAdvance(REFERENCE_SAMPLE) + CELL_PADDING
        )
        self.empty = say_when_empty(
            self.table,
            "No bookings to show: book a quote from Rate requests or choose New booking…, or "
            "clear the filters above.",
            loading="Loading bookings…",
        )
        self.page_bar = PageBar(Paging(DEFAULT_PAGE_SIZE), "bookings", self)
        listing = QWidget(self)
        listing_layout = QVBoxLayout(listing)
        listing_layout.setContentsMargins(0, 0, 0, 0)
        listing_layout.addWidget(self.table, 1)
        listing_layout.addWidget(self.page_bar)
        self.detail = BookingDetailView(self)
        self.detail.can_open_shipments = open_shipment is not None
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(listing)
        self.splitter.addWidget(self.detail)
        self.splitter.setChildrenCollapsible(False)
        self.split = ListSplit(
            self.splitter, settings, SPLIT_SETTING, self._default_split, self._beside
        )
        # A page's rows fit the columns to their texts: the split is worked out again.
        self.model.modelReset.connect(self.split.timer.start)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addLayout(filters)
        layout.addWidget(self.notice)
        layout.addWidget(self.splitter, 1)

        self.page = ListPage(
            self,
            session,
            lambda s: s.bookings,
            self.table,
            self.notice,
            name="bookings",
            pages=self.page_bar,
            search=ListSearch(read=self._criteria, fill=self._fill_filters),
        )
        self.page.shown.connect(self._refresh_detail)
        for box in self.status_boxes.values():
            box.toggled.connect(self.page.search_now)
        self.apply_button.clicked.connect(self.page.search_now)
        self.attribute_name.returnPressed.connect(self.page.search_now)
        self.attribute_values.returnPressed.connect(self.page.search_now)
        self.clear_button.clicked.connect(self.page.clear_search)
        self.new_button.clicked.connect(self.new_item)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.on_open(self.edit_selected, "Edit the booking")
        self.table.on_delete(self._cancel_selected, "Cancel")
        self.table.selectedChanged.connect(self._selection_changed)
        self.detail.editRequested.connect(self.edit)
        self.detail.cancelRequested.connect(self.confirm_cancel)
        self.detail.shipmentRequested.connect(self._open_shipment)

        self._expiry_timer = QTimer(self)
        self._expiry_timer.setInterval(EXPIRY_TICK_MS)
        self._expiry_timer.timeout.connect(self._tick)
        self._expiry_timer.start()

        self._unconnected = session.listen_connected(self._follow)
        self._follow()

    # --- the room the list and the detail share --------------------------------------------

    def _beside(self) -> bool | None:
        """Whether the splitter holds the list's columns whole and the detail's
        `DETAIL_BESIDE` side by side (None: not laid out yet)."""
        width, height = self.splitter.width(), self.splitter.height()
        if width <= 0 or height <= 0:
            return None
        header = self.table.horizontalHeader()
        # The last column, the reference, stretches: its own width is what it wants.
        columns = sum(header.sectionSize(c) for c in range(len(COLUMNS) - 1))
        wanted = list_wanted(self.table, columns + self.reference_width)
        return wanted + self.splitter.handleWidth() + self._detail_beside() <= width

    def _detail_beside(self) -> int:
        return max(DETAIL_BESIDE, self.detail.minimumSizeHint().width())

    def _default_split(self) -> None:
        """The detail beside the list when the splitter holds the list's columns whole and
        the detail's `DETAIL_BESIDE`; else below the list, which keeps `STACKED_LIST_SHARE`
        of the height: beside it at 1366 and 1440 px the detail left the list too little
        room, its lanes, attributes and references cut. The split the user drags is
        `self.split`'s, kept across starts (within the orientation it was dragged in)."""
        beside = self._beside()
        if beside is None:
            return  # not laid out yet
        self.splitter.setOrientation(turned(beside))
        # Beside: a wider window widens the list; below: both grow with the height.
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0 if beside else 1)
        if beside:
            detail = self._detail_beside()
            sizes = [self.splitter.width() - detail, detail]
        else:
            list_height = round(self.splitter.height() * STACKED_LIST_SHARE)
            sizes = [list_height, self.splitter.height() - list_height]
        if self.splitter.sizes() != sizes:
            self.splitter.setSizes(sizes)

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

    def _refresh_detail(self, data: Listing[Booking]) -> None:
        """The booking in the detail as the list has it now (an answer, a change elsewhere)."""
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

    def _selection_changed(self) -> None:
        """The selected booking in the detail. With none (a search that hid it), the detail
        says to choose one, as the Shipments pane's does, rather than keep a booking the list
        no longer shows; a booking made or opened elsewhere stays until the list has it."""
        booking = self.table.selected()
        if booking is not None:
            self._waiting = None
            self.detail.show_booking(booking)
            return
        shown = self.detail.booking
        if shown is not None and str(shown.id) != self._waiting:
            self.detail.show_booking(None)

    def _select_when_listed(self, booking: Booking) -> None:
        self.table.select_when_listed(str(booking.id))
        chosen = self.table.selected()
        listed = chosen is not None and chosen.id == booking.id
        self._waiting = None if listed else str(booking.id)

    def show_booking(self, booking: Booking) -> None:
        """Show a booking (made elsewhere in the app): the detail at once, the list's first
        page without filters, the row selected when it arrives."""
        self.detail.show_booking(booking)
        self._select_when_listed(booking)
        self.page.clear_search()

    # --- filters ---------------------------------------------------------------------------

    def _criteria(self) -> Params | None:
        name = self.attribute_name.text().strip()
        values = [v.strip() for v in self.attribute_values.text().split(",") if v.strip()]
        if self.attribute_values.text().strip() and not name:
            self.notice.show_error("Values filter an attribute: enter the attribute's name too.")
            self.attribute_name.setFocus()
            return None
        statuses = [s.value for s, box in self.status_boxes.items() if box.isChecked()]
        criteria: Params = {"statuses": statuses}
        if name:
            criteria["attributeName"] = name
            criteria["attributeValues"] = values
        return criteria

    def _fill_filters(self, params: Params) -> None:
        statuses = set(params.get("statuses") or [])
        for status, box in self.status_boxes.items():
            box.blockSignals(True)  # filled in, not a new search
            box.setChecked(status.value in statuses)
            box.blockSignals(False)
        self.attribute_name.setText(str(params.get("attributeName") or ""))
        self.attribute_values.setText(", ".join(params.get("attributeValues") or []))

    # --- actions ---------------------------------------------------------------------------

    def new_item(self) -> None:
        self._open_form(BookingFormDialog(self.session, parent=self))

    def edit_selected(self) -> None:
        booking = self.table.selected() or self.detail.booking
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
            f"Sent to {carrier_of(booking)}; the booking is "
            f"{status_text(booking.status).lower()} until the carrier answers."
        )
        self.detail.show_booking(booking)
        self._select_when_listed(booking)

    def _cancel_selected(self) -> None:
        booking = self.table.selected()
        if booking is not None:
            self.confirm_cancel(booking)

    def confirm_cancel(self, booking: Booking) -> None:
        carrier = carrier_of(booking)
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
            self.notice.show_info(f"The booking with {carrier_of(cancelled)} is cancelled.")
            if self.detail.booking is not None and self.detail.booking.id == cancelled.id:
                self.detail.show_booking(cancelled)

        self.page.run(service.cancel(booking.id), "cancel-booking", on_done=done)

    def _open_shipment(self, shipment_id: str) -> None:
        if self.open_shipment is not None:
            self.open_shipment(shipment_id)

    # --- pane actions ----------------------------------------------------------------------

    def export_view(self) -> QFileDialog:
        """The list as shown, led by each booking's id, and its reference even when the user
        hid that column: an export goes to other systems, which know a booking by its id (the
        list leaves it to the tooltip and the detail, a dispatcher does not read it)."""
        return export_rows(self, self._export_rows, self.notice, noun="bookings")

    def _export_rows(self) -> Rows:
        shown = view_rows(self.table)
        items = self.model.items
        rows = [b for r, b in enumerate(items) if not self.table.isRowHidden(r)]  # as shown
        header = ["Booking id", *shown.header]
        cells: list[list[Cell]] = [[str(b.id), *r] for b, r in zip(rows, shown.rows, strict=True)]
        if "Reference" not in shown.header:
            header.append("Reference")
            for booking, row in zip(rows, cells, strict=True):
                row.append(reference_text(booking))
        return Rows(header, cells)

    def focus_search(self) -> None:
        self.attribute_name.setFocus()
        self.attribute_name.selectAll()

    def refresh(self) -> None:
        self.page.refresh()
        service = self.session.bookings
        if service is not None and self.session.client is not None:
            service.watch.poke()

    def shutdown(self) -> None:
        self._unnamed()
        self._expiry_timer.stop()
        self.split.shutdown()
        self.detail.stop()
        self.page.shutdown()
        self._unconnected()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
