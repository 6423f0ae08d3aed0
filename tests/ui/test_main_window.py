"""The main window: panes, shortcuts, theme, geometry, status bar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest
from PySide6.QtCore import QObject, QSettings, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.log_file import LogFileDialog
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.theme import ThemeChoice
from tests.ui.conftest import activate
from tests.ui.test_panes_support import message_box, visible_dialogs


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


class _Pane(QLabel):
    """A pane that counts how often it is made and whether it was shut down."""

    made: list[str] = []

    def __init__(self, key: str) -> None:
        super().__init__(f"pane {key}")
        self.key = key
        self.shut = False
        _Pane.made.append(key)

    def shutdown(self) -> None:
        self.shut = True


def test_a_pane_is_made_when_first_shown(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    _Pane.made = []
    window = _window(qtbot, session, settings, paths)
    icon = window.style().StandardPixmap.SP_DirIcon
    window.add_pane("lazy", "Lazy", lambda: _Pane("lazy"), icon)
    window.add_pane("later", "Later", lambda: _Pane("later"), icon)
    activate(qtbot, window)
    assert _Pane.made == [] and not window.is_made("lazy")
    assert window.nav.item(2).text() == "Lazy"
    # Navigation makes it and shows it; its shortcut and `pane()` find the same one.
    window.nav.setCurrentRow(2)
    lazy = window.current_pane()
    assert isinstance(lazy, _Pane) and lazy.key == "lazy" and lazy.isVisible()
    window.show_pane("one")
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.current_pane() is lazy is window.pane("lazy")
    assert _Pane.made == ["lazy"]
    # A pane nobody looked at is not made to be shut down.
    window.close()
    assert lazy.shut and _Pane.made == ["lazy"]


def test_a_factory_may_supply_related_panes_and_warm_ones_are_made_when_idle(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    _Pane.made = []
    window = _window(qtbot, session, settings, paths)
    icon = window.style().StandardPixmap.SP_DirIcon

    def both(key: str) -> Callable[[], QWidget]:
        def make() -> QWidget:
            window.add_pane("a", "A", _Pane("a"), icon)
            window.add_pane("b", "B", _Pane("b"), icon)
            return window.pane(key)

        return make

    window.add_pane("a", "A", both("a"), icon, warm=True)
    window.add_pane("b", "B", both("b"), icon, warm=True)
    window.add_pane("cold", "Cold", lambda: _Pane("cold"), icon)
    assert [window.nav.item(r).text() for r in range(window.nav.count())] == [
        "One",
        "Two",
        "A",
        "B",
        "Cold",
    ]
    done: list[bool] = []
    window.warm_up(done=lambda: done.append(True))
    assert _Pane.made == []  # not before the event loop's next turn
    qtbot.waitUntil(lambda: bool(done))
    assert _Pane.made == ["a", "b"]  # made once, together; the cold one waits to be shown
    window.show_pane("b")
    shown = window.current_pane()
    assert isinstance(shown, _Pane) and shown.key == "b"
    assert window.stack.currentWidget() is shown
    with pytest.raises(ValueError):
        window.add_pane("a", "A again", _Pane("again"), icon)


def test_a_pane_that_fails_to_open_says_so_and_can_be_tried_again(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    attempts: list[int] = []

    def flaky() -> QWidget:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("the disk is full")
        return QLabel("third pane")

    window.add_pane("flaky", "Flaky", flaky, window.style().StandardPixmap.SP_DirIcon)
    activate(qtbot, window)
    window.show_pane("flaky")
    placeholder = window.stack.currentWidget()
    assert isinstance(placeholder, QLabel)
    assert "Flaky could not be opened: the disk is full" in placeholder.text()
    assert window.current_pane() is None
    window.show_pane("one")
    window.show_pane("flaky")
    third = window.current_pane()
    assert isinstance(third, QLabel) and third.text() == "third pane"


def test_a_pane_made_after_connecting_is_told_of_the_connection(
    session: AppSession,
) -> None:
    told: list[str] = []

    def make(name: str) -> str:
        session.listen_connected(lambda: told.append(name))
        return name

    session.listen_connected(lambda: told.append("early"))
    assert session.catching_up(lambda: make("offline")) == "offline"
    assert told == []  # not connected: told when it connects, like the others
    session.client = cast(Any, object())  # connected
    assert session.catching_up(lambda: make("late")) == "late"
    assert told == ["late"]  # only the listeners the new pane added


class _Editing(QLabel):
    """A pane with a form of its own, like Account groups."""

    typed = ""

    def unsaved_changes(self) -> str | None:
        return f"the new group {self.typed!r}" if self.typed else None


def test_closing_asks_about_what_a_pane_has_unsaved(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    editing = _Editing("groups")
    window.add_pane("groups", "Groups", editing, window.style().StandardPixmap.SP_DirIcon)
    activate(qtbot, window)
    editing.typed = "WEST"
    seen: list[str] = []

    def choose(button_text: str) -> None:
        box = message_box("unsavedEdits")
        assert box is not None
        seen.append(box.text())
        next(b for b in box.buttons() if b.text() == button_text).click()

    QTimer.singleShot(0, lambda: choose("&Keep editing"))
    window.close()
    assert window.isVisible() and "Groups: the new group 'WEST'" in seen[0]
    QTimer.singleShot(0, lambda: choose("&Discard and quit"))
    window.close()
    assert not window.isVisible()


def test_closing_without_asking_when_told_to_stop(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    editing = _Editing("groups")
    editing.typed = "WEST"
    window.add_pane("groups", "Groups", editing, window.style().StandardPixmap.SP_DirIcon)
    activate(qtbot, window)
    window.close_without_asking()  # SIGTERM: nobody is there to answer
    assert not window.isVisible()


@pytest.mark.qt_log_ignore(r"^This plugin does not support QPlatformServices::openDocument\(\)")
def test_the_log_file_without_a_viewer_shows_its_path_to_copy(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    if QGuiApplication.platformName() != "offscreen":
        pytest.skip("only the offscreen platform surely has no viewer for files")
    window = _window(qtbot, session, settings, paths)
    activate(qtbot, window)
    paths.log_file.parent.mkdir(parents=True, exist_ok=True)
    paths.log_file.write_text("FreightDesk starting\n")
    QApplication.clipboard().clear()
    help_menu = next(m for m in window.menuBar().findChildren(QMenu) if m.title() == "&Help")
    next(a for a in help_menu.actions() if a.text() == "Open &log file").trigger()
    dialog = next(iter(visible_dialogs(LogFileDialog)), None)
    assert isinstance(dialog, LogFileDialog)
    assert dialog.path_field.text() == str(paths.log_file)
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == str(paths.log_file)
    dialog.reject()


class _Viewer(QObject):
    """A viewer for files, as the desktop would have."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[QUrl] = []

    @Slot(QUrl)
    def show(self, url: QUrl) -> None:
        self.opened.append(url)


