"""The detail's read-only tables: one look, filled from rows of text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from freightdesk.ui.widgets.empty_state import say_when_empty


def make_table(headers: list[str], parent: QWidget, empty: str) -> QTableWidget:
    """A table with `headers` that says `empty` while it has no rows."""
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setAlternatingRowColors(True)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.horizontalHeader().setStretchLastSection(True)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    say_when_empty(table, empty)
    return table


def show_all_rows(table: QTableWidget) -> None:
    """`table` as tall as its rows from now on (see `fit_rows`), without a scroll bar of its
    own: on a page that scrolls (the Overview), a table scrolling inside it hid its last row
    half cut until scrolled."""
    table.setProperty("fitRows", True)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    fit_rows(table)


def fit_rows(table: QTableWidget, least_rows: int = 2) -> None:
    """The height of all of `table`'s rows, and room for `least_rows` at least (where an empty
    table says what would be there). Called when rows come or go (`fill` does), not from the
    model's signals: those also fire while the table is being destroyed."""
    rows = table.rowCount()
    height = sum(table.rowHeight(r) for r in range(rows))
    height += max(least_rows - rows, 0) * table.verticalHeader().defaultSectionSize()
    height += table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
    if table.horizontalHeader().length() > table.viewport().width():
        height += table.horizontalScrollBar().sizeHint().height()  # long values scroll sideways
    table.setFixedHeight(height)


def fill(table: QTableWidget, rows: list[list[str]], editable: bool = False) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            if not editable:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            table.setItem(r, c, item)
    if table.property("fitRows"):
        fit_rows(table)
