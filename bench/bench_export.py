"""The GUI thread's longest stall while a large list is in: exported, and worked in.

The export: a 5 ms QTimer on the GUI thread records the gaps between its ticks while 20,000
rows are exported to an Excel workbook as the app does it (`write_table` in a worker thread,
its progress asked for every 500 rows, Qt's event loop, Python's garbage collection on the GUI
thread as `ui/garbage.py` does it); the longest gap is the longest time the window could not
answer. `--in-process` writes the workbook in the worker thread itself (how it was before the
writer went to a child process: openpyxl holds the GIL), the default as the app does now.
`--automatic-gc` leaves Python's collector as it is in a plain program: it then runs in the
writer's thread, over the whole heap, holding the GIL. `--busy` keeps every core busy with a
spinning process meanwhile (a loaded machine). The load average is printed beside.

The list (issue 18): the Shipments pane, attached to a session whose cache holds 100,000
shipments (the start-up benchmark's cached home, `bench_app.prepare_home`, made once under
/tmp), reads and indexes them as after a switch of profile or a whole new list, with the app's
collector; then a user filters (a search typed and cleared) and scrolls for `--seconds`,
while a full collection is run every second on the GUI thread as the collector runs one when
its counters say so (every couple of minutes in use). Each collection is timed (wall and CPU,
`gc.callbacks`) and the same 5 ms probe records the longest gap; its baseline is the probe
with nothing to do, before the list, in the same process. Each run is beside a run "as it
was": nothing frozen and collections not held while the list loads (`ui/garbage.py` before
issue 18), each in a process of its own, interleaved.

Run: QT_QPA_PLATFORM=offscreen python -m bench.bench_export [--in-process] [--automatic-gc]
     [--busy] [--repeat 3] [--list-runs 3] [--seconds 10]"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import textwrap
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from bench.bench_demo import busy_cores
from bench.gui import Probe, cached_home, home_copy, run_snippet
from bench.report import Figure, publish
from freightdesk.service import export
from freightdesk.service.export import Cell, ExportFormat, write_table
from freightdesk.ui.garbage import GuiThreadGarbageCollector

ROWS = 20_000
PROBE_MS = 5
LIST = 100_000  # shipments in the list worked in
STALL_LIMIT_MS = 50  # issue 18: no collection holds the window longer


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
        probe = Probe()
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
        longest = probe.stop()
        assert path.stat().st_size > 0
    return longest, took, probe.ticks


def idle_gap(seconds: float = 1.0) -> float:
    """The same probe's longest gap (ms) with nothing to do: the baseline of the export."""
    app = QApplication.instance() or QApplication([])
    probe = Probe()
    QTimer.singleShot(int(seconds * 1000), app.quit)
    app.exec()
    return probe.stop()


# The list worked in, in a process of its own (argv: a copy of the cached home, "app" or
# "unfrozen", seconds of work). Prints one JSON line of its figures.
WORK = textwrap.dedent(
    """
    import asyncio, gc, json, os, random, sys, time
    from pathlib import Path
    from PySide6.QtCore import QTimer
    from bench.gui import Probe, run_gui, session_at, shown_pane
    from freightdesk.ui import garbage

    home, how, seconds = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    if how == "unfrozen":  # ui/garbage.py as it was: nothing frozen, collections not held
        garbage.made_long_lived = lambda count: None
        garbage.loading = lambda: False
    passes = []  # (generation, wall ms, CPU ms) of each collection
    began = {}

    def timed(phase, info):
        if phase == "start":
            began["wall"], began["cpu"] = time.perf_counter(), time.thread_time()
        else:
            passes.append((info["generation"], (time.perf_counter() - began["wall"]) * 1000,
                           (time.thread_time() - began["cpu"]) * 1000))

    async def main():
        session = session_at(home)
        idle = Probe()
        await asyncio.sleep(1.0)
        idle_gap = idle.stop()
        gc.callbacks.append(timed)
        loading = Probe()
        started = time.perf_counter()
        pane = shown_pane(session, home)
        await pane.cached_list_shown()
        loaded = time.perf_counter() - started
        assert pane.model.total == int(sys.argv[4]), pane.model.total
        load_gap = loading.stop()
        load_passes = len(passes)
        # A user: a search typed a key at a time and cleared, the list scrolled, meanwhile
        # a full collection each second, as the collector runs one when it is due.
        work = Probe()
        rng = random.Random(7)
        words = ["pro0001", "chicago", "dallas", "o"]
        bar = pane.table.verticalScrollBar()
        full = QTimer()
        full.setInterval(1000)
        full.timeout.connect(lambda: gc.collect(2))
        full.start()
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for ch in rng.choice(words):
                pane.search.setText(pane.search.text() + ch)
                await asyncio.sleep(0.12)
            for _ in range(4):
                bar.setValue(rng.randrange(bar.maximum() + 1))
                await asyncio.sleep(0.1)
            pane.search.clear()
            await asyncio.sleep(0.3)
        full.stop()
        work_gap = work.stop()
        gc.callbacks.remove(timed)
        worked = passes[load_passes:]
        print(json.dumps({
            "idle": idle_gap, "load_gap": load_gap, "loaded": loaded, "work_gap": work_gap,
            "load_pass": max((w for _g, w, _c in passes[:load_passes]), default=0.0),
            "pass": max((w for _g, w, _c in worked), default=0.0),
            "pass_cpu": max((c for _g, _w, c in worked), default=0.0),
            "full_passes": sum(g == 2 for g, _w, _c in worked),
            "frozen": gc.get_freeze_count(), "load": os.getloadavg()[0],
        }), flush=True)
        pane.shutdown()
        await session.close()

    run_gui(main)
    """
)


