"""A test run killed outright (SIGKILL to its whole process group, as a CI timeout kills it)
leaves no PostgreSQL behind: the `postgres` fixture's watcher stops the server and removes its
directory (a session's killed runs once left three servers to stop by hand)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.processes import alive, processes, pytest_of, read_until
from tests.support import PostgresServer, missing

ROOT = Path(__file__).resolve().parent.parent
GONE_SECONDS = 30  # the watcher's wake-up and pg_ctl's immediate stop, on a loaded machine

HOLDING = """
import signal


def test_holds_the_server(postgres):
    pid = (postgres.dir / "data" / "postmaster.pid").read_text().split()[0]
    print(f"postgres {pid} watched by {postgres.watcher.pid} in {postgres.dir}", flush=True)
    signal.pause()  # until the run is killed
"""


def test_a_killed_run_leaves_no_postgres_behind(tmp_path: Path) -> None:
    if PostgresServer.binaries() is None:
        missing("initdb/pg_ctl are not installed (Debian package postgresql)")
    (tmp_path / "test_holding.py").write_text(HOLDING, encoding="utf-8")
    with processes() as started:
        # -s: the held test's line on the run's output, as it prints it.
        # A group of its own, killed whole, as a CI job's timeout kills its job.
        run = started.start(
            pytest_of(tmp_path / "test_holding.py", "-s", "-q"), cwd=ROOT, start_new_session=True
        )
        said = read_until(run, r"postgres (\d+) watched by (\d+) in (\S+)", 120)
        server, watcher, directory = int(said[1]), int(said[2]), Path(said[3])
        try:
            assert alive(server) and alive(watcher)
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(timeout=30)
            deadline = time.monotonic() + GONE_SECONDS
            while alive(server) or alive(watcher) or directory.exists():
                assert time.monotonic() < deadline, (
                    f"{GONE_SECONDS} s after the run was killed: server running "
                    f"{alive(server)}, watcher running {alive(watcher)}, "
                    f"directory there {directory.exists()}"
                )
                time.sleep(0.05)
        finally:
            _stop_left_behind(server, directory)


def _stop_left_behind(server: int, directory: Path) -> None:
    """What the watcher should have done, when it did not: nothing left after a failure."""
    found = PostgresServer.binaries()
    if found is not None and (directory / "data" / "postmaster.pid").exists():
        as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        command = [*as_user, found[1], "-D", str(directory / "data"), "-m", "immediate", "stop"]
        subprocess.run(command, capture_output=True, check=False, timeout=60)
    if alive(server):
        os.kill(server, signal.SIGKILL)
    shutil.rmtree(directory, ignore_errors=True)
