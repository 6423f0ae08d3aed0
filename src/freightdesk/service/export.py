"""Writing a list as the user sees it to a CSV file or an Excel workbook.

One writer for every list of the app: the pane hands over the header and the rows (cells as
text, numbers or times) and the format; times are written in ISO 8601 with their offset
(`2026-11-28T06:30:00-06:00`), whatever clock the screen shows them in, so a spreadsheet or
a script reads the same instant on any machine. Plain Python: the Qt side
(`ui/widgets/export.py`) reads the table and asks for the file.
"""

from __future__ import annotations

import contextlib
import csv
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from freightdesk.service.clock import iso_time

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

Cell = str | int | float | bool | datetime | date | None
Value = str | int | float | bool | None  # a cell as written

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


def cell_value(value: Cell) -> Value:
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
            os.replace(partial, path)
        else:
            _write_xlsx_in_child(partial, path, header, rows, sheet, progress)
    except ExportError:  # said in words already
        partial.unlink(missing_ok=True)
        raise
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


def _rows(rows: Sequence[Sequence[Cell]], progress: Progress | None) -> Iterator[list[Value]]:
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


# What the pipe to a child that is gone answers (at once: only the child held its end).
_GONE = (EOFError, BrokenPipeError, ConnectionResetError)
# How often the app looks at the workbook's writer (its progress, Cancel, the app's exit).
POLL_SECONDS = 0.05
# The child's own end once its workbook is kept, before it is killed instead.
CHILD_END_SECONDS = 2.0
# The child's exit code when the app ended before the workbook was kept.
EXIT_APP_GONE = 3


def _write_xlsx_in_child(
    partial: Path,
    path: Path,
    header: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    title: str,
    progress: Progress | None,
) -> None:
    """Write the workbook in a child process. openpyxl builds it of hundreds of thousands of
    Python objects, holding the GIL nearly throughout, and a collection over them holds it
    longer still: in a thread of the app the window waited on it (0.7 to 1.1 s at a time on
    20,000 rows at a load of 6 with Python's automatic collection, `bench/bench_export.py`);
    in a process of its own it cannot. The rows go over as plain values, STEP at a time; the
    child says how far it got after each batch. On Cancel, on an error and when the app's
    main thread ends, the child is killed and reaped, so no process outlives the export (and
    the caller removes the partial file). When the app itself is killed, the child removes
    the partial file and ends at once (`_xlsx_child`); so the workbook is moved from `partial`
    to `path` while the child still waits for the word that it is kept."""
    context = multiprocessing.get_context("spawn")  # no fork of a process running Qt
    ours, theirs = context.Pipe()
    child = context.Process(
        target=_xlsx_child,
        args=(theirs, str(partial), list(header), title),
        name="freightdesk-xlsx",
        daemon=True,
    )
    child.start()
    theirs.close()  # only the child holds its end: if it dies, our reads see EOF at once
    writer = _ChildWriter(ours, child, progress)
    try:
        writer.wait_for("ready")
        for start in range(0, len(rows), STEP):
            writer.send([[cell_value(c) for c in row] for row in rows[start : start + STEP]])
            writer.drain()
        writer.send(None)
        writer.wait_for("done")
        os.replace(partial, path)
        with contextlib.suppress(*_GONE):  # kept: the child may end (killed if it does not)
            ours.send(None)
        child.join(CHILD_END_SECONDS)
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        ours.close()


