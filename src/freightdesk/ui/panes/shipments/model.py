"""The shipments table model: every summary in one model, filtered and sorted in bulk.

Filtering and sorting run over plain Python lists in one pass (not through a proxy's
per-row `filterAcceptsRow`), and the visible order is swapped in with a layout change that
maps persistent indexes, so the user's selection and scroll position survive updates.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
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

from freightdesk.models.shipment_search import ShipmentSummary
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
        self._rows: list[ShipmentSummary] = []
        self._ids: list[str] = []
        self._position: dict[str, int] = {}
        self._blob: list[str] = []
        self._values: dict[str, set[int]] = {}
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
            return str(summary.id)
        if role == Qt.ItemDataRole.ToolTipRole and column.key == "primaryIdentifier":
            return "\n".join(f"{i.type}: {i.value}" for i in summary.identifiers)
        if role == Qt.ItemDataRole.BackgroundRole:
            until = self._highlight.get(str(summary.id))
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
        self._relayout()

    # --- data ------------------------------------------------------------------------------

    def summary_at(self, row: int) -> ShipmentSummary | None:
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

    def visible_summaries(self) -> list[ShipmentSummary]:
        return [self._rows[i] for i in self._visible]

    def set_summaries(self, summaries: Iterable[ShipmentSummary]) -> None:
        """Replace everything (first load)."""
        self.beginResetModel()
        self._rows = list(summaries)
        self._reindex()
        result = self._compute()
        self._visible = result.visible
        self.endResetModel()
        self._announce(result)

    def apply_changes(
        self, changed: Sequence[ShipmentSummary], removed: Iterable[str], *, highlight: bool = True
    ) -> None:
        """Merge a background update without moving the user's selection or scroll."""
        removed_set = set(removed)
        now = time.monotonic()
        rows = (
            [r for r in self._rows if str(r.id) not in removed_set] if removed_set else self._rows
        )
        if removed_set:
            self._rows = rows
            self._reindex()
        for summary in changed:
            key = str(summary.id)
            position = self._position.get(key)
            if position is None:
                self._rows.append(summary)
                self._ids.append(key)
                self._position[key] = len(self._rows) - 1
                self._blob.append(_blob(summary))
                self._index_values(len(self._rows) - 1, summary)
            else:
                for identifier in self._rows[position].identifiers:
                    self._values.get(identifier.value.upper(), set()).discard(position)
                self._rows[position] = summary
                self._blob[position] = _blob(summary)
                self._index_values(position, summary)
            if highlight:
                self._highlight[key] = now + HIGHLIGHT_SECONDS
        if highlight and changed:
            self._highlight_timer.start(int(HIGHLIGHT_SECONDS * 1000) + 50)
        self._relayout()

    def set_filter(self, shipment_filter: ShipmentFilter) -> FilterResult:
        self._filter = shipment_filter
        return self._relayout()

    @property
    def current_filter(self) -> ShipmentFilter:
        return self._filter

    # --- internals -------------------------------------------------------------------------

    def _reindex(self) -> None:
        self._ids = [str(r.id) for r in self._rows]
        self._position = {key: i for i, key in enumerate(self._ids)}
        self._blob = [_blob(r) for r in self._rows]
        self._values = {}
        for position, summary in enumerate(self._rows):
            self._index_values(position, summary)

    def _index_values(self, position: int, summary: ShipmentSummary) -> None:
        for identifier in summary.identifiers:
            self._values.setdefault(identifier.value.upper(), set()).add(position)

    def _compute(self) -> FilterResult:
        f = self._filter
        needle = f.text.strip().casefold()
        if f.pasted is not None:
            candidates: Iterable[int] = sorted(
                {p for v in f.pasted for p in self._values.get(v, ()) if p < len(self._rows)}
            )
            found_values = {v for v in f.pasted if self._values.get(v)}
            not_found = sorted(f.pasted - found_values)
            needle = ""
        else:
            candidates = range(len(self._rows))
            not_found = []
        rows = self._rows
        blobs = self._blob
        ids = self._ids
        visible: list[int] = []
        mode_counts: Counter[str] = Counter()
        state_counts: Counter[str] = Counter()
        for position in candidates:
            if needle and needle not in blobs[position]:
                continue
            summary = rows[position]
            if f.exceptions_only and not summary.open_exception_count:
                continue
            if f.only_ids is not None and ids[position] not in f.only_ids:
                continue
            if f.modified_from and summary.last_modified_date_time < f.modified_from:
                continue
            if f.modified_to and summary.last_modified_date_time >= f.modified_to:
                continue
            if f.created_from and summary.created_date_time < f.created_from:
                continue
            if f.created_to and summary.created_date_time >= f.created_to:
                continue
            mode = summary.mode.value if summary.mode else ""
            state = summary.current_state.value if summary.current_state else ""
            mode_ok = not f.modes or mode in f.modes
            state_ok = not f.states or state in f.states
            if state_ok:
                mode_counts[mode] += 1
            if mode_ok:
                state_counts[state] += 1
            if mode_ok and state_ok:
                visible.append(position)
        column = COLUMNS[self._sort_column]
        key = column.sort_key
        visible.sort(
            key=lambda p: key(rows[p]), reverse=self._sort_order == Qt.SortOrder.DescendingOrder
        )
        return FilterResult(visible, mode_counts, state_counts, not_found)

    def _relayout(self) -> FilterResult:
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_ids = [
            (
                self._ids[self._visible[i.row()]] if i.row() < len(self._visible) else None,
                i.column(),
            )
            for i in old_persistent
        ]
        result = self._compute()
        self._visible = result.visible
        row_by_position = {p: r for r, p in enumerate(self._visible)}
        new_indexes = []
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


def _blob(summary: ShipmentSummary) -> str:
    parts = [i.value for i in summary.identifiers]
    parts += [summary.origin_name or "", summary.destination_name or "", summary.carrier or ""]
    return "\n".join(parts).casefold()
