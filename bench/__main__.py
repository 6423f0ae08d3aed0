"""Every benchmark in its quick form, and one table of their figures.

    python -m bench [all] [--quick] [--only NAME,...] [--skip NAME,...] [--markdown]
                    [--write-docs] [--list]

Each benchmark runs as its own process (`python -m bench.<name> <quick options>`), one after
another, with a time limit; a benchmark that hands its figures to `bench.report.publish`
has them gathered here (figure, baseline, ratio, target, met, load average), also those it
handed over before its time limit stopped it (`bench.report.hand_over`). A benchmark not
yet reporting in that form gets a row saying how it ended, and its own output is kept in the
log directory. `--list` prints what would run, and with which options, without running it.
The long forms stay: run `python -m bench.<name>` with its own options.
`--write-docs` writes the table into docs/performance.md (see bench/docs.py).

Heavy data (the tracking benchmark's 1 GB database) is seeded once under /tmp and reused, so
the first run takes longer than the next.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.docs import DOCS, Run, write
from bench.report import FIGURES_ENV, Figure, load_average, read, table

_APP_PARTS = ("--runs", "--first-runs", "--stall-runs", "--gc-runs", "--retriage-runs")


def _app(*runs: int) -> tuple[str, ...]:
    """bench_app's options: how many runs of each of its parts (`_APP_PARTS`)."""
    return tuple(x for option, n in zip(_APP_PARTS, runs, strict=True) for x in (option, str(n)))


@dataclass(frozen=True)
class Bench:
    name: str
    quick: tuple[str, ...]
    seconds: int  # the quick form's time limit
    part: str = ""  # a part of the benchmark run on its own (its log and figures apart)

    @property
    def title(self) -> str:
        return f"{self.name}_{self.part}" if self.part else self.name


# In the order they run; the quick options keep the whole within about 8.5 minutes on the
# 2-core machine at load 1 once the cached data exists (~N s in a comment: that part's time
# at load 1). Every row with a target is in the quick form, measured against its baseline in
# the same run as in the long form, with fewer runs or a shorter window where its target
# allows.
BENCHES = [
    Bench("bench_search", ("--quick",), 420),
    Bench("bench_serve_start", ("--quick",), 180),
    Bench("bench_tracking", ("--repeat", "20"), 240),
    Bench("bench_shipment_table", (), 120),
    # The starts (each kind: with the first screen kept, merged, and nothing kept), the first
    # run, the syncs' stalls, and the start's collections (--gc-runs: 4 starts of ~8 s): the
    # longest part, ~100 s.
    Bench("bench_app", _app(3, 1, 1, 1, 0), 330),
    # The list's retriages, minutes and removals at 100,000 (one process), apart: a cut
    # of the starts above does not take its rows.
    Bench("bench_app", _app(0, 0, 0, 0, 3), 180, part="retriage"),
    # What the list's keys cost a whole replace and a save of 1,000, and the file (~5 s;
    # its rows read from the start-up benchmark's cached list).
    Bench("bench_cache_keys", ("--runs", "1"), 150),
    # The export's stall, and collections with 100,000 shipments listed (issue 18): ~30 s.
    Bench("bench_export", ("--repeat", "1", "--list-runs", "1", "--seconds", "5"), 90),
    Bench("bench_documents", ("--megabytes", "96", "--documents", "300", "--repeat", "20"), 120),
    Bench("bench_rating", ("--requests", "10", "--carriers", "20"), 120),
    Bench("bench_push", ("--seconds", "2", "--shipments", "20", "--repeat", "50"), 120),
    # Two instances against one on PostgreSQL, 3 s of pushes each (~27 s with the cluster).
    Bench("bench_instances", ("--seconds", "3", "--shipments", "30"), 120),
    Bench("bench_planning", ("--vehicles", "100000", "--queries", "100"), 180),
    Bench("bench_sync", ("--shipments", "10000", "--changed", "500", "--runs", "1"), 240),
    # The baseline polls every 2 s (the long form every 5): a run takes ~3 s, not ~7.5.
    Bench("bench_list_latency", ("--interval", "2", "--runs", "3"), 120),
    Bench("bench_uploads", ("--gigabytes", "0.25", "--files", "20"), 120),
    # The load (10 s), then the idle service's CPU (20 s: the minimal app's is 4 of /proc's
    # 10 ms ticks in it, 2 in 10 s) and 3 changes of each kind made while idle (~15 s), then
    # what the engine costs a statement and a transaction beside a plain one (~5 s): ~60 s.
    Bench(
        "bench_webhooks",
        (
            "--seconds",
            "10",
            "--modes",
            "all,idle,statements",
            "--idle-seconds",
            "20",
            "--idle-changes",
            "3",
        ),
        200,
    ),
    # The workers alone for 5 s, then with the simulator for 10 s, each once the start-up's
    # work is done (at least 2 s, then a quiet second; the long form waits 10 s first): ~35 s.
    Bench(
        "bench_simulator",
        ("--fleet", "200", "--seconds", "10", "--baseline", "5", "--settle", "2"),
        150,
    ),
    Bench("bench_demo", ("--runs", "1", "--serve-runs", "1"), 240),
    # Every part but the 5,000 shipments' query (a log line only) and the map's imports
    # timed alone (a log line): ~45 s.
    Bench(
        "bench_maps",
        ("--skip-query", "--skip-imports", "--repeat", "2", "--samples", "10"),
        240,
    ),
    # A later start of the Local sandbox (a first start, then 2, each beside a bare window
    # and the service started alone): ~35 s at load 1.
    Bench("bench_second_start", ("--runs", "2"), 150),
    # Pruning 30,000 journal rows three ways, once: ~10 s at load 1.
    Bench("bench_journal_prune", ("--rows", "30000", "--repeat", "1"), 90),
    # Ctrl+Q to nothing of the app left, its local service included, beside a bare window,
    # on an Xvfb display of its own: 2 starts of the app (each until it is connected) and of
    # the bare window, each until its start's work is done: ~19 s at load 2.
    Bench("bench_quit", ("--runs", "2"), 150),
    # Last. It never builds the desktop bundle here (minutes, both cores): without a
    # dist/FreightDesk/ newer than the sources its row says so. `bash packaging/build.sh
    # --no-check` first, or `python -m bench.bench_frozen --reuse` (builds and times it).
    Bench("bench_frozen", ("--no-build", "--runs", "3"), 120),
]


