"""The stop location form's grids (opening hours, special opening hours) and their Add and
Remove buttons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.ui.panes.stop_locations.text import DAYS
from freightdesk.ui.widgets.item_table import add_key


def check_item(on: bool) -> QTableWidgetItem:
    item = QTableWidgetItem()
    item.setFlags(
        Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
    )
    item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
    return item


class Grid(QTableWidget):
    """Tab goes from cell to cell and, from the last cell, on to the next field; Shift+Tab
    likewise back from the first. (Qt's table goes round to its first cell: Tab never left
    it, and the fields and buttons after it could not be reached by keyboard.)"""

    def focusNextPrevChild(self, next_: bool) -> bool:  # noqa: N802 (Qt's name)
        current = self.currentIndex()
        end = (self.rowCount() - 1, self.columnCount() - 1) if next_ else (0, 0)
        if not current.isValid() or (current.row(), current.column()) == end:
            return QWidget.focusNextPrevChild(self, next_)
        return super().focusNextPrevChild(next_)


def grid(headers: list[str], parent: QWidget) -> QTableWidget:
    """A compact grid: narrow day columns, time and date columns just wide enough."""
    table = Grid(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    header.setStretchLastSection(False)
    for column, title in enumerate(headers):
        width = 44 if title in DAYS else 72 if title in ("Opens", "Closes") else 120
        table.setColumnWidth(column, width)
    table.setMinimumHeight(120)
    return table


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    return item.text().strip() if item is not None else ""


def checked(table: QTableWidget, row: int, column: int) -> bool:
    item = table.item(row, column)
    return item is not None and item.checkState() == Qt.CheckState.Checked


class TableWithButtons(QWidget):
    """A table with Add and Remove buttons under it (Delete removes the current row)."""

    def __init__(self, table: QTableWidget, add: Callable[[], None], noun: str) -> None:
        super().__init__()
        self.table = table
        self.add_button = QPushButton(f"Add {noun}", self)
        self.remove_button = QPushButton("Remove", self)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(table)
        layout.addLayout(row)
        self.add_button.clicked.connect(add)
        self.remove_button.clicked.connect(self.remove_current)
        add_key(
            table,
            QKeySequence(QKeySequence.StandardKey.Delete),
            self.remove_current,
            f"Remove {noun}",
        )

    def remove_current(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)
