"""Application start: Qt, the asyncio loop (qasync), the session, the main window."""

from __future__ import annotations

import asyncio
import logging
import logging.handlers
import os
import signal
import sys
from collections.abc import Sequence

# qasync picks its Qt binding from QT_API when it is imported.
os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6 import QtWebEngineWidgets  # noqa: F401  (must load before QApplication)
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from freightdesk.service.messages import explain
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import SecretStore, system_secret_store
from freightdesk.service.session import AppSession
from freightdesk.ui.garbage import GuiThreadGarbageCollector
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.setup import install_panes
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


def prepare_qt_environment() -> None:
    """Settings Qt reads at start-up, before the QApplication exists."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # QtWebEngine's sandbox cannot run as root (containers, CI machines).
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")


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
        self.window.show()
        spawn(
            self.session.connect(),
            on_error=lambda exc: self.window.show_error(explain(exc)),
            name="connect",
        )

    async def run(self) -> None:
        self.start()
        await self._closed.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        await cancel_all()
        await self.session.close()
        self.settings.sync()


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
    # SIGTERM (logout, kill) closes the window like the user would, so the Local sandbox's
    # service is stopped too. The collector's timer lets Python run the handler promptly.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: controller.window.close())
    log.info("FreightDesk starting")
    with loop:
        loop.run_until_complete(controller.run())
    collector.stop()
    return 0
