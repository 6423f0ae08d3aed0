"""Application start: Qt, the asyncio loop (qasync), the session, the main window.

The start is ordered so the dispatcher sees the shipment list from the cache first: only the
window and the Shipments pane are made before the window shows; once the cached list is on
screen, the modules the connection needs are loaded in a worker thread (the API client and
every area's models take a third of a second to import), then the session connects (starting
the local service in the background) and the capacity panes are made in idle moments. The
other panes are made the first time they are shown.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import logging.handlers
import os
import signal
import sys
from collections.abc import Sequence

# qasync picks its Qt binding from QT_API when it is imported.
os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSettings, Qt
from PySide6.QtWidgets import QApplication, QWidget

from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import SecretStore, system_secret_store
from freightdesk.service.session import AppSession
from freightdesk.ui.garbage import GuiThreadGarbageCollector
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.setup import install_panes
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.tasks import cancel_all, spawn
from freightdesk.ui.theme import ThemeChoice, apply_theme

log = logging.getLogger(__name__)


def configure_app_logging(paths: AppPaths) -> None:
    paths.log_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        paths.log_file, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


# Loaded in a worker thread once the cached list shows: what connecting needs (the API client
# with every area's models, the local service's supervisor) and the services of the panes made
# soon after. Only modules without Qt: Qt's classes are best made on the GUI thread.
PRELOADED = (
    "freightdesk.api.client",
    "freightdesk.service.local_service",
    "freightdesk.service.messages",
    "freightdesk.service.rating",
    "freightdesk.service.bookings",
    "freightdesk.service.packages",
)
# How long the start waits for the cached list, then for its first paint, before connecting
# regardless (a window started minimized is never painted).
CACHED_LIST_TIMEOUT = 10.0
FIRST_PAINT_TIMEOUT = 1.0


def prepare_qt_environment() -> None:
    """Settings Qt reads at start-up, before the QApplication exists."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # QtWebEngine's sandbox cannot run as root (containers, CI machines).
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    # QtWebEngine is loaded when a map is first shown, after the QApplication exists; Qt
    # allows that when contexts are shared (otherwise it must be imported before).
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    # Registers the maps' URL scheme, which Qt accepts only before the QApplication exists.
    importlib.import_module("freightdesk.ui.maps")


def preload(modules: Sequence[str] = PRELOADED) -> None:
    for name in modules:
        importlib.import_module(name)


async def load_for_connecting() -> None:
    """Load what connecting needs in a worker thread, then set the objects made so far
    (modules, the window, the cached list) apart from garbage collection.

    Automatic collection is off in the app (ui/garbage.py collects on the GUI thread); its
    first pass over everything made at start-up (10,000 cached rows, the API client's
    models) would hold the window for 100 to 300 ms. Those objects live as long as the app,
    so they are frozen instead: later passes look only at what is made afterwards."""
    await asyncio.to_thread(preload)
    gc.freeze()


class FirstPaint(QObject):
    """Resolves `painted` when `widget` is first painted."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._widget = widget
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            if not self.painted.done():
                self.painted.set_result(None)
            self._widget.removeEventFilter(self)
        return False


def theme_setting(settings: QSettings) -> ThemeChoice:
    value = str(settings.value("theme", ThemeChoice.SYSTEM.value))
    try:
        return ThemeChoice(value)
    except ValueError:
        return ThemeChoice.SYSTEM


class AppController:
    """Owns the session and the window for the life of the app."""

    def __init__(
        self,
        paths: AppPaths,
        *,
        secrets: SecretStore | None = None,
        local_service_args: Sequence[str] = (),
        simulate: bool = True,
    ) -> None:
        self.paths = paths
        ini = str(paths.config_dir / "freightdesk.ini")
        self.settings = QSettings(ini, QSettings.Format.IniFormat)
        self.profiles = ProfileStore(paths.profiles_file, secrets or system_secret_store())
        self.session = AppSession(
            paths, self.profiles, local_service_args=tuple(local_service_args), simulate=simulate
        )
        self._closed = asyncio.Event()
        self.window = MainWindow(self.session, self.settings, paths)
        install_panes(self.window, self.session)
        self.window.restore_pane()
        self.window.closing.connect(self._closed.set)
        self.window.profileSwitchRequested.connect(self.window.switch_profile)

    def start(self) -> None:
        """Show the window; connect once the cached list is on screen."""
        self.window.show()
        spawn(self._start_in_background(), name="start")

    async def _start_in_background(self) -> None:
        pane = self.window.pane("shipments")
        assert isinstance(pane, ShipmentsPane)
        try:
            await asyncio.wait_for(pane.cached_list_shown(), CACHED_LIST_TIMEOUT)
        except TimeoutError:
            log.warning("the cached shipment list took over %s s to load", CACHED_LIST_TIMEOUT)
        if pane.isVisible():
            painted = FirstPaint(pane.table.viewport())
            pane.table.viewport().update()
            try:
                await asyncio.wait_for(painted.painted, FIRST_PAINT_TIMEOUT)
            except TimeoutError:
                log.info("the shipment list was not painted within %s s", FIRST_PAINT_TIMEOUT)
        await load_for_connecting()

        def failed(error: BaseException) -> None:
            from freightdesk.service.messages import explain

            self.window.show_error(explain(error))

        spawn(self.session.connect(), on_error=failed, name="connect")
        # The capacity panes, then freezing what they made too (see load_for_connecting).
        self.window.warm_up(done=gc.freeze)

    async def run(self) -> None:
        self.start()
        await self._closed.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        await cancel_all()
        await self.session.close()
        self.settings.sync()
        gc.unfreeze()  # what start-up set apart can be collected again


def run(argv: Sequence[str] | None = None) -> int:
    prepare_qt_environment()
    app = QApplication(list(argv) if argv is not None else sys.argv)
    app.setApplicationName("FreightDesk")
    app.setOrganizationName("FreightDesk")
    app.setDesktopFileName("freightdesk")
    app.setQuitOnLastWindowClosed(False)
    paths = AppPaths.for_user()
    configure_app_logging(paths)
    collector = GuiThreadGarbageCollector(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    controller = AppController(paths)
    apply_theme(app, theme_setting(controller.settings))
    # SIGTERM (logout, kill) closes the window as Quit does, so the Local sandbox's service is
    # stopped too, but without a question nobody is there to answer. The collector's timer
    # lets Python run the handler promptly.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: controller.window.close_without_asking())
    log.info("FreightDesk starting")
    with loop:
        loop.run_until_complete(controller.run())
    collector.stop()
    return 0
