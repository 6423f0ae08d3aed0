"""Qt tests: offscreen, with qasync as the asyncio loop so async tests drive the real app."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import qasync
from PySide6 import QtWebEngineWidgets  # noqa: F401  (before the QApplication)
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession


@pytest.fixture(scope="session")
def qapp_cls() -> type[QApplication]:
    return QApplication


UI_TESTS = Path(__file__).parent
QT_TEST_DIRS = (UI_TESTS, UI_TESTS.parent / "e2e")


def _qasync_loop() -> qasync.QEventLoop:
    app = QApplication.instance() or QApplication([])
    return qasync.QEventLoop(app)


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], qasync.QEventLoop]] | None:
    """Async UI tests run on qasync's loop, which is Qt's event loop: widgets stay live."""
    parents = Path(str(item.path)).parents
    if any(directory in parents for directory in QT_TEST_DIRS):
        return {"qt": _qasync_loop}
    return None


@pytest.fixture(autouse=True)
def gui_thread_gc(qapp: QApplication) -> Iterator[None]:
    """As in the app: cycles are collected on the GUI thread only (see ui/garbage.py)."""
    from freightdesk.ui.garbage import GuiThreadGarbageCollector

    collector = GuiThreadGarbageCollector()
    yield
    collector.stop()


def release_modifier_keys() -> None:
    """Qt keeps the modifier keys of the last key event as held down: a test that clicked
    Ctrl+2 would leave Ctrl held for the next one (whose selectRow would toggle rows)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QWidget

    if QGuiApplication.keyboardModifiers() != Qt.KeyboardModifier.NoModifier:
        sink = QWidget()
        QTest.keyClick(sink, Qt.Key.Key_F20)
        sink.deleteLater()


@pytest.fixture(autouse=True)
def no_modifier_keys_left_held(qapp: QApplication) -> Iterator[None]:
    yield
    release_modifier_keys()


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths.under(tmp_path / "home")


@pytest.fixture
def settings(paths: AppPaths) -> Iterator[QSettings]:
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    qsettings = QSettings(str(paths.config_dir / "test.ini"), QSettings.Format.IniFormat)
    yield qsettings
    qsettings.sync()


@pytest.fixture
def profiles(paths: AppPaths) -> ProfileStore:
    return ProfileStore(paths.profiles_file, MemorySecretStore())


@pytest.fixture
def session(paths: AppPaths, profiles: ProfileStore) -> AppSession:
    return AppSession(paths, profiles, simulate=False)


def activate(qtbot: object, window: object) -> None:
    """Show `window` and wait until it is the active window, so its shortcuts work."""
    from PySide6.QtWidgets import QWidget
    from pytestqt.qtbot import QtBot

    assert isinstance(qtbot, QtBot) and isinstance(window, QWidget)
    window.show()
    qtbot.waitExposed(window)
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
