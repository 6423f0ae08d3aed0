"""The app's one writer of exported lists (service/export.py): CSV and XLSX read back as a
spreadsheet or a script would, times in ISO 8601 with their offset, failures in words and no
half-written file."""

from __future__ import annotations

import csv
import os
import platform
import signal
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from openpyxl import load_workbook

from freightdesk.service.export import (
    STEP,
    ExportCancelled,
    ExportError,
    ExportFormat,
    iso_time,
    write_table,
)

CHICAGO_WINTER = timezone(timedelta(hours=-6))
DELHI = timezone(timedelta(hours=5, minutes=30))
HEADER = ["Shipment", "Next ETA", "Pickup", "Pieces", "Note"]
ROWS = [
    ["SHP-1", datetime(2026, 11, 28, 6, 30, tzinfo=CHICAGO_WINTER), date(2026, 12, 1), 3, "Zürich"],
    ["SHP-2", datetime(2026, 11, 28, 18, 5, 9, tzinfo=DELHI), None, 0, ""],
    ["SHP-3", datetime(2026, 11, 28, 12, 0), date(2026, 12, 2), 12, 'He said "late", twice'],
]
ISO = ["2026-11-28T06:30:00-06:00", "2026-11-28T18:05:09+05:30", "2026-11-28T12:00:00+00:00"]


def test_iso_time_keeps_the_offset_and_reads_a_bare_time_as_utc() -> None:
    assert iso_time(datetime(2026, 3, 8, 2, 30, tzinfo=UTC)) == "2026-03-08T02:30:00+00:00"
    assert iso_time(ROWS[1][1]) == ISO[1]  # type: ignore[arg-type]
    # A naive time can only be the service's UTC: never the machine's zone.
    assert iso_time(datetime(2026, 11, 28, 12, 0)) == ISO[2]
    assert datetime.fromisoformat(ISO[0]).utcoffset() == timedelta(hours=-6)


def test_csv_reads_back_with_iso_times(tmp_path: Path) -> None:
    path = tmp_path / "list.csv"
    write_table(path, HEADER, ROWS, ExportFormat.CSV)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        read = list(csv.reader(handle))
    assert read[0] == HEADER
    assert len(read) == 1 + len(ROWS)
    assert [r[1] for r in read[1:]] == ISO
    assert read[1] == ["SHP-1", ISO[0], "2026-12-01", "3", "Zürich"]
    assert read[2][2] == ""  # nothing, not "None"
    assert read[3][4] == 'He said "late", twice'
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")  # spreadsheets read accents right


def test_xlsx_reads_back_with_iso_times(tmp_path: Path) -> None:
    path = tmp_path / "list.xlsx"
    write_table(path, HEADER, ROWS, ExportFormat.XLSX, sheet="Shipments")
    workbook = load_workbook(path, read_only=True)
    sheet = workbook["Shipments"]
    read = [list(r) for r in sheet.iter_rows(values_only=True)]
    workbook.close()
    assert read[0] == HEADER
    assert len(read) == 1 + len(ROWS)
    # Text, offset and all: Excel's own dates would drop the offset.
    assert [r[1] for r in read[1:]] == ISO
    assert read[1] == ["SHP-1", ISO[0], "2026-12-01", 3, "Zürich"]
    assert read[2][2] is None


