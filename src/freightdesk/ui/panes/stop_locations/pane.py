"""The Stop locations pane: the tenant's locations with search and paging; new, edit, delete."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.stop_locations import StopLocation
from freightdesk.service.listing import ListChange
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.text import DASH, address_text, hours_text
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.listing import Column, ListBinding, ListingModel, current_row
from freightdesk.ui.widgets.notice import Notice

PAGE_SIZE = 50


def _hours_tooltip(location: StopLocation) -> str:
    return hours_text(location.opening_hours).replace("; ", "\n")


SEARCH_DEBOUNCE_MS = 300

COLUMNS: list[Column[StopLocation]] = [
    Column("Name", lambda s: s.name, 230),
    Column("Supplied id", lambda s: s.supplied_id or "", 130),
    Column("Address", lambda s: ", ".join(s.address.address_lines), 210),
    Column("City", lambda s: s.address.city or "", 130),
    Column("State", lambda s: s.address.state or "", 55),
    Column("Postal code", lambda s: s.address.postal_code or "", 90),
    Column("Country", lambda s: s.address.country, 65),
    Column("Version", lambda s: str(s.version or ""), 60),
    Column("Opening hours", lambda s: hours_text(s.opening_hours), 300, tooltip=_hours_tooltip),
]


class StopLocationsPane(QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[StopLocation] = ListingModel(COLUMNS, self)
        self.dialog: StopLocationFormDialog | None = None
        self.question: QMessageBox | None = None

        self.search = QLineEdit(self)
        self.search.setObjectName("stopLocationSearch")
        self.search.setPlaceholderText("Find by name, supplied id, city or postal code")
        self.search.setClearButtonEnabled(True)
        self.new_button = QPushButton("&New location…", self)
        self.edit_button = QPushButton("&Edit…", self)
        self.delete_button = QPushButton("&Delete…", self)
        self.refresh_button = QPushButton("&Refresh", self)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.new_button)
        top.addWidget(self.edit_button)
        top.addWidget(self.delete_button)
        self.notice = Notice(self)
        self.table = QTableView(self)
        self.table.setObjectName("stopLocationsTable")
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
        self.detail = QLabel(self)
        self.detail.setObjectName("locationDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.page_label = QLabel(self)
        self.previous_button = QPushButton("◀ &Previous", self)
        self.next_button = QPushButton("Ne&xt ▶", self)
        paging = QHBoxLayout()
        paging.addWidget(self.page_label)
        paging.addStretch(1)
        paging.addWidget(self.previous_button)
        paging.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addLayout(paging)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(lambda: self.show_page(0))
        self.search.textEdited.connect(lambda _text: self._search_timer.start())
        self.search.returnPressed.connect(lambda: self.show_page(0))
        self.new_button.clicked.connect(self.new_item)
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.refresh_button.clicked.connect(self.refresh)
        self.previous_button.clicked.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(1))
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        for keys, slot, text in (
            (QKeySequence(Qt.Key.Key_Return), self.edit_selected, "Edit the location"),
            (QKeySequence(Qt.Key.Key_F2), self.edit_selected, "Edit the location"),
            (QKeySequence(QKeySequence.StandardKey.Delete), self.confirm_delete, "Delete it"),
        ):
            action = QAction(text, self.table)
            action.setShortcut(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            action.triggered.connect(slot)
            self.table.addAction(action)

        self.binding = ListBinding(self, session, lambda s: s.stop_locations)
        self.binding.changed.connect(self._show)
        self.binding.statusChanged.connect(self.notice.show_status)
        self._search_filled = False
        self._selection_changed()

    # --- showing ---------------------------------------------------------------------------

    def _show(self, _change: ListChange | None = None) -> None:
        data = self.binding.data
        if data is None:
            return
        selected = self.selected()
        self.model.set_items(data.items)
        params = data.params_dict()
        if not self._search_filled:
            self._search_filled = True
            self.search.setText(str(params.get("q") or ""))
        offset = int(params.get("offset", 0))
        size = int(params.get("pageSize", PAGE_SIZE))
        if data.total == 0:
            self.page_label.setText(
                "No stop locations match" if params.get("q") else "No stop locations yet"
            )
        else:
            last = min(offset + len(data.items), data.total)
            self.page_label.setText(f"{offset + 1}{DASH}{last} of {data.total:,} stop locations")
        self.previous_button.setEnabled(offset > 0)
        self.next_button.setEnabled(offset + size < data.total)
        if selected is not None:
            row = next((r for r, s in enumerate(data.items) if s.id == selected.id), None)
            if row is not None:
                self.table.selectRow(row)
        self._selection_changed()

    def selected(self) -> StopLocation | None:
        if not self.table.selectionModel().selectedRows():
            return None
        return self.model.item_at(current_row(self.table))

    def _selection_changed(self, *_args: object) -> None:
        location = self.selected()
        self.edit_button.setEnabled(location is not None)
        self.delete_button.setEnabled(location is not None)
        if location is None:
            self.detail.clear()
            return
        parts = [address_text(location.address)]
        if location.coordinates:
            parts.append(
                f"at {location.coordinates.latitude:.5f}, {location.coordinates.longitude:.5f}"
            )
        if location.opening_hours:
            parts.append(f"open {hours_text(location.opening_hours)}")
        parts.append(f"version {location.version}")
        self.detail.setText(" · ".join(parts))

    # --- paging and search -----------------------------------------------------------------

    def show_page(self, offset: int) -> None:
        service = self.session.stop_locations
        if service is None or self.session.client is None:
            return
        self._search_timer.stop()
        self._search_filled = True
        params = {"q": self.search.text().strip(), "offset": max(0, offset), "pageSize": PAGE_SIZE}
        spawn(
            service.show(params),
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="stop-locations-page",
        )

    def step(self, direction: int) -> None:
        data = self.binding.data
        params = data.params_dict() if data else {}
        offset = int(params.get("offset", 0)) + direction * int(params.get("pageSize", PAGE_SIZE))
        self.show_page(offset)

    # --- actions ---------------------------------------------------------------------------

    def new_item(self) -> None:
        self._open_form(None)

    def edit_selected(self) -> None:
        location = self.selected()
        if location is not None:
            self._open_form(location)

    def _open_form(self, location: StopLocation | None) -> None:
        dialog = StopLocationFormDialog(self.session, location, self)
        dialog.saved.connect(
            lambda saved: self.notice.show_info(f"Saved {saved.name} (version {saved.version}).")
        )
        self.dialog = dialog
        dialog.open()

    def confirm_delete(self) -> None:
        location = self.selected()
        if location is None or location.id is None:
            return
        location_id = location.id
        self.question = ask(
            self,
            "Delete stop location",
            f"Delete the stop location {location.name}?",
            lambda: self.delete(location_id),
            name="confirmDelete",
        )

    def delete(self, location_id: object) -> None:
        service = self.session.stop_locations
        if service is None:
            return
        spawn(
            service.delete(str(location_id)),
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="delete-stop-location",
        )

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def refresh(self) -> None:
        self.binding.refresh()

    def shutdown(self) -> None:
        self._search_timer.stop()
        self.binding.shutdown()
