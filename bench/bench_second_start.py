"""A later start of the Local sandbox: from launch to the painted cached list, and to Online.

On a start after the first (the home connected to its Local sandbox before), the window shows
the cached list first, then the local service starts and the app signs in. Measured: seconds
from launching `launch.run` (as `freightdesk` runs it) to the list's first paint, and to the
session Online, each run on the home a first start made. With `--other-src` (another checkout's
sources, e.g. before a change) the same starts from there, run by run in turn with this
tree's (each first every other round: the load drifts), as the baseline.

No keyring on a build machine: the app keeps no secret, so each start's service gives the app
a new one (`serve --rotate-client`), as on a desktop without a keyring.

Run: python -m bench.bench_second_start [--runs 3] [--other-src /path/to/src]
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
from bench.report import Figure, publish

# The app as `freightdesk` starts it (argv: the home): prints the system's monotonic clock at
# the list's first paint and once the session is Online, then closes the window as a user
# would (the local service stopped).
LATER_START = textwrap.dedent(
    """
    import os, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    from freightdesk.ui import launch

    def painted():
        print("window", time.monotonic(), flush=True)
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from freightdesk.ui.main_window import MainWindow
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))

        def follow():
            if window.is_attached():
                from freightdesk.service.connection import ConnectionState

                if window.session.status.state is ConnectionState.ONLINE:
                    print("online", time.monotonic(), flush=True)
                    window.close()
                    return
            QTimer.singleShot(20, follow)

        follow()

    launch.run([], on_first_paint=painted)
    print("closed", time.monotonic(), flush=True)
    """
)
STEPS = ("window", "online", "closed")
# What the app and its service load: imported once into the bytecode directory first, as an
# installed app has its bytecode (see bench_app.WARM_BYTECODE).
WARM_BYTECODE = (
    "import freightdesk.cli, freightdesk.server.app, freightdesk.server.demo.seed, uvicorn, "
    "freightdesk.ui.launch, freightdesk.ui.application"
)


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
    steps = {
        line.split()[0]: float(line.split()[1]) - begun
        for line in result.stdout.splitlines()
        if line.split()[:1] and line.split()[0] in STEPS
    }
    print(
        f"{env['PYTHONPATH']}: "
        + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items())
        + f"; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    return steps


def second_starts(runs: int, other_src: str | None) -> list[Figure]:
    trees = {"": str(Path(freightdesk.__file__).parent.parent), "other": other_src}
    results: dict[str, list[dict[str, float]]] = {"": [], "other": []}
    with tempfile.TemporaryDirectory() as scratch:
        bytecode = Path(scratch) / "bytecode"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPYCACHEPREFIX": str(bytecode)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        envs = {key: {**env, "PYTHONPATH": src} for key, src in trees.items() if src}
        homes = {key: Path(scratch) / f"home-{key or 'this'}" for key in envs}
        for key, tree_env in envs.items():
            subprocess.run([sys.executable, "-c", WARM_BYTECODE], env=tree_env, check=True)
            _start(tree_env, homes[key])  # the first run: the demo written, the client kept
        for run in range(runs):
            for key in sorted(envs, reverse=run % 2 == 1):
                results[key].append(_start(envs[key], homes[key]))

    def median(step: str, key: str = "") -> float:
        return statistics.median(r[step] for r in results[key])

    note = f"median of {runs}, a start after the first (no keyring: a new secret each start)"
    what = {"window": "the cached list painted", "online": "Online"}
    return [
        Figure(
            "app",
            f"later start: {what[step]}, from launch",
            median(step),
            unit="s",
            baseline=median(step, "other") if other_src else None,
            baseline_what=f"FreightDesk at {other_src}, run by run in turn" if other_src else "",
            note=note,
        )
        for step in what
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