def test_an_empty_list_still_has_its_header(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    write_table(path, HEADER, [], ExportFormat.CSV)
    assert path.read_text(encoding="utf-8-sig").splitlines() == [",".join(HEADER)]


def test_format_follows_the_file_name() -> None:
    assert ExportFormat.of(Path("a/b.XLSX")) is ExportFormat.XLSX
    assert ExportFormat.of(Path("b.csv")) is ExportFormat.CSV
    assert ExportFormat.of(Path("b.txt")) is None


def test_a_folder_that_is_not_there_is_said_in_words(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "list.xlsx"
    with pytest.raises(ExportError, match="does not exist") as raised:
        write_table(path, HEADER, ROWS, ExportFormat.XLSX)
    assert str(path) in str(raised.value)
    assert not path.parent.exists()


@pytest.mark.parametrize("fmt", list(ExportFormat))
def test_cancel_leaves_an_earlier_file_whole(tmp_path: Path, fmt: ExportFormat) -> None:
    path = tmp_path / f"list.{fmt.value}"
    path.write_text("the earlier export")
    many = [["SHP", datetime(2026, 1, 1, tzinfo=UTC), None, n, ""] for n in range(STEP * 3)]
    seen: list[int] = []

    def progress(written: int) -> bool:
        seen.append(written)
        return written < STEP * 2  # the user cancels on the second report

    before = children()
    with pytest.raises(ExportCancelled):
        write_table(path, HEADER, many, fmt, progress=progress)
    if fmt is ExportFormat.CSV:
        assert seen == [STEP, STEP * 2]
    else:  # the workbook's child process is asked about more often: until its second batch
        assert seen[-1] == STEP * 2 and all(n < STEP * 2 for n in seen[:-1])
    assert path.read_text() == "the earlier export"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no partial file left
    assert not children_besides(before)  # the workbook's writer was killed and reaped


def children_besides(before: set[int]) -> set[int]:
    """This process's child processes that were not there `before` (a zombie included, as
    the system lists them), but for multiprocessing's resource tracker: the one helper its
    spawn starts once per app, which ends with the app (its pipe closes)."""
    tasks = Path(f"/proc/{os.getpid()}/task")
    now = {int(n) for t in tasks.iterdir() for n in (t / "children").read_text().split()}
    return {pid for pid in now - before if "resource_tracker" not in _command(pid)}


def children() -> set[int]:
    return children_besides(set())


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:  # gone meanwhile
        return ""


def test_xlsx_of_20000_rows_opens_with_every_row(tmp_path: Path) -> None:
    path = tmp_path / "many.xlsx"
    many = [[f"SHP-{n}", datetime(2026, 1, 1, tzinfo=UTC), None, n, ""] for n in range(20_000)]
    seen: list[int] = []
    write_table(path, HEADER, many, ExportFormat.XLSX, progress=lambda n: not seen.append(n))
    workbook = load_workbook(path, read_only=True)
    read = [list(r) for r in workbook.active.iter_rows(values_only=True)]  # type: ignore[union-attr]
    workbook.close()
    assert read[0] == HEADER and len(read) == 20_001
    assert read[-1] == ["SHP-19999", "2026-01-01T00:00:00+00:00", None, 19_999, None]
    assert seen[-1] == 20_000


def test_a_writer_that_dies_is_said_in_words_and_leaves_nothing(tmp_path: Path) -> None:
    """The workbook's child process killed from outside (out of memory, say): the export
    fails in words, no partial file stays and the child is reaped."""
    path = tmp_path / "list.xlsx"
    many = [["SHP", None, None, n, ""] for n in range(STEP * 4)]
    before = children()

    def progress(_written: int) -> bool:
        for pid in children_besides(before):
            os.kill(pid, signal.SIGKILL)
        return True

    with pytest.raises(ExportError, match="writer stopped"):
        write_table(path, HEADER, many, ExportFormat.XLSX, progress=progress)
    assert list(tmp_path.iterdir()) == []
    assert not children_besides(before)


# An app exporting a workbook that hangs once the child said "done", as it is about to move
# the workbook over the target (so that the test can kill it just then). Hanging in `progress`
# once every row was sent raced: an app slow to look for the child's answer heard its last
# "written" before sending the end of the rows, and the child never wrote the workbook.
_HANGING_APP = """
import os, sys, time
from pathlib import Path
from freightdesk.service.export import ExportFormat, write_table

def hang(source, target):
    print("workbook written", flush=True)
    time.sleep(600)

os.replace = hang
write_table(Path(sys.argv[1]), ["n"], [[n] for n in range(1000)], ExportFormat.XLSX)
"""


def test_the_writer_ends_with_the_app_and_leaves_no_partial_file(tmp_path: Path) -> None:
    """The app killed (SIGKILL) after the child wrote the workbook but before the app moved it
    over the target: the child removes the partial file and ends with the app. It did not in
    the bundle: it ended after "done" and left a whole `.part` file (docs/packaging.md)."""
    folder = tmp_path / "out"
    folder.mkdir()
    app = subprocess.Popen(
        [sys.executable, "-c", _HANGING_APP, str(folder / "list.xlsx")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert app.stdout is not None and app.stdout.readline() == "workbook written\n"
        kids = _children_of(app.pid)
        assert kids, "the writer is gone before the app"
        # The child said "done": it reads its pipe again only for the word that it is kept.
        deadline = time.monotonic() + 30
        while not any(_reading_a_socket(kid) for kid in kids):
            assert time.monotonic() < deadline, "the writer never waited for its word"
            time.sleep(0.02)
        with next(folder.iterdir()).open("rb") as whole:  # (openpyxl goes by the name)
            assert load_workbook(whole).active.max_row == 1 + 1000
    finally:
        app.kill()
        app.wait()
    deadline = time.monotonic() + 2
    while (left := [p for p in kids if _running(p)]) or list(folder.iterdir()):
        assert time.monotonic() < deadline, (left, list(folder.iterdir()))
        time.sleep(0.02)


def _children_of(pid: int) -> set[int]:
    tasks = Path(f"/proc/{pid}/task")
    return {int(n) for t in tasks.iterdir() for n in (t / "children").read_text().split()}


# read(2)'s system call number, as /proc/PID/syscall shows it.
_READ = {"x86_64": 0, "aarch64": 63}[platform.machine()]


def _reading_a_socket(pid: int) -> bool:
    """Whether the main thread of `pid` waits in read(2) on a socket (a multiprocessing pipe)."""
    try:
        call, *args = Path(f"/proc/{pid}/syscall").read_text().split()
        if call != str(_READ):
            return False
        return os.readlink(f"/proc/{pid}/fd/{int(args[0], 16)}").startswith("socket:")
    except (OSError, ValueError, IndexError):
        return False


def _running(pid: int) -> bool:
    try:  # a zombie has ended (whoever reaps it now)
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