# The quick forms together stop at this, whatever is left (a row says what was cut short).
QUICK_BUDGET_SECONDS = 600


def _children_cpu() -> float:
    """CPU seconds of the processes ended and waited for so far (theirs waited for too)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def last_line(log: Path) -> str:
    """The log's last line (why a part ended without figures, as a rule), for its row."""
    with log.open("rb") as out:
        out.seek(max(0, out.seek(0, os.SEEK_END) - 2000))
        lines = out.read().decode(errors="replace").strip().splitlines()
    return lines[-1].strip().replace("|", "/")[:200] if lines else ""


def run(bench: Bench, quick: bool, log_dir: Path, budget: float) -> list[Figure]:
    figures_file = log_dir / f"{bench.title}.figures"
    figures_file.unlink(missing_ok=True)
    command = [sys.executable, "-m", f"bench.{bench.name}", *(bench.quick if quick else ())]
    env = {**os.environ, FIGURES_ENV: str(figures_file)}
    log = log_dir / f"{bench.title}.log"
    print(f"== {' '.join(command[1:])}  (log: {log})", flush=True)
    started, cpu = time.perf_counter(), _children_cpu()
    with log.open("wb") as out:
        # A group of its own: a part stopped at its limit takes the servers it started with it.
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        try:
            limit = max(1.0, min(bench.seconds, budget))
            code: int | str = process.wait(timeout=limit if quick else None)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = f"stopped after {limit:.0f} s"
    seconds = time.perf_counter() - started
    # Its time, beside the CPU its processes used (steadier on a shared machine), for the
    # quick forms' budget.
    print(
        f"   {seconds:.0f} s, {_children_cpu() - cpu:.0f} s CPU of its processes; load "
        f"average {load_average():.1f}",
        flush=True,
    )
    figures = read(figures_file)
    if figures and code == 0:
        return figures
    state = f"exit {code}" if isinstance(code, int) else code
    if code == 0:
        note = "figures in its log only (not in the common form yet)"
    elif figures:
        note = f"{state}, after the rows above: see its log"
    else:
        note = f"{state}: {last_line(log)} (see its log)"
    name = bench.title.removeprefix("bench_")
    return [*figures, Figure(name, "whole run", seconds, unit="s", note=note)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="all", choices=["all"])
    parser.add_argument("--quick", action="store_true", help="quick forms (the default)")
    parser.add_argument("--long", action="store_true", help="each benchmark's default form")
    parser.add_argument("--only", help="comma-separated names (search, serve_start, ...)")
    parser.add_argument("--skip", help="comma-separated names to leave out")
    parser.add_argument("--markdown", action="store_true", help="the table as Markdown too")
    parser.add_argument("--log-dir", help="where each benchmark's output is kept")
    parser.add_argument(
        "--list", action="store_true", help="what would run, with its options; nothing run"
    )
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="write the table into docs/performance.md (bench/docs.py)",
    )
    args = parser.parse_args(argv)

    def names(option: str | None) -> set[str]:
        return {f"bench_{n.removeprefix('bench_')}" for n in (option or "").split(",") if n}

    only, skip = names(args.only), names(args.skip)
    chosen = [b for b in BENCHES if (not only or b.name in only) and b.name not in skip]
    if args.list:
        for bench in chosen:
            command = ["python -m", f"bench.{bench.name}", *(() if args.long else bench.quick)]
            limit = "" if args.long else f"  (stopped after {bench.seconds} s)"
            print(" ".join(command) + limit)
        if not args.long:
            print(f"(all of them stopped after {QUICK_BUDGET_SECONDS} s)")
        return 0
    log_dir = Path(args.log_dir or tempfile.mkdtemp(prefix="freightdesk-bench-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    load_before = load_average()
    started = time.perf_counter()
    figures: list[Figure] = []
    for bench in chosen:
        left = QUICK_BUDGET_SECONDS - (time.perf_counter() - started)
        if not args.long and left < 5:
            note = "not run: the quick forms' 10 minutes were used up"
            figures.append(
                Figure(bench.title.removeprefix("bench_"), "whole run", 0, "s", note=note)
            )
            continue
        figures.extend(run(bench, not args.long, log_dir, left))
    minutes = (time.perf_counter() - started) / 60
    outcome = Run(
        figures,
        commit,
        bool(dirty),
        minutes,
        load_before,
        load_average(),
        os.cpu_count() or 0,
        not args.long,
    )
    outcome.save(log_dir)
    print()
    print(table(figures))
    print(
        f"commit {commit}{' (with uncommitted changes)' if dirty else ''}; "
        f"{minutes:.1f} min; load average {load_before:.1f} before, {outcome.load_after:.1f} "
        f"after, on {outcome.cores} cores; logs in {log_dir}"
    )
    if args.markdown:
        print()
        print(table(figures, markdown=True))
    if args.write_docs:
        write(outcome)
        print(f"figures written into {DOCS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
