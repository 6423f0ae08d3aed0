"""The Shipments list's layout: its columns (widths, order, visibility, the sort), the room
the list and the detail share, and the memory of both across starts.

At 1366 px the key columns (shipment, mode, state, attention, origin, destination, next ETA,
carrier) fit without scrolling: they come first, long names are cut in the middle (the whole
text in the tooltip), and while the user has not moved the splitter, a narrow window gives
the list what the detail can spare down to its minimum.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QSettings, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QMenu, QSplitter, QTableView, QWidget

from freightdesk.ui.panes.shipments.attention import place_attention
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS, Column
from freightdesk.ui.panes.shipments.model import ShipmentTableModel

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
    # True until the user moves the splitter or a kept layout is restored.
    _split_is_default: bool = True

    def _set_up_columns(self) -> None:
        header = self.table.horizontalHeader()
        for index, column in enumerate(COLUMNS):
            self.table.setColumnWidth(index, column.width)
            self.table.setColumnHidden(index, not column.visible_by_default)
        place_key_columns(header)
        # What needs attention first (the most recently updated first among equals), until
        # the user sorts otherwise.
        header.setSortIndicator(COLUMN_INDEX["attention"], Qt.SortOrder.DescendingOrder)
        self.splitter.splitterMoved.connect(self._split_chosen)
        self.splitter.installEventFilter(self)

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

    def _split_chosen(self, _position: int, _index: int) -> None:
        self._split_is_default = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.splitter and event.type() == QEvent.Type.Resize:
            self.default_split()
        return super().eventFilter(watched, event)

    def default_split(self) -> None:
        """The list's share of the splitter, unless the user chose one: the key columns'
        width when the list's usual share is narrower, the detail keeping its minimum."""
        if not self._split_is_default:
            return
        total = sum(self.splitter.sizes())
        detail = self.splitter.widget(1)
        if total <= 0 or detail is None:
            return
        header = self.table.horizontalHeader()
        key_width = sum(header.sectionSize(COLUMN_INDEX[key]) for key in KEY_COLUMNS)
        # The frame and the vertical scroll bar a longer list brings.
        wanted = key_width + 2 * self.table.frameWidth()
        wanted += self.table.verticalScrollBar().sizeHint().width()
        spare = total - detail.minimumSizeHint().width()
        list_width = max(round(total * LIST_SHARE), min(wanted, spare))
        if self.splitter.sizes()[0] != list_width:
            self.splitter.setSizes([list_width, total - list_width])

    # --- memory across starts --------------------------------------------------------------

    def _restore_layout(self) -> None:
        header = self.table.horizontalHeader()
        header_state = self.settings.value("shipments/header")
        if header_state is not None and header.restoreState(header_state):
            # The saved sort is the table's too (restoring only moves the indicator).
            header.setSortIndicatorShown(True)
            section = header.sortIndicatorSection()
            if 0 <= section < len(COLUMNS):
                self.model.sort(section, header.sortIndicatorOrder())
            if self.settings.value("shipments/attentionPlaced") is None:
                place_attention(header)  # kept before the column existed: it came last
        splitter_state = self.settings.value("shipments/splitter")
        if splitter_state is not None:
            self._split_is_default = False
            self.splitter.restoreState(splitter_state)
        else:
            self.default_split()

    def _save_layout(self) -> None:
        self._layout_timer.stop()
        self.settings.setValue("shipments/header", self.table.horizontalHeader().saveState())
        self.settings.setValue("shipments/attentionPlaced", True)
        self.settings.setValue("shipments/splitter", self.splitter.saveState())