def test_the_log_file_opens_in_the_desktops_viewer(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    paths.log_file.parent.mkdir(parents=True, exist_ok=True)
    paths.log_file.write_text("FreightDesk starting\n")
    viewer = _Viewer()
    QDesktopServices.setUrlHandler("file", viewer, "show")  # type: ignore[arg-type]  # the desktop's viewer for files
    try:
        assert window.open_log() is None
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert viewer.opened == [QUrl.fromLocalFile(str(paths.log_file))]
    assert visible_dialogs(LogFileDialog) == []


def test_groups_head_their_panes_and_are_passed_over(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    icon = window.style().StandardPixmap.SP_DirIcon
    window.add_pane("one", "One", QLabel("first pane"), icon, group="Track")
    window.add_pane("two", "Two", QLabel("second pane"), icon, group="Track")
    window.add_pane("three", "Three", QLabel("third pane"), icon, group="Plan")
    rows = [window.nav.item(r).text() for r in range(window.nav.count())]
    assert rows == ["TRACK", "One", "Two", "PLAN", "Three"]
    activate(qtbot, window)
    assert window.current_pane() is window.pane("one")  # the first pane, not its heading
    window.nav.setFocus()
    qtbot.keyClick(window.nav, Qt.Key.Key_Down)
    qtbot.keyClick(window.nav, Qt.Key.Key_Down)  # over the PLAN heading
    assert window.current_pane() is window.pane("three")
    heading = window.nav.item(3)
    qtbot.mouseClick(
        window.nav.viewport(),
        Qt.MouseButton.LeftButton,
        pos=window.nav.visualItemRect(heading).center(),
    )
    assert window.current_pane() is window.pane("three")  # a heading is no pane to show
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.current_pane() is window.pane("one")
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.current_pane() is window.pane("three")  # shortcuts count panes, not rows
    window.set_badge("three", 2)
    assert window.nav.item(4).text() == "Three  (2)"


def test_the_first_window_fills_a_laptop_screen(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    """With no geometry kept, a screen narrower than 1,600 px (a 1366x768 laptop's) is filled,
    so the shipments list's key columns and the details fit beside each other; the test
    platform's screen (800x600) stands for it."""
    window = _window(qtbot, session, settings, paths)
    window.show()
    qtbot.waitExposed(window)
    screen = window.screen().availableGeometry()
    assert screen.width() < 1600
    qtbot.waitUntil(lambda: window.frameGeometry().width() >= screen.width())
    assert window.isMaximized()
