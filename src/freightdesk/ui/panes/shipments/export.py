"""Export the current view of the shipments table to CSV or XLSX."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.columns import Column


def rows_for(columns: Sequence[Column], summaries: Sequence[SummaryRow]) -> list[list[str]]:
    return [[column.text(s) for column in columns] for s in summaries]


def export_csv(path: Path, columns: Sequence[Column], summaries: Sequence[SummaryRow]) -> None:
    # utf-8-sig so that spreadsheet programs read accents right.
    with path.open("w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle)
        writer.writerow([c.title for c in columns])
        writer.writerows(rows_for(columns, summaries))


def export_xlsx(path: Path, columns: Sequence[Column], summaries: Sequence[SummaryRow]) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    workbook = Workbook(write_only=False)
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Shipments"
    sheet.append([c.title for c in columns])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows_for(columns, summaries):
        sheet.append(row)
    for index, column in enumerate(columns, start=1):
        letter = sheet.cell(row=1, column=index).column_letter
        sheet.column_dimensions[letter].width = max(10, column.width // 7)
    sheet.freeze_panes = "A2"
    workbook.save(path)
