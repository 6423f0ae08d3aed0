"""Export shipments as the list shows them (File → Export view…, Ctrl+E, and Export selected)
through the app's one export path (`ui/widgets/export.py`: Qt's save dialog opened without a
nested event loop, the file written off the GUI thread, the outcome said in the notice)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

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
    return time(row) if time is not None else column.text(row)


def rows_for(columns: Sequence[Column], summaries: Sequence[SummaryRow]) -> list[list[Cell]]:
    return [[_cell(column, s) for column in columns] for s in summaries]


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
        return Rows([c.title for c in shown], rows_for(shown, summaries()))

    return export_rows(pane, rows, notice, noun=noun)
