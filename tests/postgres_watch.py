"""Stops a test run's PostgreSQL once that run has ended, however it ended.

`tests.support.PostgresServer` starts this (standard library only: it runs as a script)
before `initdb`, its standard input the read end of a pipe whose write end only the test run
holds. When the run ends, even by SIGKILL (a CI timeout), the pipe reads end-of-file: the
server is stopped (`pg_ctl stop -m immediate`) and its directory removed. A run that ends as
it should closes the pipe itself and waits for this. It runs in a session of its own, as the
server does (pg_ctl gives it one), so a signal to the run's process group leaves it to stop
the server.

    python postgres_watch.py <directory> <pg_ctl> [<command prefix>...]

`<command prefix>` runs pg_ctl as the server's user (`runuser -u postgres --` under root).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

STOP_SECONDS = 60  # pg_ctl's own wait for the server to go


def main() -> int:
    directory, pg_ctl, prefix = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    # Ctrl+C in a terminal reaches the run, whose teardown then closes the pipe; SIGTERM to
    # this alone still stops the server first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda _signal, _frame: sys.exit(0))
    try:
        while sys.stdin.buffer.read(4096):
            pass  # nothing is written: only the end of the pipe is awaited
    finally:
        data = directory / "data"
        if (data / "postmaster.pid").exists():
            subprocess.run(
                [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
                timeout=STOP_SECONDS,
            )
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
