"""The Sailing schedules pane: the ocean sailings between two ports in a departure and/or an
arrival window, with a route line per sailing (its legs, vessels and transit days), page by
page.

Ports are picked by name or typed as UN/LOCODEs: the completer offers the ports the service
has named so far (the interface has no port lookup; see `service/schedules.py`). Shown, a port
reads by one rule (`service.schedules.Port`): by its name in a route or the stops
("Shanghai → Santos → Rotterdam"), whole with its country and code where it is named alone
(the form, the tooltips, the legs below); its times in its zone (`Jan 5 11:00 CET`).
"""

from __future__ import annotations

from datetime import date, timedelta

from PySide6.QtCore import QDate, QModelIndex, QPersistentModelIndex, QStringListModel, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from freightdesk.models.schedules import (
    MAX_TRANSSHIPMENTS,
    OceanCarrier,
    PointToPointRoute,
    PortCall,
    ScheduleSort,
)
from freightdesk.service.clock import offset_time
from freightdesk.service.listing import Listing, Params
from freightdesk.service.schedules import (
    PAGE_SIZE,
    Port,
    SearchInput,
    check_search,
    port_of,
    port_zone,
    resolve_port,
    search_of,
    search_params,
)
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.carrier_field import complete_carriers
from freightdesk.ui.widgets.completion import ClickThrough, sole_completion
from freightdesk.ui.widgets.elided import cut_at_end, shorten, tip_elided
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.paging import PageBar, Paging
from freightdesk.ui.widgets.search_form import SearchRun, finish_form, lay_out
from freightdesk.ui.widgets.time_edit import day_edit

ARROW = "\u2192"
SORTS = {
    ScheduleSort.DEPARTURE_DATE_TIME: "Departure, earliest first",
    ScheduleSort.ARRIVAL_DATE_TIME: "Arrival, earliest first",
    ScheduleSort.TRANSIT_TIME: "Transit time, shortest first",
}
WINDOW_DAYS = 14
PORT_TIP = "A port's name or its UN/LOCODE (five letters: CNSHA is Shanghai)"


def call_text(call: PortCall) -> str:
    """A port call in the port's own time, its zone named as every time at a place is
    (`Jan 5 11:00 CET`; the offset only for a port the app does not know)."""
    return offset_time(call.date_time, port_zone(call.locode))


def days_text(days: int) -> str:
    return f"{days} day{'s' if days != 1 else ''}"


def route_line(route: PointToPointRoute) -> str:
    """Shanghai → [EVER ACE 012W, 9 days] → Singapore → [MSC ANNA 044W, 21 days] → Rotterdam"""
    return route_forms(route)[0]


def route_forms(route: PointToPointRoute) -> list[str]:
    """The route as the list shows it, longest first: each leg's vessel, voyage and days; its
    vessel and voyage; its vessel; the ports alone ("Shanghai → Singapore → Rotterdam"). The
    list shows the longest that fits its column: the ports where the hub was cut out of the
    middle of the whole line ("Shanghai → […] → Rotterdam" at 1366 and 1440 px)."""
    if not route.legs:
        return [f" {ARROW} ".join(port_of(c).short for c in (route.departure, route.arrival))]
    calls = [route.legs[0].departure, *(leg.arrival for leg in route.legs)]
    ports = [port_of(call).short for call in calls]
    details = [
        [
            f"[{leg.vessel_name} {leg.voyage_number}, {days_text(leg.transit_time_days)}]"
            for leg in route.legs
        ],
        [f"[{leg.vessel_name} {leg.voyage_number}]" for leg in route.legs],
        [f"[{leg.vessel_name}]" for leg in route.legs],
    ]
    forms = []
    for legs in details:
        parts = [ports[0]]
        for leg, port in zip(legs, ports[1:], strict=True):
            parts += [leg, port]
        forms.append(f" {ARROW} ".join(parts))
    return [*forms, f" {ARROW} ".join(ports)]


def route_detail(route: PointToPointRoute) -> str:
    """Every leg of a sailing on its own line (the route's tooltip and the detail below), each
    port said whole with its code."""
    lines = [
        f"{route.carrier_name} ({route.carrier_code}), {route.service_name}: "
        f"{days_text(route.transit_time_days)}; cargo cut-off {call_text_at(route)}"
    ]
    for leg in route.legs:
        lines.append(
            f"{leg.sequence}. {port_of(leg.departure).text} {call_text(leg.departure)} "
            f"{ARROW} {port_of(leg.arrival).text} {call_text(leg.arrival)}: {leg.vessel_name} "
            f"voyage {leg.voyage_number}, {leg.service_name}, "
            f"{days_text(leg.transit_time_days)}"
        )
    return "\n".join(lines)