class _ChildWriter:
    """The app's side of the conversation with the workbook's child process."""

    def __init__(
        self,
        connection: Connection,
        child: multiprocessing.process.BaseProcess,
        progress: Progress | None,
    ) -> None:
        self.connection = connection
        self.child = child
        self.progress = progress
        self.written = 0

    def send(self, batch: list[list[Value]] | None) -> None:
        try:
            self.connection.send(batch)
        except _GONE:
            self._stopped()

    def _stopped(self) -> NoReturn:
        self.child.join()
        code = self.child.exitcode
        raise ExportError(f"The workbook's writer stopped (exit code {code}).") from None

    def drain(self) -> None:
        """Take what the child said so far without waiting; raise if the export is to stop."""
        try:
            while self.connection.poll():
                self._heard(self.connection.recv())
        except _GONE:
            self._stopped()
        self._carry_on()

    def wait_for(self, word: str) -> None:
        while True:
            try:
                if (
                    self.connection.poll(POLL_SECONDS)
                    and self._heard(self.connection.recv()) == word
                ):
                    return
            except _GONE:
                self._stopped()
            self._carry_on()

    def _heard(self, message: tuple[str, object]) -> str:
        word, value = message
        if word == "error":
            assert isinstance(value, BaseException)
            raise value
        if word == "written" and isinstance(value, int):
            self.written = value
        return word

    def _carry_on(self) -> None:
        # The app is closing (its main thread has ended, and interpreter exit would wait on
        # this thread): stop as on Cancel, so the child goes with the app.
        if not threading.main_thread().is_alive():
            raise ExportCancelled
        if self.progress is not None and not self.progress(self.written):
            raise ExportCancelled


def _xlsx_child(connection: Connection, path: str, header: list[str], title: str) -> None:
    """The child process: rows arrive in batches (None after the last), the workbook is
    written to `path` (the partial file), and each step is said back; after "done" it waits
    for the app's word that the workbook is kept (moved over the target). If the app ends
    first, however it ends (SIGKILL, a crash), the partial file is removed and the child ends
    at once (`_watch_app`), whatever it was doing then."""
    partial = Path(path)
    _watch_app(partial)
    try:
        connection.send(("ready", 0))

        def received() -> Iterator[list[Value]]:
            written = 0
            while (batch := connection.recv()) is not None:
                yield from batch
                written += len(batch)
                connection.send(("written", written))

        _write_xlsx(partial, header, received(), title)
        connection.send(("done", 0))
        connection.recv()  # kept; until then the partial file is ours to remove
    except _GONE:
        partial.unlink(missing_ok=True)
    except Exception as error:  # said to the app, which words it (and removes the file)
        try:
            connection.send(("error", error))
        except _GONE:
            pass  # the app is gone: `_watch_app` removes the partial file
        except Exception:  # an error that does not pickle goes over as its words
            with contextlib.suppress(*_GONE):
                connection.send(("error", RuntimeError(str(error))))


def _watch_app(partial: Path) -> None:
    """End this child once the app that spawned it has ended, removing the partial file.
    The pipe alone does not tell in time: while openpyxl builds or saves a large workbook
    the child reads nothing, and once it had said "done" it ended, so an app killed just
    then left a whole `.part` file behind (seen in the bundle: `docs/packaging.md`).
    multiprocessing's parent sentinel is a pipe whose other end only the app holds: the OS
    closes it however the app ends."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not a spawned child (called directly)
        return
    sentinel = parent.sentinel

    def watch() -> None:
        from multiprocessing.connection import wait

        wait([sentinel])
        partial.unlink(missing_ok=True)
        os._exit(EXIT_APP_GONE)  # at once: the main thread may be deep in openpyxl

    threading.Thread(target=watch, name="app-watch", daemon=True).start()


def _write_xlsx(path: Path, header: Sequence[str], rows: Iterable[list[Value]], title: str) -> None:
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
    for row in rows:
        # Times stay text: Excel's dates have no offset, and ISO text is what was asked for.
        sheet.append(row)
        for index, value in enumerate(row[: len(widths)]):
            widths[index] = max(widths[index], len(str(value)) if value is not None else 0)
    for index, width in enumerate(widths, start=1):
        letter = sheet.cell(row=1, column=index).column_letter
        sheet.column_dimensions[letter].width = min(60, max(10, width + 2))
    sheet.freeze_panes = "A2"
    workbook.save(path)
