"""The shipments table model: every summary in one model, filtered and sorted in bulk.

Filtering and sorting run over plain Python lists in one pass (not through a proxy's
per-row `filterAcceptsRow`), and the visible order is swapped in with a layout change that
maps persistent indexes, so the user's selection and scroll position survive updates.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
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

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.columns import COLUMNS

HIGHLIGHT_SECONDS = 2.5
_HIGHLIGHT = QColor(255, 214, 102, 110)
_EXCEPTION = QColor("#d0453a")

ModelIndex = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class ShipmentFilter:
    text: str = ""
    # Exact identifier values pasted by the user (upper-cased); None when no list is pasted.
    pasted: frozenset[str] | None = None
    modes: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    exceptions_only: bool = False
    # Ids allowed by a server-side filter (attributes); None when there is none.
    only_ids: frozenset[str] | None = None
    modified_from: datetime | None = None
    modified_to: datetime | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None


@dataclass
class FilterResult:
    visible: list[int]
    mode_counts: Counter[str] = field(default_factory=Counter)
    state_counts: Counter[str] = field(default_factory=Counter)
    not_found: list[str] = field(default_factory=list)


def parse_pasted(text: str) -> frozenset[str] | None:
    """A pasted list of identifiers (several values split by lines, commas, tabs or spaces)."""
    separators = "\n\r\t,; "
    if not any(sep in text.strip() for sep in "\n\r\t,;"):
        return None
    for sep in separators[1:]:
        text = text.replace(sep, "\n")
    values = frozenset(v.strip().upper() for v in text.split("\n") if v.strip())
    return values if len(values) > 1 else None


class ShipmentTableModel(QAbstractTableModel):
    filterApplied = Signal(object)  # FilterResult

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[SummaryRow] = []
        self._ids: list[str] = []
        self._position: dict[str, int] = {}
        self._blob: list[str] = []
        # Flat per-row values the filter reads (faster than attribute lookups on 100k rows).
        self._modes: list[str] = []
        self._states: list[str] = []
        # Identifier value -> positions, built only when a pasted list needs it.
        self._values: dict[str, set[int]] | None = None
        # Sort keys per column, computed when first sorted by it, kept current on changes.
        self._sort_keys: dict[int, list[Any]] = {}
        # Every position in the current sort order: filtering keeps this order, so a
        # keystroke costs one pass over the rows and no sort.
        self._ordered: list[int] | None = None
        self._order_dirty = False
        self._visible: list[int] = []
        self._filter = ShipmentFilter()
        self._sort_column = COLUMNS.index(next(c for c in COLUMNS if c.key == "lastModified"))
        self._sort_order = Qt.SortOrder.DescendingOrder
        self._highlight: dict[str, float] = {}
        self._highlight_timer = QTimer(self)
        self._highlight_timer.setSingleShot(True)
        self._highlight_timer.timeout.connect(self._fade_highlights)
        self.last_result = FilterResult([])

    # --- Qt model interface ----------------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._visible)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and 0 <= section < len(COLUMNS) and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._visible):
            return None
        summary = self._rows[self._visible[index.row()]]
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(summary)
        if role == Qt.ItemDataRole.UserRole:
            return summary.id
        if role == Qt.ItemDataRole.ToolTipRole:
            if column.key == "primaryIdentifier":
                return "\n".join(f"{kind}: {value}" for kind, value in summary.identifiers)
            return column.text(summary) or None
        if role == Qt.ItemDataRole.BackgroundRole:
            until = self._highlight.get(summary.id)
            if until is not None and until > time.monotonic():
                return QBrush(_HIGHLIGHT)
        alarming = column.key == "exceptions" and summary.open_exception_count > 0
        if role == Qt.ItemDataRole.ForegroundRole and alarming:
            return QBrush(_EXCEPTION)
        if role == Qt.ItemDataRole.FontRole and alarming:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self._sort_column = column
        self._sort_order = order
        self._ordered = None
        self._relayout()

    # --- data ------------------------------------------------------------------------------

    def summary_at(self, row: int) -> SummaryRow | None:
        if 0 <= row < len(self._visible):
            return self._rows[self._visible[row]]
        return None

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
        return len(self._rows)

    def visible_summaries(self) -> list[SummaryRow]:
        return [self._rows[i] for i in self._visible]

    def set_summaries(self, summaries: Iterable[SummaryRow]) -> None:
        """Replace everything (first load)."""
        self.beginResetModel()
        self._rows = list(summaries)
        self._reindex()
        result = self._compute()
        self._visible = result.visible
        self.endResetModel()
        self._announce(result)

    def apply_changes(
        self, changed: Sequence[SummaryRow], removed: Iterable[str], *, highlight: bool = True
    ) -> None:
        """Merge a background update without moving the user's selection or scroll."""
        removed_set = set(removed)
        self._relayout(lambda: self._merge(changed, removed_set, highlight))

    def _merge(self, changed: Sequence[SummaryRow], removed: set[str], highlight: bool) -> None:
        now = time.monotonic()
        if removed:
            self._rows = [r for r in self._rows if r.id not in removed]
            self._reindex()
        for summary in changed:
            key = summary.id
            position = self._position.get(key)
            if position is None:
                position = len(self._rows)
                self._rows.append(summary)
                self._ids.append(key)
                self._position[key] = position
                self._blob.append(_blob(summary))
                self._modes.append(summary.mode or "")
                self._states.append(summary.current_state or "")
                for column, keys in self._sort_keys.items():
                    keys.append(COLUMNS[column].sort_key(summary))
            else:
                self._rows[position] = summary
                self._blob[position] = _blob(summary)
                self._modes[position] = summary.mode or ""
                self._states[position] = summary.current_state or ""
                for column, keys in self._sort_keys.items():
                    keys[position] = COLUMNS[column].sort_key(summary)
            if highlight:
                self._highlight[key] = now + HIGHLIGHT_SECONDS
        if changed:
            self._values = None
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

    def _reindex(self) -> None:
        self._sort_keys = {}
        self._ordered = None
        rows = self._rows
        self._ids = [r.id for r in rows]
        self._position = {key: i for i, key in enumerate(self._ids)}
        self._blob = [_blob(r) for r in rows]
        self._modes = [r.mode or "" for r in rows]
        self._states = [r.current_state or "" for r in rows]
        self._values = None

    def _identifier_index(self) -> dict[str, set[int]]:
        if self._values is None:
            index: dict[str, set[int]] = {}
            for position, row in enumerate(self._rows):
                for _kind, value in row.identifiers:
                    index.setdefault(value.upper(), set()).add(position)
            self._values = index
        return self._values

    def _compute(self) -> FilterResult:
        # Successive list comprehensions over flat values: the fast path in CPython.
        f = self._filter
        rows = self._rows
        ordered = self._order()
        if f.pasted is not None:
            index = self._identifier_index()
            matched = {p for v in f.pasted for p in index.get(v, ())}
            candidates = [p for p in ordered if p in matched]
            not_found = sorted(v for v in f.pasted if not index.get(v))
        else:
            candidates = ordered
            not_found = []
            needle = f.text.strip().casefold()
            if needle:
                blobs = self._blob
                candidates = [p for p in candidates if needle in blobs[p]]
        if f.exceptions_only:
            candidates = [p for p in candidates if rows[p].open_exception_count]
        if f.only_ids is not None:
            ids, allowed = self._ids, f.only_ids
            candidates = [p for p in candidates if ids[p] in allowed]
        if f.modified_from is not None:
            since = f.modified_from
            candidates = [p for p in candidates if rows[p].last_modified >= since]
        if f.modified_to is not None:
            until = f.modified_to
            candidates = [p for p in candidates if rows[p].last_modified < until]
        if f.created_from is not None:
            since = f.created_from
            candidates = [p for p in candidates if rows[p].created >= since]
        if f.created_to is not None:
            until = f.created_to
            candidates = [p for p in candidates if rows[p].created < until]
        modes, states = self._modes, self._states
        in_state = [p for p in candidates if states[p] in f.states] if f.states else candidates
        in_mode = [p for p in candidates if modes[p] in f.modes] if f.modes else candidates
        mode_counts = Counter(map(modes.__getitem__, in_state))
        state_counts = Counter(map(states.__getitem__, in_mode))
        visible = [p for p in in_state if modes[p] in f.modes] if f.modes else in_state
        if visible is ordered:
            visible = list(ordered)
        return FilterResult(visible, mode_counts, state_counts, not_found)

    def _order(self) -> list[int]:
        """All positions in sort order; after a change the old order is re-sorted, which
        Timsort does in about one pass because it is nearly sorted already."""
        if self._ordered is not None and not self._order_dirty:
            return self._ordered
        ordered = self._ordered if self._ordered is not None else []
        ordered.extend(range(len(ordered), len(self._rows)))
        keys = self._keys_for(self._sort_column)
        descending = self._sort_order == Qt.SortOrder.DescendingOrder
        ordered.sort(key=keys.__getitem__, reverse=descending)
        self._ordered = ordered
        self._order_dirty = False
        return ordered

    def _keys_for(self, column: int) -> list[Any]:
        keys = self._sort_keys.get(column)
        if keys is None:
            key = COLUMNS[column].sort_key
            keys = [key(row) for row in self._rows]
            self._sort_keys[column] = keys
        return keys

    def _relayout(self, mutate: Callable[[], None] | None = None) -> FilterResult:
        """Recompute the visible rows (after `mutate` changes the data) in one layout change
        whose persistent indexes (selection, current row) follow their shipments."""
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_ids = [
            (
                self._ids[self._visible[i.row()]] if i.row() < len(self._visible) else None,
                i.column(),
            )
            for i in old_persistent
        ]
        if mutate is not None:
            mutate()
        result = self._compute()
        self._visible = result.visible
        new_indexes = []
        if old_persistent:
            # Only the few persistent indexes (selection, current row) need mapping.
            wanted = {self._position[k] for k, _c in old_ids if k in self._position}
            row_by_position = {p: r for r, p in enumerate(self._visible) if p in wanted}
            for key, column in old_ids:
                position = self._position.get(key) if key is not None else None
                row = row_by_position.get(position) if position is not None else None
                new_indexes.append(self.index(row, column) if row is not None else QModelIndex())
        self.changePersistentIndexList(old_persistent, new_indexes)
        self.layoutChanged.emit()
        self._announce(result)
        return result

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


def _blob(summary: SummaryRow) -> str:
    parts = [value for _kind, value in summary.identifiers]
    parts += [summary.origin_name or "", summary.destination_name or "", summary.carrier or ""]
    return "\n".join(parts).casefold()
