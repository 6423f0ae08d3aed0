"""Real processes in tests: started, watched, and always ended, even when a test fails."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

SERVE = [sys.executable, "-m", "freightdesk.cli", "serve", "--port", "0"]


def pytest_of(test_file: Path, *options: str) -> list[str]:
    """A pytest run of `test_file` alone, with the suite's fixtures (tests/conftest.py) and
    its folder as the run's root; run it from the repository's root."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "tests.conftest",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(test_file.parent),
        *options,
        str(test_file),
    ]


class Processes:
    """Starts processes and, at the end, kills those still running and every process that
    claimed one of `watched_dirs` (a local service started by an app under test)."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[bytes]] = []
        self.watched_dirs: list[Path] = []
        self.fds: list[int] = []  # pipe ends the test holds, closed at the end if still open

    def close_fd(self, fd: int) -> None:
        self.fds.remove(fd)
        os.close(fd)

    def start(self, command: Sequence[str], **options: object) -> subprocess.Popen[bytes]:
        streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        process: subprocess.Popen[bytes] = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            **{**streams, **options},  # type: ignore[call-overload]
        )
        self.started.append(process)
        return process

    def end_all(self) -> None:
        from freightdesk import lifetime

        while self.fds:
            os.close(self.fds.pop())
        pids = [p.pid for p in self.started if p.poll() is None]
        for directory in self.watched_dirs:
            found = lifetime.holder(directory, wait=0)
            if found is not None and found.pid:
                pids.append(found.pid)
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for process in self.started:
            process.wait(timeout=30)
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
        for pid in pids:
            gone_within(pid, 30)


@contextmanager
def processes() -> Iterator[Processes]:
    owner = Processes()
    try:
        yield owner
    finally:
        owner.end_all()


def read_until(process: subprocess.Popen[bytes], pattern: str, seconds: float) -> re.Match[str]:
    """The first line of the process's output (stdout) matching `pattern`; fails once the
    process ended or `seconds` passed without one."""
    assert process.stdout is not None
    deadline = time.monotonic() + seconds
    seen: list[str] = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not selector.select(left):
                continue
            raw = process.stdout.readline()
            if not raw:
                break  # the process closed its output: it ended
            line = raw.decode("utf-8", "replace")
            seen.append(line)
            if found := re.search(pattern, line):
                return found
    raise AssertionError(
        f"no line matching {pattern!r} within {seconds} s (exit code {process.poll()}); "
        f"output: {''.join(seen)[-2000:]!r}"
    )


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone_within(pid: int, seconds: float) -> float:
    """Seconds until process `pid` ended; fails if it still runs after `seconds`."""
    started = time.monotonic()
    while alive(pid):
        waited = time.monotonic() - started
        assert waited < seconds, f"process {pid} still runs after {seconds} s"
        time.sleep(0.05)
    return time.monotonic() - started
