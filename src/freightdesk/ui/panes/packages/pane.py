"""The Packages pane: search by every filter of the interface (identifier, SKU, origin and
destination, shipper) with paging; new, edit, delete after a confirmation (the selected package,
or one named by an identifier); status shown."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text, unit_text, words
from freightdesk.models.packaging import (
    DeletedPackage,
    Package,
    PackageLocation,
    PackageSearch,
    PackageStatus,
)
from freightdesk.service.clock import user_time
from freightdesk.service.listing import Params
from freightdesk.service.packages import PAGE_SIZE
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.packages.delete import DeleteByIdentifierDialog
from freightdesk.ui.panes.packages.form import IDENTIFIER_TYPES, PackageFormDialog
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.elided import tip_elided
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage, ListSearch
from freightdesk.ui.widgets.listing import Column, Index, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.paging import PageBar, Paging

TIMES = "\u00d7"
STATUS_COLORS = {
    PackageStatus.UNASSIGNED: QColor("#c47a00"),
    PackageStatus.ASSIGNED: QColor("#2f6fde"),
    PackageStatus.CONFIRMED: QColor("#2e9d5b"),
}
# Filter field -> (label, placeholder), in the order of the grid.
FILTERS: dict[str, tuple[str, str]] = {
    "sku_identifier": ("SKU", "an item's SKU"),
    "origin_city": ("Origin city", ""),
    "origin_state": ("Origin state", "e.g. IL"),
    "origin_postal_code": ("Origin postal code", ""),
    "origin_country": ("Origin country", "e.g. US"),
    "destination_city": ("Destination city", ""),
    "destination_state": ("Destination state", ""),
    "destination_postal_code": ("Destination postal code", ""),
    "destination_country": ("Destination country", ""),
    # What the shipper's account is known by: its account number, or its company id as the
    # Sharing tab names it (the interface's tenant id and tenant uuid).
    "shipper_tenant_id": ("Shipper number", "account number"),
    "shipper_tenant_uuid": ("Shipper company id", "company id"),
}
# The longer word on a filter whose placeholder is kept short to read whole at 1366 px.
FILTER_TIPS = {"shipper_tenant_uuid": "The shipper's company id, as Sharing names a company"}


def _place(location: PackageLocation | None) -> str:
    if location is None:
        return ""
    address = location.address
    place = ", ".join(p for p in ((address.city, address.state) if address else ()) if p)
    return location.name or place if not (location.name and place) else f"{location.name} ({place})"


def _place_short(location: PackageLocation | None) -> str:
    """`_place` without the city its name already says: "Northfield Goods Sacramento (CA)"
    for "Northfield Goods Sacramento (Sacramento, CA)", so both places read at 1366 px."""
    address = location.address if location is not None else None
    if location is None or not location.name or address is None or not address.city:
        return _place(location)
    if address.city.casefold() not in location.name.casefold():
        return _place(location)
    return f"{location.name} ({address.state})" if address.state else location.name


def _dimensions(package: Package) -> str:
    dims = package.package.dimensions if package.package else None
    if dims is None:
        return ""
    # A list says a unit as a dispatcher writes it ("in", "lb"), short for its column.
    sizes = TIMES.join(f"{size:g}" for size in (dims.length, dims.width, dims.height))
    return f"{sizes} {unit_text(dims.unit.value)}"


def _weight(package: Package) -> str:
    weight = package.package.weight if package.package else None
    return f"{weight.value:,.0f} {unit_text(weight.unit.value)}" if weight else ""


def _volume(package: Package) -> str:
    volume = package.package.volume if package.package else None
    return f"{volume.value:g} ft³" if volume else ""


def _items(package: Package) -> str:
    units = sum(i.unit_quantity for i in package.items)
    return f"{len(package.items)} ({units:,} units)"


def _identifiers(package: Package) -> str:
    """The package's own id bare ("PKG-240149"), others with their type ("OLPN OLPN-001"):
    the word PACKAGE_ID took the room the places need."""
    return ", ".join(
        i.value if i.type == "PACKAGE_ID" else f"{code_text(i.type)} {i.value}"
        for i in package.identifiers
    )


def _identifiers_typed(package: Package) -> str:
    return ", ".join(f"{code_text(i.type)} {i.value}" for i in package.identifiers)


# Each column fits its text (from its least width to its most), the key ones first, left to
# right; the places take the room the figures leave (the demo's "Alder & Finch Queretaro
# Plant (Queretaro, QUE)" was cut at 1440 px beside an empty Volume column), sharing it when
# short of it (1366 px), elided in the middle, their whole text in the tooltip.
ORIGIN = 9  # the destination, last, takes the room left
COLUMNS: list[Column[Package]] = [
    # The least widths of the figures as small as the demo's need ("PKG-240149", "1,010 LB"):
    # what they do not take the destination gets.
    Column("Identifiers", _identifiers, 90, tooltip=_identifiers_typed),
    Column("Status", lambda p: words(p.status.value), 85),
    Column("Type", lambda p: code_text(p.package.type) if p.package else "", 50),
    Column("Items", _items, 100),  # "1 (1,200 units)" whole
    Column("Weight", _weight, 60),
    Column("Dimensions", _dimensions, 105),
    Column("Volume", _volume, 60),
    Column("Stackable", lambda p: "Yes" if p.is_stackable else "No", 70),
    Column("Accessorials", lambda p: ", ".join(words(a.type.value) for a in p.accessorials), 90),
    Column(
        "Origin",
        lambda p: _place_short(p.origin_location),
        150,
        most=300,
        tooltip=lambda p: _place(p.origin_location),
    ),
    Column(
        "Destination",
        lambda p: _place_short(p.destination_location),
        120,
        tooltip=lambda p: _place(p.destination_location),
    ),
]


class PackagesModel(ListingModel[Package]):
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 1:
            package = self.item_at(index.row())
            return STATUS_COLORS.get(package.status) if package else None
        return super().data(index, role)


class PackagesPane(ListExport, QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model = PackagesModel(COLUMNS, self)
        self.dialog: PackageFormDialog | None = None
        self.delete_dialog: DeleteByIdentifierDialog | None = None
        self.last_deleted: DeletedPackage | None = None

        search = QGroupBox("Find packages", self)
        grid = QGridLayout(search)
        self.identifier_type = QComboBox(search)
        self.identifier_type.setObjectName("identifierType")
        self.identifier_type.setEditable(True)
        add_codes(self.identifier_type, ["", *IDENTIFIER_TYPES])
        # As wide as the value beside it, not as the longest type in the list.
        self.identifier_type.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.identifier_type.setMinimumContentsLength(12)
        self.identifier_value = QLineEdit(search)
        self.identifier_value.setObjectName("identifierValue")
        self.identifier_value.setPlaceholderText("exact value")
        identifier = QHBoxLayout()
        identifier.setContentsMargins(0, 0, 0, 0)
        identifier.addWidget(self.identifier_type, 1)
        identifier.addWidget(self.identifier_value, 2)
        identifier_holder = QWidget(search)
        identifier_holder.setLayout(identifier)
        self.filters: dict[str, QLineEdit] = {}
        for field, (_label, hint) in FILTERS.items():
            edit = QLineEdit(search)
            edit.setObjectName(field)
            edit.setPlaceholderText(hint)
            edit.setToolTip(FILTER_TIPS.get(field, ""))
            edit.setClearButtonEnabled(True)
            self.filters[field] = edit
        cells: list[list[tuple[str, QWidget]]] = [
            [("&Identifier", identifier_holder)],
            [],
            [],
        ]
        for field, (label, _hint) in FILTERS.items():
            row = 1 if field.startswith("origin") else 2 if field.startswith("destination") else 0
            cells[row].append((label, self.filters[field]))
        for row, pairs in enumerate(cells):
            for place, (text, widget) in enumerate(pairs):
                caption = QLabel(text, search)
                caption.setBuddy(
                    widget if widget is not identifier_holder else self.identifier_type
                )
                grid.addWidget(caption, row, place * 2)
                grid.addWidget(widget, row, place * 2 + 1)
        self.search_button = QPushButton("&Search", search)
        self.search_button.setDefault(True)
        self.clear_button = QPushButton("Clear", search)
        search_buttons = QHBoxLayout()
        search_buttons.addStretch(1)
        search_buttons.addWidget(self.clear_button)
        search_buttons.addWidget(self.search_button)
        grid.addLayout(search_buttons, 3, 0, 1, 8)

        self.new_button = QPushButton("&New package…", self)
        self.edit_button = QPushButton("&Edit…", self)
        self.delete_button = QPushButton("&Delete…", self)
        self.delete_by_identifier_button = QPushButton("Delete by identi&fier…", self)
        self.delete_by_identifier_button.setToolTip(
            "Delete the package that has an identifier, without finding it in the list first"
        )
        self.refresh_button = QPushButton("&Refresh", self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Packages planned for shipping, newest first.", self), 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.new_button)
        top.addWidget(self.edit_button)
        top.addWidget(self.delete_button)
        top.addWidget(self.delete_by_identifier_button)
        self.notice = Notice(self)
        # Short of room (1366 px), the origin and the destination share it: both read.
        self.table = ItemTable(
            self.model, lambda p: p.id, self, name="packagesTable", fit=True, shares=ORIGIN
        )
        # A place's start and its state both tell it: cut in the middle, not at the end.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        tip_elided(self.table)
        self.empty = say_when_empty(
            self.table,
            "No packages to show: choose New package… to plan one, or Clear the search above.",
            loading="Loading packages…",
        )
        self.detail = QLabel(self)
        self.detail.setObjectName("packageDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.page_bar = PageBar(Paging(PAGE_SIZE), "packages", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(search)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addWidget(self.page_bar)

        self.page = ListPage(
            self,
            session,
            lambda s: s.packages,
            self.table,
            self.notice,
            name="packages",
            pages=self.page_bar,
            search=ListSearch(read=self._criteria, fill=self._fill_search),
        )
        self.search_button.clicked.connect(self.page.search_now)
        self.clear_button.clicked.connect(self.page.clear_search)
        for edit in (self.identifier_value, *self.filters.values()):
            edit.returnPressed.connect(self.page.search_now)
        self.new_button.clicked.connect(self.new_item)
        self.delete_by_identifier_button.clicked.connect(self.delete_by_identifier)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.on_open(self.edit_selected, "Edit the package", button=self.edit_button)
        self.table.on_delete(self.confirm_delete, "Delete it", button=self.delete_button)
        self.table.selectedChanged.connect(self._selection_changed)
        self._selection_changed()

    # --- showing ---------------------------------------------------------------------------

    def _selection_changed(self) -> None:
        package = self.table.selected()
        if package is None:
            self.detail.clear()
            return
        items = "; ".join(
            f"{i.unit_quantity} {TIMES} "
            + (
                f"{code_text(i.order_identifier.type)} {i.order_identifier.value}"
                if i.order_identifier
                else ""
            )
            + (f" ({', '.join(x.value for x in i.identifiers)})" if i.identifiers else "")
            for i in package.items
        )
        modified = user_time(package.last_modified_date_time)
        self.detail.setText(
            f"{words(package.status.value)} · items: {items} · last changed {modified}"
        )
        # The service's id of the package only where support may ask for it, not in the line.
        self.detail.setToolTip(f"Package id {package.id}")

    # --- search ----------------------------------------------------------------------------

    def search(self) -> PackageSearch:
        return PackageSearch(
            identifier_type=code_of(self.identifier_type) or None,
            identifier_value=self.identifier_value.text().strip() or None,
            **{field: edit.text().strip() or None for field, edit in self.filters.items()},
        )

    def _criteria(self) -> Params | None:
        search = self.search()
        if bool(search.identifier_type) != bool(search.identifier_value):
            self.notice.show_error(
                "An identifier is found by its type and its exact value: enter both."
            )
            (self.identifier_value if search.identifier_type else self.identifier_type).setFocus()
            return None
        return dict(search.params())

    def _fill_search(self, params: Params) -> None:
        search = PackageSearch.from_params(params)
        choose_code(self.identifier_type, search.identifier_type or "")
        self.identifier_value.setText(search.identifier_value or "")
        for field, edit in self.filters.items():
            edit.setText(getattr(search, field) or "")

    # --- actions ---------------------------------------------------------------------------

    def new_item(self) -> None:
        self._open_form(None)

    def edit_selected(self) -> None:
        package = self.table.selected()
        if package is not None:
            self._open_form(package)

    def _open_form(self, package: Package | None) -> None:
        dialog = PackageFormDialog(self.session, package, self)
        dialog.saved.connect(self._saved)
        self.dialog = dialog
        dialog.open()

    def _saved(self, package: Package) -> None:
        first = package.identifiers[0].value if package.identifiers else str(package.id)
        self.notice.show_info(f"Saved package {first} ({words(package.status.value).lower()}).")

    def confirm_delete(self) -> None:
        package = self.table.selected()
        if package is None:
            return
        package_id = str(package.id)
        self.page.ask_delete(
            "package",
            _identifiers(package),
            lambda: self.delete(package_id),
            informative="Its identifiers become free for another package.",
        )

    def delete(self, package_id: str) -> None:
        service = self.session.packages
        if service is None:
            return

        def done(deleted: DeletedPackage | None) -> None:
            self.last_deleted = deleted
            self.notice.show_info("The package is deleted.")

        self.page.run(service.delete(package_id), "delete-package", on_done=done)

    def delete_by_identifier(self) -> None:
        """Ask for an identifier (the one searched for, to begin with) and delete its package."""
        search = self.search()
        dialog = DeleteByIdentifierDialog(
            self.session,
            IDENTIFIER_TYPES,
            self,
            type_=search.identifier_type or "",
            value=search.identifier_value or "",
        )
        dialog.deleted.connect(self._deleted_by_identifier)
        self.delete_dialog = dialog
        dialog.open()

    def _deleted_by_identifier(self, deleted: DeletedPackage) -> None:
        self.last_deleted = deleted
        names = ", ".join(f"{code_text(i.type)} {i.value}" for i in deleted.identifiers)
        self.notice.show_info(f"The package {names} is deleted.")

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.identifier_value.setFocus()
        self.identifier_value.selectAll()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
