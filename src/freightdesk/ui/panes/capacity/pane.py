"""The Carrier capacity pane: the tenant's connected carriers, or the carriers of one lane,
ranked by how they performed on its tracked truckloads of the past 365 days.

The filters and sorts are the interface's; clicking a sortable column's header asks the
service for that order (again: the other direction). Every figure says in its tooltip what it
counts, and how many shipments it rests on.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from freightdesk.models.capacity import (
    RECENT_DAYS,
    SCHEDULE_TOLERANCE_HOURS,
    STATISTICS_DAYS,
    CapacitySortBy,
    CarrierPerformance,
    LaneSearch,
    SortDirection,
    VolumeBucket,
)
from freightdesk.models.numbers import number_problem
from freightdesk.service.capacity import check_search, search_of, search_params
from freightdesk.service.carrier_codes import carrier_code
from freightdesk.service.carrier_names import carrier_text
from freightdesk.service.clock import user_time
from freightdesk.service.listing import Listing, Params
from freightdesk.service.session import AppSession
from freightdesk.ui.widgets.carrier_field import complete_carriers
from freightdesk.ui.widgets.elided import tip_elided
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.row_table import integer
from freightdesk.ui.widgets.search_form import SearchRun, finish_form, lay_out
from freightdesk.ui.widgets.sort_arrow import arrow_follows_order

YEAR = f"the past {STATISTICS_DAYS} days"
RECENT = f"the past {RECENT_DAYS} days"
TOLERANCE = f"within {SCHEDULE_TOLERANCE_HOURS} hours"
VOLUMES = {
    VolumeBucket.VOLUME_0_TO_10_SHIPMENTS: "Any (0 or more)",
    VolumeBucket.VOLUME_11_TO_50_SHIPMENTS: "11 shipments or more",
    VolumeBucket.VOLUME_51_TO_100_SHIPMENTS: "51 shipments or more",
    VolumeBucket.VOLUME_101_OR_MORE_SHIPMENTS: "101 shipments or more",
}
# Short, as the columns' headers: the form's room at 1366 px cut "Shipments in the past 365
# days" (the note below the form says which days the figures cover).
SORTS = {
    CapacitySortBy.SHIPMENT_VOLUME: f"Shipments, {STATISTICS_DAYS} d",
    CapacitySortBy.RECENT_SHIPMENT_VOLUME: f"Shipments, {RECENT_DAYS} d",
    CapacitySortBy.DELIVERY_SCHEDULE_RELIABILITY: "Deliveries on schedule",
    CapacitySortBy.PICKUP_SCHEDULE_RELIABILITY: "Pickups on schedule",
    CapacitySortBy.PERCENT_TRACKED: f"Tracked, {STATISTICS_DAYS} d",
    CapacitySortBy.RECENT_PERCENT_TRACKED: f"Tracked, {RECENT_DAYS} d",
}
DIRECTIONS = {SortDirection.DESC: "Highest first", SortDirection.ASC: "Lowest first"}
# Labelled as the columns they filter, and short: "Deliveries on schedule" was cut beside its
# field in the form's room at 1366 px.
MINIMUMS = {
    "minimumDeliveryScheduleReliability": (
        "On-time deliver&ies",
        f"Only carriers with more than this share (0 to 100) of their tracked deliveries of "
        f"{YEAR} arriving {TOLERANCE} of the appointment window",
    ),
    "minimumPickupScheduleReliability": (
        "On-time &pickups",
        f"The same for pickups: more than this share arriving {TOLERANCE} of the window",
    ),
    "minimumTrackingPercentage": (
        "&Tracked",
        f"Only carriers with more than this share (0 to 100) of their shipments of {YEAR} "
        "having at least one tracking update",
    ),
}
LANE_PARTS = (
    ("city", "city"),
    ("state", "state"),
    ("postalCode", "ZIP or prefix"),
    ("country", "country"),
)


def _carrier(carrier: CarrierPerformance) -> str:
    # The shared names, which the answer taught (service/capacity.py): as every pane says it.
    return carrier_text(carrier.carrier_identifier.value)


def _percent(value: int | None) -> str:
    return "" if value is None else f"{value}%"


def _reliability_tip(what: str, value: int | None, measured: int) -> str:
    if value is None:
        return f"No {what} could be measured in {YEAR} (no appointment or no arrival)."
    return (
        f"{value}% of {measured} {what} measured in {YEAR} came {TOLERANCE} of the "
        "appointment window (no earlier than 2 hours before it opened, no later than 2 hours "
        "after it closed)."
    )


def _tracked_tip(value: int | None, days: str, volume: int) -> str:
    if value is None:
        return f"No shipment in {days} to measure."
    return f"{value}% of {volume} shipments in {days} had at least one tracking update."


COLUMNS: list[Column[CarrierPerformance]] = [
    # Each figure's column fits its header (on two lines, see HEADER_LINES) and text, the
    # table fitting them; the carrier takes the room left. At 1366x768 beside the form every
    # column is in view (the last two were off to the side) and a carrier's usual name and
    # SCAC ("Sierra Madre Autotransportes (SMAT)") whole, a longer one cut in the middle,
    # whole in the tooltip.
    Column("Carrier", _carrier, 150, tooltip=_carrier),
    Column(
        "Shipments",
        lambda c: f"{c.shipment_volume:,}",
        50,
        lambda c: f"{c.shipment_volume:,} tracked truckloads in {YEAR}",
    ),
    Column(
        f"Last {RECENT_DAYS} d",
        lambda c: f"{c.recent_shipment_volume:,}",
        50,
        lambda c: f"{c.recent_shipment_volume:,} tracked truckloads in {RECENT}",
    ),
    Column(
        "On-time deliveries",
        lambda c: _percent(c.delivery_schedule_reliability),
        50,
        lambda c: _reliability_tip(
            "deliveries", c.delivery_schedule_reliability, c.deliveries_measured
        ),
    ),
    Column(
        "On-time pickups",
        lambda c: _percent(c.pickup_schedule_reliability),
        50,
        lambda c: _reliability_tip("pickups", c.pickup_schedule_reliability, c.pickups_measured),
    ),
    Column(
        "Tracked",
        lambda c: _percent(c.percent_tracked),
        50,
        lambda c: _tracked_tip(c.percent_tracked, YEAR, c.shipment_volume),
    ),
    Column(
        f"Tracked, {RECENT_DAYS} d",
        lambda c: _percent(c.recent_percent_tracked),
        50,
        lambda c: _tracked_tip(c.recent_percent_tracked, RECENT, c.recent_shipment_volume),
    ),
    Column(
        "Last shipment",
        lambda c: user_time(c.last_shipment_date_time),
        50,
        value=lambda c: c.last_shipment_date_time,
    ),
]
# The column of each sort the interface offers (a click on its header asks for it).
SORT_COLUMNS = {
    1: CapacitySortBy.SHIPMENT_VOLUME,
    2: CapacitySortBy.RECENT_SHIPMENT_VOLUME,
    3: CapacitySortBy.DELIVERY_SCHEDULE_RELIABILITY,
    4: CapacitySortBy.PICKUP_SCHEDULE_RELIABILITY,
    5: CapacitySortBy.PERCENT_TRACKED,
    6: CapacitySortBy.RECENT_PERCENT_TRACKED,
}
HEADER_TIPS = {
    1: f"Tracked truckloads of {YEAR} (by pickup appointment, else creation)",
    2: f"Tracked truckloads of {RECENT}",
    3: f"Share of measured deliveries of {YEAR} arriving {TOLERANCE} of the appointment window",
    4: f"Share of measured pickups of {YEAR} arriving {TOLERANCE} of the appointment window",
    5: f"Share of shipments of {YEAR} with at least one tracking update",
    6: f"Share of shipments of {RECENT} with at least one tracking update",
}
Index = QModelIndex | QPersistentModelIndex


# The long headers on two lines, their columns as narrow as their figures: on one line
# they took the room of every column after "Tracked" at 1366 px.
HEADER_LINES = {2: 1, 3: 1, 4: 1, 6: 1, 7: 1}  # section: the space that breaks the line


class CapacityModel(ListingModel[CarrierPerformance]):
    """The carriers, with what each column's figure means in its header's tooltip."""

    def headerData(  # noqa: N802 (Qt's name)
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            tip = HEADER_TIPS.get(section)
            return f"{tip}. Click to sort by it." if tip else None
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            title = str(super().headerData(section, orientation, role))
            if section in HEADER_LINES:
                return title.replace(" ", "\n", HEADER_LINES[section])
            return title
        return super().headerData(section, orientation, role)


class LaneEnd(QWidget):
    """City, state, postal code (or its prefix) and country of one end of a lane."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.parts: dict[str, QLineEdit] = {}
        for key, hint in LANE_PARTS:
            edit = QLineEdit(self)
            edit.setObjectName(f"{name}.{key}")
            edit.setPlaceholderText(hint)
            # Each hint read whole: the row is then too wide beside its label and the form
            # puts it below, across the form's width.
            hint_width = edit.fontMetrics().horizontalAdvance(hint) + 16
            edit.setMinimumWidth(hint_width)
            row.addWidget(edit, 2 if key == "city" else 1)
            self.parts[key] = edit

    def wire(self) -> dict[str, str]:
        return {key: edit.text().strip() for key, edit in self.parts.items() if edit.text().strip()}

    def fill(self, values: dict[str, Any]) -> None:
        for key, edit in self.parts.items():
            edit.setText(str(values.get(key) or ""))


