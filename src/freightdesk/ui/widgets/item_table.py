"""The table of a list pane: one row of a `ListingModel` selected at a time.

Every list pane shows its items the same way: whole rows selected one at a time, the
columns as wide as their `Column.width` (or fitted to their text, see `fit_widths`), the
selected item kept (by its key) when the list is refreshed, Return, F2 or a double click
opening the selected item and Delete deleting it, the pane's Edit and Delete buttons enabled
only while an item is selected.

Its keys are bound to the table through `widgets.shortcuts.add_key`, the one way a shortcut
is bound to a view rather than to the window.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QTableView,
    QWidget,
)

from freightdesk.ui.widgets.listing import ListingModel, current_row
from freightdesk.ui.widgets.selection import select_only
from freightdesk.ui.widgets.shortcuts import add_key

T = TypeVar("T")

ROW_HEIGHT = 26


def fit_widths(
    wanted: Sequence[int],
    least: Sequence[int],
    room: int,
    stretch: int,
    shares: int | None = None,
) -> list[int]:
    """Each column's width in `room`, left to right (the key columns first): its `wanted`
    width while it still ends within the room, never under its `least`; the columns after it
    have what is left, or scroll sideways. `stretch` takes the room left (the header stretches
    it), so it is the one cut when the room is short; unless `shares` is named, which then
    gives it up to half of their room together (a list's origin and destination)."""
    widths = list(least)
    end = 0
    for column, want in enumerate(wanted):
        if column != stretch:
            widths[column] = max(least[column], min(want, room - end))
        end += widths[column]
    if shares is not None:
        left = room - sum(w for c, w in enumerate(widths) if c != stretch)
        together = widths[shares] + left
        if left < wanted[stretch]:
            given = min(wanted[stretch], max(together // 2, together - wanted[shares]))
            widths[shares] = max(least[shares], together - given)
    return widths


def shared_widths(wanted: Sequence[int], least: Sequence[int], room: int) -> list[int]:
    """Each column's width in `room` when none comes first (an empty table: no text to read
    yet): its `least` and an even share of the room left, no more than it `wanted`; what a
    column wants no more of goes to the others. Every title has air about it (at its header's
    width each was pressed against its borders), the table no wider than the room."""
    lacks = [max(0, want - low) for want, low in zip(wanted, least, strict=True)]
    left = room - sum(least)
    level = 0  # what each column gets, at most its lack
    for done, lack in enumerate(sorted(lacks)):
        sharing = len(lacks) - done
        if (lack - level) * sharing > left:
            level += max(0, left) // sharing
            break
        left -= (lack - level) * sharing
        level = lack
    return [low + min(lack, level) for low, lack in zip(least, lacks, strict=True)]


class ColumnFit(QObject):
    """Fits the columns of `table` (a `ListingModel`'s): each as wide as its header and cells
    need, from its `Column.width` to its `Column.most`, the key columns (first in the list)
    before the others while the room lasts (`fit_widths`), refitted as the rows or the room
    change; a column the user widened or narrowed keeps its width. `stretch` is the column
    the header stretches; `shares` gives it up to half of their room (see `fit_widths`)."""

    def __init__(
        self,
        table: QTableView,
        model: ListingModel[Any],
        stretch: int,
        shares: int | None = None,
    ) -> None:
        super().__init__(table)
        self.table = table
        self.model = model
        self.stretch = stretch
        self.shares = shares
        self._fitting = False
        self._user_sized: set[int] = set()
        header = table.horizontalHeader()
        header.sectionResized.connect(self._sized)
        for signal in (model.modelReset, model.layoutChanged, model.dataChanged):
            signal.connect(self.fit)
        header.sortIndicatorChanged.connect(self.fit)  # its arrow's room
        table.viewport().installEventFilter(self)  # the room: the window, a scroll bar

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        """Each column as wide as its text needs within its limits, the key columns (first in
        the list) before the others while the room lasts."""
        least, wanted = self._limits()
        room = self.table.viewport().width()
        if self.model.rowCount() == 0:  # room for the cells to come, as far as it goes
            cells = [
                want if c in self._user_sized else max(want, min(column.most, column.width))
                for c, (want, column) in enumerate(zip(wanted, self.model.columns, strict=True))
            ]
            widths = shared_widths(cells, least, room)
        else:
            widths = fit_widths(wanted, least, room, self.stretch, self.shares)
        self._fitting = True
        try:
            for column, width in enumerate(widths):
                # The stretched one too: Qt stretches a last section no narrower than its
                # width, which an empty table's share may have to be.
                self.table.setColumnWidth(column, width)
        finally:
            self._fitting = False

    def wanted_width(self, columns: int) -> int:
        """The width of the first `columns` columns with their texts whole (within their
        limits), as the table's viewport would need it."""
        least, wanted = self._limits()
        return sum(max(low, want) for low, want in zip(least[:columns], wanted, strict=False))

    def _limits(self) -> tuple[list[int], list[int]]:
        """Each column's least width and the width its header and cells want. With no rows
        a column's least is its header's: its `Column.width` is room for the cells' text, and
        an empty table scrolled sideways for cells it does not have."""
        table, columns = self.table, self.model.columns
        empty = self.model.rowCount() == 0
        least = [
            table.columnWidth(c)
            if c in self._user_sized
            else min(column.width, self._header_width(c))
            if empty
            else column.width
            for c, column in enumerate(columns)
        ]
        wanted = [
            least[c]
            if c in self._user_sized
            else min(column.most, max(self._header_width(c), table.sizeHintForColumn(c)))
            for c, column in enumerate(columns)
        ]
        return least, wanted

    def _header_width(self, column: int) -> int:
        """The room the header's title needs: Qt's hint keeps a sort arrow's room in every
        section of a sortable table (~20 px each), only the sorted one draws it."""
        header = self.table.horizontalHeader()
        if header.isSortIndicatorShown() and header.sortIndicatorSection() == column:
            return header.sectionSizeHint(column)
        title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
        metrics = header.fontMetrics()
        text = max(metrics.horizontalAdvance(line) for line in title.split("\n"))
        margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        return min(header.sectionSizeHint(column), text + 2 * margin + 2)

    def _sized(self, column: int, _old: int, _new: int) -> None:
        if not self._fitting and column != self.stretch and self.table.isVisible():
            self._user_sized.add(column)  # dragged by the user: kept


class ItemTable(QTableView, Generic[T]):
    selectedChanged = Signal()  # the user picked another row, or a refresh changed the pick

    def __init__(
        self,
        model: ListingModel[T],
        key: Callable[[T], Hashable],
        parent: QWidget | None = None,
        *,
        name: str,
        stretch: int | None = None,
        fit: bool = False,
        shares: int | None = None,
    ) -> None:
        """`stretch`: the column that takes the room left (the last one unless named).
        `fit`: each column as wide as its header and cells need, from its `Column.width` to
        its `Column.most`, refitted as the rows or the room change (a column the user
        widened or narrowed keeps its width); `shares`: a column that gives the stretched
        one up to half of their room when both are short of it (see `fit_widths`)."""
        super().__init__(parent)
        self.items_model = model
        self.key_of = key
        self._wanted: Hashable | None = None  # an item to select once the list has it
        self._buttons: list[QAbstractButton] = []  # act on the selected item
        self.setObjectName(name)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        if stretch is None:
            header.setStretchLastSection(True)
        else:
            header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
        for index, column in enumerate(model.columns):
            self.setColumnWidth(index, column.width)
        self._fit = (
            ColumnFit(self, model, model.columnCount() - 1 if stretch is None else stretch, shares)
            if fit
            else None
        )
        self.selectionModel().selectionChanged.connect(self._picked)
        self.selectedChanged.connect(self._enable_buttons)

    # --- fitted columns --------------------------------------------------------------------

    def fit_columns(self) -> None:
        """Each column as wide as its text needs within its limits (see `ColumnFit`)."""
        if self._fit is not None:
            self._fit.fit()

    def _picked(self, *_args: object) -> None:
        self.selectedChanged.emit()

    def _enable_buttons(self) -> None:
        chosen = self.selected() is not None
        for button in self._buttons:
            button.setEnabled(chosen)

    # --- the selected item -----------------------------------------------------------------

    def selected(self) -> T | None:
        if not self.selectionModel().selectedRows():
            return None
        return self.items_model.item_at(current_row(self))

    def select_when_listed(self, key: Hashable) -> None:
        """Select the item with `key` now if it is listed, else once a refresh lists it (an
        item made elsewhere in the app, shown before the list has fetched it)."""
        self._wanted = key
        row = self._row_of(key)
        if row is not None:
            self._wanted = None
            select_only(self, row)

    def set_items(self, items: Sequence[T]) -> None:
        """Show `items`, keeping the selected item selected if it is still among them."""
        before = self.selected()
        self.items_model.set_items(items)
        for key in (self._wanted, None if before is None else self.key_of(before)):
            row = None if key is None else self._row_of(key)
            if row is not None:
                if key == self._wanted:
                    self._wanted = None
                select_only(self, row)  # the selection model says so: selectedChanged
                return
        # A reset clears the selection without a signal: the pane still has to hear of it.
        self.selectedChanged.emit()

    def _row_of(self, key: Hashable) -> int | None:
        items = self.items_model.items
        return next((row for row, item in enumerate(items) if self.key_of(item) == key), None)

    # --- keys ------------------------------------------------------------------------------

    def on_open(
        self, slot: Callable[[], None], text: str, *, button: QAbstractButton | None = None
    ) -> None:
        """Return, F2, a double click and `button` open the selected item (`text`: what
        they do)."""
        self.doubleClicked.connect(lambda _index: slot())
        self.add_key(QKeySequence(Qt.Key.Key_Return), slot, text)
        self.add_key(QKeySequence(Qt.Key.Key_F2), slot, text)
        self._act_with(button, slot)

    def on_delete(
        self, slot: Callable[[], None], text: str, *, button: QAbstractButton | None = None
    ) -> None:
        """The Delete key and `button` delete (or cancel) the selected item, after the pane
        asks."""
        self.add_key(QKeySequence(QKeySequence.StandardKey.Delete), slot, text)
        self._act_with(button, slot)

    def add_key(self, keys: QKeySequence, slot: Callable[[], None], text: str) -> None:
        """A shortcut that acts while the table has the focus (not while typing elsewhere)."""
        add_key(self, keys, slot, text)

    def _act_with(self, button: QAbstractButton | None, slot: Callable[[], None]) -> None:
        if button is not None:
            button.clicked.connect(lambda: slot())
            self._buttons.append(button)
            button.setEnabled(self.selected() is not None)
