"""The Stop locations pane: the tenant's locations with search and paging; new, edit, delete."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.stop_locations import StopLocation
from freightdesk.service.listing import Params
from freightdesk.service.session import AppSession
from freightdesk.ui.formatting import address_text
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.text import hours_text
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage, ListSearch
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.paging import PageBar, Paging

PAGE_SIZE = 50


def _hours_tooltip(location: StopLocation) -> str:
    return hours_text(location.opening_hours).replace("; ", "\n")


# The table fits its columns to their text, so that at 1366x768 the opening hours (the last,
# taking the room left) show beside the rest instead of off to the side.
COLUMNS: list[Column[StopLocation]] = [
    Column("Name", lambda s: s.name, 160, most=260),
    Column("Supplied id", lambda s: s.supplied_id or "", 100, most=160),
    Column("Address", lambda s: ", ".join(s.address.address_lines), 150, most=240),
    Column("City", lambda s: s.address.city or "", 100, most=160),
    Column("State", lambda s: s.address.state or "", 50, most=80),
    Column("Postal code", lambda s: s.address.postal_code or "", 80, most=100),
    Column("Country", lambda s: s.address.country, 60, most=70),
    Column("Version", lambda s: str(s.version or ""), 55, most=70),
    Column("Opening hours", lambda s: hours_text(s.opening_hours), 300, tooltip=_hours_tooltip),
]


class StopLocationsPane(ListExport, QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[StopLocation] = ListingModel(COLUMNS, self)
        self.dialog: StopLocationFormDialog | None = None

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
        self.table = ItemTable(
            self.model, lambda s: s.id, self, name="stopLocationsTable", fit=True
        )
        self.empty = say_when_empty(
            self.table,
            "No stop locations to show: choose New location… to add a place you ship from or "
            "to, or clear the search above.",
            loading="Loading stop locations…",
        )
        self.detail = QLabel(self)
        self.detail.setObjectName("locationDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.page_bar = PageBar(Paging(PAGE_SIZE, by_offset=True), "stop locations", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addWidget(self.page_bar)

        self.page = ListPage(
            self,
            session,
            lambda s: s.stop_locations,
            self.table,
            self.notice,
            name="stop-locations",
            pages=self.page_bar,
            search=ListSearch(read=self._criteria, fill=self._fill_search),
        )
        self.search.textEdited.connect(self.page.search_soon)
        self.search.returnPressed.connect(self.page.search_now)
        self.new_button.clicked.connect(self.new_item)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.on_open(self.edit_selected, "Edit the location", button=self.edit_button)
        self.table.on_delete(self.confirm_delete, "Delete it", button=self.delete_button)
        self.table.selectedChanged.connect(self._selection_changed)
        self._selection_changed()

    # --- showing ---------------------------------------------------------------------------

    def _selection_changed(self) -> None:
        location = self.table.selected()
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

    # --- search ----------------------------------------------------------------------------

    def _criteria(self) -> Params:
        return {"q": self.search.text().strip()}

    def _fill_search(self, params: Params) -> None:
        self.search.setText(str(params.get("q") or ""))

    # --- actions ---------------------------------------------------------------------------

    def new_item(self) -> None:
        self._open_form(None)

    def edit_selected(self) -> None:
        location = self.table.selected()
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
        location = self.table.selected()
        if location is None or location.id is None:
            return
        location_id = location.id
        self.page.ask_delete("stop location", location.name, lambda: self.delete(location_id))

    def delete(self, location_id: object) -> None:
        service = self.session.stop_locations
        if service is None:
            return
        self.page.run(service.delete(str(location_id)), "delete-stop-location")

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