def call_text_at(route: PointToPointRoute) -> str:
    cutoff = route.cargo_cutoff_date_time.astimezone(route.departure.date_time.tzinfo)
    return call_text(route.departure.model_copy(update={"date_time": cutoff}))


def stops_text(route: PointToPointRoute) -> str:
    """The stops said whole: "1 transshipment: Santos, BR (BRSSZ)" (the Stops column's
    tooltip)."""
    count = route.transshipment_count
    if count == 0:
        return "Direct"
    hubs = "; ".join(port_of(t).text for t in route.transshipments)
    return f"{count} transshipment{'s' if count != 1 else ''}: {hubs}"


def stops_short(route: PointToPointRoute) -> str:
    """The stops in the list, short enough to be read whole: "Direct", "Via Singapore,
    Colombo"."""
    if route.transshipment_count == 0:
        return "Direct"
    return "Via " + ", ".join(port_of(t).short for t in route.transshipments)


STOPS = 4
ROUTE = 5  # the column that takes the room left
COLUMNS: list[Column[PointToPointRoute]] = [
    # Each as wide as its text (the table fits them): the carrier whole with its code, times
    # whole with their zone ("Jan 5 11:00 CET", from 105 px so that the route has the room
    # they do not need; "Dec 30 23:00 UTC+10:30" wider for a port the app has no zone of);
    # the route takes the room left, every cut cell telling its whole text.
    Column("Carrier", lambda r: f"{r.carrier_name} ({r.carrier_code})", 165, most=260),
    Column("Departs", lambda r: call_text(r.departure), 105, value=lambda r: r.departure.date_time),
    Column("Arrives", lambda r: call_text(r.arrival), 105, value=lambda r: r.arrival.date_time),
    Column("Transit", lambda r: days_text(r.transit_time_days), 70),
    # The hubs whole ("Via Singapore"), for a route too long for its column.
    Column("Stops", stops_short, 70, most=220, tooltip=stops_text),
    Column("Route", route_line, 300, tooltip=route_detail),
]


def _qdate(value: date) -> QDate:
    return QDate(value.year, value.month, value.day)


class Window(QWidget):
    """A window of days that can be switched off: [x] from [date] to [date]."""

    def __init__(self, text: str, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The row's label names the window: "from" leaves the form's 340 px to the days,
        # "Nov 30 2026" wider than "2026-11-30" was ("Departing" cut their years off).
        self.enabled = QCheckBox("from", self)
        self.enabled.setAccessibleName(text)
        self.enabled.setObjectName(f"{name}Window")
        self.start = day_edit(self)
        self.end = day_edit(self)
        for edit, part in ((self.start, "Start"), (self.end, "End")):
            edit.setObjectName(f"{name}{part}")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.enabled)
        row.addWidget(self.start, 1)
        row.addWidget(QLabel("to", self))
        row.addWidget(self.end, 1)
        self.enabled.toggled.connect(self._enable)
        self.set(None)

    def _enable(self, on: bool) -> None:
        self.start.setEnabled(on)
        self.end.setEnabled(on)

    def value(self) -> tuple[date, date] | None:
        if not self.enabled.isChecked():
            return None
        return self.start.date().toPython(), self.end.date().toPython()  # type: ignore[return-value]

    def set(self, window: tuple[date, date] | None, *, default: date | None = None) -> None:
        first = window[0] if window else default or date.today()
        last = window[1] if window else first + timedelta(days=WINDOW_DAYS)
        self.start.setDate(_qdate(first))
        self.end.setDate(_qdate(last))
        self.enabled.setChecked(window is not None)
        self._enable(window is not None)


