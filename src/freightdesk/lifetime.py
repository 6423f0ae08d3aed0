"""How long the local service lives: shared by `freightdesk serve` and by the app that starts
it (`service/local_service.py`), so both read one file format. Standard library only.

- One data directory, one service. The service holds an exclusive lock on `service.lock` in
  its data directory for as long as it runs (the OS releases it however the process ends) and
  writes its pid, then its URL, into that file. A second service on the directory refuses to
  start and names the first; the app reads the file to use the running service instead of
  starting a second one (`holder`).
- While it upgrades its database's schema (after an update, before it listens) it writes how
  far that has got into the same file (`ServiceLock.note_upgrading`): another window's app,
  which cannot read this service's output, waits as long as the upgrade goes on and says so.
  A service that cannot start leaves why in the file as it ends (`ServiceLock.fail`,
  `failure`).
- The service never outlives the app. The app hands the service the read end of a pipe
  (`--parent-pipe FD`) whose write end only the app holds. However the app ends (quit, crash,
  SIGKILL), the OS closes that end (or, sooner on a busy machine, the app's main process is
  seen gone): the service reads end-of-file and stops as on SIGTERM
  (workers, simulator and database closed), or exits at once if that takes too long
  (`watch_parent`). Nothing depends on the app saying goodbye.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

LOCK_FILE = "service.lock"
PARENT_PIPE_OPTION = "--parent-pipe"
# After the app is gone: the clean stop's time before the service exits at once. The app's
# promise is a service gone within 5 s of the app, however it ended.
HARD_EXIT_SECONDS = 3.5
# A service starting waits this long for the lock while the app reads who holds it (the app
# holds a shared lock for the few microseconds of that read).
LOCK_WAIT_SECONDS = 0.5
EXIT_PARENT_GONE = 3
# How often the app is looked at, besides the pipe (see _ended).
PARENT_CHECK_SECONDS = 0.25


@dataclass(frozen=True)
class Upgrade:
    """How far a service's upgrade of its database's schema has got."""

    version: int  # the migration under way
    done: int | None  # its share done, in percent, where it can tell


@dataclass(frozen=True)
class Holder:
    """The local service serving a data directory."""

    pid: int
    url: str | None  # None until it listens (while it opens the database, seeds the demo)
    upgrading: Upgrade | None = None  # while it upgrades its database, before it listens

    def describe(self) -> str:
        if self.url is None:
            return f"the local service starting there (pid {self.pid})"
        return f"the local service at {self.url} (pid {self.pid})"


class DataDirInUse(Exception):
    """Another local service serves this data directory."""

    def __init__(self, data_dir: Path, holder: Holder | None) -> None:
        self.holder = holder
        who = holder.describe() if holder else "another local service"
        super().__init__(f"the data directory {data_dir} is already served by {who}")


if sys.platform == "win32":  # pragma: no cover (no flock: one service per directory unchecked)

    def _try_lock(fd: int, *, exclusive: bool) -> bool:
        return True

    def _unlock(fd: int) -> None:
        pass

else:
    import fcntl

    def _try_lock(fd: int, *, exclusive: bool) -> bool:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _parse(text: str) -> Holder | None:
    try:
        data = json.loads(text)
        upgrading = data.get("upgrading")
        upgrade = None
        if upgrading is not None:
            done = upgrading["done"]
            upgrade = Upgrade(int(upgrading["version"]), None if done is None else int(done))
        return Holder(pid=int(data["pid"]), url=data.get("url") or None, upgrading=upgrade)
    except (ValueError, KeyError, TypeError):
        return None


class ServiceLock:
    """A data directory's exclusive lock, held by this process until `release` or its end."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def take(cls, data_dir: Path) -> ServiceLock:
        """Lock `data_dir` for this process; raises DataDirInUse naming the service holding it."""
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / LOCK_FILE
        # Not inherited by children (os.open's default): only this process holds the lock.
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while not _try_lock(fd, exclusive=True):
            if time.monotonic() > deadline:
                os.close(fd)
                raise DataDirInUse(data_dir, holder(data_dir))
            time.sleep(0.02)
        lock = cls(fd, path)
        lock._write({"pid": os.getpid()})
        return lock

    def announce(self, url: str) -> None:
        """Tell the app (and a second service) where this service answers."""
        self._write({"pid": os.getpid(), "url": url})

    def note_upgrading(self, upgrade: Upgrade) -> None:
        """Tell another window's app (which cannot read this service's output) how the
        upgrade of the database goes: it waits for this service as long as that goes on."""
        done = {"version": upgrade.version, "done": upgrade.done}
        self._write({"pid": os.getpid(), "upgrading": done})

    def fail(self, why: str) -> None:
        """Release the lock, leaving why this service could not start (`failure`) for an app
        that waited for it."""
        self._write({"pid": os.getpid(), "failed": why})
        assert self._fd is not None
        os.close(self._fd)
        self._fd = None

    def _write(self, data: dict[str, object]) -> None:
        assert self._fd is not None, "the lock was released"
        text = json.dumps(data).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, text, 0)

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the only descriptor releases the lock
            self._fd = None


