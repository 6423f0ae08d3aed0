"""The Available vehicles pane: the capacity co-op's empty trucks near an address or a point,
within a radius, in a time window, of one truck type, a page at a time.

The order is the service's (the answer is paged): clicking a sortable column's header asks
for that order, a second click the other way round. A tenant that has not opted into a
capacity co-op is told so, in the service's words, where the vehicles would be.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from freightdesk.models.code_words import unit_name, unit_text
from freightdesk.models.vehicles import (
    AvailableVehicle,
    RadiusUnit,
    VehicleSort,
    VehicleSortField,
)
from freightdesk.service.clock import user_time
from freightdesk.service.listing import Listing, Params
from freightdesk.service.session import AppSession
from freightdesk.service.vehicles import (
    DEFAULT_SORT,
    PAGE_SIZE,
    check_search,
    query_of,
    sort_of,
    sort_params,
)
from freightdesk.ui.panes.vehicles.form import (
    POINT,
    VehicleSearchForm,
    in_form_order,
    truck_text,
)
from freightdesk.ui.widgets.elided import shorten, tip_elided
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage, ListSearch
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.paging import PageBar, Paging
from freightdesk.ui.widgets.search_form import SearchRun, finish_form, lay_out
from freightdesk.ui.widgets.sort_arrow import arrow_follows_order

if TYPE_CHECKING:  # the map brings QtWebEngine up: imported when the pane is first shown
    from freightdesk.ui.maps.page import TileSettings
    from freightdesk.ui.panes.vehicles.map import VehiclesMapView

COORDINATE_DIGITS = 5  # about a metre: closer than a truck stop needs
MAP_MIN_HEIGHT = 160  # px: the circle and its trucks still tell where they are


def _carrier(vehicle: AvailableVehicle) -> str:
    return f"{vehicle.carrier_name} ({vehicle.carrier_identifier.value})"


def _distance(vehicle: AvailableVehicle) -> str:
    return f"{vehicle.distance.value:,.1f} {unit_text(vehicle.distance.unit.value)}"


def _near(vehicle: AvailableVehicle) -> str:
    where = vehicle.location
    return ", ".join(part for part in (where.city, where.state, where.country) if part)


def _contact(vehicle: AvailableVehicle) -> str:
    contact = vehicle.carrier_contact
    name = " ".join(part for part in (contact.given_name, contact.family_name) if part)
    return ", ".join(part for part in (name, contact.phone_number) if part)


def _contact_forms(vehicle: AvailableVehicle) -> list[str]:
    """The contact, then shorter forms that keep the phone number whole (what a dispatcher
    dials): the family name only, then the number alone."""
    contact = vehicle.carrier_contact
    forms = [_contact(vehicle)]
    if contact.phone_number:
        if contact.family_name and contact.given_name:
            forms.append(f"{contact.family_name}, {contact.phone_number}")
        forms.append(contact.phone_number)
    return forms


def _contact_tip(vehicle: AvailableVehicle) -> str:
    contact = vehicle.carrier_contact
    lines = [_contact(vehicle), contact.email or ""]
    return "\n".join(line for line in lines if line)


def _truck(vehicle: AvailableVehicle) -> str:
    return truck_text(vehicle.truck_type) + (" · your shipment" if vehicle.my_shipment else "")


SORTABLE = ". Click to sort by it (again: the other way round)."
COLUMNS: list[Column[AvailableVehicle]] = [
    Column(
        "Carrier",
        _carrier,
        # As wide as the names listed need (the table fits its columns), up to the co-op's
        # longest name and SCAC ("Autotransportes Sierra Madre (ASMD)"); a longer one is cut,
        # whole in the tooltip.
        150,
        tooltip=lambda v: f"{_carrier(v)}\nShared in the co-op pool {v.sharing_pool}",
        header_tip="By carrier, then contact" + SORTABLE,
        most=240,
    ),
    Column(
        "Truck",
        _truck,
        100,
        lambda v: (
            truck_text(v.truck_type)
            + ("\nHauling (or just delivered) one of your shipments" if v.my_shipment else "")
        ),
        header_tip="By truck type" + SORTABLE,
        most=180,  # "Flatbed overdimension · your shipment" whole
    ),
    Column(
        "Distance",
        _distance,
        76,  # its header whole beside the sort arrow
        lambda v: f"{_distance(v)} from the search's centre, as the crow flies",
        header_tip="From the search's centre, as the crow flies" + SORTABLE,
    ),
    Column(
        "Ready",
        lambda v: user_time(v.estimated_arrival_date_time),
        122,
        lambda v: (
            f"Empty and ready to load from {user_time(v.estimated_arrival_date_time)}"
            f" until {user_time(v.available_until_date_time)}"
        ),
        header_tip="When the truck is empty and ready to load, your time" + SORTABLE,
        value=lambda v: v.estimated_arrival_date_time,
    ),
    Column("Near", _near, 90, tooltip=_near, most=200),
    Column("Contact", _contact, 130, tooltip=_contact_tip),
]
CONTACT = 5
# The column of each order the interface offers (a click on its header asks for it).
SORT_COLUMNS = {
    0: VehicleSortField.CARRIER_CONTACT,
    1: VehicleSortField.TRUCK_TYPE,
    2: VehicleSortField.DISTANCE,
    3: VehicleSortField.ESTIMATED_ARRIVAL_DATE_TIME,
}


class VehiclesPane(ListExport, QWidget):
    def __init__(
        self,
        session: AppSession,
        parent: QWidget | None = None,
        *,
        tiles: TileSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.tiles = tiles
        self.map: VehiclesMapView | None = None
        self._making_map = False
        self.model = ListingModel(COLUMNS, self)
        self.sort: tuple[VehicleSort, ...] = DEFAULT_SORT
        self._asked = False  # the user searched: the form says what is asked from now on

        self.form = VehicleSearchForm(self)
        self.errors = self.form.errors
        self.search_button = QPushButton("&Search", self.form)
        self.search_button.setDefault(True)

        self.notice = Notice(self)
        # The columns as wide as their texts need, the key ones first; the contact takes the
        # room left, dropping its given name, then its name, before its phone number is cut.
        self.table = ItemTable(
            self.model, lambda v: str(v.vehicle_id), self, name="vehiclesTable", fit=True
        )
        tip_elided(self.table)
        shorten(self.table, CONTACT, self._contact_forms)
        arrow_follows_order(self.table)
        self.hint = say_when_empty(
            self.table,
            "Empty trucks near a place appear here: say where (an address or a point) and "
            "when on the left, then Search.",
        )
        header = self.table.horizontalHeader()
        header.setSectionsClickable(True)
        header.sectionClicked.connect(self.sort_by_column)
        self.empty = QLabel(self)
        self.empty.setObjectName("emptyAnswer")
        self.empty.setWordWrap(True)
        self.empty.setVisible(False)
        self.page_bar = PageBar(Paging(PAGE_SIZE), "vehicles", self)
        self.refresh_button = QPushButton("&Refresh", self)

        self.page = ListPage(
            self,
            session,
            lambda s: s.vehicles,
            self.table,
            self.notice,
            name="vehicles",
            pages=self.page_bar,
            search=ListSearch(self.criteria, self.fill),
        )
        self.run = SearchRun(self, self.page, self.errors, self.search_button, noun="vehicles")
        finish_form(
            self.form.form,
            self.run,
            "Empty trucks that carriers of your capacity co-op share: where they are (or will "
            "be) and when they are ready to load. The window is your local time.",
        )
        # The list above, the map under it (made when the pane is first shown).
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("vehiclesSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.table)
        self.map_holder = QWidget(self.splitter)
        self.map_box = QVBoxLayout(self.map_holder)
        self.map_box.setContentsMargins(0, 0, 0, 0)
        self.splitter.addWidget(self.map_holder)
        self.map_holder.setMinimumHeight(MAP_MIN_HEIGHT)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([3 * MAP_MIN_HEIGHT, 2 * MAP_MIN_HEIGHT])  # in proportion
        results = [self.notice, self.empty, self.splitter, self.page_bar]
        lay_out(self, self.form, self.run, self.refresh_button, results, self.splitter)

        self.page.shown.connect(self._shown)
        self.search_button.clicked.connect(self.search)
        for edit in self.form.line_edits():
            edit.returnPressed.connect(self.search)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.selectedChanged.connect(self._selected)

    # --- the map ---------------------------------------------------------------------------

    def _contact_forms(self, index: QModelIndex | QPersistentModelIndex) -> list[str]:
        vehicle = self.model.item_at(index.row())
        return _contact_forms(vehicle) if vehicle is not None else []

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._making_map:
            return  # bringing QtWebEngine up processes events, this show among them
        self.ensure_map()
        self.draw_map()

    def ensure_map(self) -> VehiclesMapView:
        if self.map is None:
            from freightdesk.ui.panes.vehicles.map import VehiclesMapView

            self._making_map = True
            try:
                view = VehiclesMapView(self.map_holder, tiles=self.tiles)
            finally:
                self._making_map = False
            view.picked.connect(self.search_at)
            view.vehicleClicked.connect(self.table.select_when_listed)
            self.map_box.addWidget(view)
            self.map = view
        return self.map

    def draw_map(self) -> int | None:
        """Send the page's vehicles and the search circle to the map; the render token."""
        data: Listing[AvailableVehicle] | None = self.page.binding.data
        if self.map is None or data is None or not self.isVisible():
            return None  # drawn when shown
        from freightdesk.ui.panes.vehicles.map import map_payload

        token = self.map.show_vehicles(map_payload(data.items, data.params_dict()))
        self._selected()
        return token

    def _selected(self) -> None:
        if self.map is not None:
            chosen = self.table.selected()
            self.map.select(None if chosen is None else str(chosen.vehicle_id))

    def search_at(self, latitude: float, longitude: float) -> None:
        """Search round a point clicked on the map."""
        form = self.form
        form.where.setCurrentIndex(form.where.findData(POINT))
        form.point.edits["latitude"].setText(f"{latitude:.{COORDINATE_DIGITS}f}")
        form.point.edits["longitude"].setText(f"{longitude:.{COORDINATE_DIGITS}f}")
        self.search()

    # --- showing ---------------------------------------------------------------------------

    def _shown(self, data: Listing[AvailableVehicle]) -> None:
        params = data.params_dict()
        self._show_sort(sort_of(params))
        service = self.session.vehicles
        refusal = service.refusal if service is not None else None
        if refusal:
            # Not an empty answer: the service shares no vehicles with this tenant.
            self.empty.setText(
                "Your organisation has not opted into a capacity co-op, so no carrier's "
                f"vehicles are shared with it. The service says: {refusal}"
            )
        elif not data.items and query_of(params) is not None:
            query = query_of(params)
            assert query is not None
            unit = unit_name(query.radius_unit or RadiusUnit.MI)
            self.empty.setText(
                f"No vehicle is free within this radius ({unit}) in this window"
                + (" of this truck type." if query.truck_type else ".")
                + " Try a wider radius or window, or any truck type."
            )
        self.empty.setVisible(bool(refusal) or (not data.items and query_of(params) is not None))
        self.splitter.setVisible(not refusal)
        self.page_bar.setVisible(not refusal)
        self.draw_map()

    def _show_sort(self, sort: tuple[VehicleSort, ...]) -> None:
        first = sort[0]
        column = next((c for c, f in SORT_COLUMNS.items() if f is first.field), -1)
        order = Qt.SortOrder.DescendingOrder if first.descending else Qt.SortOrder.AscendingOrder
        header = self.table.horizontalHeader()
        header.setSortIndicatorShown(column >= 0)
        header.setSortIndicator(column, order)

    # --- the search ------------------------------------------------------------------------

    def criteria(self) -> Params | None:
        """The search as typed and the order chosen (None: refused, said beside the fields)."""
        own = self.form.problems()
        query, problems = check_search(self.form.wire())
        problems = in_form_order({**problems, **own})
        if query is None or problems:
            self.errors.show(problems)
            return None
        self.errors.clear()
        return {"query": query.wire(exclude_unset=True), "sort": sort_params(self.sort)}

    def search(self) -> None:
        criteria = self.criteria()
        if criteria is not None:
            self._asked = True
            self.run.send({**criteria, **self.page_bar.paging.params(1)})

    def sort_by_column(self, column: int) -> None:
        """Ask for the order of the column clicked (a second click: the other direction)."""
        field = SORT_COLUMNS.get(column)
        if field is None:
            self._show_sort(self.sort)  # the header's own click moved the indicator
            return
        first = self.sort[0]
        descending = not first.descending if first.field is field else False
        self.sort = (VehicleSort(field, descending),)
        self._show_sort(self.sort)
        self.search()

    def fill(self, params: Params) -> None:
        """Put a search's criteria and order back (the cached answer's, at start)."""
        if self._asked:
            return
        self.sort = sort_of(params)
        query = params.get("query")
        self.form.fill(query if isinstance(query, dict) else {})

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.form.where.setFocus()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
        if self.map is not None:
            self.map.dispose()
