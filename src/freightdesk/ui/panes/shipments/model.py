"""The shipments table model: every summary in one model, filtered and sorted in bulk.

Filtering and sorting run over flat per-row arrays in a few C-level passes (not through a
proxy's per-row `filterAcceptsRow`), and the visible order is swapped in with a layout change
that maps persistent indexes, so the user's selection and scroll position survive updates.

What makes 100,000 rows quick (a filter in about 10 ms, a sort in well under 100 ms):
- every filter reads the rows in position order, the order they were laid out in memory,
  and marks them in a byte per row: a search tests each row's prepared text (casefolded),
  modes and states are codes of one byte, which `bytes.translate` turns into marks at once;
  marks combine with one big-integer AND, and counts are `bytes.count`;
- the sort order is kept as a C array of positions: putting the marks in that order is one
  cheap pass, and rows are then filtered in sort order with `compress`, so a keystroke
  costs no sort;
- a sort orders positions by one plain value per row (computed when first sorted by that
  column, kept current on changes), the rows without a value set apart; after changes the
  old order is sorted again, which Timsort does in about one pass;
- triaging the rows again (new facts, settings, the minute's) is worked out in a worker
  thread for a big list, the Attention sort values and order included, and swapped in at
  once; a few rows changing kind are moved to their places by bisection, not sorted again;
  the minute's retriage triages only the rows whose time came (retriage.py);
- a removed row's position is taken by the last row, so nothing is indexed again.
"""

from __future__ import annotations

import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from itertools import compress
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont

from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import KINDS, NOTHING, Verdict
from freightdesk.ui.panes.shipments.attention import (
    attention_data,
    column_value,
    column_values,
    marks_of,
    never_late,
)
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS, SortValue
from freightdesk.ui.panes.shipments.retriage import Came, Retriager, Wanted
from freightdesk.ui.panes.shipments.row_index import (
    Codes,
    FilterResult,
    Marks,
    RowIndex,
    ShipmentFilter,
    both_marks,
    carrier_key,
    kept_codes,
    moved_positions,
    or_named,
    parse_pasted,
    row_blob,
    sorted_positions,
    visible_rows,
)

# The filter and its result live beside the index; callers take them from here too.
__all__ = ["FilterResult", "ShipmentFilter", "ShipmentTableModel", "parse_pasted"]

HIGHLIGHT_SECONDS = 2.5
# Typing on reads again only the rows the shorter text took when they are at most one in
# this many (a Python loop per row costs about this many times a comprehension's test).
NARROW_SHARE = 4
_HIGHLIGHT = QColor(255, 214, 102, 110)
_EXCEPTION = QColor("#d0453a")

ModelIndex = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_USER = Qt.ItemDataRole.UserRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_BACKGROUND = Qt.ItemDataRole.BackgroundRole.value
_FOREGROUND = Qt.ItemDataRole.ForegroundRole.value
_FONT = Qt.ItemDataRole.FontRole.value
_ROLES = frozenset({_DISPLAY, _USER, _TOOLTIP, _BACKGROUND, _FOREGROUND, _FONT})