def holder(data_dir: Path, *, wait: float = 0.5) -> Holder | None:
    """The service holding `data_dir`, or None when no service does. A service that has just
    taken the lock is given up to `wait` seconds to write its pid."""
    path = data_dir / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        if _try_lock(fd, exclusive=False):
            _unlock(fd)
            return None  # nobody holds it: a file left by a service that ended
        deadline = time.monotonic() + wait
        while (found := _parse(os.pread(fd, 4096, 0).decode("utf-8", "replace"))) is None:
            if time.monotonic() > deadline:
                return None if _try_lock(fd, exclusive=False) else Holder(pid=0, url=None)
            time.sleep(0.02)
        return found
    finally:
        os.close(fd)


def failure(data_dir: Path, pid: int) -> str | None:
    """Why the service `pid`, which held `data_dir`, could not start, when it said so as it
    ended (`ServiceLock.fail`) and no service has taken the directory since."""
    try:
        data = json.loads((data_dir / LOCK_FILE).read_text("utf-8", "replace"))
        why = data["failed"] if data["pid"] == pid else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return why if isinstance(why, str) else None


def parent_pipe() -> tuple[int, int] | None:
    """A pipe for `--parent-pipe`: (read end for the child, write end the app keeps), or None
    where a child cannot inherit it (Windows). Neither end is inherited by other children."""
    if os.name != "posix":  # pragma: no cover
        return None
    return os.pipe()


class ChildPipe:
    """A `parent_pipe` handed to a child while it is started (`with ChildPipe() as pipe:`):
    `read` for its `--parent-pipe`, `fds` to pass it (none where a child cannot inherit it).
    When the block ends the child's end is closed here, and the app keeps `write`: closed as
    well if the block failed (the child was not started)."""

    def __init__(self) -> None:
        pipe = parent_pipe()
        self.read: int | None = pipe[0] if pipe else None
        self._write: int | None = pipe[1] if pipe else None
        self.write: int | None = None

    @property
    def fds(self) -> tuple[int, ...]:
        return () if self.read is None else (self.read,)

    def __enter__(self) -> ChildPipe:
        return self

    def __exit__(self, failure: type[BaseException] | None, *_: object) -> None:
        if self.read is not None:
            os.close(self.read)
        if failure is None:
            self.write = self._write
        elif self._write is not None:
            os.close(self._write)


def _ended(parent: int) -> bool:
    """Whether the app (this process's parent) has ended, though its end of the pipe may
    still be open: a killed app's last thread can take seconds to die on a busy machine
    (seen: Mesa's shader-cache thread), and the pipe closes only then. Its main thread gone
    (a zombie, or no longer this process's parent) is the end the user sees."""
    if os.getppid() != parent:
        return True
    try:
        state = Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False  # no /proc here: the pipe alone tells
    return state in ("Z", "X")


def watch_parent(fd: int, *, hard_exit_after: float = HARD_EXIT_SECONDS) -> threading.Thread:
    """Stop this process once the write end of the pipe `fd` is closed, that is once the app
    that started it has ended, however it ended: SIGTERM to itself (the service's clean stop,
    or the end before the service runs), then an immediate exit if that has not ended it
    within `hard_exit_after` seconds."""
    os.set_inheritable(fd, False)  # the service's own children do not keep it
    parent = os.getppid()

    def watch() -> None:
        with contextlib.suppress(OSError):
            while True:
                ready = select.select([fd], [], [], PARENT_CHECK_SECONDS)[0]
                if ready and not os.read(fd, 512):  # the app never writes: read is ignored
                    break
                if not ready and _ended(parent):
                    break
        log.warning("the app that started this local service has ended: stopping")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(hard_exit_after)
        log.error("the local service did not stop within %.1f s: exiting at once", hard_exit_after)
        for handler in logging.getLogger().handlers:
            with contextlib.suppress(Exception):
                handler.flush()
        os._exit(EXIT_PARENT_GONE)

    thread = threading.Thread(target=watch, name="parent-watch", daemon=True)
    thread.start()
    return thread
