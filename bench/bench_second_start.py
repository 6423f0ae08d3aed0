"""A later start of the Local sandbox: from launch to the painted cached list, and to Online.

On a start after the first (the home connected to its Local sandbox before), the window shows
the cached list first, then the local service starts and the app signs in. Measured: seconds
from launching `launch.run` (as `freightdesk` runs it) to the list's first paint, and to the
session Online, each run on the home a first start made; beside another tree (`--other-src`)
also to the event loop's first turn after the paint ("the window answering": clicks and keys
wait for what the GUI thread does until then). Baselines, in the same rounds: a bare PySide6
window to its first paint (bench_app's), and the same home's local service started alone
(`freightdesk serve` on its data directory, spawn to the first /health answer).
With `--other-src` (another checkout's sources, e.g. before a change) the same starts from
there, run by run in turn with this tree's (each first every other round: the load drifts),
are the baseline instead.

No keyring on a build machine: the app keeps its secret in the local service's data directory
(`LocalSandboxSecrets`), as on a desktop without a keyring.

Run: python -m bench.bench_second_start [--runs 3] [--other-src /path/to/src]

Targets: the cached list painted within 1.5 s and 2x the bare window (issue 18's start
targets); Online within 1.5x the service's own start (the app's loading and the sign-in add
little beside it: the service is begun as soon as the window is painted).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import freightdesk
from bench import bench_app
from bench.bench_serve_start import client, first_ok, free_port, serve_command, serving
from bench.report import Figure, publish
from freightdesk.service.paths import AppPaths

# The app as `freightdesk` starts it (argv: the home): prints the system's monotonic clock and
# the rows shown at the list's first paint, at the event loop's first turn, once the session
# is Online, and once the list read from the service is whole (so that the next start has it
# cached), then closes the window as a user would (the local service stopped).
LATER_START = textwrap.dedent(
    """
    import os, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    from freightdesk.ui import launch

    def painted():
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from freightdesk.ui.main_window import MainWindow
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
        model = window.pane("shipments").model
        print("window", time.monotonic(), model.total, flush=True)
        QTimer.singleShot(0, lambda: print("answering", time.monotonic(), flush=True))
        online = []

        def follow():
            if window.is_attached():
                from freightdesk.service.connection import ConnectionState

                if not online and window.session.status.state is ConnectionState.ONLINE:
                    online.append(time.monotonic())
                    print("online", online[0], flush=True)
                if online and model.complete and model.total:
                    print("listed", time.monotonic(), flush=True)
                    window.close()
                    return
            QTimer.singleShot(20, follow)

        follow()

    launch.run([], on_first_paint=painted)
    print("closed", time.monotonic(), flush=True)
    """
)
STEPS = ("window", "answering", "online", "listed", "closed")


def _start(env: dict[str, str], home: Path) -> dict[str, float]:
    """One start of the app on `home`: seconds from launch to each step."""
    begun = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", LATER_START, str(home)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    if result.returncode != 0 or "online" not in result.stdout:
        raise RuntimeError(result.stdout[-2000:] + result.stderr[-3000:])
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line}
    steps = {step: float(lines[step][0]) - begun for step in STEPS if step in lines}
    steps["cached rows"] = float(lines["window"][1])
    print(
        f"{env['PYTHONPATH']}: "
        + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items() if k in STEPS)
        + f"; {steps['cached rows']:.0f} rows at the first paint"
        + f"; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    return steps


def _service_alone(env: dict[str, str], home: Path) -> float:
    """Seconds from spawning `freightdesk serve` on `home`'s local service directory (the
    app closed) to its first /health answer."""
    data_dir = AppPaths.under(home).local_service_dir
    port = free_port()
    command = serve_command(data_dir, port, demo=False, simulate=False)
    with client(port) as http:
        began = time.monotonic()
        with serving(command, data_dir, env) as pid:
            first_ok(http, "/health", pid, began + 120)
            took = time.monotonic() - began
    print(f"the local service alone: answered in {took:.2f} s", flush=True)
    return took


def second_starts(runs: int, other_src: str | None) -> list[Figure]:
    trees = {"": str(Path(freightdesk.__file__).parent.parent), "other": other_src}
    results: dict[str, list[dict[str, float]]] = {"": [], "other": []}
    bare: list[float] = []
    alone: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        bytecode = Path(scratch) / "bytecode"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPYCACHEPREFIX": str(bytecode)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        envs = {key: {**env, "PYTHONPATH": src} for key, src in trees.items() if src}
        homes = {key: Path(scratch) / f"home-{key or 'this'}" for key in envs}
        for key, tree_env in envs.items():
            subprocess.run(
                [sys.executable, "-c", bench_app.WARM_BYTECODE], env=tree_env, check=True
            )
            _start(tree_env, homes[key])  # the first run: the demo written, the client kept
        for run in range(runs):
            for key in sorted(envs, reverse=run % 2 == 1):
                steps = _start(envs[key], homes[key])
                if not steps["cached rows"]:
                    raise RuntimeError("a later start painted no cached shipments")
                results[key].append(steps)
            if not other_src:
                bare.append(bench_app.bare_start(bytecode))
                alone.append(_service_alone(envs[""], homes[""]))

    def median(step: str, key: str = "") -> float:
        return statistics.median(r[step] for r in results[key])

    rows = results[""][0]["cached rows"]
    note = (
        f"median of {runs}, a start after the first, {rows:.0f} cached shipments painted "
        "(no keyring: the secret kept in the service's data directory)"
    )
    if other_src:
        against = f"FreightDesk at {other_src}, run by run in turn"
        return [
            Figure(
                "app",
                f"later start: {what}, from launch",
                median(step),
                unit="s",
                baseline=median(step, "other"),
                baseline_what=against,
                note=note,
            )
            for step, what in (
                ("window", "the cached list painted"),
                ("answering", "the window answering"),
                ("online", "Online"),
            )
        ]
    return [
        Figure(
            "app",
            "later start: the cached list painted, from launch",
            median("window"),
            unit="s",
            baseline=statistics.median(bare),
            baseline_what="bare PySide6 window (QMainWindow, QTableView) to its first paint",
            limit=1.5,
            max_ratio=2.0,
            note=note,
        ),
        Figure(
            "app",
            "later start: Online, from launch",
            median("online"),
            unit="s",
            baseline=statistics.median(alone),
            baseline_what="its local service started alone, to its first answer",
            max_ratio=1.5,
            note=note,
        ),
    ]


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="later starts of each tree")
    parser.add_argument("--other-src", help="also start from these sources, as the baseline")
    args = parser.parse_args()
    publish(second_starts(args.runs, args.other_src))


if __name__ == "__main__":
    main()
