"""The detail's read-only tables: one look, filled from rows of text, their columns sharing
the table's width (`TableFit`)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.item_table import shared_widths

# A cell's text margins and the focus frame's, beside its text.
CELL_PADDING = 14
# The empty words' room from the table's edges (`EmptyState`): one line of them in sight.
EMPTY_WORDS_MARGIN = 12
# Between a table's title and the table, and between one table and the next title.
TITLE_GAP = 2
TABLES_GAP = 6


class TableFit(QObject):
    """`table`'s columns share its width, refitted as its rows or its room change: each as
    wide as its texts on one line while all fit (the last takes the room left); else each
    keeps its longest word and an even share of the rest (`shared_widths`), its texts
    wrapping onto more lines, the rows as tall as they need. A stop's name is read whole, never
    cut ("1. Pickup: Alder & Finch Ontario DC — Ontario…") nor scrolled to sideways."""

    def __init__(self, table: QTableWidget) -> None:
        super().__init__(table)
        self.table = table
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        table.viewport().installEventFilter(self)
        # Rows fitted to their lines, a one-line row as tall as the app's other tables'.
        rows = table.verticalHeader()
        rows.setMinimumSectionSize(rows.defaultSectionSize())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        table = self.table
        header = table.horizontalHeader()
        metrics = table.fontMetrics()
        wanted: list[int] = []
        least: list[int] = []
        for column in range(table.columnCount()):
            title = header.sectionSizeFromContents(column).width()
            texts = [
                item.text() for row in range(table.rowCount()) if (item := table.item(row, column))
            ]
            line = max((metrics.horizontalAdvance(t) for t in texts), default=0)
            word = max((metrics.horizontalAdvance(w) for t in texts for w in t.split()), default=0)
            wanted.append(max(title, line + CELL_PADDING))
            least.append(max(title, word + CELL_PADDING))
        widths = shared_widths(wanted, least, table.viewport().width())
        for column, width in enumerate(widths):
            if header.sectionSize(column) != width:
                header.resizeSection(column, width)
        table.resizeRowsToContents()
        # The page's tables share its height by what their rows need.
        page = table.parentWidget()
        layout = page.layout() if page is not None else None
        if isinstance(layout, QBoxLayout):
            rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
            empty = 2 * EMPTY_WORDS_MARGIN + table.fontMetrics().height()  # its empty words
            layout.setStretchFactor(table, header.height() + max(rows, empty))
            # No more than its words' line asked for (a scroll area asks for 70 px): the
            # other table's rows get the room.
            table.setMinimumHeight(header.height() + 2 * table.frameWidth() + empty)


def stacked_tables(page: QWidget, tables: list[tuple[str, QTableWidget]]) -> QVBoxLayout:
    """`page` (a tab's) shows `tables` one above the other under their titles, their columns
    fitted to the width (`TableFit`), sharing the page's height by what their rows need: the
    Route tab's stops had 1.5 rows at 1366x768, above an empty area at 1920x1080."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(6, 4, 6, 4)
    # A title close to its table, the next table's apart: the height is the rows' (10 of the
    # list's rows above the detail at 1366x768 leave the Route tab's two stops 193 px).
    layout.setSpacing(TITLE_GAP)
    for place, (title, table) in enumerate(tables):
        if place:
            layout.addSpacing(TABLES_GAP)
        layout.addWidget(QLabel(title, page))
        layout.addWidget(table, 1)
        TableFit(table)
    return layout


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
    if (fit := table.findChild(TableFit)) is not None:
        fit.fit()
    if table.property("fitRows"):
        fit_rows(table)
