"""The desktop app's start-up and calm under background updates.

Targets (issue 6):
- cold start to a populated window with 10,000 cached shipments <= 1.5 s, and <= 2x the start
  of a bare PySide6 window measured in the same run (both to the first paint of their table);
- no stall of the event loop longer than 50 ms during a background sync of 1,000 changed
  shipments (a 5 ms timer probe measures the longest gap).

Run: python -m bench.bench_app
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import NamedTuple

# Both snippets print the same three figures when their table's viewport is first painted:
# wall seconds from their first line, CPU seconds of the process (interpreter start
# included), and the system's monotonic clock (the parent subtracts the moment it started
# the process, so the interpreter's start is in that figure too).
BARE = textwrap.dedent(
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
    print("painted", time.perf_counter() - started, time.process_time(), time.monotonic())
    """
)

# The app as `freightdesk` starts it (launch.run), to the first paint of the list; then the
# moment the whole list is in the table (at once when it was read whole; else once the
# session has read it). argv: home, "close" (quit as a user would once the list is whole, so
# the first screen is kept for the next start) or "stop", the number of cached shipments.
APP = textwrap.dedent(
    """
    import time
    started = time.perf_counter()
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    from freightdesk.ui import launch

    def painted():
        print("painted", time.perf_counter() - started, time.process_time(), time.monotonic(),
              flush=True)
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
            else:
                os._exit(0)

        QTimer.singleShot(0, whole)

    launch.run([], on_first_paint=painted)
    """
)


class Start(NamedTuple):
    wall: float  # from the snippet's first line to the first paint
    cpu: float
    process: float  # from the process's start to the first paint
    whole: float | None  # from the first line until the whole list is in the table


