"""How fast the demo is there: seeding against its floor, and `serve --demo` as the app sees it.

1. Seeds fresh databases with `seed_demo` (SQLite by default; `--postgres` also on a throwaway
   PostgreSQL) and prints the wall and CPU time of the whole seeding and of its phases:
   planning the shipments (pure Python), the PDFs, and each kind of write.
2. The floor: every row the seeding wrote to the shipment tables (shipments, their documents,
   identifiers, attributes, states, events, exceptions, positions and the change journal),
   read back and inserted into an empty database of the same schema with the driver's
   `executemany`, one statement per table, in one transaction. The ratio of the seeding's
   shipment writing (`_tracked_shipments`: building the rows and the journal from the plans,
   and writing them) to that floor is what the bulk path leaves on the table.
3. `freightdesk serve --demo` on an empty data directory, as the app starts it: from launch to
   the first answer of /health, to 50 shipments stored (`GET /services/demo/v1/status`), to
   all of them, and to the demo complete (documents, planning data), polled every 20 ms;
   `--busy` runs the same with one process per core spinning meanwhile (the "both cores busy"
   case).
4. `--app-runs`: the app's side of a first run, without a window: an `AppSession` on a fresh
   home connects (starting its Local sandbox, which begins the demo), follows the demo's
   progress and listens to the shipment list as the Shipments pane does; from the connect's
   start to connected, to the first progress with a count, to the first rows in the list, to
   50 rows, to all of them, and to the progress gone. Also with `--busy`.

The machine's load average is printed with each run: other engineers' work shares the cores.

Run: python -m bench.bench_demo [--runs 3] [--serve-runs 3] [--app-runs 0] [--busy] [--postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import multiprocessing
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

import freightdesk
from bench.report import Figure, publish
from freightdesk.server import demo
from freightdesk.server.app import build_context
from freightdesk.server.demo import portfolio
from freightdesk.server.demo import seed as seed_module
from freightdesk.server.domain import shipments as tracking
from freightdesk.server.settings import ServerSettings

PHASES: dict[Any, list[str]] = {
    portfolio: ["placed_plan"],
    seed_module: ["_papers", "_stop_locations", "_documents", "_tracked_shipments"],
    tracking: ["create_shipments", "add_histories", "add_positions_bulk"],
}
# The tables `_tracked_shipments` writes, parents first.
SHIPMENT_TABLES = [
    "shipments",
    "shipment_documents",
    "shipment_identifiers",
    "shipment_attribute_values",
    "shipment_states",
    "shipment_events",
    "shipment_exceptions",
    "shipment_positions",
    "shipment_changes",
]
DEMO_STATUS = "/services/demo/v1/status"


@contextmanager
def timed_phases() -> Iterator[dict[str, list[float]]]:
    """Wall time, CPU time and calls of each phase while the block runs."""
    totals: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    originals: list[tuple[Any, str, Callable[..., Any]]] = []
    for module, names in PHASES.items():
        for name in names:
            original = getattr(module, name)
            originals.append((module, name, original))

            def wrapper(*args: Any, _f: Any = original, _n: str = name, **kwargs: Any) -> Any:
                wall, cpu = time.perf_counter(), time.process_time()
                try:
                    return _f(*args, **kwargs)
                finally:
                    entry = totals[_n]
                    entry[0] += time.perf_counter() - wall
                    entry[1] += time.process_time() - cpu
                    entry[2] += 1

            setattr(module, name, wrapper)
    try:
        yield totals
    finally:
        for module, name, original in originals:
            setattr(module, name, original)


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


def seed_once(database_url: str | None) -> dict[str, float]:
    """Seeds once; returns the seconds measured (whole wall and CPU; on SQLite also the
    shipment writing and its floor)."""
    directory = Path(tempfile.mkdtemp(prefix="fd-bench-demo-"))
    url = database_url or f"sqlite:///{directory / 'freightdesk.sqlite3'}"
    context = build_context(ServerSettings(data_dir=directory, database_url=url))
    before = load()
    found: dict[str, float] = {}
    try:
        with timed_phases() as phases:
            wall, cpu = time.perf_counter(), time.process_time()
            credentials = demo.seed_demo(context)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert credentials is not None
        found.update(wall=wall, cpu=cpu)
        kind = "PostgreSQL" if database_url else "SQLite"
        print(f"{kind}: seeded in {wall:.2f} s wall, {cpu:.2f} s CPU ({before}, {load()} after)")
        for name, (phase_wall, phase_cpu, calls) in sorted(
            phases.items(), key=lambda item: -item[1][0]
        ):
            print(f"  {name:20s} {int(calls):5d} calls {phase_wall:6.2f} s {phase_cpu:6.2f} s CPU")
        if database_url is None:
            floor_wall, floor_cpu, rows = insert_floor(directory / "freightdesk.sqlite3")
            writing_wall, writing_cpu, _calls = phases["_tracked_shipments"]
            found.update(
                writing_wall=writing_wall,
                writing_cpu=writing_cpu,
                floor_wall=floor_wall,
                floor_cpu=floor_cpu,
                rows=rows,
            )
            print(
                f"  floor: the same {rows:,} shipment rows with executemany in one transaction "
                f"{floor_wall:.2f} s wall, {floor_cpu:.2f} s CPU; shipment writing / floor "
                f"{writing_wall / floor_wall:.1f} wall, {writing_cpu / floor_cpu:.1f} CPU; "
                f"whole seeding / floor {wall / floor_wall:.1f} wall, {cpu / floor_cpu:.1f} CPU"
            )
    finally:
        context.engine.dispose()
        shutil.rmtree(directory, ignore_errors=True)
    return found


def insert_floor(seeded: Path) -> tuple[float, float, int]:
    """Seconds (wall, CPU) to insert every shipment row of `seeded` into an empty database of
    the same schema with the driver's executemany, one transaction; and how many rows."""
    directory = Path(tempfile.mkdtemp(prefix="fd-bench-floor-"))
    target = directory / "freightdesk.sqlite3"
    context = build_context(ServerSettings(data_dir=directory, database_url=f"sqlite:///{target}"))
    context.engine.dispose()  # only its schema is wanted
    try:
        with sqlite3.connect(seeded) as source:
            rows = {
                table: source.execute(f"SELECT * FROM {table}").fetchall()
                for table in SHIPMENT_TABLES
            }
        connection = sqlite3.connect(target, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        began, cpu = time.perf_counter(), time.process_time()
        connection.execute("BEGIN")
        for table, values in rows.items():
            if values:
                marks = ", ".join("?" * len(values[0]))
                connection.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
        connection.execute("COMMIT")
        took, cpu = time.perf_counter() - began, time.process_time() - cpu
        connection.close()
        return took, cpu, sum(len(values) for values in rows.values())
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def compile_package() -> None:
    """Our package's bytecode written beside its sources, as pip leaves an installed app: this
    machine sets PYTHONDONTWRITEBYTECODE, so every start compiled some 160 of our modules
    (about 0.3 s of CPU), while the baseline's fastapi and sqlalchemy have theirs from their
    install. (A PYTHONPYCACHEPREFIX would move every module's bytecode there, the libraries'
    too, and the first start would compile them all: 2.65 s at load 1.7 in the run at
    cf1b5c2.)"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    package = str(Path(freightdesk.__file__).parent)
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=env, check=True)


def serve_timeline(data_dir: Path) -> dict[str, float]:
    """Seconds from launching `freightdesk serve --demo` to its first /health answer, to 50
    shipments stored, to all of them, and to the demo complete."""
    began = time.perf_counter()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "freightdesk.cli",
            "serve",
            "--demo",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    found: dict[str, float] = {}
    try:
        assert process.stdout is not None
        url = ""
        for line in process.stdout:
            if match := re.search(r"listening on (http://\S+)", line):
                url = match.group(1)
                break
        with httpx.Client(base_url=url, timeout=30) as http:
            while "all" not in found:
                if process.poll() is not None:
                    raise RuntimeError("the service exited")
                try:
                    if "health" not in found:
                        if http.get("/health").status_code == 200:
                            found["health"] = time.perf_counter() - began
                        continue
                    status = http.get(DEMO_STATUS).json()
                except httpx.TransportError:
                    time.sleep(0.02)
                    continue
                now = time.perf_counter() - began
                if status["shipmentsReady"] >= 50:
                    found.setdefault("first 50", now)
                if (
                    status["shipmentsTotal"]
                    and status["shipmentsReady"] == status["shipmentsTotal"]
                ):
                    found.setdefault("shipments", now)
                if status["state"] == "ready":
                    found["all"] = now
                time.sleep(0.02)
    finally:
        process.terminate()
        process.wait(timeout=20)
    return found


async def app_timeline(home: Path) -> dict[str, float]:
    """Seconds from an `AppSession`'s connect on the fresh `home` to each step of its first
    run (see the module's doc); the list is listened to as the Shipments pane does."""
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.profiles import ProfileStore
    from freightdesk.service.secrets import MemorySecretStore
    from freightdesk.service.session import AppSession

    paths = AppPaths.under(home)
    session = AppSession(paths, ProfileStore(paths.profiles_file, MemorySecretStore()))
    found: dict[str, float] = {}
    began = time.perf_counter()

    def mark(name: str) -> None:
        found.setdefault(name, time.perf_counter() - began)

    def progress(message: str | None) -> None:
        if message and " of " in message:
            mark("count")
        elif message is None and "count" in found:
            mark("ready")

    session.demo.listen(progress)
    try:
        await session.connect()
        mark("connected")
        assert session.shipments is not None
        coordinator = session.shipments.coordinator

        def rows(_change: object) -> None:
            count = len(coordinator.data.summaries) if coordinator.data else 0
            if count:
                mark("rows")
            if count >= 50:
                mark("50 rows")
            if count >= sum(portfolio.COUNTS.values()):
                mark("all rows")

        unsubscribe = coordinator.listen(rows)
        while not {"all rows", "ready"} <= found.keys():
            if time.perf_counter() - began > 300:
                raise RuntimeError(f"the first run did not finish: {found}")
            await asyncio.sleep(0.02)
        unsubscribe()
    finally:
        await session.close()
    return found


def _spin(stop: Any) -> None:
    while not stop.is_set():
        sum(range(10_000))


@contextmanager
def busy_cores(busy: bool) -> Iterator[None]:
    """One process per core spinning while the block runs (when `busy`)."""
    if not busy:
        yield
        return
    stop = multiprocessing.Event()
    spinners = [
        multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
        for _ in range(os.cpu_count() or 2)
    ]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        stop.set()
        for spinner in spinners:
            spinner.join(timeout=5)


def import_floor() -> float:
    """Seconds to start Python and import FastAPI and SQLAlchemy: the floor of any start of
    the service (the baseline `bench_serve_start` uses too)."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import fastapi, sqlalchemy"], check=True)
    return time.perf_counter() - began


def _median(values: list[float]) -> float:
    import statistics

    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="seedings (0: none)")
    parser.add_argument("--serve-runs", type=int, default=3, help="serve --demo starts")
    parser.add_argument("--app-runs", type=int, default=0, help="the app's first runs")
    parser.add_argument("--busy", action="store_true", help="also start with both cores busy")
    parser.add_argument("--postgres", action="store_true", help="also seed PostgreSQL")
    args = parser.parse_args()
    figures: list[Figure] = []
    seedings = [seed_once(None) for _ in range(args.runs)]
    if seedings:
        writing = _median([s["writing_cpu"] for s in seedings])
        floor = _median([s["floor_cpu"] for s in seedings])
        figures += [
            Figure(
                "demo",
                f"seeding's shipment writing (SQLite), CPU, median of {len(seedings)}",
                writing,
                unit="s",
                baseline=floor,
                baseline_what=f"the same {int(seedings[0]['rows']):,} rows, executemany",
                note=f"wall {_median([s['writing_wall'] for s in seedings]):.2f} s",
            ),
            Figure(
                "demo",
                f"whole seed_demo (SQLite), CPU, median of {len(seedings)}",
                _median([s["cpu"] for s in seedings]),
                unit="s",
                baseline=floor,
                baseline_what="the shipment rows, executemany",
                note=f"wall {_median([s['wall'] for s in seedings]):.2f} s",
            ),
        ]
    if args.postgres:
        from tests.support import PostgresServer

        server = PostgresServer()
        server.start()
        try:
            seed_once(server.create_database())
        finally:
            server.stop()
    compile_package()
    for busy in (False, True) if args.busy else (False,):
        label = "cores busy" if busy else "as is"
        timelines: list[dict[str, float]] = []
        floors: list[float] = []
        for _ in range(args.serve_runs):
            data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-serve-"))
            try:
                with busy_cores(busy):
                    before = load()
                    floors.append(import_floor())  # interleaved with the starts
                    times = serve_timeline(data_dir)
                timelines.append(times)
                print(
                    f"serve --demo on an empty data directory ({label}; {before}, {load()} "
                    f"after): /health {times['health']:.2f} s, 50 shipments "
                    f"{times['first 50']:.2f} s, all shipments {times['shipments']:.2f} s, "
                    f"complete (documents, planning data) {times['all']:.2f} s"
                )
            finally:
                shutil.rmtree(data_dir, ignore_errors=True)
        if timelines:
            runs = len(timelines)
            where = "" if not busy else ", both cores kept busy"
            figures.append(
                Figure(
                    "demo",
                    f"serve --demo, empty data directory{where}: first /health, median of {runs}",
                    _median([t["health"] for t in timelines]),
                    unit="s",
                    baseline=_median(floors),
                    baseline_what='python -c "import fastapi, sqlalchemy"',
                    limit=2 if not busy else None,
                    note=(
                        f"50 shipments stored at {_median([t['first 50'] for t in timelines]):.2f}"
                        f" s, all at {_median([t['shipments'] for t in timelines]):.2f} s, "
                        f"demo complete at {_median([t['all'] for t in timelines]):.2f} s"
                    ),
                )
            )
        for _ in range(args.app_runs):
            home = Path(tempfile.mkdtemp(prefix="fd-bench-app-"))
            try:
                with busy_cores(busy):
                    before = load()
                    times = asyncio.run(app_timeline(home))
                steps = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in times.items())
                print(f"the app's first run ({label}; {before}, {load()} after): {steps}")
            finally:
                shutil.rmtree(home, ignore_errors=True)
    publish(figures)


if __name__ == "__main__":
    main()
