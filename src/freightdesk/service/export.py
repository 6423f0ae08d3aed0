"""Writing a list as the user sees it to a CSV file or an Excel workbook.

One writer for every list of the app: the pane hands over the header and the rows (cells as
text, numbers or times) and the format; times are written in ISO 8601 with their offset
(`2026-11-28T06:30:00-06:00`), whatever clock the screen shows them in, so a spreadsheet or
a script reads the same instant on any machine. Plain Python: the Qt side
(`ui/widgets/export.py`) reads the table and asks for the file.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterator, Sequence
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path

from freightdesk.service.clock import iso_time

Cell = str | int | float | bool | datetime | date | None

# How often the writer says how far it got and asks whether to stop (rows).
STEP = 500


class ExportFormat(StrEnum):
    CSV = "csv"
    XLSX = "xlsx"

    @classmethod
    def of(cls, path: Path) -> ExportFormat | None:
        """The format a file name asks for by its suffix; None for another suffix."""
        suffix = path.suffix.lower().lstrip(".")
        return next((f for f in cls if f.value == suffix), None)


class ExportCancelled(Exception):
    """The user stopped the export; nothing of it is left on disk."""


class ExportError(OSError):
    """The file could not be written; the message says why in words (an OSError still, for
    callers that catch those)."""


def cell_value(value: Cell) -> str | int | float | bool | None:
    """A cell as written: times and dates as ISO 8601 text (the clock's export form), the
    rest as it is."""
    if isinstance(value, datetime):
        return iso_time(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


Progress = Callable[[int], bool]  # rows written so far -> whether to carry on


def write_table(
    path: Path,
    header: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    fmt: ExportFormat,
    *,
    sheet: str = "Export",
    progress: Progress | None = None,
) -> None:
    """Write `header` and `rows` to `path` in `fmt`. The file appears whole or not at all:
    it is written beside the target and moved over it at the end, so a failure or a cancel
    (`progress` answering False) leaves an earlier file of that name as it was."""
    partial = path.with_name(f".{path.name}.part")
    try:
        if fmt is ExportFormat.CSV:
            _write_csv(partial, header, rows, progress)
        else:
            _write_xlsx(partial, header, rows, sheet, progress)
        os.replace(partial, path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise ExportError(_os_words(path, error)) from error
    except BaseException:  # cancelled, or a value the format cannot hold
        partial.unlink(missing_ok=True)
        raise


def _os_words(path: Path, error: OSError) -> str:
    reason = error.strerror or str(error)
    if isinstance(error, PermissionError):
        return f"Cannot write {path}: permission denied (choose another folder)."
    if isinstance(error, FileNotFoundError | NotADirectoryError):
        return f"Cannot write {path}: the folder {path.parent} does not exist."
    if isinstance(error, IsADirectoryError):
        return f"Cannot write {path}: it is a folder."
    return f"Cannot write {path}: {reason}."


def _rows(
    rows: Sequence[Sequence[Cell]], progress: Progress | None
) -> Iterator[list[str | int | float | bool | None]]:
    for number, row in enumerate(rows, start=1):
        yield [cell_value(c) for c in row]
        if progress is not None and number % STEP == 0 and not progress(number):
            raise ExportCancelled
    if progress is not None and not progress(len(rows)):
        raise ExportCancelled


def _write_csv(
    path: Path,
    header: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    progress: Progress | None,
) -> None:
    # utf-8-sig so that spreadsheet programs read accents right.
    with path.open("w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in _rows(rows, progress):
            writer.writerow(row)


def _write_xlsx(
    path: Path,
    header: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    title: str,
    progress: Progress | None,
) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    # A sheet's title has at most 31 characters and none of []:*?/\ (Excel's rule).
    sheet.title = "".join(c for c in title if c not in "[]:*?/\\")[:31] or "Export"
    sheet.append(list(header))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    widths = [len(h) for h in header]
    for row in _rows(rows, progress):
        # Times stay text: Excel's dates have no offset, and ISO text is what was asked for.
        sheet.append(row)
        for index, value in enumerate(row[: len(widths)]):
            widths[index] = max(widths[index], len(str(value)) if value is not None else 0)
    for index, width in enumerate(widths, start=1):
        letter = sheet.cell(row=1, column=index).column_letter
        sheet.column_dimensions[letter].width = min(60, max(10, width + 2))
    sheet.freeze_panes = "A2"
    workbook.save(path)