class SchedulesPane(ListExport, QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[PointToPointRoute] = ListingModel(COLUMNS, self)
        self.ports: list[Port] = []
        self.carriers: list[OceanCarrier] = []

        form_box = QGroupBox("Find sailings", self)
        form = QFormLayout(form_box)
        self.origin = QLineEdit(form_box)
        self.origin.setObjectName("origin")
        # Hints short enough to be read whole in the form's room at 1366 px; what a port
        # may be given as is said in the tooltip.
        self.origin.setPlaceholderText("e.g. Shanghai or CNSHA")
        self.origin.setToolTip(PORT_TIP)
        self.destination = QLineEdit(form_box)
        self.destination.setObjectName("destination")
        self.destination.setPlaceholderText("e.g. Rotterdam or NLRTM")
        self.destination.setToolTip(PORT_TIP)
        self.port_names = QStringListModel(self)
        for edit in (self.origin, self.destination):
            completer = QCompleter(self.port_names, edit)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
            edit.setCompleter(completer)
            ClickThrough(completer)  # a click on Search while it is open searches
            edit.setClearButtonEnabled(True)
        self.departure = Window("Departing", "departure", form_box)
        self.arrival = Window("Arriving", "arrival", form_box)
        self.departure.set((date.today(), date.today() + timedelta(days=WINDOW_DAYS)))
        self.carrier_codes = QLineEdit(form_box)
        self.carrier_codes.setObjectName("carrierCodes")
        self.carrier_codes.setPlaceholderText("any, or names or SCACs")
        complete_carriers(self.carrier_codes, many=True)
        self.carrier_codes.setToolTip(
            "Empty for every carrier; else the carriers' names or SCACs, separated by commas"
            " (HOCS, AZMS)"
        )
        self.transshipments = QComboBox(form_box)
        self.transshipments.setObjectName("transshipmentsMax")
        self.transshipments.addItem("Any number", None)
        self.transshipments.addItem("Direct sailings only", 0)
        for most in range(1, MAX_TRANSSHIPMENTS + 1):
            self.transshipments.addItem(f"At most {most}", most)
        self.sort = QComboBox(form_box)
        self.sort.setObjectName("sort")
        for value, text in SORTS.items():
            self.sort.addItem(text, value.value)
        self.search_button = QPushButton("&Search", form_box)
        self.search_button.setDefault(True)

        self.errors = FieldErrors(ErrorLabel(form_box))
        self.errors.add_row(form, "&Origin port", "origin", self.origin)
        self.errors.add_row(form, "&Destination port", "destination", self.destination)
        departure_error = self.errors.add_row(
            form, "Dep&arture", "departureStartDate", self.departure
        )
        self.errors.register("departureEndDate", self.departure.end, departure_error)
        arrival_error = self.errors.add_row(form, "Arr&ival", "arrivalStartDate", self.arrival)
        self.errors.register("arrivalEndDate", self.arrival.end, arrival_error)
        self.errors.add_row(form, "&Carriers", "carrierCodes", self.carrier_codes)
        self.errors.add_row(form, "&Transshipments", "transshipmentsMax", self.transshipments)
        self.errors.add_row(form, "Sort &by", "sort", self.sort)

        self.notice = Notice(self)
        self.table = ItemTable(
            self.model, lambda r: r.route_id, self, name="sailingsTable", stretch=ROUTE, fit=True
        )
        # A long carrier keeps its code; many stops read from the first hub; a long route
        # drops its vessels' details before its ports, then is cut in its middle, keeping
        # its destination. Every leg in the route's tooltip.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        cut_at_end(self.table, STOPS)
        tip_elided(self.table)
        shorten(self.table, ROUTE, self._route_forms)
        self.table.setWordWrap(False)
        self.empty = say_when_empty(
            self.table,
            "Sailings between two ports appear here: give the origin and destination ports on "
            "the left, then Search.",
        )
        self.detail = QLabel(self)
        self.detail.setObjectName("sailingDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.page_bar = PageBar(Paging(PAGE_SIZE), "sailings", self)
        self.refresh_button = QPushButton("&Refresh", self)

        self.page = ListPage(
            self, session, lambda s: s.schedules, self.table, self.notice, name="schedules"
        )
        self.run = SearchRun(self, self.page, self.errors, self.search_button, noun="sailings")
        finish_form(
            form,
            self.run,
            "Dates are the ports' own days: departure at the origin, arrival at the "
            "destination. Both windows together must both hold.",
        )
        results = [self.notice, self.table, self.detail, self.page_bar]
        lay_out(self, form_box, self.run, self.refresh_button, results, self.table)

        self.page.shown.connect(self._shown)
        self.page_bar.stepped.connect(self.step)
        self.search_button.clicked.connect(self.search)
        for edit in (self.origin, self.destination, self.carrier_codes):
            edit.returnPressed.connect(self.search)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.selectedChanged.connect(self._selection_changed)
        self.run.searched.connect(lambda _listing: self._learn())
        self._filled = False
        # The form as it opened: the last search is put back only into a form still like this.
        self._as_opened = self.typed()
        self._unconnected = session.listen_connected(self._connected)

    def _route_forms(self, index: QModelIndex | QPersistentModelIndex) -> list[str]:
        route = self.model.item_at(index.row())
        return route_forms(route) if route is not None else []

    # --- showing ---------------------------------------------------------------------------

    def _shown(self, data: Listing[PointToPointRoute]) -> None:
        self.page_bar.show_listing(data)
        if not self._filled and not self.run.running:
            self._filled = True
            self._learn(then_fill=data.params_dict())

    def _selection_changed(self) -> None:
        route = self.table.selected()
        self.detail.setText(route_detail(route) if route is not None else "")

    def _connected(self) -> None:
        service = self.session.schedules
        if service is None:
            return

        def got(carriers: list[OceanCarrier]) -> None:
            self.carriers = carriers
            names = ", ".join(f"{c.carrier_code} {c.carrier_name}" for c in carriers)
            self.carrier_codes.setToolTip(f"Live carriers: {names}" if names else "")

        spawn(
            service.carriers(),
            on_done=got,
            on_error=lambda _error: None,  # the tooltip only; the search says what is wrong
            name="schedule-carriers",
            owner=self,
        )
        self._learn()

    def _learn(self, then_fill: Params | None = None) -> None:
        """Offer the ports the service has named (after a search, or from the cache)."""
        service = self.session.schedules
        if service is None:
            return

        def got(ports: list[Port]) -> None:
            self.ports = ports
            self.port_names.setStringList([p.text for p in ports])
            # What the user typed while the ports were read stays: never overwritten.
            if then_fill and self.typed() == self._as_opened:
                self.fill(then_fill)

        spawn(service.ports(), on_done=got, name="schedule-ports", owner=self)

    # --- the search ------------------------------------------------------------------------

    def typed(self) -> SearchInput:
        value = self.transshipments.currentData()
        return SearchInput(
            origin=self.origin.text(),
            destination=self.destination.text(),
            departure=self.departure.value(),
            arrival=self.arrival.value(),
            carriers=self.carrier_codes.text(),
            transshipments_max=None if value is None else int(value),
            sort=ScheduleSort(self.sort.currentData()),
        )

    def criteria(self) -> Params | None:
        """The search as typed, or None when the form has problems (shown beside them). A
        port typed in part that the list offers one port for is that port ("Hamb": Hamburg),
        as Return on the highlighted completion would have made it."""
        for edit in (self.origin, self.destination):
            sole = sole_completion(edit)
            if sole is not None and resolve_port(edit.text(), self.ports) is None:
                edit.setText(sole)
        search, problems = check_search(self.typed(), self.ports)
        if search is None:
            self.errors.show(problems)
            return None
        return search_params(search)

    def search(self) -> None:
        self.show_page(1)

    def step(self, direction: int) -> None:
        data = self.page.binding.data
        current = self.page_bar.paging.page(data.params_dict()) if data is not None else 1
        self.show_page(current + direction)

    def show_page(self, number: int) -> None:
        criteria = self.criteria()
        if criteria is not None:
            self._filled = True  # the form says what is asked from now on
            self.run.send({**criteria, **self.page_bar.paging.params(number)})

    def fill(self, params: Params) -> None:
        """Put a search's criteria back into the form (the cached answer's, at start)."""
        search = search_of(params)
        if search is None:
            return
        by_code = {p.locode: p for p in self.ports}
        for edit, code in ((self.origin, search.origin), (self.destination, search.destination)):
            port = by_code.get(code)
            edit.setText(port.text if port else code)
        departure = (search.departure_start_date, search.departure_end_date)
        arrival = (search.arrival_start_date, search.arrival_end_date)
        self.departure.set(departure if None not in departure else None)  # type: ignore[arg-type]
        self.arrival.set(arrival if None not in arrival else None)  # type: ignore[arg-type]
        self.carrier_codes.setText(", ".join(search.carrier_codes))
        self.transshipments.setCurrentIndex(
            max(0, self.transshipments.findData(search.transshipments_max))
        )
        self.sort.setCurrentIndex(max(0, self.sort.findData(search.sort.value)))

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.origin.setFocus()
        self.origin.selectAll()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self._unconnected()
        self.page.shutdown()