def _run(code: str, *args: str, bytecode: Path) -> Start:
    """Run a snippet as a fresh process, with our modules' bytecode cached in `bytecode`
    (as an installed app has it; this machine sets PYTHONDONTWRITEBYTECODE, which would
    make every start compile every module)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPYCACHEPREFIX": str(bytecode)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    begun = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, env=env
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-2000:])
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line}
    wall, cpu, clock = (float(v) for v in lines["painted"])
    whole = float(lines["whole"][0]) if "whole" in lines else None
    return Start(wall, cpu, clock - begun, whole)


def prepare_home(root: Path, count: int) -> None:
    """A user with a remote profile (unreachable now) and 10,000 shipments in its cache."""
    import random

    from bench.bench_shipment_table import summaries
    from freightdesk.service.cache import Cache
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.shipments import SUMMARIES
    from freightdesk.service.summary_rows import SummaryRow, row_json

    paths = AppPaths.under(root)
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    profile = {
        "id": "team",
        "name": "Team server",
        "kind": "remote",
        "base_url": "http://127.0.0.1:9",
        "client_id": "bench",
        "credentials_in": "basic",
        "poll_interval": 30.0,
    }
    paths.profiles_file.write_text(json.dumps({"active": "team", "profiles": [profile]}))
    cache = Cache(paths.cache_file("team"))
    rows = summaries(count, random.Random(3))
    cached = (SummaryRow.from_summary(s) for s in rows)
    cache.replace_kind(SUMMARIES, ((row.id, row_json(row)) for row in cached))
    cache.close()


def _median(values: list[float]) -> float:
    return statistics.median(values)


def start_up(runs: int = 7) -> None:
    count = 10_000
    with tempfile.TemporaryDirectory() as tmp:
        home, bytecode = Path(tmp) / "home", Path(tmp) / "bytecode"
        prepare_home(home, count)
        # Not measured: the first starts read files from disk and write the bytecode.
        _run(BARE, bytecode=bytecode)
        _run(APP, str(home), "stop", str(count), bytecode=bytecode)
        bare: list[Start] = []
        whole_read: list[Start] = []
        kept: list[Start] = []
        for _ in range(runs):  # interleaved, so all see the same load
            bare.append(_run(BARE, bytecode=bytecode))
            # The first start after the list was synced (no first screen kept: the list is
            # read whole before the first paint); it closes as a user would, keeping the
            # first screen for the next start, which is every other start of the app.
            whole_read.append(_run(APP, str(home), "close", str(count), bytecode=bytecode))
            kept.append(_run(APP, str(home), "stop", str(count), bytecode=bytecode))
            _forget_first_screen(home)
    print(f"load average: {os.getloadavg()[0]:.1f}")
    base = _report("bare PySide6 window (QMainWindow, QTableView) to its first paint", bare)
    for title, starts in (
        ("first screen kept", kept),
        ("read whole", whole_read),
    ):
        # Each run against the bare run just before it: less sensitive to the load drifting.
        ratios = sorted(s.wall / b.wall for s, b in zip(starts, bare, strict=True))
        print(
            f"{title}: per-run ratio to the bare window (first line): median "
            f"{_median(ratios):.2f}x, runs {', '.join(f'{r:.2f}' for r in ratios)}"
        )
    for title, starts in (
        (f"FreightDesk to the painted list, {count:,} cached, first screen kept at close", kept),
        (
            f"FreightDesk to the painted list, {count:,} cached, read whole (first start)",
            whole_read,
        ),
    ):
        _report(title, starts, base)


def _forget_first_screen(home: Path) -> None:
    from freightdesk.service.cache import Cache
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.summary_rows import FIRST_SCREEN_KEY

    cache = Cache(AppPaths.under(home).cache_file("team"))
    cache.set_meta(FIRST_SCREEN_KEY, "null")
    cache.close()


def _report(title: str, starts: list[Start], base: Start | None = None) -> Start:
    wholes = [s.whole for s in starts if s.whole is not None]
    median = Start(
        _median([s.wall for s in starts]),
        _median([s.cpu for s in starts]),
        _median([s.process for s in starts]),
        _median(wholes) if wholes else None,
    )
    line = (
        f"{title}: median {median.wall * 1000:.0f} ms from the first line "
        f"({median.process * 1000:.0f} ms from the process's start), "
        f"{median.cpu * 1000:.0f} ms CPU"
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
    import asyncio, os, sys, time
    from pathlib import Path
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication
    import qasync
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
    from freightdesk.service.secrets import MemorySecretStore
    from freightdesk.service.session import AppSession
    from freightdesk.ui.application import load_for_connecting
    from freightdesk.ui.garbage import GuiThreadGarbageCollector
    from freightdesk.ui.panes.shipments.pane import ShipmentsPane

    home, url, client_id, secret = sys.argv[1:5]
    TOTAL, CHANGED = int(sys.argv[5]), int(sys.argv[6])
    app = QApplication([])
    collector = GuiThreadGarbageCollector(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)

    class Probe:
        def __init__(self):
            self.gaps = [0.0]
            self.last = time.perf_counter()
            self.timer = QTimer()
            self.timer.setInterval(5)
            self.timer.timeout.connect(self.tick)
            self.timer.start()

        def tick(self):
            now = time.perf_counter()
            self.gaps.append(now - self.last)
            self.last = now

        def stop(self):
            self.timer.stop()
            return max(self.gaps) * 1000

    async def main():
        paths = AppPaths.under(Path(home))
        profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
        profile = profiles.save(
            Profile(id="", name="Bench", kind=ProfileKind.REMOTE, base_url=url,
                    client_id=client_id, poll_interval=3600),
            secret=secret,
        )
        profiles.activate(profile.id)
        session = AppSession(paths, profiles, simulate=False)
        pane = ShipmentsPane(session, QSettings(str(Path(home) / "s.ini"),
                                                QSettings.Format.IniFormat))
        pane.resize(1300, 800)
        pane.show()
        await load_for_connecting()  # as the app does before connecting
        first = Probe()
        await session.connect()
        while pane.model.total < TOTAL:
            await asyncio.sleep(0.01)
        await asyncio.sleep(2.2)  # the collector's passes over what the first sync made
        print("first", first.stop(), flush=True)
        print("synced", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # the changes are made meanwhile
        ids = [line.strip() for line in sys.stdin.readlines() if line.strip()]
        probe = Probe()
        started = time.perf_counter()
        await session.shipments.coordinator.fetch_now()
        while sum(pane.model.is_highlighted(i) for i in ids) < CHANGED:
            await asyncio.sleep(0.005)
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0.1)
        print(probe.stop(), elapsed, session.shipments.requests_last_sync, flush=True)
        pane.shutdown()
        await session.close()

    with loop:
        loop.run_until_complete(main())
    collector.stop()
    """
)


def stalls(total: int = 20_000, changed: int = 1_000, runs: int = 3) -> None:
    """Seeds `total` shipments into a local service (bench_sync), then runs STALL `runs`
    times, each against a fresh cache, changing `changed` other shipments each time."""
    from bench.bench_sync import change, seed
    from bench.bench_tracking import serve

    data_dir = Path(tempfile.gettempdir()) / f"freightdesk-bench-stall-{total}"
    seeded = seed(data_dir, total)
    first_stalls, sync_stalls, times, requests = [], [], [], []
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
                first_stalls.append(float(lines[-2].split()[1]))
                gap, elapsed, sent = out.strip().splitlines()[-1].split()
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
        f"median {statistics.median(first_stalls):.0f} ms, max {max(first_stalls):.0f} ms"
    )


if __name__ == "__main__":
    start_up()
    stalls()
