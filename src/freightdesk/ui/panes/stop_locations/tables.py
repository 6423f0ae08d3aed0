"""The stop location form's grids (opening hours, special opening hours) and their Add and
Remove buttons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from freightdesk.models.weekdays import DAY_NAMES
from freightdesk.ui.widgets.edit_table import EditTable, FormTable


def check_item(on: bool) -> QTableWidgetItem:
    item = QTableWidgetItem()
    item.setFlags(
        Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
    )
    item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
    return item


def grid(headers: list[str], parent: QWidget) -> QTableWidget:
    """A compact grid: narrow day columns, time and date columns just wide enough."""
    table = FormTable(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    header.setStretchLastSection(False)
    for column, title in enumerate(headers):
        width = 44 if title in DAY_NAMES else 72 if title in ("Opens", "Closes") else 120
        table.setColumnWidth(column, width)
    table.setMinimumHeight(120)
    return table


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    return item.text().strip() if item is not None else ""


def checked(table: QTableWidget, row: int, column: int) -> bool:
    item = table.item(row, column)
    return item is not None and item.checkState() == Qt.CheckState.Checked


class TableWithButtons(EditTable):
    """A grid with Add and Remove buttons under it (Delete removes the current row)."""

    def __init__(self, table: QTableWidget, add: Callable[[], None], noun: str) -> None:
        super().__init__([], f"Add {noun}", f"Remove {noun}", None, table=table)
        self.add_button.clicked.connect(add)
