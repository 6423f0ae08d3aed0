"""The Shipments list's layout: its columns (widths, order, visibility, the sort), the room
the list and the detail share, and the memory of both across starts.

The key columns (shipment, mode, state, attention, origin, destination, next ETA, carrier)
come first and show their usual texts whole (longer ones cut in the middle, the whole text in
the tooltip). While the user has not moved the splitter: a window too narrow for them whole
beside the detail's `DETAIL_COMFORT` (1366 and 1440 px) puts the detail below the list, which
keeps most of the height; a wider one (1920 px) keeps the detail beside, with `DETAIL_COMFORT`
or `1 - LIST_SHARE` of the width. Origin and Destination take the list's room beyond the other
key columns (`PLACE_LEAST` to `PLACE_MOST`), until the user sizes one of them: from then on
their widths are the user's, kept across starts. Latest event comes after them, in view too
while the places keep a usual name whole beside it (at 1366 and 1440 px): it has the room
beyond a usual name in each place, up to `EVENT_MOST`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSettings,
    Qt,
    QTimer,
)
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QMenu,
    QSplitter,
    QTableView,
    QWidget,
)

from freightdesk.ui.panes.shipments.attention import place_attention
from freightdesk.ui.panes.shipments.columns import (
    COLUMN_INDEX,
    COLUMNS,
    Column,
    carrier_forms,
    edge_gap,
)
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.widgets.elided import cut_at_end, shorten
from freightdesk.ui.widgets.list_split import ListSplit, list_wanted, share_beside, turned
from freightdesk.ui.widgets.sort_arrow import arrow_follows_order

if TYPE_CHECKING:
    from freightdesk.ui.panes.shipments.detail import ShipmentDetailView

# What a dispatcher reads in every row, in this order, before any scrolling.
KEY_COLUMNS = (
    "primaryIdentifier",
    "mode",
    "state",
    "attention",
    "origin",
    "destination",
    "nextEta",
    "carrier",
)
# The list's share of a wide window (the detail has the rest).
LIST_SHARE = 0.6
# The detail's width when the window can spare it: its timeline's four columns and the
# overview's labelled values on one line each (at 1440x900 the list keeps its key columns).
DETAIL_COMFORT = 520
# What happened last, after the key columns: in view (a long one cut at its end, whole in
# the tooltip) when the places keep a usual name whole beside it; it used to be cut to its
# first letters at 1366 px.
EVENT_COLUMN = "latestEvent"
EVENT_WIDTH = 150
# Wider than this, the event's column would leave the places less than their room: most
# events read whole ("Arrived at Alder & Finch Ontario DC (14:10)").
EVENT_MOST = 360
# The key columns' default widths in a fresh layout, narrower than `COLUMNS`' where a cell's
# usual text still fits (longer ones cut, whole in the tooltip). A layout the
# user kept has the user's widths.
KEY_WIDTHS = {"latestEvent": EVENT_WIDTH}
# The usual longest texts of these key columns, measured in the table's font (bold where
# drawn bold) for their fresh width: a 17-digit bill of lading; a delay under ten hours
# (longer ones drop the minutes, attention.py) and a silence of days; a carrier's short name
# (service/carrier_names.py: longer ones cut at their end, whole in the tooltip).
KEY_SAMPLES = {
    "primaryIdentifier": [("06141416429700984", False)],
    "carrier": [("Van der Berg", False)],
    "attention": [("● Late 9 h 59 m", True), ("⊘ No signal 9 d 23 h", False)],
}
# A cell's text margins and the focus frame's (Qt's item view draws within them).
CELL_PADDING = 14
# The usual place name of a depot, "Alder & Finch Poznan Plant": the places' width when the
# list wants its key columns whole, which decides if the detail fits beside it.
PLACE_WHOLE_SAMPLE = "Alder & Finch Poznan Plant"
# The list's share of the height when the detail goes below it (a window too narrow for
# both side by side): the list is where the dispatcher works.
STACKED_LIST_SHARE = 0.58
# The list's rows kept in sight above the detail below it, which gets the height beyond them
# up to `DETAIL_PAGE_LEAST` for its tabs' pages: the list is where the dispatcher works. At
# 1366x768 that leaves the map about 190 px ("Map in window" for more); 8 rows, as 73639ff
# left, had the list give up 2.5 of its rows to the detail, and 4 left too few to pick the
# next shipment from.
LIST_ROWS_LEAST = 10
# The height of the detail's pages below the list, where the window has it: the map's route
# and legend, the Route tab's stops and legs. One split for every tab: the tab bar stays where
# it is (the Map tab moved it up 60 px at 1366x768, and a click meant for Overview landed on
# "Copy share link").
DETAIL_PAGE_LEAST = 300
# The pages' height below the list while no shipment is chosen: the Timeline's header, the
# words saying to choose one and its export buttons. The list has the rest: a blank detail
# took 360 px of a 1366x768 window and left the list 8 rows.
NOTHING_CHOSEN_PAGE = 110
# The place columns, which stretch into a wider list: place names are the longest texts of
# the key columns (a depot's "Alder & Sons Joliet DC" needs about 150 px).
PLACE_COLUMNS = ("origin", "destination")
# Wider than this, a place column would only add blank space to most rows.
PLACE_MOST = 240
# Narrower than this, a place column's usual name ("Joliet DC") would be cut.
PLACE_LEAST = 80
PLACES_CHOSEN = "shipments/placeWidthsChosen"
SPLIT_SETTING = "shipments/splitter"


def place_key_columns(header: QHeaderView) -> None:
    """Show the key columns first, in their order (the others keep theirs after them)."""
    for place, key in enumerate(KEY_COLUMNS):
        header.moveSection(header.visualIndex(COLUMN_INDEX[key]), place)


class ListLayout(QWidget):
    """The Shipments pane's column and splitter layout (mixed into `ShipmentsPane`)."""

    settings: QSettings
    model: ShipmentTableModel
    table: QTableView
    splitter: QSplitter
    _layout_timer: QTimer
    list_split: ListSplit
    # True once the user sized a place column (kept in the settings).
    _places_chosen: bool = False
    # True while the widths are set by the app, not the user.
    _sizing: bool = False
    _detail: ShipmentDetailView | None
    # True while a press chose a shipment: the detail gets its room once released.
    _room_after_click: bool = False

    def _set_up_columns(self) -> None:
        header = self.table.horizontalHeader()
        for index, column in enumerate(COLUMNS):
            self.table.setColumnWidth(index, self._fresh_width(column))
            self.table.setColumnHidden(index, not column.visible_by_default)
        place_key_columns(header)
        # The arrow points the way the rows go, as in the app's other lists: up for ascending,
        # down for descending (Fusion drew the default, the worst first, with an arrow up).
        arrow_follows_order(self.table)
        # The latest event is read from its start (its type, its place): cut at the end, where
        # the other long texts are cut in the middle; whole in its tooltip (the model's).
        cut_at_end(self.table, COLUMN_INDEX[EVENT_COLUMN])
        # A carrier by as much of its name as the column has room for: its short name in a
        # fresh layout ('Prairie Wind'), the whole name and code where widened; a longer
        # short name cut at its end ('Coastal Cr…').
        shorten(self.table, COLUMN_INDEX["carrier"], self._carrier_forms, at_end=True)
        # What needs attention first (the most recently updated first among equals), until
        # the user sorts otherwise.
        header.setSortIndicator(COLUMN_INDEX["attention"], Qt.SortOrder.DescendingOrder)
        self.table.viewport().installEventFilter(self)
        self._places_chosen = self.settings.value(PLACES_CHOSEN) in (True, "true")
        header.sectionResized.connect(self._section_resized)

    def _carrier_forms(self, index: QModelIndex | QPersistentModelIndex) -> list[str]:
        row = self.model.summary_at(index.row())
        return carrier_forms(row) if row is not None else []

    def _fresh_width(self, column: Column) -> int:
        samples = KEY_SAMPLES.get(column.key)
        if samples is None:
            return KEY_WIDTHS.get(column.key, column.width)
        widths = []
        for text, bold in samples:
            font = QFont(self.table.font())
            font.setBold(bold)
            widths.append(QFontMetrics(font).horizontalAdvance(text))
        return max(widths) + CELL_PADDING

    def visible_columns(self) -> list[Column]:
        header = self.table.horizontalHeader()
        ordered = sorted(range(len(COLUMNS)), key=header.visualIndex)
        return [COLUMNS[i] for i in ordered if not header.isSectionHidden(i)]

    def _column_menu(self, position: QPoint) -> None:
        menu = QMenu(self)
        for index, column in enumerate(COLUMNS):
            action = menu.addAction(column.title)
            action.setCheckable(True)
            action.setChecked(not self.table.isColumnHidden(index))
            action.toggled.connect(lambda shown, i=index: self.table.setColumnHidden(i, not shown))
        menu.popup(self.table.horizontalHeader().mapToGlobal(position))

    # --- the room of the list and the detail ---------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_places()
        elif (
            watched is self.table.viewport()
            and event.type() == QEvent.Type.MouseButtonRelease
            and self._room_after_click
        ):
            self._room_after_click = False
            QTimer.singleShot(0, self, self._detail_chosen)  # once the click is done
        return super().eventFilter(watched, event)

    def _section_resized(self, index: int, old: int, new: int) -> None:
        # Hidden or shown again (size 0 on one side) is not a width chosen.
        if self._sizing or self._places_chosen or not old or not new:
            return
        if COLUMNS[index].key in (*PLACE_COLUMNS, EVENT_COLUMN):  # they share their room
            self._places_chosen = True
            self.settings.setValue(PLACES_CHOSEN, True)

    def fit_places(self) -> None:
        """Origin and Destination share the list's width beyond its other key columns,
        from `PLACE_LEAST` up to `PLACE_MOST`, while the user has not sized them."""
        if self._places_chosen:
            return
        header = self.table.horizontalHeader()
        places = [
            COLUMN_INDEX[k] for k in PLACE_COLUMNS if not header.isSectionHidden(COLUMN_INDEX[k])
        ]
        if not places:
            return
        others = sum(
            header.sectionSize(COLUMN_INDEX[key])
            for key in KEY_COLUMNS
            if key not in PLACE_COLUMNS and not header.isSectionHidden(COLUMN_INDEX[key])
        )
        # Room for the scroll bar a longer list brings, so that it never pushes Carrier out.
        bar = self.table.verticalScrollBar()
        shown = self.table.viewport().width() - (0 if bar.isVisible() else bar.sizeHint().width())
        event = COLUMN_INDEX[EVENT_COLUMN]
        event_width: int | None = None  # the event's width, where the places share with it
        if not header.isSectionHidden(event) and header.visualIndex(event) == len(KEY_COLUMNS):
            # The places keep a usual name whole; the event has the room beyond them, from
            # its width up to `EVENT_MOST` (it was left 150 px at 1366 px, "Customs
            # selected the…", beside places 20 px wider than their names).
            spare = shown - others - len(places) * self._place_whole()
            if spare >= EVENT_WIDTH:
                event_width = min(spare, EVENT_MOST)
                others += event_width
        size = max(PLACE_LEAST, min((shown - others) // len(places), PLACE_MOST))
        if event_width is not None:
            # The room beyond goes to the event where the next column would show in part
            # (the scroll bar's room while a short list has none, places at their most).
            after = [header.sectionSize(i) for i in self._shown_after(event)]
            left = self.table.viewport().width() - others - len(places) * size
            event_width += edge_gap(after, left)
        self._sizing = True
        try:
            if event_width is not None and header.sectionSize(event) != event_width:
                header.resizeSection(event, event_width)
            for index in places:
                if header.sectionSize(index) != size:
                    header.resizeSection(index, size)
        finally:
            self._sizing = False

    def _shown_after(self, index: int) -> list[int]:
        """The columns shown after `index`, in their order on screen."""
        header = self.table.horizontalHeader()
        return [
            header.logicalIndex(v)
            for v in range(header.visualIndex(index) + 1, header.count())
            if not header.isSectionHidden(header.logicalIndex(v))
        ]

    def _key_width(self, place: int = PLACE_LEAST) -> int:
        """The key columns' width with the places at `place` while they stretch (their
        width follows the list's), as the user left them once sized."""
        header = self.table.horizontalHeader()
        width = 0
        for key in KEY_COLUMNS:
            index = COLUMN_INDEX[key]
            if header.isSectionHidden(index):
                continue
            stretches = key in PLACE_COLUMNS and not self._places_chosen
            width += place if stretches else header.sectionSize(index)
        return width

    def _beside(self) -> bool | None:
        """Whether the detail fits beside the list: the key columns whole (a usual place
        name in each place column) and the detail's `DETAIL_COMFORT` (None before the
        splitter has a size)."""
        if sum(self.splitter.sizes()) <= 0:
            return None
        wanted = list_wanted(self.table, self._key_width(self._place_whole()))
        return wanted + self.splitter.handleWidth() + DETAIL_COMFORT <= self.splitter.width()

    def _place_whole(self) -> int:
        """A place column's width showing a usual place name whole."""
        return self.table.fontMetrics().horizontalAdvance(PLACE_WHOLE_SAMPLE) + CELL_PADDING

    def _default_split(self) -> None:
        """The list's share of the splitter while the user has not chosen one (`list_split`
        keeps the user's across starts). A window too narrow for the key columns whole
        beside the detail's comfort (1366 and 1440 px) puts the detail below the list, the
        list keeping `STACKED_LIST_SHARE` of the height. Beside it, the detail gets
        `DETAIL_COMFORT` (or `1 - LIST_SHARE` of a wide window) while the key columns fit; a
        narrower room gives the list its key columns, the detail keeping its minimum."""
        detail = self.splitter.widget(1)
        beside = self._beside()
        if beside is None or detail is None:
            return
        orientation = turned(beside)
        if self.splitter.orientation() != orientation:
            self.splitter.setOrientation(orientation)
        # The splitter's own room (its sizes are still the other orientation's until laid
        # out again).
        length = self.splitter.width() if beside else self.splitter.height()
        total = length - self.splitter.handleWidth()
        if not beside:
            header = detail.minimumSizeHint().height()  # the detail's title, buttons, tabs
            if self._detail is None or self._detail.shipment_id is None:
                list_height = total - header - NOTHING_CHOSEN_PAGE
            else:
                list_height = round(total * STACKED_LIST_SHARE)
                pages = total - header - DETAIL_PAGE_LEAST
                list_height = min(list_height, max(pages, self._rows_height(LIST_ROWS_LEAST)))
            if self.splitter.sizes() != [list_height, total - list_height]:
                self.splitter.setSizes([list_height, total - list_height])
            return
        comfortable = min(round(total * LIST_SHARE), total - DETAIL_COMFORT)
        share_beside(self.splitter, comfortable, list_wanted(self.table, self._key_width()))

    def follow_detail_chosen(self, detail: ShipmentDetailView) -> None:
        """The app's split follows whether the detail shows a shipment (the user's own split
        stays as the user left it): the chosen row stays in sight as the detail grows."""
        detail.chosenChanged.connect(self._detail_chosen)

    def _detail_chosen(self) -> None:
        if QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            # Chosen by a press on a row: the rows stay under the pointer until it is
            # released (a click's release landed on another row, which the list then chose).
            self._room_after_click = True
            return
        self.list_split.place()
        current = self.table.currentIndex()
        if current.isValid():
            self.table.scrollTo(current, QAbstractItemView.ScrollHint.EnsureVisible)

    def _rows_height(self, rows: int) -> int:
        """The list's height (its header, scroll bar, the count under it) showing `rows`."""
        left = self.splitter.widget(0)
        assert left is not None
        chrome = left.height() - self.table.viewport().height()
        return chrome + rows * self.table.verticalHeader().defaultSectionSize()

    # --- memory across starts --------------------------------------------------------------

    def _restore_layout(self) -> None:
        header = self.table.horizontalHeader()
        header_state = self.settings.value("shipments/header")
        self._sizing = True  # the widths kept are not a new choice of the user's
        try:
            restored = header_state is not None and header.restoreState(header_state)
        finally:
            self._sizing = False
        if restored:
            # The saved sort is the table's too (restoring only moves the indicator).
            header.setSortIndicatorShown(True)
            section = header.sortIndicatorSection()
            if 0 <= section < len(COLUMNS):
                self.model.sort(section, header.sortIndicatorOrder())
            if self.settings.value("shipments/attentionPlaced") is None:
                place_attention(header)  # kept before the column existed: it came last
        self.list_split = ListSplit(
            self.splitter, self.settings, SPLIT_SETTING, self._default_split, self._beside
        )
        left = self.splitter.widget(0)
        if left is not None:
            left.installEventFilter(self)

    def _save_layout(self) -> None:
        self._layout_timer.stop()
        self.settings.setValue("shipments/header", self.table.horizontalHeader().saveState())
        self.settings.setValue("shipments/attentionPlaced", True)
        self.list_split.save()
