"""The desktop app's start-up, its first run, and calm under background updates.

Targets (issues 6, 18 and 21):
- start to the painted list with 10,000 and with 100,000 cached shipments <= 1.5 s, and
  <= 2x the start of a bare PySide6 window measured in the same run (both to the first paint
  of their table, from launching the process), interleaved run by run;
- the first run on a fresh home (the real app, `launch.run`, starting its Local sandbox, whose
  demo fills in while it answers): the demo's progress shown, the first 50 shipments on
  screen within 5 s of the window, all of them within 15 s;
- no stall of the event loop longer than 50 ms during a background sync of 1,000 changed
  shipments (a 5 ms timer probe measures the longest gap; the baseline is the same probe
  with nothing to do);
- the longest garbage collection in a start until 5 s after the first paint (`launch.run`,
  10,000 and 100,000 cached, each collection timed with `gc.callbacks`) <= 50 ms, beside the
  same start with nothing frozen and collections never held (ui/garbage.py's freezes and
  `bulk_load` off), interleaved; the cyclic garbage the freezes set apart is counted too
  (freed by a collection once everything is unfrozen at the end);
- no stall of the event loop longer than 50 ms from the Shipments list's triage with 100,000
  cached shipments, their triage facts cached too: the whole list triaged again once indexed
  (`TriageLink.again`), and the minute's retriage (`TriageLink.minute`), the same 5 ms probe
  beside itself idle.

Figures go to `bench.report`.

Run: python -m bench.bench_app [--counts 10000,100000] [--runs 7] [--first-runs 3]
     [--stall-runs 3] [--gc-runs 3] [--retriage-runs 3]
(`--runs 0 --first-runs 0 --stall-runs 0 --retriage-runs 0` runs only the collections' rows,
for example.)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import freightdesk
from bench.gui import cached_home, home_copy, run_snippet
from bench.report import Figure, hand_over, publish

# Both snippets print the same figures when their table's viewport is first painted: wall
# seconds from their first line, CPU seconds of the process (interpreter start included),
# the system's monotonic clock (the parent subtracts the moment it started the process, so
# the interpreter's start is in that figure too), and the main thread's seconds on a CPU
# and waiting for one since the process started (Linux's schedstat; nan elsewhere): what is
# left of the time from launch is what the start itself waited for (the disk, a lock, a
# sleep), told apart from the machine's load.
SCHED = textwrap.dedent(
    """
    def sched():
        try:
            with open("/proc/self/schedstat") as stat:
                ran, waited = stat.read().split()[:2]
            return int(ran) / 1e9, int(waited) / 1e9
        except (OSError, ValueError):
            return float("nan"), float("nan")
    """
)
BARE = SCHED + textwrap.dedent(
    """
    import time
    started = time.perf_counter()
    import os
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow, QTableView
    app = QApplication([])
    window = QMainWindow()
    table = QTableView()
    window.setCentralWidget(table)
    window.resize(1280, 800)

    class Painted(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                QTimer.singleShot(0, app.quit)
            return False

    watch = Painted()
    table.viewport().installEventFilter(watch)
    window.show()
    app.exec()
    print("painted", time.perf_counter() - started, time.process_time(), time.monotonic(),
          *sched())
    """
)

# The app as `freightdesk` starts it (launch.run), to the first paint of the list; then the
# moment the whole list is in the table (at once when it was read whole; else once the
# session has read it). argv: home, "close" (quit as a user would once the list is whole),
# "crash" (end without a close, as a kill would, once the running app has kept its first
# screen) or "stop", the number of cached shipments.
APP = SCHED + textwrap.dedent(
    """
    import time
    started = time.perf_counter()
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    from freightdesk.ui import launch

    def painted():
        print("painted", time.perf_counter() - started, time.process_time(), time.monotonic(),
              *sched(), flush=True)
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from freightdesk.ui.main_window import MainWindow
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
        model = window.pane("shipments").model

        def whole():
            ready = model.complete and model.total == int(sys.argv[3])
            if not ready or (sys.argv[2] == "close" and not window.is_attached()):
                QTimer.singleShot(5, whole)
                return
            print("whole", time.perf_counter() - started, flush=True)
            if sys.argv[2] == "close":
                window.close()
            elif sys.argv[2] == "crash":
                crash_once_kept(time.monotonic() + 30)
            else:
                os._exit(0)

        def crash_once_kept(give_up):
            from freightdesk.service.first_screen import first_screen
            cache = window.pane("shipments").session.cache
            if first_screen(cache, model.sort_name()) is not None:
                os._exit(0)
            if time.monotonic() > give_up:
                print("the first screen was never kept", file=sys.stderr, flush=True)
                os._exit(3)
            QTimer.singleShot(50, lambda: crash_once_kept(give_up))

        QTimer.singleShot(0, whole)

    launch.run([], on_first_paint=painted)
    """
)


class Start(NamedTuple):
    wall: float  # from the snippet's first line to the first paint
    cpu: float
    process: float  # from the process's start to the first paint
    whole: float | None  # from the first line until the whole list is in the table
    # Of `process`, the main thread's time waiting for a CPU (the load), and the rest of the
    # time it was not running: waiting for the disk, a lock, a sleep, another process.
    queued: float = float("nan")
    blocked: float = float("nan")


def _run(code: str, *args: str, bytecode: Path, src: str | None = None) -> Start:
    """Run a snippet as a fresh process, with our modules' bytecode cached in `bytecode`
    (as an installed app has it; this machine sets PYTHONDONTWRITEBYTECODE, which would
    make every start compile every module); `src`: the package's sources from there."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPYCACHEPREFIX": str(bytecode)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src is not None:
        env["PYTHONPATH"] = src
    begun = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, env=env
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-2000:])
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line}
    wall, cpu, clock, ran, queued = (float(v) for v in lines["painted"])
    whole = float(lines["whole"][0]) if "whole" in lines else None
    process = clock - begun
    return Start(wall, cpu, process, whole, queued, process - ran - queued)


