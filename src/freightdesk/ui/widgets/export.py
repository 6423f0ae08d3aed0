"""Export a list pane's list (File → Export view…, Ctrl+E) to CSV or an Excel workbook.

What is written is the table as the user sees it: the visible columns in the order the user
dragged them to, the rows in the order shown (the user's sort). A cell is the model's
`EXPORT_ROLE` value where it has one (a time, so that it is written as ISO 8601 with its
offset by `service/export.py`), else its text as shown. The file is asked for in Qt's own
save dialog (the same on every desktop); the writing runs off the GUI thread, with a progress
dialog that can cancel it when it takes a while; the outcome is said in the pane's notice, in
words.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from PySide6.QtCore import QAbstractItemModel, QObject, Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QProgressDialog, QTableView, QWidget

from freightdesk.service.export import (
    Cell,
    ExportCancelled,
    ExportFormat,
    write_table,
)
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.notice import Notice

# A cell's value as exported, where it differs from its text (a time: the instant itself).
EXPORT_ROLE = Qt.ItemDataRole.UserRole + 0x4578

FILTERS = {
    ExportFormat.XLSX: "Excel workbook (*.xlsx)",
    ExportFormat.CSV: "CSV (*.csv)",
}
PROGRESS_AFTER_MS = 400  # a quick export shows no progress dialog at all
PROGRESS_TICK_MS = 100

# Where the last export went: the next one is offered in the same folder (for this run).
_last_folder: list[Path] = []


@dataclass
class Rows:
    """A list as shown: its header and its rows."""

    header: list[str]
    # Any sequence: one whose cells are made as the writer reads them spares the GUI thread.
    rows: Sequence[Sequence[Cell]] = field(default_factory=list)


def view_rows(view: QTableView) -> Rows:
    """The rows of `view` as shown: visible columns in their visual order, rows in the order
    the view shows them (its model's, sorted or filtered through a proxy)."""
    model = view.model()
    header = view.horizontalHeader()
    columns = sorted(
        (c for c in range(model.columnCount()) if not header.isSectionHidden(c)),
        key=header.visualIndex,
    )
    # A header drawn on two lines is one title in a file.
    titles = [
        str(
            model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or ""
        ).replace("\n", " ")
        for c in columns
    ]
    shown = (r for r in range(model.rowCount()) if not view.isRowHidden(r))
    return Rows(titles, [[_cell(model, row, c) for c in columns] for row in shown])


def _cell(model: QAbstractItemModel, row: int, column: int) -> Cell:
    index = model.index(row, column)
    value = model.data(index, EXPORT_ROLE)
    if value is None:
        value = model.data(index, Qt.ItemDataRole.DisplayRole)
    if value is None or isinstance(value, str | int | float | datetime | date):
        return value
    return str(value)


def export_view(pane: QWidget, view: QTableView, notice: Notice, *, noun: str) -> QFileDialog:
    """Ask where to export the list `view` shows (`noun`: what its rows are, "bookings"),
    then write it. Returns the dialog (open, not modal to the loop: no nested event loop)."""
    return export_rows(pane, lambda: view_rows(view), notice, noun=noun)


def export_rows(
    pane: QWidget, rows: Callable[[], Rows], notice: Notice, *, noun: str
) -> QFileDialog:
    """As `export_view`, for a list that is not a table (`rows` reads it when the file is
    chosen, so it is what is on screen then)."""
    folder = _last_folder[-1] if _last_folder else Path.home()
    name = noun.replace(" ", "-")
    dialog = QFileDialog(pane, f"Export {noun}", str(folder / f"{name}.xlsx"))
    dialog.setObjectName("exportDialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    # Qt's own dialog: the same on every desktop, and one a test can type into.
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setNameFilters(list(FILTERS.values()))
    dialog.setDefaultSuffix(ExportFormat.XLSX.value)
    dialog.selectFile(f"{name}.xlsx")

    def filter_picked(text: str) -> None:
        fmt = _format_of_filter(text)
        dialog.setDefaultSuffix(fmt.value)
        # The name typed follows the format picked, as a user expects of a save dialog.
        typed = Path(dialog.selectedFiles()[0]).name if dialog.selectedFiles() else name
        stem = Path(typed).stem if ExportFormat.of(Path(typed)) else typed
        dialog.selectFile(f"{stem}.{fmt.value}")

    def chosen(path_text: str) -> None:
        path = Path(path_text)
        fmt = ExportFormat.of(path) or _format_of_filter(dialog.selectedNameFilter())
        _last_folder[:] = [path.parent]
        Export(pane, rows(), path, fmt, notice, noun=noun).start()

    dialog.filterSelected.connect(filter_picked)
    dialog.fileSelected.connect(chosen)
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog


class ListExport:
    """A list pane's `export_view` (File → Export view…, Ctrl+E), mixed into the pane's class
    (`class BookingsPane(ListExport, QWidget)`): the pane's `table` as shown, the outcome said
    in its `notice`. What the rows are is `export_noun`, else the table's object name in words
    ("stopLocationsTable": stop locations)."""

    export_noun = ""
    export_table = "table"  # the attribute holding the pane's list

    def export_view(self) -> QFileDialog:
        view, notice = getattr(self, self.export_table), getattr(self, "notice")  # noqa: B009
        assert isinstance(self, QWidget) and isinstance(view, QTableView)
        assert isinstance(notice, Notice)
        name = view.objectName().removesuffix("Table")
        noun = self.export_noun or re.sub(r"(?<!^)([A-Z])", r" \1", name).lower() or "rows"
        return export_view(self, view, notice, noun=noun)


def _format_of_filter(text: str) -> ExportFormat:
    return next((f for f, label in FILTERS.items() if label == text), ExportFormat.XLSX)


class Export(QObject):
    """One export under way: written in a worker thread, its progress shown (and
    cancellable) once it takes longer than a moment."""

    def __init__(
        self,
        pane: QWidget,
        rows: Rows,
        path: Path,
        fmt: ExportFormat,
        notice: Notice,
        *,
        noun: str,
    ) -> None:
        super().__init__(pane)
        self.pane = pane
        self.rows = rows
        self.path = path
        self.fmt = fmt
        self.notice = notice
        self.noun = noun
        self._written = 0  # rows written so far, set by the worker thread
        self._stop = threading.Event()
        self.progress: QProgressDialog | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(PROGRESS_TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._ticks = 0

    def start(self) -> None:
        self.notice.show_info(f"Exporting {len(self.rows.rows):,} {self.noun}…")
        self._timer.start()
        spawn(
            asyncio.to_thread(
                write_table,
                self.path,
                self.rows.header,
                self.rows.rows,
                self.fmt,
                sheet=self.noun.capitalize(),
                progress=self._progressed,
            ),
            on_done=lambda _none: self._finished(None),
            on_error=self._finished,
            name="export",
            owner=self,
        )

    def _progressed(self, written: int) -> bool:
        # In the worker thread: only plain values cross over, the timer shows them.
        self._written = written
        return not self._stop.is_set()

    def _tick(self) -> None:
        self._ticks += 1
        if self.progress is None and self._ticks * PROGRESS_TICK_MS >= PROGRESS_AFTER_MS:
            self.progress = QProgressDialog(
                f"Exporting {self.noun} to {self.path.name}…",
                "Cancel",
                0,
                max(1, len(self.rows.rows)),
                self.pane,
            )
            self.progress.setObjectName("exportProgress")
            self.progress.setWindowTitle(f"Export {self.noun}")
            self.progress.setMinimumDuration(0)
            self.progress.canceled.connect(self._stop.set)
            self.progress.show()
        if self.progress is not None:
            self.progress.setValue(min(self._written, self.progress.maximum() - 1))

    def _finished(self, error: BaseException | None) -> None:
        self._timer.stop()
        if self.progress is not None:
            self.progress.canceled.disconnect(self._stop.set)
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None
        count = len(self.rows.rows)
        if error is None:
            self.notice.show_info(f"Exported {count:,} {self.noun} to {self.path}")
        elif isinstance(error, ExportCancelled):
            self.notice.show_info(f"Export of {self.noun} cancelled: no file was written.")
        elif isinstance(error, OSError):
            self.notice.show_error(f"The {self.noun} were not exported. {error}")
        else:
            self.notice.show_error(f"The {self.noun} were not exported: {error}")
        self.deleteLater()
