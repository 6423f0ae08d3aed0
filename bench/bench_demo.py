"""How long `freightdesk serve --demo` takes to fill an empty database.

Seeds fresh databases with `seed_demo` (SQLite by default; `--postgres` also on a throwaway
PostgreSQL) and prints, per run, the wall and CPU time of the whole seeding and of its phases:
planning the shipments (pure Python), and each kind of write through the domain functions. The
machine's load average is printed with each run because the test runs of other engineers share
it. Then it times `freightdesk serve --demo` as the app starts it: from launch to the first
answer of /health on an empty data directory, and again on the seeded one.

Run: python -m bench.bench_demo [--runs 3] [--postgres]
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from freightdesk.server import demo
from freightdesk.server.app import build_context
from freightdesk.server.demo import seed as seed_module
from freightdesk.server.domain import shipments as tracking
from freightdesk.server.settings import ServerSettings

PHASES: dict[Any, list[str]] = {
    seed_module: ["plan_shipments", "_papers", "_stop_locations", "create_document"],
    tracking: [
        "create_shipments",
        "add_events",
        "set_state",
        "set_eta",
        "upsert_exception",
        "add_positions_bulk",
    ],
}


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


def seed_once(database_url: str | None) -> None:
    directory = Path(tempfile.mkdtemp(prefix="fd-bench-demo-"))
    url = database_url or f"sqlite:///{directory / 'freightdesk.sqlite3'}"
    context = build_context(ServerSettings(data_dir=directory, database_url=url))
    load = os.getloadavg()[0]
    try:
        with timed_phases() as phases:
            wall, cpu = time.perf_counter(), time.process_time()
            credentials = demo.seed_demo(context)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert credentials is not None
        kind = "PostgreSQL" if database_url else "SQLite"
        print(f"{kind}: seeded in {wall:.1f} s wall, {cpu:.1f} s CPU (load average {load:.1f})")
        for name, (phase_wall, phase_cpu, calls) in sorted(
            phases.items(), key=lambda item: -item[1][0]
        ):
            print(f"  {name:20s} {int(calls):5d} calls {phase_wall:6.2f} s {phase_cpu:6.2f} s CPU")
    finally:
        context.engine.dispose()
        shutil.rmtree(directory, ignore_errors=True)


def serve_until_healthy(data_dir: Path) -> float:
    """Seconds from launching `freightdesk serve --demo` to its first /health answer."""
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
    try:
        assert process.stdout is not None
        url = ""
        for line in process.stdout:
            if "listening on" in line:
                url = line.rsplit(" ", 1)[1].strip()
                break
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    return time.perf_counter() - began
            except httpx.TransportError:
                time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--postgres", action="store_true", help="also seed PostgreSQL")
    args = parser.parse_args()
    for _ in range(args.runs):
        seed_once(None)
    if args.postgres:
        from tests.support import PostgresServer

        server = PostgresServer()
        server.start()
        try:
            seed_once(server.create_database())
        finally:
            server.stop()
    data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-serve-"))
    try:
        first = serve_until_healthy(data_dir)
        again = serve_until_healthy(data_dir)
        print(f"serve --demo: first answer after {first:.1f} s (empty), {again:.1f} s (seeded)")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