class ShipmentTableModel(QAbstractTableModel):
    filterApplied = Signal(object)  # FilterResult
    # Put in a new order by `sort` (a header clicked, the sort kept from the last start), after
    # the layout change that kept the selection on its shipments.
    sortApplied = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[SummaryRow] = []
        self._ids: list[str] = []
        self._position: dict[str, int] = {}
        # Per row (by position): the text a search looks in (identifiers, places, carrier's
        # code; casefolded), the codes of its mode, state and carrier (`or_named`).
        self._blob: list[str] = []
        self._mode_codes = bytearray()
        self._state_codes = bytearray()
        self._carrier_codes = bytearray()
        self._flags = bytearray()
        # A row's attention flags (set by the pane from service/triage.py): none until then.
        self.triage: Callable[[SummaryRow], int] = lambda _row: 0
        self.verdict: Callable[[SummaryRow], Verdict] = lambda _row: NOTHING
        # When time alone changes a row's flags (a POSIX timestamp; None: never), set beside
        # `triage`: the minute's retriage triages only the rows due (`retriage_due`).
        self.due: Callable[[SummaryRow], float | None] = lambda _row: None
        # How late a row is, in seconds (0 when not late), set beside `triage`: the Attention
        # sort puts the latest first among the late.
        self.late: Callable[[SummaryRow], float] = never_late
        self._modes = Codes()
        self._states = Codes()
        self._carriers = Codes()
        # The last searched text and the rows holding it: typing on reads only those again.
        self._text_marks: tuple[str, bytes] | None = None
        # Identifier value -> positions, built only when a pasted list needs it.
        self._values: dict[str, set[int]] | None = None
        # Sort values per column, computed when first sorted by it, kept current on changes.
        self._sort_values: dict[int, list[SortValue | None]] = {}
        # Every position in the current sort order: filtering keeps this order, so a
        # keystroke costs one pass over the rows and no sort.
        self._ordered: array[int] | None = None
        self._order_dirty = False
        # Counts replacements and changes: a `load` finishing after another one is stale.
        self._generation = 0
        self._visible: list[int] = []
        self._filter = ShipmentFilter()
        # What needs attention first, the most recently updated first among equals.
        self._sort_column = COLUMN_INDEX["attention"]
        self._sort_order = Qt.SortOrder.DescendingOrder
        self._highlight: dict[str, float] = {}
        self._highlight_timer = QTimer(self)
        self._highlight_timer.setSingleShot(True)
        self._highlight_timer.timeout.connect(self._fade_highlights)
        self.last_result = FilterResult([])
        # Ids of rows added below a held list (`apply_changes(hold=True)`), and whether the
        # rows shown differ from the user's sort and filter because of held updates.
        self._news: set[str] = set()
        self._held = False
        # Rows of the whole list not read yet, shown blank below the first screen's rows
        # (`show_first_screen`) until the whole list replaces them.
        self._unread = 0
        self._retriager = Retriager(self)

    # --- Qt model interface ----------------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._visible) + self._unread

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        if role == Qt.ItemDataRole.InitialSortOrderRole and COLUMNS[section].descending_first:
            return Qt.SortOrder.DescendingOrder.value
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Asked about a dozen roles per cell at every paint: the unused ones leave first.
        if role not in _ROLES:
            return None
        row = index.row()
        if not 0 <= row < len(self._visible):
            return None
        summary = self._rows[self._visible[row]]
        column = COLUMNS[index.column()]
        if column.key == "attention" and role != _BACKGROUND and role != _USER:
            return attention_data(self.verdict(summary), role)
        if role == _DISPLAY:
            return column.text(summary)
        if role == _USER:
            return summary.id
        if role == _TOOLTIP:
            if column.key == "primaryIdentifier":
                return "\n".join(f"{kind}: {value}" for kind, value in summary.identifiers)
            return (column.tooltip or column.text)(summary) or None
        if role == _BACKGROUND:
            until = self._highlight.get(summary.id)
            if until is not None and until > time.monotonic():
                return QBrush(_HIGHLIGHT)
            return None
        if column.key != "exceptions" or summary.open_exception_count <= 0:
            return None
        if role == _FOREGROUND:
            return QBrush(_EXCEPTION)
        font = QFont()  # the font role
        font.setBold(True)
        return font

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self._sort_column = column
        self._sort_order = order
        self._ordered = None
        self._relayout()
        self.sortApplied.emit()

    # --- data ------------------------------------------------------------------------------

    def summary_at(self, row: int) -> SummaryRow | None:
        if 0 <= row < len(self._visible):
            return self._rows[self._visible[row]]
        return None

    def summary_of(self, shipment_id: str) -> SummaryRow | None:
        """The row of a shipment, shown or filtered out."""
        position = self._position.get(shipment_id)
        return self._rows[position] if position is not None else None

    def row_of(self, shipment_id: str) -> int | None:
        position = self._position.get(shipment_id)
        if position is None:
            return None
        try:
            return self._visible.index(position)
        except ValueError:
            return None

    @property
    def total(self) -> int:
        return len(self._rows) + self._unread

    @property
    def complete(self) -> bool:
        """False while only the first screen of the list is in (`show_first_screen`)."""
        return self._unread == 0

    def sort_name(self) -> str:
        """The current sort, as `first_screen` and `remember_first_screen` name it."""
        descending = self._sort_order == Qt.SortOrder.DescendingOrder
        return f"{COLUMNS[self._sort_column].key} {'desc' if descending else 'asc'}"

    def sort_key(self) -> tuple[int, bool]:
        """The current sort: its column and whether it is descending."""
        return self._sort_column, self._sort_order == Qt.SortOrder.DescendingOrder

    def rows_by_id(self) -> dict[str, SummaryRow]:
        """Every row, by id (a copy: it can be read in another thread)."""
        return dict(zip(self._ids, self._rows, strict=True))

    def show_top_of(self, rows: list[SummaryRow], count: int) -> None:
        """The whole list, shown by its first `count` rows in the current sort until it is
        indexed (`load`, in a worker thread): finding them costs a third of indexing it all."""
        if len(rows) <= count:
            self.set_summaries(rows)
            return
        descending = self._sort_order == Qt.SortOrder.DescendingOrder
        # The order `load` will give them: same positions, same values, same ties.
        values = column_values(
            self._sort_column, rows, bytearray(map(self.triage, rows)), self.late
        )
        order = sorted_positions(array("i", range(len(rows))), values, descending)
        self.show_first_screen([rows[i] for i in order[:count]], len(rows))

    def show_first_screen(self, rows: list[SummaryRow], total: int) -> None:
        """The rows at the top of the list in the current sort, before the whole list is
        read (the app's first paint): the table has `total` rows, those below `rows` blank
        until the whole list replaces them a moment later (`set_summaries`, `load`)."""
        self._generation += 1
        self._replace(
            RowIndex.of(rows, triage=self.triage, late=self.late), unread=max(0, total - len(rows))
        )

    def visible_summaries(self) -> list[SummaryRow]:
        return [self._rows[i] for i in self._visible]

    def set_summaries(self, summaries: Iterable[SummaryRow]) -> None:
        """Replace everything (first load)."""
        self._generation += 1
        self._replace(RowIndex.of(list(summaries), triage=self.triage, late=self.late))

    async def load(self, summaries: Iterable[SummaryRow]) -> bool:
        """Replace everything, indexing the rows in a worker thread: 100,000 rows take a
        fifth of a second to index, which the window would otherwise stand still for.
        Returns False when a later replacement or change made this one stale (dropped)."""
        import asyncio  # not at start-up: the first list is shown before asyncio is loaded

        self._generation += 1
        generation = self._generation
        names = CARRIER_NAMES.version
        sort = (self._sort_column, self._sort_order == Qt.SortOrder.DescendingOrder)
        index = await asyncio.to_thread(RowIndex.of, list(summaries), sort, self.triage, self.late)
        if generation != self._generation:
            return False
        if sort != (self._sort_column, self._sort_order == Qt.SortOrder.DescendingOrder):
            index.ordered = None  # sorted otherwise meanwhile: sorted again here
        self._replace(index)
        if names != CARRIER_NAMES.version:  # named anew while it was indexed
            self.carriers_renamed(None)
        return True

    def carriers_renamed(self, _codes: frozenset[str] | None = None) -> None:
        """Carriers have new names: the rows are sorted and found (`named_marks`) by them from
        now on. No row is indexed again: their search text holds the codes, not the names."""
        carrier = COLUMN_INDEX["carrier"]

        def rename() -> None:
            self._sort_values.pop(carrier, None)  # made again when sorted by it
            self._order_dirty = self._order_dirty or self._sort_column == carrier

        self._relayout(rename, hold=self._held)

    def _replace(self, index: RowIndex, unread: int = 0) -> None:
        self.beginResetModel()
        self._unread = unread
        self._news.clear()
        self._held = False
        self._adopt(index)
        result = self._compute()
        self._visible = result.visible
        self.endResetModel()
        self._announce(result)

    def apply_changes(
        self,
        changed: Sequence[SummaryRow],
        removed: Iterable[str],
        *,
        highlight: bool = True,
        hold: bool = False,
    ) -> None:
        """Merge a background update without moving the user's selection or scroll.

        With `hold`, the rows shown keep their places (a changed row is updated where it is,
        even when its new values would sort it elsewhere or the filter no longer takes it),
        and rows new to the view are added below them, counted in `new_count`: the list
        holds still under the user's eyes until the user sorts, filters or `settle`s it."""
        self._generation += 1  # a list being loaded (`load`) would undo this
        removed_set = set(removed)
        self._relayout(lambda: self._merge(changed, removed_set, highlight), hold=hold)

    @property
    def new_count(self) -> int:
        """Rows added below the held list since it was last put in order (`hold`)."""
        return len(self._news)

    @property
    def order_held(self) -> bool:
        """True while the rows shown are not in the order (or filter) the user chose, because
        updates were held in place (`apply_changes(hold=True)`)."""
        return self._held

    def settle(self) -> FilterResult:
        """Put the held list in the user's sort order and filter, new rows included."""
        return self._relayout()

    def _merge(self, changed: Sequence[SummaryRow], removed: set[str], highlight: bool) -> None:
        now = time.monotonic()
        if removed:
            self._remove(removed)
        for summary in changed:
            key = summary.id
            position = self._position.get(key)
            if position is None:
                position = len(self._rows)
                self._rows.append(summary)
                self._ids.append(key)
                self._position[key] = position
                self._blob.append("")
                self._mode_codes.append(0)
                self._state_codes.append(0)
                self._carrier_codes.append(0)
                self._flags.append(0)
                for values in self._sort_values.values():
                    values.append(None)
            self._retriager.touched(position)
            self._rows[position] = summary
            self._blob[position] = row_blob(summary)
            self._mode_codes[position] = self._modes.of(summary.mode or "")
            self._state_codes[position] = self._states.of(summary.current_state or "")
            self._carrier_codes[position] = self._carriers.of(carrier_key(summary))
            self._flags[position] = self.triage(summary)
            self._retriager.noted(summary)
            for column, values in self._sort_values.items():
                values[position] = column_value(column, summary, self._flags[position], self.late)
            if highlight:
                self._highlight[key] = now + HIGHLIGHT_SECONDS
        if changed:
            self._values = None
            self._text_marks = None
            self._order_dirty = True
        if highlight and changed:
            self._highlight_timer.start(int(HIGHLIGHT_SECONDS * 1000) + 50)

    def set_filter(self, shipment_filter: ShipmentFilter) -> FilterResult:
        self._filter = shipment_filter
        return self._relayout()

    @property
    def current_filter(self) -> ShipmentFilter:
        return self._filter

    # --- internals -------------------------------------------------------------------------

    def retriage(
        self,
        ids: Iterable[str] | None = None,
        *,
        state: str | None = None,
        hold: Callable[[], bool] = lambda: False,
    ) -> None:
        """Triage again (`triage`, `verdict` changed: new facts, settings or time) the rows
        of `ids`, or those in `state`, or every row. The words shown are painted again; when
        a row's kinds changed, the order and the filter follow, unless `hold()` says so then.
        Many rows are worked out in a worker thread meanwhile (`retriaging`; retriage.py)."""
        wanted = Wanted(
            ids is None and state is None,
            frozenset(ids or ()),
            frozenset([state]) if state is not None else frozenset(),
        )
        self._retriager.ask(wanted, hold)

    def retriage_due(self, now: float, *, hold: Callable[[], bool] = lambda: False) -> Came:
        """A new minute, `now` (a POSIX timestamp): the rows whose flags time alone changed
        since they were triaged (`due`) triaged again, as `retriage` does, the words shown
        painted again. Which rows those were (`Came`)."""
        return self._retriager.tick(now, hold)

    @property
    def retriaging(self) -> bool:
        """True while a `retriage` is still being worked out in the background."""
        return self._retriager.running

    def stop_retriage(self) -> None:
        """Drop the retriage being worked out in the background, and the one queued."""
        self._retriager.stop()

    def _remove(self, keys: set[str]) -> None:
        """The rows of `keys` taken out, each replaced by the last row (moved to its
        position), so that the rest keep their positions and nothing is indexed again:
        indexing 100,000 rows again would hold the window still for a quarter of a second."""
        position = self._position
        gone = sorted((p for key in keys if (p := position.get(key)) is not None), reverse=True)
        if not gone:
            return
        self._retriager.adopted(rows_kept=True)
        self._retriager.forget(keys)
        ids = self._ids
        columns: list[list[Any] | bytearray] = [
            self._rows,
            ids,
            self._blob,
            self._mode_codes,
            self._state_codes,
            self._carrier_codes,
            self._flags,
            *self._sort_values.values(),
        ]
        origin: dict[int, int] = {}  # position -> the position its row had before
        for p in gone:  # the highest first: the last row is never one to remove
            del position[ids[p]]
            last = len(ids) - 1
            if p != last:
                for column in columns:
                    column[p] = column[last]
                position[ids[p]] = p
                origin[p] = origin.pop(last, last)
            for column in columns:
                del column[last]
        if self._ordered is not None:
            self._ordered = moved_positions(
                self._ordered, set(gone), {was: p for p, was in origin.items()}
            )
        self._values = None
        self._text_marks = None

    def _adopt(self, index: RowIndex) -> None:
        self._retriager.adopted()
        self._rows = index.rows
        self._ids = index.ids
        self._position = index.position
        self._blob = index.blob
        self._modes, self._states = index.modes, index.states
        self._mode_codes, self._state_codes = index.mode_codes, index.state_codes
        self._carriers, self._carrier_codes = index.carriers, index.carrier_codes
        self._flags = index.flags
        self._sort_values = index.sort_values
        self._ordered = index.ordered
        self._order_dirty = False
        self._values = None
        self._text_marks = None

    def _holding_text(self, needle: str) -> bytes:
        """Marks of the rows whose search text holds `needle`. A row without the last
        searched text cannot hold a longer text containing it, so when the user types on,
        only the rows that held it are read again (when they are few enough for a Python
        loop over them to beat one pass over every row)."""
        blobs = self._blob
        count = len(blobs)
        kept = self._text_marks
        if kept is not None and kept[0] in needle and len(kept[1]) == count:
            held = kept[1]
            if held.count(1) * NARROW_SHARE <= count:
                marks = bytearray(count)
                for position in compress(range(count), held):
                    if needle in blobs[position]:
                        marks[position] = 1
                self._text_marks = (needle, bytes(marks))
                return self._text_marks[1]
        self._text_marks = (needle, bytes([needle in blob for blob in blobs]))
        return self._text_marks[1]

    def _identifier_index(self) -> dict[str, set[int]]:
        if self._values is None:
            index: dict[str, set[int]] = {}
            for position, row in enumerate(self._rows):
                for _kind, value in row.identifiers:
                    index.setdefault(value.upper(), set()).add(position)
            self._values = index
        return self._values

    def _compute(self) -> FilterResult:
        f = self._filter
        rows = self._rows
        count = len(rows)
        ordered = self._order()
        # Marks by position: one byte per row, 1 where the row passes; None where all do.
        passing: Marks | None = None
        not_found: list[str] = []
        if f.pasted is not None:
            index = self._identifier_index()
            found = bytearray(count)
            for value in f.pasted:
                for position in index.get(value, ()):
                    found[position] = 1
            passing = bytes(found)
            not_found = sorted(v for v in f.pasted if not index.get(v))
        else:
            needle = f.text.strip().casefold()
            if needle:
                held = self._holding_text(needle)
                passing = or_named(held, needle, self._carriers, self._carrier_codes, rows)
        # The rarer filters read the rows themselves.
        tests: list[Callable[[SummaryRow], bool]] = []
        if f.exceptions_only:
            tests.append(lambda r: r.open_exception_count > 0)
        if f.only_ids is not None:
            allowed = f.only_ids
            tests.append(lambda r: r.id in allowed)
        if f.modified_from is not None:
            modified_from = f.modified_from
            tests.append(lambda r: r.last_modified >= modified_from)
        if f.modified_to is not None:
            modified_to = f.modified_to
            tests.append(lambda r: r.last_modified < modified_to)
        if f.created_from is not None:
            created_from = f.created_from
            tests.append(lambda r: r.created >= created_from)
        if f.created_to is not None:
            created_to = f.created_to
            tests.append(lambda r: r.created < created_to)
        for test in tests:
            passing = both_marks(passing, bytes([test(row) for row in rows]), count)
        # Counted among the rows the other filters take, as the combos' counts are.
        attention_counts = Counter(
            {
                k: (both_marks(passing, marks_of(self._flags, {k}), count) or b"").count(1)
                for k in KINDS
            }
        )
        if f.attention:
            passing = both_marks(passing, marks_of(self._flags, f.attention), count)
        # Each combo counts what choosing one of its values would show, given the other.
        in_mode = self._mode_codes.translate(self._modes.table(f.modes)) if f.modes else None
        in_state = self._state_codes.translate(self._states.table(f.states)) if f.states else None
        mode_counted = both_marks(passing, in_state, count)
        state_counted = both_marks(passing, in_mode, count)
        shown = both_marks(mode_counted, in_mode, count)
        if shown is None or not shown.count(0):  # every row passes
            visible = ordered.tolist()
        else:
            visible = list(compress(ordered, bytes(map(shown.__getitem__, ordered))))
        return FilterResult(
            visible,
            self._modes.counts(kept_codes(self._mode_codes, mode_counted)),
            self._states.counts(kept_codes(self._state_codes, state_counted)),
            not_found,
            attention_counts,
        )

    def _order(self) -> array[int]:
        """All positions in sort order. Rows without a value for the column come last in
        ascending order (first in descending); ties keep their previous order, and after a
        change the old order is sorted again, which Timsort does in about one pass because
        it is nearly sorted already."""
        if self._ordered is not None and not self._order_dirty:
            return self._ordered
        count = len(self._rows)
        if self._ordered is not None:
            positions = self._ordered
            positions.extend(range(len(positions), count))
        else:
            positions = array("i", range(count))
        values = self._values_for(self._sort_column)
        descending = self._sort_order == Qt.SortOrder.DescendingOrder
        self._ordered = sorted_positions(positions, values, descending)
        self._order_dirty = False
        return self._ordered

    def _values_for(self, column: int) -> list[SortValue | None]:
        values = self._sort_values.get(column)
        if values is None:
            values = column_values(column, self._rows, self._flags, self.late)
            self._sort_values[column] = values
        return values

    def _relayout(
        self, mutate: Callable[[], None] | None = None, *, hold: bool = False
    ) -> FilterResult:
        """Recompute the visible rows (after `mutate` changes the data) in one layout change
        whose persistent indexes (selection, current row) follow their shipments. With
        `hold`, the rows shown stay in their places (`apply_changes`)."""
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_ids = [
            (
                self._ids[self._visible[i.row()]] if i.row() < len(self._visible) else None,
                i.column(),
            )
            for i in old_persistent
        ]
        ids = self._ids
        shown = [ids[p] for p in self._visible] if hold else []
        if mutate is not None:
            mutate()
        result = self._compute()
        if hold:
            result = self._held_in_place(result, shown)
        else:
            self._news.clear()
            self._held = False
        self._visible = result.visible
        new_indexes = []
        if old_persistent:
            # Only the few persistent indexes (selection, current row) need mapping.
            wanted = {self._position[k] for k, _c in old_ids if k in self._position}
            row_by_position = visible_rows(self._visible, wanted)
            for key, column in old_ids:
                position = self._position.get(key) if key is not None else None
                row = row_by_position.get(position) if position is not None else None
                new_indexes.append(self.index(row, column) if row is not None else QModelIndex())
        self.changePersistentIndexList(old_persistent, new_indexes)
        self.layoutChanged.emit()
        self._announce(result)
        return result

    def _held_in_place(self, result: FilterResult, shown: list[str]) -> FilterResult:
        """`result` with the rows `shown` before kept in their order (those still there),
        and the rows it adds to them below, in its order."""
        position = self._position
        kept = [p for key in shown if (p := position.get(key)) is not None]
        kept_set = set(kept)
        added = [p for p in result.visible if p not in kept_set]
        ids = self._ids
        self._news = {key for key in self._news if key in position}
        self._news.update(ids[p] for p in added)
        visible = kept + added
        self._held = visible != result.visible
        return replace(result, visible=visible)

    def _announce(self, result: FilterResult) -> None:
        self.last_result = result
        self.filterApplied.emit(result)

    def _fade_highlights(self) -> None:
        now = time.monotonic()
        faded = [key for key, until in self._highlight.items() if until <= now]
        for key in faded:
            del self._highlight[key]
        if faded and self._visible:
            self.dataChanged.emit(
                self.index(0, 0),
                self.index(len(self._visible) - 1, len(COLUMNS) - 1),
                [Qt.ItemDataRole.BackgroundRole],
            )
        if self._highlight:
            self._highlight_timer.start(500)

    def is_highlighted(self, shipment_id: str) -> bool:
        until = self._highlight.get(shipment_id)
        return until is not None and until > time.monotonic()
