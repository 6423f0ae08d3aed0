"""Export the current view of the shipments table to CSV or XLSX (the app's one writer,
`service/export.py`, with the shipments' columns)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from freightdesk.service.export import Cell, ExportFormat, write_table
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.columns import Column

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


def _write(
    path: Path, columns: Sequence[Column], summaries: Sequence[SummaryRow], fmt: ExportFormat
) -> None:
    header = [c.title for c in columns]
    write_table(path, header, rows_for(columns, summaries), fmt, sheet="Shipments")


def export_csv(path: Path, columns: Sequence[Column], summaries: Sequence[SummaryRow]) -> None:
    _write(path, columns, summaries, ExportFormat.CSV)


def export_xlsx(path: Path, columns: Sequence[Column], summaries: Sequence[SummaryRow]) -> None:
    _write(path, columns, summaries, ExportFormat.XLSX)
