"""The desktop bundle: build time, size, and its cold start beside the source install's.

Builds the bundle as a user does (`packaging/build.sh --no-check`: PyInstaller into
`dist/FreightDesk/` and a `.tar.gz` of it), timing the build (wall and the CPU of every
process it ran), then measures the sizes (every file of `dist/FreightDesk/`, as `du -sb`
counts them, and the archive) and starts the app several times, the frozen bundle
(`dist/FreightDesk/FreightDesk`) and the source install (`python -m freightdesk`) in turn,
each offscreen on a fresh temporary home. A start is timed from spawning the process to the
line the app prints once its shipment list is painted (FREIGHTDESK_EXIT_AFTER_FIRST_PAINT:
it then quits as a user would); its CPU is the whole process's, read when it ends.

The source install runs with its bytecode cached (PYTHONPYCACHEPREFIX, as pip compiles at
install; this machine sets PYTHONDONTWRITEBYTECODE), the bundle with the bytecode
PyInstaller put in it. One start of each, not counted, comes first: it fills that cache and
reads both from disk once, so the counted starts compare the two from the page cache.

    python -m bench.bench_frozen [--reuse] [--no-build] [--runs 5]

`--reuse` skips the build when `dist/FreightDesk/` and its archive are newer than every file
of src/, resources/ and packaging/ (and builds otherwise). The build takes minutes and both
cores: on the shared machine, run it once, not in a loop. `--no-build` (the quick run's) never
builds: without a bundle that fresh it says so and measures nothing (build it first with
`bash packaging/build.sh --no-check`).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from bench.report import Figure, publish
from freightdesk.ui.launch import EXIT_AFTER_FIRST_PAINT

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
BUNDLE = DIST / "FreightDesk"
APP = BUNDLE / "FreightDesk"
SOURCES = ("src", "resources", "packaging")
MIB = 1024 * 1024
START_LIMIT_SECONDS = 120


def archive() -> Path:
    """The archive packaging/build.sh names after the version and the machine."""
    system, machine = os.uname().sysname.lower(), os.uname().machine
    return DIST / f"FreightDesk-{version('freightdesk')}-{system}-{machine}.tar.gz"


def fresh() -> bool:
    """The bundle and its archive exist and are newer than everything they are built from."""
    if not APP.exists() or not archive().exists():
        return False
    built = min(APP.stat().st_mtime, archive().stat().st_mtime)
    newest = max(
        path.stat().st_mtime
        for folder in SOURCES
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )
    return built > newest


@dataclass(frozen=True)
class Build:
    wall: float  # seconds
    cpu: float  # seconds, of every process the build ran


def build() -> Build:
    # build.sh runs `python3`: this interpreter, the one with FreightDesk and PyInstaller.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        ["sh", str(ROOT / "packaging" / "build.sh"), "--no-check"],
        cwd=ROOT,
        env={**os.environ, "PATH": path},
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"packaging/build.sh failed (exit {done.returncode}); see above")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Build(wall, cpu)


def folder_size(folder: Path) -> int:
    """Bytes of every file under `folder`, links not followed (`du -sb`)."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() or p.is_symlink())


@dataclass(frozen=True)
class Start:
    wall: float  # seconds from spawning the process to its "first paint" line
    cpu: float  # seconds, the whole process (until it has quit)
    inside: float  # seconds, as the app counts it (from launch.run's start)


def start(command: list[str], env: dict[str, str]) -> Start:
    with tempfile.TemporaryDirectory(prefix="freightdesk-bench-frozen-") as home:
        env = {**env, "FREIGHTDESK_HOME": home, "QT_QPA_PLATFORM": "offscreen"}
        env[EXIT_AFTER_FIRST_PAINT] = "1"
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, text=True)
        assert process.stdout is not None
        # An app that never says it painted (a bundle built before the signal) is stopped.
        watchdog = threading.Timer(START_LIMIT_SECONDS, process.kill)
        watchdog.start()
        line = process.stdout.readline()
        wall = time.perf_counter() - started
        process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        watchdog.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0 or not line.startswith("first paint "):
            raise SystemExit(f"{command[0]}: no first paint (exit {process.returncode}): {line}")
        inside = float(line.split()[2]) / 1000
        return Start(wall, usage.ru_utime + usage.ru_stime, inside)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuse", action="store_true", help="keep a fresh dist/FreightDesk/")
    parser.add_argument(
        "--no-build", action="store_true", help="measure a fresh bundle only; never build"
    )
    parser.add_argument("--runs", type=int, default=5, help="counted starts of each (5)")
    args = parser.parse_args(argv)

    figures: list[Figure] = []
    if (args.reuse or args.no_build) and fresh():
        print(f"reusing {BUNDLE} (newer than {', '.join(SOURCES)})", flush=True)
    elif args.no_build:
        # Last, so that `python -m bench` shows it in the part's row.
        print(
            f"not measured: {BUNDLE.relative_to(ROOT)}/ is missing or older than "
            f"{', '.join(SOURCES)}; build it first (bash packaging/build.sh --no-check)"
        )
        return 3
    else:
        load = os.getloadavg()[0]
        made = build()
        figures += [
            Figure("frozen", "build (packaging/build.sh): wall", made.wall, "s", load=load),
            Figure("frozen", "build: CPU of its processes", made.cpu, "s", load=load),
        ]
    figures += [
        Figure("frozen", "dist/FreightDesk/ size", folder_size(BUNDLE) / MIB, "MiB"),
        Figure("frozen", f"{archive().name} size", archive().stat().st_size / MIB, "MiB"),
    ]

    source_env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    source_env.pop("PYTHONDONTWRITEBYTECODE", None)
    frozen_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory(prefix="freightdesk-bench-bytecode-") as bytecode:
        source_env["PYTHONPYCACHEPREFIX"] = bytecode
        source = [sys.executable, "-m", "freightdesk"]
        frozen = [str(APP)]
        start(source, source_env)  # not counted: fills the bytecode cache, reads from disk
        start(frozen, frozen_env)
        load = os.getloadavg()[0]
        runs: dict[str, list[Start]] = {"source": [], "frozen": []}
        for _ in range(args.runs):  # interleaved: both see the same machine
            runs["source"].append(start(source, source_env))
            runs["frozen"].append(start(frozen, frozen_env))

    def frozen_beside_source(what: str, part: str, unit: str, scale: float = 1) -> Figure:
        """The median of the frozen starts' `part`, the source install's as the baseline."""

        def median(name: str) -> float:
            return float(statistics.median(getattr(s, part) for s in runs[name])) * scale

        baseline = "python -m freightdesk"
        return Figure("frozen", what, median("frozen"), unit, median("source"), baseline, load=load)

    figures += [
        frozen_beside_source(
            f"cold start to first paint (offscreen, fresh home), median of {args.runs}",
            "wall",
            "s",
        ),
        frozen_beside_source("cold start: CPU of the whole process", "cpu", "s"),
        frozen_beside_source("cold start: launch.run to first paint", "inside", "ms", 1000),
    ]
    publish(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
