"""The app's start, first step: the window with the cached shipment list, painted before the
rest of the app is loaded.

What a dispatcher waits for at start is the list. This step imports only Qt's widgets, the
standard library and the modules the list needs (no pydantic, asyncio, qasync, API client
or QtWebEngine: together they take longer than a bare Qt window takes to show), reads the
active profile's cached list, and shows the window. Once the list is painted,
`application.run_attached` loads the rest, attaches the window to the session and runs the
event loop; until then the window shows the list and the status "Connecting".

The start is a straight line: this module and `application` both build on `first_paint`
(the window, the cached list, the wait for the paint), and `run` imports `application` only
once the list is painted, to keep the first paint fast. Before all of it, Qt included, a
first run begins its local service (`service.first_run`): there the user waits for the
service and its demo, not for the window, and both start at once. So this module loads
nothing of Qt until `run` has begun that. A later start begins its service once the list is
painted, beside the rest of the app's loading rather than after it.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import NoReturn

from freightdesk.service import first_run
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import SystemSecretStore

log = logging.getLogger(__name__)

# Set (to anything), the app prints "first paint <ms> ms" once the list is painted and quits
# as a user would: the start measured from outside the process, where no `on_first_paint`
# can be passed (the frozen bundle beside the source install: bench/bench_frozen.py).
EXIT_AFTER_FIRST_PAINT = "FREIGHTDESK_EXIT_AFTER_FIRST_PAINT"


class Termination:
    """SIGTERM (logout, shutdown, `kill`) at any moment of the start ends the app as Quit
    does, with exit code 0 and its local service stopped. Its default action would end the
    process at once, and a first run's service is begun before Qt is even loaded: seconds
    before the event loop, where the window can be closed, runs (at a load of 12 to 15 a
    SIGTERM came in between, and the app ended with -15). So the handler is installed as the
    start's first step (`install`) and only notes the request while nothing can act on it;
    the start ends at its next step (`requested`), and once the window is attached to its
    controller, `act_with` has the request close it (at once when it came meanwhile)."""

    def __init__(self) -> None:
        self.requested = False
        self._act: Callable[[], None] | None = None

    def install(self) -> None:
        signal.signal(signal.SIGTERM, self._handle)

    def _handle(self, _signum: int, _frame: FrameType | None) -> None:
        self.requested = True
        if self._act is not None:
            self._act()

    def act_with(self, act: Callable[[], None] | None) -> None:
        """From now on a SIGTERM calls `act` (None: only noted); called now if one came."""
        self._act = act
        if act is not None and self.requested:
            act()


termination = Termination()


def prepare_qt_environment() -> None:
    """Settings Qt reads at start-up, before the QApplication exists."""
    from PySide6.QtCore import QCoreApplication, Qt

    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # QtWebEngine's sandbox cannot run as root (containers, CI machines).
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    # QtWebEngine is loaded when a map is first shown, after the QApplication exists; Qt
    # allows that when contexts are shared (otherwise it must be imported before).
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


def configure_app_logging(paths: AppPaths, early: Sequence[logging.LogRecord] = ()) -> None:
    """The log file (rotated at 5 MB), with the `early` records written first."""
    import logging.handlers

    paths.log_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        paths.log_file, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    for record in early:
        root.handle(record)


class EarlyRecords(logging.Handler):
    """Keeps what is logged before the log file is set up, which happens after the first
    paint (the rotating file handler's module and what it loads take 15 ms)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def run(
    argv: Sequence[str] | None = None, *, on_first_paint: Callable[[], None] | None = None
) -> int:
    """The desktop app (`freightdesk`). `on_first_paint` is called once the cached list is
    on screen (the start-up benchmark measures up to there)."""
    termination.install()
    paths = AppPaths.for_user()
    profiles = ProfileStore(paths.profiles_file, SystemSecretStore())
    # A first run waits for the local service (its start, its demo's first shipments), not
    # for the window: it is begun before Qt is even loaded, and starts beside the window.
    first_run.begin(paths.local_service_dir, profiles.active)
    try:
        if termination.requested:
            return 0
        return _run(argv, paths, profiles, on_first_paint)
    finally:
        first_run.abandon()  # not taken over: the app ended before it connected


