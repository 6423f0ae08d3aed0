"""The GUI thread's longest stall while 20,000 rows are exported to an Excel workbook.

A 5 ms QTimer on the GUI thread records the gaps between its ticks while the export runs as
the app runs it (`write_table` in a worker thread, its progress asked for every 500 rows, Qt's
event loop, Python's garbage collection on the GUI thread as `ui/garbage.py` does it); the
longest gap is the longest time the window could not answer. `--in-process` writes the
workbook in the worker thread itself (how it was before the writer went to a child process:
openpyxl holds the GIL), the default as the app does now. `--automatic-gc` leaves Python's
collector as it is in a plain program: it then runs in the writer's thread, over the whole
heap, holding the GIL. `--busy` keeps every core busy with
a spinning process meanwhile (a loaded machine). The load average is printed beside.

Run: QT_QPA_PLATFORM=offscreen python -m bench.bench_export [--in-process] [--automatic-gc]
     [--busy]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from bench.bench_demo import busy_cores
from freightdesk.service import export
from freightdesk.service.export import Cell, ExportFormat, write_table
from freightdesk.ui.garbage import GuiThreadGarbageCollector

ROWS = 20_000
PROBE_MS = 5


def rows(count: int) -> tuple[list[str], list[list[Cell]]]:
    """Rows as the Shipments list exports them: identifiers, places, states and four times."""
    header = [f"Column {n}" for n in range(14)]
    base = datetime(2026, 11, 1, tzinfo=UTC)
    table: list[list[Cell]] = []
    for n in range(count):
        when = base + timedelta(minutes=n)
        table.append(
            [f"SHP-{n:06d}", "Truckload", "In transit", "Chicago, IL", "Dallas, TX", when,
             f"Carrier {n % 40}", when, "Departed", when, f"PO-{n}", n, n * 1.5, when]
        )  # fmt: skip
    return header, table


def measure(in_process: bool, automatic_gc: bool) -> tuple[float, float, int]:
    """(longest gap in ms, seconds the export took, ticks seen)."""
    app = QApplication.instance() or QApplication([])
    header, table = rows(ROWS)
    # As the app: Python's collector runs on the GUI thread only, when its counters say so
    # (`--automatic-gc`: in whichever thread allocates, as in a plain Python program).
    collector = None if automatic_gc else GuiThreadGarbageCollector()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    probe = QTimer()
    probe.setInterval(PROBE_MS)
    probe.timeout.connect(tick)
    done = threading.Event()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "shipments.xlsx"

        def work() -> None:
            if in_process:
                export._write_xlsx(path, header, export._rows(table, None), "Shipments")
            else:
                write_table(path, header, table, ExportFormat.XLSX, progress=lambda _n: True)
            done.set()

        began = time.perf_counter()
        probe.start()
        last[0] = time.perf_counter()
        threading.Thread(target=work, daemon=True).start()
        # Qt's own loop, as the app's (qasync runs on it): quit once the export is done.
        watch = QTimer()
        watch.setInterval(20)
        watch.timeout.connect(lambda: app.quit() if done.is_set() else None)
        watch.start()
        app.exec()
        watch.stop()
        if collector is not None:
            collector.stop()
        took = time.perf_counter() - began
        probe.stop()
        assert path.stat().st_size > 0
    return max(gaps) * 1000, took, len(gaps)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--busy", action="store_true")
    parser.add_argument("--automatic-gc", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with busy_cores(args.busy):
        for _ in range(args.repeat):
            worst, took, ticks = measure(args.in_process, args.automatic_gc)
            load = os.getloadavg()[0]
            how = "in-process thread" if args.in_process else "child process"
            how += ", automatic gc" if args.automatic_gc else ", the app's gc"
            print(
                f"{how}: longest GUI gap {worst:.0f} ms over {took:.1f} s "
                f"({ticks} ticks), load {load:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