def work_in_list(how: str, seconds: float, home: Path) -> dict[str, float]:
    """One run of WORK on a copy of the cached home (the session may write to its cache)."""
    with home_copy(home) as copy:
        figures = run_snippet(WORK, str(copy), how, str(seconds), str(LIST))
    print(f"{how}: {figures}", flush=True)
    return figures


def list_figures(runs: int, seconds: float) -> list[Figure]:
    home = cached_home(LIST)
    now: list[dict[str, float]] = []
    before: list[dict[str, float]] = []
    for _ in range(runs):  # interleaved, so both see the same load
        now.append(work_in_list("app", seconds, home))
        before.append(work_in_list("unfrozen", seconds, home))

    def worst(runs: list[dict[str, float]], key: str) -> float:
        return max(r[key] for r in runs)

    idle = statistics.median(r["idle"] for r in now + before)
    where = f"{LIST:,} shipments listed"
    return [
        Figure(
            "export",
            f"{where}, a user filtering and scrolling: longest GUI stall, max of {runs}",
            worst(now, "work_gap"),
            baseline=idle,
            baseline_what="the same 5 ms probe, idle",
            limit=STALL_LIMIT_MS,
            note=f"{worst(before, 'work_gap'):.0f} ms with nothing frozen (before)",
        ),
        Figure(
            "export",
            f"{where}: longest garbage collection on the GUI thread, a full pass each second, "
            f"max of {runs}",
            worst(now, "pass"),
            baseline=worst(before, "pass"),
            baseline_what="nothing frozen, as before",
            limit=STALL_LIMIT_MS,
            note=(
                f"CPU {worst(now, 'pass_cpu'):.0f} ms (before {worst(before, 'pass_cpu'):.0f});"
                f" {sum(int(r['full_passes']) for r in now)} full passes"
            ),
        ),
        Figure(
            "export",
            f"{where}: reading and indexing them, longest collection on the GUI thread, "
            f"max of {runs}",
            worst(now, "load_pass"),
            baseline=worst(before, "load_pass"),
            baseline_what="collections not held, as before",
            limit=STALL_LIMIT_MS,
            note=(
                f"list in at {statistics.median(r['loaded'] for r in now) * 1000:.0f} ms; "
                f"longest GUI stall meanwhile {worst(now, 'load_gap'):.0f} ms (before "
                f"{worst(before, 'load_gap'):.0f}): the table's own work"
            ),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--busy", action="store_true")
    parser.add_argument("--automatic-gc", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="exports")
    parser.add_argument("--list-runs", type=int, default=3, help="runs in the list, each way")
    parser.add_argument("--seconds", type=float, default=10, help="of work in the list, a run")
    args = parser.parse_args()
    figures: list[Figure] = []
    with busy_cores(args.busy):
        if args.repeat:
            idle = idle_gap()
            gaps: list[float] = []
            for _ in range(args.repeat):
                worst, took, ticks = measure(args.in_process, args.automatic_gc)
                gaps.append(worst)
                load = os.getloadavg()[0]
                how = "in-process thread" if args.in_process else "child process"
                how += ", automatic gc" if args.automatic_gc else ", the app's gc"
                print(
                    f"{how}: longest GUI gap {worst:.0f} ms over {took:.1f} s "
                    f"({ticks} ticks), load {load:.2f}",
                    flush=True,
                )
            how = "in-process writer" if args.in_process else "as the app"
            how += ", automatic gc" if args.automatic_gc else ""
            figures.append(
                Figure(
                    "export",
                    f"{ROWS:,} rows to Excel ({how}): longest GUI stall, max of {args.repeat}",
                    max(gaps),
                    baseline=idle,
                    baseline_what="the same 5 ms probe, idle",
                )
            )
        if args.list_runs:
            figures += list_figures(args.list_runs, args.seconds)
    publish(figures)


if __name__ == "__main__":
    main()
