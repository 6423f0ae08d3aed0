"""Export shipments as the list shows them (File → Export view…, Ctrl+E, and Export selected)
through the app's one export path (`ui/widgets/export.py`: Qt's save dialog opened without a
nested event loop, the file written off the GUI thread, the outcome said in the notice)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, overload

from freightdesk.service.export import Cell
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.columns import Column
from freightdesk.ui.widgets.export import Rows, export_rows

if TYPE_CHECKING:
    from PySide6.QtWidgets import QFileDialog, QWidget

    from freightdesk.ui.widgets.notice import Notice

# The time columns by key: exported as the instant (ISO 8601 with offset), not as shown.
_TIMES: dict[str, Callable[[SummaryRow], datetime | None]] = {
    "nextEta": lambda r: r.next_eta,
    "latestEventTime": lambda r: r.latest_event_time,
    "lastModified": lambda r: r.last_modified,
    "created": lambda r: r.created,
}


def _cell(column: Column, row: SummaryRow) -> Cell:
    time = _TIMES.get(column.key)
    if time is not None:
        return time(row)
    # Whole where the cell says less than its tooltip: the carrier's name and code.
    return (column.tooltip or column.text)(row)


class ExportRows(Sequence[list[Cell]]):
    """The cells of `summaries` in `columns`, made as the writer reads them, in its worker
    thread: made at once on the GUI thread, 20,000 rows' texts stalled the window 0.1 to
    0.6 s. The summaries and columns are taken when the file is chosen (the list as shown
    then); a column's text must not read state the GUI thread changes meanwhile."""

    def __init__(self, columns: Sequence[Column], summaries: Sequence[SummaryRow]) -> None:
        self.columns = list(columns)
        self.summaries = list(summaries)

    def __len__(self) -> int:
        return len(self.summaries)

    @overload
    def __getitem__(self, index: int) -> list[Cell]: ...
    @overload
    def __getitem__(self, index: slice) -> list[list[Cell]]: ...
    def __getitem__(self, index: int | slice) -> list[Cell] | list[list[Cell]]:
        if isinstance(index, slice):
            return [self._row(n) for n in range(*index.indices(len(self)))]
        return self._row(range(len(self))[index])

    def _row(self, number: int) -> list[Cell]:
        summary = self.summaries[number]
        return [_cell(column, summary) for column in self.columns]


def export_shipments(
    pane: QWidget,
    columns: Callable[[], Sequence[Column]],
    summaries: Callable[[], Sequence[SummaryRow]],
    notice: Notice,
    *,
    noun: str,
) -> QFileDialog:
    """Ask where, then write `summaries` in `columns` (both read once the file is chosen, so
    what is written is what the list shows then)."""

    def rows() -> Rows:
        shown = columns()
        return Rows([c.title for c in shown], ExportRows(shown, summaries()))

    return export_rows(pane, rows, notice, noun=noun)