def _run(
    argv: Sequence[str] | None,
    paths: AppPaths,
    profiles: ProfileStore,
    on_first_paint: Callable[[], None] | None,
) -> int:
    from PySide6.QtWidgets import QApplication

    # Just after Qt's own exit handler, registered as Qt loaded (see end_process).
    end_before_qt_teardown()
    if termination.requested:  # while Qt loaded (a second or more on a busy machine)
        return 0
    from freightdesk.ui.first_paint import (
        app_settings,
        open_window,
        theme_setting,
        wait_for_first_paint,
    )
    from freightdesk.ui.garbage import GuiThreadGarbageCollector
    from freightdesk.ui.theme import apply_theme
    from freightdesk.ui.widgets.wheel_guard import install_wheel_guard

    started = time.perf_counter()  # as before the start began the service: Qt loaded
    prepare_qt_environment()
    app = QApplication(list(argv) if argv is not None else sys.argv)
    app.setApplicationName("FreightDesk")
    app.setOrganizationName("FreightDesk")
    app.setDesktopFileName("freightdesk")
    app.setQuitOnLastWindowClosed(False)
    install_wheel_guard(app)  # the wheel scrolls forms, not the drop-down under the pointer
    # Collection on the GUI thread only, from now on: the start makes many objects at once.
    collector = GuiThreadGarbageCollector(app)
    early = EarlyRecords()
    logging.getLogger().handlers[:] = [early]
    logging.getLogger().setLevel(logging.INFO)
    log.info("FreightDesk starting")
    settings = app_settings(paths)
    apply_theme(app, theme_setting(settings))
    window, shipments = open_window(paths, settings, profiles)
    window.show()
    wait_for_first_paint(shipments.table.viewport())
    painted_ms = (time.perf_counter() - started) * 1000
    log.info(
        "%s cached shipments on screen %.0f ms after the start",
        f"{shipments.model.total:,}",
        painted_ms,
    )
    if on_first_paint is not None:
        on_first_paint()
    if os.environ.get(EXIT_AFTER_FIRST_PAINT):
        print(f"first paint {painted_ms:.0f} ms", flush=True)
        window.close()
    configure_app_logging(paths, early.records)
    if termination.requested:  # while the window was made or painted
        window.close_without_asking()
    if window.is_closed():  # closed while it was being painted: nothing more to start
        log.info("FreightDesk closed while starting")
        settings.sync()
        collector.stop()
        return 0
    # A later start's local service, from now on beside the rest of the app's loading
    # (a first run's was begun before Qt loaded).
    first_run.begin_later(paths.local_service_dir, profiles)

    from freightdesk.ui.application import run_attached

    return run_attached(app, collector, window, shipments, profiles, termination.act_with)


# The code `end_process` ends the process with; None until it is called.
_exit_code: int | None = None


def end_before_qt_teardown() -> None:
    """Have `end_process` end the process just before Qt's teardown. Called once Qt is
    loaded: this registers an exit handler after Qt's, and exit handlers run last registered
    first, so those of everything loaded after Qt (the rest of the app and its libraries)
    run as at any exit, then this one ends the process, before Qt's and the interpreter's
    teardown of every object."""
    atexit.register(_end_now)


def _end_now() -> None:
    if _exit_code is None:
        return  # not ended by end_process (an uncaught error): the interpreter's usual end
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):  # none, or closed
            stream.flush()
    os._exit(_exit_code)


def end_process(code: int) -> NoReturn:
    """End the app's process once `run` has returned, as the interpreter ends it (its threads
    waited for, the exit handlers registered after Qt run) but without Qt's and the
    interpreter's teardown of every object it made (QApplication, QtWebEngine's profile,
    100,000 cached rows: 1 to 3 s on a busy machine, with the window gone, the QtWebEngine
    helpers waiting for it; see `end_before_qt_teardown`). Nothing is lost by skipping it:
    by then the pending saves have run, the cache and the settings are written and closed,
    and the local service has stopped (`AppController.shutdown`); the log is written out
    last."""
    global _exit_code
    _exit_code = code
    raise SystemExit(code)