class CapacityPane(ListExport, QWidget):
    export_noun = "carriers"

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model = CapacityModel(COLUMNS, self)

        form_box = QGroupBox("Find carriers", self)
        form = QFormLayout(form_box)
        self.lane = QCheckBox("&Lane: only shipments between two places", form_box)
        self.lane.setObjectName("lane")
        self.origin = LaneEnd("origin", form_box)
        self.destination = LaneEnd("destination", form_box)
        self.carrier = QLineEdit(form_box)
        self.carrier.setObjectName("carrier")
        self.carrier.setPlaceholderText("any, or a name or SCAC")
        complete_carriers(self.carrier)
        self.minimums: dict[str, QLineEdit] = {}
        self.volume = QComboBox(form_box)
        self.volume.setObjectName("minimumVolume")
        self.volume.addItem("Any", None)
        for bucket, text in VOLUMES.items():
            if bucket is not VolumeBucket.VOLUME_0_TO_10_SHIPMENTS:
                self.volume.addItem(text, bucket.value)
        self.volume.setToolTip(f"Shipments in {YEAR}")
        self.sort_by = QComboBox(form_box)
        self.sort_by.setObjectName("sortBy")
        for sort, text in SORTS.items():
            self.sort_by.addItem(text, sort.value)
        self.direction = QComboBox(form_box)
        self.direction.setObjectName("sortDirection")
        for direction, text in DIRECTIONS.items():
            self.direction.addItem(text, direction.value)
        sort_row = QWidget(form_box)
        sort_layout = QHBoxLayout(sort_row)
        sort_layout.setContentsMargins(0, 0, 0, 0)
        sort_layout.addWidget(self.sort_by, 2)
        sort_layout.addWidget(self.direction, 1)
        self.search_button = QPushButton("&Search", form_box)
        self.search_button.setDefault(True)

        self.errors = FieldErrors(ErrorLabel(form_box))
        form.addRow(self.lane)
        self.errors.add_row(form, "&Origin", "origin", self.origin)
        self.errors.add_row(form, "&Destination", "destination", self.destination)
        self.errors.add_row(form, "&Carrier", "carrierIdentifier", self.carrier)
        for name, (label, tip) in MINIMUMS.items():
            edit = QLineEdit(form_box)
            edit.setObjectName(name)
            edit.setPlaceholderText("minimum %, any if empty")
            edit.setToolTip(tip)
            self.minimums[name] = edit
            self.errors.add_row(form, label, name, edit)
        self.errors.add_row(form, "&Minimum volume", "minimumVolume", self.volume)
        self.errors.add_row(form, "Sort &by", "sortBy", sort_row)

        self.notice = Notice(self)
        self.table = ItemTable(
            self.model,
            lambda c: c.carrier_identifier.value,
            self,
            name="capacityTable",
            stretch=0,
            fit=True,
        )
        # A name's start and its SCAC both tell the carrier: cut in the middle, not the end.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        tip_elided(self.table)
        arrow_follows_order(self.table)  # "Highest first": the arrow points down
        header = self.table.horizontalHeader()
        header.setSectionsClickable(True)
        header.sectionClicked.connect(self.sort_by_column)
        header.sortIndicatorChanged.connect(self.table.fit_columns)  # room for the arrow
        self.empty = QLabel(self)
        self.empty.setObjectName("emptyAnswer")
        self.empty.setWordWrap(True)
        self.empty.setVisible(False)
        self.count_label = QLabel(self)
        self.refresh_button = QPushButton("&Refresh", self)

        self.page = ListPage(
            self, session, lambda s: s.capacity, self.table, self.notice, name="capacity"
        )
        self.run = SearchRun(self, self.page, self.errors, self.search_button, noun="figures")
        finish_form(
            form,
            self.run,
            f"Figures cover your own tracked truckloads of {YEAR} ({RECENT} for the recent "
            f"ones). On schedule means arriving {TOLERANCE} of the appointment window. "
            "Minimums keep carriers strictly above them.",
        )
        results = [self.notice, self.empty, self.table, self.count_label]
        lay_out(self, form_box, self.run, self.refresh_button, results, self.table)

        self.page.shown.connect(self._shown)
        self.lane.toggled.connect(self._lane_toggled)
        self.search_button.clicked.connect(self.search)
        for edit in (
            self.carrier,
            *self.minimums.values(),
            *self.origin.parts.values(),
            *self.destination.parts.values(),
        ):
            edit.returnPressed.connect(self.search)
        self.refresh_button.clicked.connect(self.refresh)
        self._filled = False
        self._lane_toggled(False)

    # --- showing ---------------------------------------------------------------------------

    def _lane_toggled(self, on: bool) -> None:
        for end in (self.origin, self.destination):
            end.setEnabled(on)
            end.setToolTip("" if on else "Tick “Lane” to give a lane")

    def _shown(self, data: Listing[CarrierPerformance]) -> None:
        params = data.params_dict()
        if not self._filled and not self.run.running:
            self._filled = True
            self.fill(params)
        search = search_of(params)
        column = next((c for c, s in SORT_COLUMNS.items() if s is search.sort_by), -1)
        order = (
            Qt.SortOrder.AscendingOrder
            if search.sort_direction is SortDirection.ASC
            else Qt.SortOrder.DescendingOrder
        )
        header = self.table.horizontalHeader()
        header.setSortIndicatorShown(column >= 0)
        header.setSortIndicator(column, order)
        count = len(data.items)
        self.count_label.setText(f"{count} carrier{'s' if count != 1 else ''}" if count else "")
        if count:
            self.empty.setVisible(False)
            return
        where = " on this lane" if isinstance(search, LaneSearch) else ""
        filtered = any(key.startswith("minimum") or key == "carrierIdentifier" for key in params)
        self.empty.setText(
            f"No carrier{where} has tracked truckloads of yours in {YEAR}"
            + (" that pass these filters." if filtered else ".")
            + " Carriers appear here once your truckloads name their carrier's SCAC and are "
            "tracked."
        )
        self.empty.setVisible(True)

    # --- the search ------------------------------------------------------------------------

    def wire(self) -> dict[str, Any]:
        """The search as typed, as the interface's body (empty fields left out)."""
        wire: dict[str, Any] = {
            "sortBy": self.sort_by.currentData(),
            "sortDirection": self.direction.currentData(),
        }
        typed = self.carrier.text().strip()
        if typed:
            code = carrier_code(typed)[0]
            wire["carrierIdentifier"] = {"type": "SCAC", "value": code or typed}
        for name, edit in self.minimums.items():
            value = integer(edit.text())
            if value is not None:
                wire[name] = value
        if self.volume.currentData():
            wire["minimumVolume"] = self.volume.currentData()
        if self.lane.isChecked():
            wire["origin"] = self.origin.wire()
            wire["destination"] = self.destination.wire()
        return wire

    def criteria(self) -> Params | None:
        search, problems = check_search(self.wire())
        carrier_problem = carrier_code(self.carrier.text())[1]
        if carrier_problem:
            search = None
        if search is None:
            # The search's strict model says only that a minimum is text; the one number
            # rule says why it is not a number, in the words of the other forms.
            # A number out of range in the same words too (the model's: "Enter 100 or less");
            # a carrier in the one rule's, which knows the names.
            for name, edit in self.minimums.items():
                why = number_problem(edit.text())
                if why is not None:
                    problems[name] = why
                elif problems.get(name, "").endswith((" or less", " or more")):
                    problems[name] = "Enter a percentage from 0 to 100"
            for name in [n for n in problems if n.startswith("carrierIdentifier")]:
                del problems[name]
            if carrier_problem:
                problems["carrierIdentifier"] = carrier_problem
            self.errors.show(problems)
            return None
        return search_params(search)

    def search(self) -> None:
        criteria = self.criteria()
        if criteria is not None:
            self._filled = True  # the form says what is asked from now on
            self.run.send(criteria)

    def sort_by_column(self, column: int) -> None:
        """Ask for the order of the column clicked (a second click: the other direction)."""
        sort = SORT_COLUMNS.get(column)
        if sort is None:
            return
        if self.sort_by.currentData() == sort.value:
            flipped = 1 if self.direction.currentIndex() == 0 else 0
            self.direction.setCurrentIndex(flipped)
        else:
            self.sort_by.setCurrentIndex(self.sort_by.findData(sort.value))
            self.direction.setCurrentIndex(self.direction.findData(SortDirection.DESC.value))
        self.search()

    def fill(self, params: Params) -> None:
        """Put a search's criteria back into the form (the cached answer's, at start)."""
        if not params:
            return
        search = search_of(params)
        code = search.carrier_identifier.value if search.carrier_identifier else None
        self.carrier.setText(carrier_text(code))
        for name, edit in self.minimums.items():
            value = params.get(name)
            edit.setText("" if value is None else str(value))
        self.volume.setCurrentIndex(max(0, self.volume.findData(params.get("minimumVolume"))))
        self.sort_by.setCurrentIndex(max(0, self.sort_by.findData(search.sort_by.value)))
        self.direction.setCurrentIndex(max(0, self.direction.findData(search.sort_direction.value)))
        lane = isinstance(search, LaneSearch)
        self.lane.setChecked(lane)
        self.origin.fill(params.get("origin") or {})
        self.destination.fill(params.get("destination") or {})

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.carrier.setFocus()
        self.carrier.selectAll()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
