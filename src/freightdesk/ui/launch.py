"""The app's start, first step: the window with the cached shipment list, painted before the
rest of the app is loaded.

What a dispatcher waits for at start is the list. This step imports only Qt's widgets, the
standard library and the modules the list needs (no pydantic, asyncio, qasync, API client
or QtWebEngine: together they take longer than a bare Qt window takes to show), reads the
active profile's cached list, and shows the window. Once the list is painted,
`application.run_attached` loads the rest, attaches the window to the session and runs the
event loop; until then the window shows the list and the status "Connecting".
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject, QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from freightdesk.service.cache import Cache
from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileStore
from freightdesk.service.secrets import SystemSecretStore
from freightdesk.service.summary_rows import SummaryRow, cached_rows, first_screen
from freightdesk.ui.garbage import GuiThreadGarbageCollector
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.maps.warm import prepare_window
from freightdesk.ui.panes.setup import add_panes
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.theme import ThemeChoice, apply_theme

log = logging.getLogger(__name__)

# How long the start waits for the list's first paint before going on regardless (a window
# started minimized is never painted).
FIRST_PAINT_TIMEOUT_MS = 1000


def prepare_qt_environment() -> None:
    """Settings Qt reads at start-up, before the QApplication exists."""
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


def app_settings(paths: AppPaths) -> QSettings:
    return QSettings(str(paths.config_dir / "freightdesk.ini"), QSettings.Format.IniFormat)


def theme_setting(settings: QSettings) -> ThemeChoice:
    value = str(settings.value("theme", ThemeChoice.SYSTEM.value))
    try:
        return ThemeChoice(value)
    except ValueError:
        return ThemeChoice.SYSTEM


def read_cached_list(paths: AppPaths, profile: Profile, order: str) -> tuple[list[SummaryRow], int]:
    """The profile's cached shipment list sorted by `order` and its length: only its first
    screen when the last run kept it (`summary_rows.first_screen`: reading 10,000 rows takes
    as long as Qt takes to show a window), else every row. Nothing when there is no cache
    yet or it cannot be read (the session reads it again, and says what is wrong)."""
    path = paths.cache_file(profile.id)
    if not path.exists():
        return [], 0
    try:
        cache = Cache(path)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be opened")
        return [], 0
    try:
        screen = first_screen(cache, order)
        if screen is not None:
            return screen
        rows = cached_rows(cache)
        return rows, len(rows)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be read")
        return [], 0
    finally:
        cache.close()


def open_window(
    paths: AppPaths, settings: QSettings, profiles: ProfileStore
) -> tuple[MainWindow, ShipmentsPane]:
    """The main window with its panes, not yet attached to a session, the Shipments pane
    showing the active profile's cached list."""
    window = MainWindow(None, settings, paths)
    prepare_window(window)  # before it is shown: no new native window when a map joins it
    shipments = add_panes(window)
    window.restore_pane()
    profile = profiles.active
    window.indicator.show_status(
        ConnectionStatus(ConnectionState.CONNECTING, profile.name, f"Connecting to {profile.name}")
    )
    rows, total = read_cached_list(paths, profile, shipments.model.sort_name())
    if len(rows) < total:
        log.info(
            "painting the first %s of %s cached shipments kept at the last close",
            len(rows),
            f"{total:,}",
        )
    shipments.show_cached(rows, total)
    return window, shipments


class FirstPaint(QObject):
    """Calls `then` once `widget` has been painted (from the event loop, so after the paint
    has reached the screen)."""

    def __init__(self, widget: QWidget, then: Callable[[], None]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._then = then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            self._widget.removeEventFilter(self)
            QTimer.singleShot(0, self._then)
        return False


def wait_for_first_paint(widget: QWidget, timeout_ms: int = FIRST_PAINT_TIMEOUT_MS) -> None:
    """Process events until `widget` is painted (or `timeout_ms` passed)."""
    loop = QEventLoop()
    watch = FirstPaint(widget, loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    widget.update()
    loop.exec()
    watch.deleteLater()


def run(
    argv: Sequence[str] | None = None, *, on_first_paint: Callable[[], None] | None = None
) -> int:
    """The desktop app (`freightdesk`). `on_first_paint` is called once the cached list is
    on screen (the start-up benchmark measures up to there)."""
    started = time.perf_counter()
    prepare_qt_environment()
    app = QApplication(list(argv) if argv is not None else sys.argv)
    app.setApplicationName("FreightDesk")
    app.setOrganizationName("FreightDesk")
    app.setDesktopFileName("freightdesk")
    app.setQuitOnLastWindowClosed(False)
    # Collection on the GUI thread only, from now on: the start makes many objects at once.
    collector = GuiThreadGarbageCollector(app)
    early = EarlyRecords()
    logging.getLogger().handlers[:] = [early]
    logging.getLogger().setLevel(logging.INFO)
    log.info("FreightDesk starting")
    paths = AppPaths.for_user()
    settings = app_settings(paths)
    apply_theme(app, theme_setting(settings))
    profiles = ProfileStore(paths.profiles_file, SystemSecretStore())
    window, shipments = open_window(paths, settings, profiles)
    window.show()
    wait_for_first_paint(shipments.table.viewport())
    log.info(
        "%s cached shipments on screen %.0f ms after the start",
        f"{shipments.model.total:,}",
        (time.perf_counter() - started) * 1000,
    )
    if on_first_paint is not None:
        on_first_paint()
    configure_app_logging(paths, early.records)
    if window.is_closed():  # closed while it was being painted: nothing more to start
        log.info("FreightDesk closed while starting")
        settings.sync()
        collector.stop()
        return 0

    from freightdesk.ui.application import run_attached

    return run_attached(app, collector, window, shipments, profiles)
