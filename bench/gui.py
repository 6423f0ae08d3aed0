"""What the desktop app's benchmarks share: the GUI thread's probe, the home with a cached
list, and the Shipments pane run in a process of its own (a snippet, `run_snippet`).

A snippet sets up its pane with `session_at`, `shown_pane` and `run_gui`, as the app does,
and prints its figures as one JSON line last, which `run_snippet` hands back. Qt is imported
where it is used: the benchmarks' parent processes import this module without it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freightdesk.service.session import AppSession
    from freightdesk.ui.panes.shipments.pane import ShipmentsPane

ROOT = Path(__file__).resolve().parents[1]


class Probe:
    """The longest gap between the ticks of a timer (5 ms unless told) on the GUI thread,
    from its making to `stop`: the longest the window could not answer (every GUI stall
    here, beside the same probe with nothing to do)."""

    def __init__(self, interval_ms: int = 5) -> None:
        from PySide6.QtCore import QTimer

        self.ticks = 0
        self.longest = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.ticks += 1
        self.longest, self._last = max(self.longest, now - self._last), now

    def stop(self) -> float:
        """The longest gap, in ms."""
        self._timer.stop()
        return self.longest * 1000


def prepare_home(root: Path, count: int) -> None:
    """A user with a remote profile (unreachable now) and `count` shipments in its cache."""
    import random

    from bench.summaries import summaries
    from freightdesk.service.cache import Cache
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, row_json

    paths = AppPaths.under(root)
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    profile = {
        "id": "team",
        "name": "Team server",
        "kind": "remote",
        "base_url": "http://127.0.0.1:9",
        "client_id": "bench",
        "credentials_in": "basic",
        "poll_interval": 30.0,
    }
    paths.profiles_file.write_text(json.dumps({"active": "team", "profiles": [profile]}))
    cache = Cache(paths.cache_file("team"))
    rows = summaries(count, random.Random(3))
    cached = (SummaryRow.from_summary(s) for s in rows)
    cache.replace_kind(SUMMARIES, ((row.id, row_json(row)) for row in cached))
    cache.close()


# Marks a cached home made whole; its number changes when the cache's layout does, so that
# a home an older version made is made again (2: the list's keys indexed as in b620905).
_MADE = "bench-app-2.done"


def cached_home(count: int) -> Path:
    """The home of `prepare_home` with `count` shipments, made once and kept under /tmp
    (100,000 summaries take 10 to 20 s to build)."""
    home = Path(tempfile.gettempdir()) / f"freightdesk-bench-app-{count}"
    if not (home / _MADE).exists():
        shutil.rmtree(home, ignore_errors=True)
        prepare_home(home, count)
        (home / _MADE).touch()
    return home


@contextmanager
def home_copy(home: Path) -> Iterator[Path]:
    """A copy of `home`, removed after: a pane writes to its cache."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "home"
        shutil.copytree(home, copy)
        yield copy


def run_snippet(code: str, *args: str, timeout: float = 300) -> dict[str, Any]:
    """`code` run as a fresh process with `args` (offscreen, from the checkout, so that it
    imports `bench`); the JSON line it prints last."""
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        cwd=ROOT,
    )
    if result.returncode != 0 or not result.stdout.strip():
        raise RuntimeError(result.stdout[-2000:] + result.stderr[-3000:])
    found: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def session_at(home: Path, remote: tuple[str, str, str] | None = None) -> AppSession:
    """The app's session of `home`, not connected; with `remote` (URL, client id, secret)
    its profile made and chosen first."""
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
    from freightdesk.service.secrets import MemorySecretStore
    from freightdesk.service.session import AppSession

    paths = AppPaths.under(home)
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    if remote is not None:
        url, client_id, secret = remote
        profile = profiles.save(
            Profile(
                id="",
                name="Bench",
                kind=ProfileKind.REMOTE,
                base_url=url,
                client_id=client_id,
                poll_interval=3600,
            ),
            secret=secret,
        )
        profiles.activate(profile.id)
    return AppSession(paths, profiles, simulate=False)


def shown_pane(session: AppSession, home: Path) -> ShipmentsPane:
    """The Shipments pane of `session`, shown at a desktop window's size."""
    from PySide6.QtCore import QSettings

    from freightdesk.ui.panes.shipments.pane import ShipmentsPane

    pane = ShipmentsPane(session, QSettings(str(home / "bench.ini"), QSettings.Format.IniFormat))
    pane.resize(1300, 800)
    pane.show()
    return pane


def run_gui(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """`main` run to its end on Qt's event loop (qasync), with the app's garbage collector
    on the GUI thread, as the app runs."""
    import asyncio

    import qasync
    from PySide6.QtWidgets import QApplication

    from freightdesk.ui.garbage import GuiThreadGarbageCollector

    app = QApplication([])
    collector = GuiThreadGarbageCollector(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(main())
    collector.stop()