def bare_start(bytecode: Path) -> float:
    """Seconds from launching a bare PySide6 window (BARE) to its first paint."""
    return _run(BARE, bytecode=bytecode).process


def _median(values: list[float]) -> float:
    return statistics.median(values)


def start_up(counts: list[int], runs: int, other_src: str | None = None) -> list[Figure]:
    """The start to the painted list with each count of cached shipments, interleaved with
    the bare window run by run; one Figure per count and kind of start. `other_src`: the
    start with nothing kept also run with the package's sources there (another checkout,
    before a change), interleaved, printed beside this one's."""
    figures: list[Figure] = []
    for count in counts:
        with tempfile.TemporaryDirectory() as tmp:
            # Every start below begins without a kept first screen.
            home, bytecode = cached_home(count), Path(tmp)
            _forget_first_screen(home)
            # Not measured: the first starts read files from disk and write the bytecode.
            _run(BARE, bytecode=bytecode)
            _run(APP, str(home), "stop", str(count), bytecode=bytecode)
            if other_src:
                _run(APP, str(home), "stop", str(count), bytecode=bytecode, src=other_src)
            bare: list[Start] = []
            other: list[Start] = []
            whole_read: list[Start] = []
            kept: list[Start] = []
            merged: list[Start] = []
            for _ in range(runs):  # interleaved, so all see the same load
                bare.append(_run(BARE, bytecode=bytecode))
                if other_src:
                    other.append(
                        _run(APP, str(home), "crash", str(count), bytecode=bytecode, src=other_src)
                    )
                    _forget_first_screen(home)
                # A start with no first screen kept (a cache another process wrote, or an
                # app too old to keep one: the top found from the cache's keys); the
                # running app keeps the first screen once its list is in, and it ends as a
                # crash or kill would, without a close. The next start paints from that
                # screen, as every start after a normal close or a crash does.
                whole_read.append(_run(APP, str(home), "crash", str(count), bytecode=bytecode))
                kept.append(_run(APP, str(home), "stop", str(count), bytecode=bytecode))
                # A sync saved 1% of the list just before the kill (the kept top is older
                # than the cache): the start merges the changes logged since into it.
                _change_rows(home, count // 100, seed=len(merged))
                merged.append(_run(APP, str(home), "stop", str(count), bytecode=bytecode))
                _forget_first_screen(home)
        base = _report("bare PySide6 window (QMainWindow, QTableView) to its first paint", bare)
        kinds = (
            ("first screen kept while running, after a kill", kept),
            (f"kept, then {count // 100:,} changed before the kill", merged),
            ("nothing kept (top from the cached keys)", whole_read),
        )
        if other_src:
            _report(f"FreightDesk at {other_src}, {count:,} cached, nothing kept", other, base)
            print(
                "  per-run CPU, this code / that: "
                + ", ".join(f"{s.cpu / o.cpu:.2f}" for s, o in zip(whole_read, other, strict=True))
            )
        for title, starts in kinds:
            median = _report(f"FreightDesk, {count:,} cached, {title}", starts, base)
            # Each run against the bare run just before it: less sensitive to the load drift.
            ratios = [s.process / b.process for s, b in zip(starts, bare, strict=True)]
            first_line = median.wall / base.wall
            figures.append(
                Figure(
                    "app",
                    f"start to the painted list, {count:,} cached, {title}, median of {runs}",
                    median.process * 1000,
                    baseline=base.process * 1000,
                    baseline_what="bare PySide6 window",
                    limit=1500,
                    max_ratio=2,
                    note=(
                        f"from launch; per-run ratio median {_median(ratios):.2f}x; from the "
                        f"first line {first_line:.2f}x; CPU {median.cpu * 1000:.0f} ms, "
                        f"{median.cpu / base.cpu:.2f}x the bare window's; waited "
                        f"{median.queued * 1000:.0f} ms for a CPU (bare "
                        f"{base.queued * 1000:.0f}), {median.blocked * 1000:.0f} ms otherwise "
                        f"(bare {base.blocked * 1000:.0f}); whole list at "
                        f"{(median.whole or 0) * 1000:.0f} ms"
                    ),
                )
            )
    return figures


def _change_rows(home: Path, changed: int, seed: int) -> None:
    """`changed` cached rows updated now, as a sync saves them (the newest on top)."""
    import random
    from datetime import UTC, datetime, timedelta

    from freightdesk.service.cache import Cache
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.summary_rows import SUMMARIES, cached_rows, row_json

    cache = Cache(AppPaths.under(home).cache_file("team"))
    every = cached_rows(cache)
    rows = random.Random(seed).sample(every, changed)
    # After every row's last change: the demo's rows run a day or so ahead of the clock, and
    # changes dated now would sort below the kept top, never merged into it.
    now = max(datetime.now(UTC), max(r.last_modified for r in every) + timedelta(seconds=1))
    cache.put_many(SUMMARIES, ((r.id, row_json(r._replace(last_modified=now))) for r in rows))
    cache.close()


def _forget_first_screen(home: Path) -> None:
    from freightdesk.service.cache import Cache
    from freightdesk.service.first_screen import FIRST_SCREEN_KEY
    from freightdesk.service.paths import AppPaths

    cache = Cache(AppPaths.under(home).cache_file("team"))
    cache.set_meta(FIRST_SCREEN_KEY, "null")
    # The list's keys (`Cache.index_summaries`), as this version's writes keep them: a
    # cache prepared (or changed) by an older version has none.
    cache.index_summaries()
    cache.close()


def _report(title: str, starts: list[Start], base: Start | None = None) -> Start:
    wholes = [s.whole for s in starts if s.whole is not None]
    median = Start(
        _median([s.wall for s in starts]),
        _median([s.cpu for s in starts]),
        _median([s.process for s in starts]),
        _median(wholes) if wholes else None,
        _median([s.queued for s in starts]),
        _median([s.blocked for s in starts]),
    )
    line = (
        f"{title}: median {median.wall * 1000:.0f} ms from the first line "
        f"({median.process * 1000:.0f} ms from the process's start), "
        f"{median.cpu * 1000:.0f} ms CPU; from launch, the main thread waited "
        f"{median.queued * 1000:.0f} ms for a CPU and {median.blocked * 1000:.0f} ms for "
        "anything else (disk, lock, sleep)"
    )
    if base is not None:
        line += (
            f"; {median.wall / base.wall:.2f}x bare from the first line, "
            f"{median.process / base.process:.2f}x from the process's start, "
            f"{median.cpu / base.cpu:.2f}x CPU (targets <= 1500 ms, <= 2x bare)"
        )
    if median.whole is not None:
        line += f"; whole list in the table at {median.whole * 1000:.0f} ms"
    print(line)
    print(f"  runs (first line): {', '.join(f'{s.wall * 1000:.0f}' for s in starts)} ms")
    return median


# The app's side of a background sync: the Shipments pane over a session connected to the
# local service (a separate process, as in the app), with the app's garbage collector and
# its start (modules for connecting loaded, start-up objects frozen). It prints the longest
# gap of a 5 ms timer during the connection and first full sync (and the 2 s after, when the
# collector passes over what the sync made), says "synced", waits for a line on stdin (the
# changes are made meanwhile), then measures the background sync of them.
STALL = textwrap.dedent(
    """
    import asyncio, gc, sys, time
    from pathlib import Path
    from bench.gui import Probe, run_gui, session_at, shown_pane
    from freightdesk.ui.application import load_for_connecting

    home, remote = Path(sys.argv[1]), tuple(sys.argv[2:5])
    TOTAL, CHANGED = int(sys.argv[5]), int(sys.argv[6])

    async def main():
        session = session_at(home, remote)
        pane = shown_pane(session, home)
        await load_for_connecting()  # as the app does before connecting
        first = Probe()
        passes, began = [], {}

        def timed(phase, info):  # each collection's generation and wall ms
            if phase == "start":
                began["wall"] = time.perf_counter()
            else:
                passes.append((info["generation"], (time.perf_counter() - began["wall"]) * 1000))

        gc.callbacks.append(timed)
        await session.connect()
        while pane.model.total < TOTAL:
            await asyncio.sleep(0.01)
        await asyncio.sleep(2.2)  # the collector's passes over what the first sync made
        gc.callbacks.remove(timed)
        print("first", first.stop(), max((w for _g, w in passes), default=0.0), len(passes),
              sum(g == 2 for g, _w in passes), flush=True)
        print("synced", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # the changes are made meanwhile
        ids = [line.strip() for line in sys.stdin.readlines() if line.strip()]
        idle = Probe()  # the baseline: the same probe with nothing to do
        await asyncio.sleep(1.0)
        idle_gap = idle.stop()
        probe = Probe()
        started = time.perf_counter()
        await session.shipments.coordinator.fetch_now()
        while sum(pane.model.is_highlighted(i) for i in ids) < CHANGED:
            await asyncio.sleep(0.005)
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0.1)
        print(probe.stop(), elapsed, session.shipments.requests_last_sync, idle_gap, flush=True)
        pane.shutdown()
        await session.close()

    run_gui(main)
    """
)


def stalls(total: int = 20_000, changed: int = 1_000, runs: int = 3) -> list[Figure]:
    """Seeds `total` shipments into a local service (bench_sync), then runs STALL `runs`
    times, each against a fresh cache, changing `changed` other shipments each time."""
    from bench.bench_sync import change, seed
    from bench.bench_tracking import serve

    data_dir = Path(tempfile.gettempdir()) / f"freightdesk-bench-stall-{total}"
    seeded = seed(data_dir, total)
    first_stalls, sync_stalls, times, requests, idle_stalls = [], [], [], [], []
    first_passes: list[tuple[float, int, int]] = []  # longest ms, collections, full ones
    with serve(data_dir) as (url, _started, _pid):
        for run in range(runs):
            picked = seeded.ids[run * changed : (run + 1) * changed]
            with tempfile.TemporaryDirectory() as home:
                process = subprocess.Popen(
                    [
                        sys.executable,
                        "-c",
                        STALL,
                        home,
                        url,
                        seeded.client_id,
                        seeded.client_secret,
                        str(total),
                        str(changed),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=Path(__file__).resolve().parents[1],
                    env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                )
                assert process.stdin is not None and process.stdout is not None
                lines = []
                for line in process.stdout:
                    lines.append(line)
                    if line.startswith("synced"):
                        break
                else:
                    raise RuntimeError(
                        "".join(lines) + (process.stderr.read() if process.stderr else "")
                    )
                change(data_dir, picked, f"stall run {run}")
                time.sleep(2.1)  # older than the sync cursor's overlap (see bench_sync)
                out, err = process.communicate("go\n" + "\n".join(picked) + "\n", timeout=600)
                if process.returncode != 0:
                    raise RuntimeError(err[-3000:])
                first = lines[-2].split()
                first_stalls.append(float(first[1]))
                first_passes.append((float(first[2]), int(first[3]), int(first[4])))
                gap, elapsed, sent, idle = out.strip().splitlines()[-1].split()
                idle_stalls.append(float(idle))
                sync_stalls.append(float(gap))
                times.append(float(elapsed))
                requests.append(int(sent))
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        f"background sync of {changed:,} changed among {total:,} shipments: median "
        f"{statistics.median(times) * 1000:.0f} ms, {sorted(set(requests))} requests; "
        f"longest event-loop stall median {statistics.median(sync_stalls):.0f} ms, max "
        f"{max(sync_stalls):.0f} ms (target <= 50 ms; runs "
        f"{', '.join(f'{g:.0f}' for g in sync_stalls)})"
    )
    print(
        f"first full sync of {total:,} (and the collector's passes after it): longest stall "
        f"median {statistics.median(first_stalls):.0f} ms, max {max(first_stalls):.0f} ms; "
        f"longest collection {max(p[0] for p in first_passes):.1f} ms, collections "
        f"{', '.join(f'{n} ({full} full)' for _w, n, full in first_passes)}"
    )
    idle_base = statistics.median(idle_stalls)
    return [
        Figure(
            "app",
            f"background sync of {changed:,} changed among {total:,}: longest GUI stall, "
            f"max of {runs}",
            max(sync_stalls),
            baseline=idle_base,
            baseline_what="the same 5 ms probe, idle",
            limit=50,
            note=f"{statistics.median(times) * 1000:.0f} ms, {max(requests)} requests",
        ),
        Figure(
            "app",
            f"first full sync of {total:,}: longest GUI stall, max of {runs}",
            max(first_stalls),
            baseline=idle_base,
            baseline_what="the same 5 ms probe, idle",
            limit=50,  # the target for any GUI stall
            note=(
                f"longest collection {max(p[0] for p in first_passes):.1f} ms, "
                f"{max(p[1] for p in first_passes)} collections "
                f"({max(p[2] for p in first_passes)} full)"
            ),
        ),
    ]


# The Shipments pane of a cached home (argv: the home, the shipments cached, how many have
# triage facts, runs), made for its session without connecting, its list and facts read
# from the cache. Then, `runs` times, with the 5 ms probe: the whole list triaged again at a
# new moment (`TriageLink.again`, as the pane does once a list is indexed), and the minute's
# retriage a minute later (`TriageLink.minute`, the triage's clock moved on). Prints one JSON
# line: the longest gap of each, the probe idle, and how many went silent each minute.
RETRIAGE = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from datetime import UTC, datetime, timedelta
    from pathlib import Path
    from bench.gui import Probe, run_gui, session_at, shown_pane
    from freightdesk.service.triage import MOVING, Attention
    from freightdesk.ui.application import load_for_connecting
    from freightdesk.ui.panes.shipments.row_index import RowIndex

    home, TOTAL, FACTS, RUNS = Path(sys.argv[1]), *map(int, sys.argv[2:5])

    async def main():
        session = session_at(home)
        await load_for_connecting()  # as the app does before it attaches the pane
        pane = shown_pane(session, home)
        await pane.cached_list_shown()
        link, model = pane.triage, pane.model
        while link.facts is None or len(link.facts.facts) < FACTS or model.total < TOTAL:
            await asyncio.sleep(0.01)

        async def settled():
            await asyncio.sleep(0)
            while model.retriaging:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.1)  # the repaint after it

        await settled()
        await asyncio.sleep(2.0)  # the collector's passes over the start
        idle = Probe()  # the baseline: the same probe with nothing to do
        await asyncio.sleep(1.0)
        idle_gap = idle.stop()
        ahead = [timedelta(0)]
        link.clock = lambda: datetime.now(UTC) + ahead[0]
        indexed, minutes, silent = [], [], []
        for _ in range(RUNS):
            probe = Probe()
            link.again()  # as the pane does once the list is indexed
            await settled()
            indexed.append(probe.stop())
            before = model.last_result.attention_counts[Attention.NO_SIGNAL]
            ahead[0] += timedelta(minutes=1)
            probe = Probe()
            link.minute()
            await settled()
            minutes.append(probe.stop())
            silent.append(model.last_result.attention_counts[Attention.NO_SIGNAL] - before)
        # Per minute: the rows triaged and the process's CPU (both threads), the minute's
        # retriage (the rows due) beside the one before it (every row in transit).
        triage, counted = model.triage, [0]
        def counting(row):
            counted[0] += 1
            return triage(row)
        model.triage = counting
        ticks = {"due": [], "moving": []}
        for _ in range(RUNS):
            for way in ("moving", "due"):
                ahead[0] += timedelta(minutes=1)
                counted[0], cpu = 0, time.process_time()
                if way == "due":
                    link.minute()
                else:
                    link.now = link.clock()
                    model.retriage(state=MOVING)
                await settled()
                ticks[way].append((counted[0], (time.process_time() - cpu) * 1000))
        model.triage = triage
        # Shipments removed (one, then 50): the longest GUI stall, beside the whole list
        # indexed again on the GUI thread (as a removal did before).
        removed = {"one": [], "fifty": [], "reindexed": []}
        for _ in range(RUNS):
            for way, count in (("one", 1), ("fifty", 50), ("reindexed", 1)):
                gone = set(model._ids[len(model._ids) // 3 :: 997][:count])
                probe = Probe()
                if way == "reindexed":
                    rest = [r for r in model._rows if r.id not in gone]
                    model._relayout(lambda: model._adopt(RowIndex.of(rest, triage=model.triage)))
                else:
                    model.apply_changes([], gone)
                await settled()
                removed[way].append(probe.stop())
        print(json.dumps({
            "idle": idle_gap, "indexed": indexed, "minute": minutes, "silent": silent,
            "moving": model.last_result.state_counts[MOVING], "ticks": ticks,
            "removed": removed,
        }), flush=True)
        pane.shutdown()
        await session.close()

    run_gui(main)
    """
)


def write_facts(home: Path) -> int:
    """Triage facts, as if read before, for every shipment cached in `home` that has any
    (`needs_facts`): its ETA against an appointment window ending 3 h before to 6 h after it
    (late, at risk or on time), and in transit a last position 2 h either side of the moment
    its mode's silence runs out, so that each minute some go silent. Returns how many."""
    import random
    from datetime import UTC, datetime, timedelta

    from freightdesk.service.cache import Cache
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.summary_rows import cached_rows
    from freightdesk.service.triage import (
        DEFAULT_SILENCE,
        FACTS,
        FALLBACK_SILENCE,
        MOVING,
        Facts,
        facts_json,
        needs_facts,
    )

    rng = random.Random(5)
    cache = Cache(AppPaths.under(home).cache_file("team"))
    now = datetime.now(UTC)
    found = []
    for row in cached_rows(cache):
        if not needs_facts(row, None):
            continue
        eta = row.next_eta
        etas = ((eta, eta + timedelta(minutes=rng.randrange(-180, 360))),) if eta else ()
        position = None
        if row.current_state == MOVING:
            silence = DEFAULT_SILENCE.get(row.mode or "", FALLBACK_SILENCE)
            position = now - silence + timedelta(seconds=rng.uniform(-7200, 7200))
        facts = Facts(etas, position, row.last_modified)
        found.append((row.id, facts_json(row.id, facts)))
    cache.put_many(FACTS, found)
    cache.close()
    return len(found)


def retriage(count: int = 100_000, runs: int = 3) -> list[Figure]:
    """RETRIAGE on a copy of the cached home of `count` shipments, with triage facts."""
    with home_copy(cached_home(count)) as home:
        facts = write_facts(home)
        found = run_snippet(RETRIAGE, str(home), str(count), str(facts), str(runs), timeout=600)
    indexed, minutes = found["indexed"], found["minute"]
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        f"{count:,} cached ({facts:,} with triage facts): longest GUI stall of the retriage "
        f"once indexed {', '.join(f'{g:.0f}' for g in indexed)} ms; of the minute's "
        f"{', '.join(f'{g:.0f}' for g in minutes)} ms ({found['moving']:,} in transit, "
        f"{', '.join(map(str, found['silent']))} went silent); the probe idle "
        f"{found['idle']:.0f} ms (target <= 50 ms)"
    )
    due, moving = found["ticks"]["due"], found["ticks"]["moving"]
    removed = found["removed"]
    print(
        f"{count:,} cached: the minute's retriage triaged "
        f"{', '.join(str(n) for n, _ in due)} rows in "
        f"{', '.join(f'{c:.0f}' for _, c in due)} ms CPU; every row in transit: "
        f"{', '.join(str(n) for n, _ in moving)} rows in "
        f"{', '.join(f'{c:.0f}' for _, c in moving)} ms CPU. Removing one shipment, longest "
        f"GUI stall {', '.join(f'{g:.0f}' for g in removed['one'])} ms, fifty "
        f"{', '.join(f'{g:.0f}' for g in removed['fifty'])} ms; indexed again "
        f"{', '.join(f'{g:.0f}' for g in removed['reindexed'])} ms"
    )
    return [
        Figure(
            "app",
            f"{count:,} cached: the minute's retriage, rows triaged, median of {runs}",
            statistics.median(n for n, _ in due),
            unit="rows",
            baseline=statistics.median(n for n, _ in moving),
            baseline_what="every row in transit triaged (the minute's before)",
        ),
        Figure(
            "app",
            f"{count:,} cached: the minute's retriage, CPU (both threads), median of {runs}",
            statistics.median(c for _, c in due),
            baseline=statistics.median(c for _, c in moving),
            baseline_what="every row in transit triaged (the minute's before)",
            note="with the 0.1 s waited for the repaint after it",
        ),
        Figure(
            "app",
            f"{count:,} cached: a shipment removed, longest GUI stall, max of {runs}",
            max(removed["one"]),
            baseline=max(removed["reindexed"]),
            baseline_what="the list indexed again on the GUI thread (a removal before)",
            limit=50,
            note=f"fifty at once: max {max(removed['fifty']):.0f} ms; idle {found['idle']:.0f} ms",
        ),
        Figure(
            "app",
            f"{count:,} cached: the whole list triaged again once indexed, longest GUI stall, "
            f"max of {runs}",
            max(indexed),
            baseline=found["idle"],
            baseline_what="the same 5 ms probe, idle",
            limit=50,  # the target of any GUI stall
            note=f"{facts:,} with triage facts; median {statistics.median(indexed):.0f} ms",
        ),
        Figure(
            "app",
            f"{count:,} cached: the minute's retriage, longest GUI stall, max of {runs}",
            max(minutes),
            baseline=found["idle"],
            baseline_what="the same 5 ms probe, idle",
            limit=50,
            note=(
                f"{found['moving']:,} in transit, {max(found['silent'])} went silent; median "
                f"{statistics.median(minutes):.0f} ms"
            ),
        ),
    ]


# The app as `freightdesk` starts it on a fresh home (argv: the home): the Local sandbox
# starts, its demo fills in. Prints seconds from the process's start (monotonic clock, the
# parent subtracts its launch) at each step, then closes the window as a user would (which
# stops the local service).
FIRST_RUN = textwrap.dedent(
    """
    import time
    import os, re, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    from freightdesk.ui import launch
    PREPARING = re.compile(r"Preparing demo data(?:: ([\\d,]+) of ([\\d,]+) shipments loaded)?")

    def step(name, *more, at=None):
        print(name, time.monotonic() if at is None else at, *more, flush=True)

    def painted():
        step("window")
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from freightdesk.ui.main_window import MainWindow
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
        pane = window.pane("shipments")
        seen = {"total": 0, "done": set(), "rows": 0, "changed": time.monotonic()}

        def once(name, *more, at=None):
            if name not in seen["done"]:
                seen["done"].add(name)
                step(name, *more, at=at)

        def follow():
            label = window.demo_progress
            text = label.text() if label.isVisible() else ""
            if match := PREPARING.fullmatch(text):
                once("progress", repr(text))
                if match.group(2):
                    seen["total"] = int(match.group(2).replace(",", ""))
            rows = pane.model.rowCount()
            if rows != seen["rows"]:
                pane.table.viewport().repaint()  # on screen: painted, not only in the model
                seen["rows"], seen["changed"] = rows, time.monotonic()
            if rows >= 50:
                once("50 rows", rows)
            # All: the preparation over (its words gone) and the list's rows still for 2 s
            # (the demo's few shipments another party owns are not the user's to list);
            # timed when the last of them came.
            if seen["total"] and not text and time.monotonic() - seen["changed"] >= 2:
                once("all rows", rows, at=seen["changed"])
                window.close()
                return
            QTimer.singleShot(20, follow)

        follow()

    launch.run([], on_first_paint=painted)
    step("closed")
    """
)


def _first_run(env: dict[str, str]) -> dict[str, float]:
    """One start of the real app on a fresh home: seconds from launch to each step."""
    with tempfile.TemporaryDirectory() as home:
        begun = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-c", FIRST_RUN, home],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    if result.returncode != 0 or "all rows" not in result.stdout:
        raise RuntimeError(result.stdout[-2000:] + result.stderr[-3000:])
    steps: dict[str, float] = {}
    for line in result.stdout.splitlines():
        for name in ("window", "progress", "50 rows", "all rows", "closed"):
            if line.startswith(name + " "):
                steps[name] = float(line[len(name) + 1 :].split()[0]) - begun
    print(
        f"first run on a fresh home ({env.get('PYTHONPATH') or 'this tree'}), seconds from "
        "launch: "
        + ", ".join(f"{k} {v:.2f}" for k, v in steps.items())
        + f"; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    return steps


# What the app and its service load (the third-party packages' modules included): imported
# once into a fresh bytecode directory before the runs are measured. Every interpreter reads
# bytecode only from that directory, so otherwise the first run would compile FastAPI,
# SQLAlchemy, pydantic and the rest (seconds) where an installed app has their bytecode.
WARM_BYTECODE = (
    "import freightdesk.cli, freightdesk.server.app, freightdesk.server.demo.seed, uvicorn, "
    "freightdesk.ui.launch, freightdesk.ui.application"
)


def first_run(runs: int, other_src: str | None = None) -> list[Figure]:
    """The real app started `runs` times, each on a fresh home (see FIRST_RUN). `other_src`:
    also started from the package's sources there (another checkout, before a change), run by
    run in turn with this tree's, as the baseline of the first 50 shipments."""
    trees = {"": str(Path(freightdesk.__file__).parent.parent), "other": other_src}
    results: dict[str, list[dict[str, float]]] = {"": [], "other": []}
    with tempfile.TemporaryDirectory() as bytecode:
        # As an installed app has it: pip compiles the package's bytecode when it installs it
        # (this machine sets PYTHONDONTWRITEBYTECODE, which would make the app and its service
        # compile every module of ours on every run); not measured.
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPYCACHEPREFIX": bytecode}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        envs = {key: {**env, "PYTHONPATH": src} for key, src in trees.items() if src}
        for tree_env in envs.values():
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", tree_env["PYTHONPATH"]],
                env=tree_env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            subprocess.run([sys.executable, "-c", WARM_BYTECODE], env=tree_env, check=True)
        for run in range(runs):
            # In turn, each tree first every other run (the load drifts within a round).
            for key in sorted(envs, reverse=run % 2 == 1):
                results[key].append(_first_run(envs[key]))

    def after_window(name: str, key: str = "") -> float:
        return _median([r[name] - r["window"] for r in results[key]])

    def from_launch(name: str, key: str = "") -> float:
        return _median([r[name] for r in results[key]])

    window = from_launch("window")
    progress = sum("progress" in r for r in results[""])
    note = f"median of {runs}, our bytecode compiled; window at {window:.2f} s from launch"
    shown = (
        [
            Figure(
                "app",
                "first run, fresh home: the demo's progress shown, after the window",
                after_window("progress"),
                unit="s",
                note=f"{note}; until then the status bar says Connecting",
            )
        ]
        if progress == runs
        else []
    )
    first_50 = f"{note}; from launch {from_launch('50 rows'):.2f} s"
    baseline: dict[str, Any] = {}
    if other_src:
        baseline = {
            "baseline": after_window("50 rows", "other"),
            "baseline_what": f"FreightDesk at {other_src}, run by run in turn",
        }
        first_50 += (
            f" (the baseline's {from_launch('50 rows', 'other'):.2f} s, its window at "
            f"{from_launch('window', 'other'):.2f} s)"
        )
    return [
        *shown,
        Figure(
            "app",
            "first run, fresh home: the first 50 shipments on screen, after the window",
            after_window("50 rows"),
            unit="s",
            limit=5,
            note=f"{first_50}; progress shown in {progress} of {runs}",
            **baseline,
        ),
        Figure(
            "app",
            "first run, fresh home: all shipments on screen, after the window",
            after_window("all rows"),
            unit="s",
            limit=15,
            note=note,
        ),
    ]


# The app as `freightdesk` starts it (argv: a copy of a cached home, "app" or "unfrozen",
# seconds): each garbage collection is timed from the first line on; `seconds` after the first
# paint (the connection, the panes and the maps' warm-up come after it, later on a loaded
# machine) the window is closed. Prints one JSON line: the passes (seconds from the first line,
# generation, wall ms), and the cyclic garbage kept (what a collection frees once all is
# unfrozen: mostly what the freezes keep until the app ends).
START_GC = textwrap.dedent(
    """
    import time
    began_at = time.perf_counter()
    import gc, json, os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    how, seconds = sys.argv[2], float(sys.argv[3])
    if how == "unfrozen":  # ui/garbage.py without its freezes and holds
        gc.freeze = lambda: None
        from freightdesk.ui import garbage
        garbage.loading = lambda: False
    passes, began = [], {}

    def timed(phase, info):
        if phase == "start":
            began["wall"] = time.perf_counter()
        else:
            passes.append((began["wall"] - began_at, info["generation"],
                           (time.perf_counter() - began["wall"]) * 1000))

    gc.callbacks.append(timed)
    from freightdesk.ui import launch

    def painted():
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from freightdesk.ui.main_window import MainWindow
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
        painted_at = time.perf_counter() - began_at

        def end():
            gc.callbacks.remove(timed)
            frozen = gc.get_freeze_count()
            gc.unfreeze()
            print(json.dumps({
                "painted": painted_at, "passes": passes, "frozen": frozen,
                "freed": gc.collect(), "load": os.getloadavg()[0],
            }), flush=True)
            window.close_without_asking()

        QTimer.singleShot(int(seconds * 1000), end)

    launch.run([], on_first_paint=painted)
    """
)
GC_SECONDS = 5.0


def start_collections(counts: list[int], runs: int) -> list[Figure]:
    """START_GC `runs` times per count, as the app and unfrozen, interleaved."""
    figures: list[Figure] = []
    for count in counts:
        home = cached_home(count)
        found: dict[str, list[dict[str, Any]]] = {"app": [], "unfrozen": []}
        for _ in range(runs):
            for how, results in found.items():
                with home_copy(home) as copy:
                    run = run_snippet(START_GC, str(copy), how, str(GC_SECONDS))
                longest = max(run["passes"], key=lambda p: p[2], default=(0.0, 0, 0.0))
                print(
                    f"start, {count:,} cached, {how}: {len(run['passes'])} collections "
                    f"({sum(g == 2 for _t, g, _w in run['passes'])} full), "
                    f"longest {longest[2]:.1f} ms (generation {longest[1]}, at "
                    f"{longest[0]:.2f} s; painted at {run['painted']:.2f} s); {run['frozen']:,} "
                    f"frozen, cyclic garbage among them and not yet collected {run['freed']:,}; "
                    f"load average "
                    f"{run['load']:.1f}",
                    flush=True,
                )
                results.append(run)

        def longest(runs: list[dict[str, Any]], after_paint: bool = False) -> float:
            walls = (
                w for r in runs for t, _g, w in r["passes"] if t >= r["painted"] or not after_paint
            )
            return max(walls, default=0.0)

        now, before = found["app"], found["unfrozen"]
        figures.append(
            Figure(
                "app",
                f"start, {count:,} cached: longest garbage collection until "
                f"{GC_SECONDS:.0f} s after the first paint, max of {runs}",
                longest(now),
                baseline=longest(before),
                baseline_what="nothing frozen, collections not held",
                limit=50,
                note=(
                    f"after the first paint {longest(now, True):.0f} ms (before "
                    f"{longest(before, True):.0f}); collections "
                    f"{max(len(r['passes']) for r in now)}, full "
                    f"{max(sum(g == 2 for _t, g, _w in r['passes']) for r in now)}; cyclic "
                    f"garbage kept (frozen or not yet collected) "
                    f"{max(r['freed'] for r in now):,} objects (before "
                    f"{max(r['freed'] for r in before):,})"
                ),
            )
        )
    return figures


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="10000,100000", help="cached shipments, each")
    parser.add_argument("--runs", type=int, default=7, help="starts of each kind per count")
    parser.add_argument("--first-runs", type=int, default=3, help="first runs on a fresh home")
    parser.add_argument("--stall-runs", type=int, default=3, help="background syncs")
    parser.add_argument("--gc-runs", type=int, default=3, help="starts timing collections")
    parser.add_argument("--retriage-runs", type=int, default=3, help="retriages of 100,000")
    parser.add_argument(
        "--other-src",
        help="also start with nothing kept, and the first runs, from these sources (e.g. main's "
        "src)",
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",") if c]
    parts: list[tuple[int, Callable[[], list[Figure]]]] = [
        (args.runs, lambda: start_up(counts, args.runs, args.other_src)),
        (args.first_runs, lambda: first_run(args.first_runs, args.other_src)),
        (args.stall_runs, lambda: stalls(runs=args.stall_runs)),
        (args.gc_runs, lambda: start_collections(counts, args.gc_runs)),
        (args.retriage_runs, lambda: retriage(runs=args.retriage_runs)),
    ]
    figures: list[Figure] = []
    for runs, measure in parts:
        if runs:
            measured = measure()
            hand_over(measured)  # kept by `python -m bench` should a later part be cut short
            figures += measured
    publish(figures, handed_over=True)


if __name__ == "__main__":
    main()
