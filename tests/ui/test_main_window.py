"""The main window: panes, shortcuts, theme, geometry, status bar."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession, ConnectionState, ConnectionStatus
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.theme import ThemeChoice
from tests.ui.conftest import activate


def _window(qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths) -> MainWindow:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    window.add_pane("one", "One", QLabel("first pane"), window.style().StandardPixmap.SP_DirIcon)
    window.add_pane("two", "Two", QLabel("second pane"), window.style().StandardPixmap.SP_DirIcon)
    return window


def test_panes_switch_by_navigation_and_shortcut(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    activate(qtbot, window)
    assert window.current_pane() is window.pane("one")
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.current_pane() is window.pane("two")
    window.nav.setCurrentRow(0)
    assert window.current_pane() is window.pane("one")
    window.set_badge("two", 3)
    assert window.nav.item(1).text() == "Two  (3)"


def test_geometry_and_pane_are_remembered(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    window.show()
    qtbot.waitExposed(window)
    window.resize(780, 560)
    qtbot.waitUntil(lambda: window.width() == 780)
    window.show_pane("two")
    window.close()
    again = _window(qtbot, session, settings, paths)
    again.restore_pane()
    again.show()
    qtbot.waitExposed(again)
    assert again.size().width() == 780
    assert again.current_pane() is again.pane("two")


def test_status_bar_shows_connection_state_and_age(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    window.bridge.statusChanged.emit(
        ConnectionStatus(ConnectionState.OFFLINE, "Local sandbox", "cannot reach", None)
    )
    assert "Offline" in window.indicator.state_label.text()
    assert "showing saved data" in window.indicator.age_label.text()
    window.bridge.statusChanged.emit(
        ConnectionStatus(ConnectionState.ONLINE, "Local sandbox", busy=1)
    )
    assert "Online" in window.indicator.state_label.text()
    assert window.indicator.activity.isVisibleTo(window)


def test_dark_theme_is_applied_and_remembered(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    window.set_theme(ThemeChoice.DARK)
    window_color = QApplication.palette().color(QPalette.ColorRole.Window)
    assert window_color.lightness() < 80
    assert settings.value("theme") == "dark"
    window.set_theme(ThemeChoice.LIGHT)
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() > 200
