"""The window's shortcuts work wherever the focus is, including inside a map (a QtWebEngine
page, which takes the keyboard through its own focus proxy) and a PDF preview: Ctrl+1…9
switch panes, F5 refreshes, Ctrl+F goes to the search field, Ctrl+Q quits.

Keys are pressed on the window's QWindow, the way the platform delivers a real key (the
shortcut map first, then the widget with the focus)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.maps.page import MapView
from tests.ui.conftest import activate
from tests.ui.test_documents_pane import make_pdf
from tests.ui.test_maps import (
    OFFLINE_TILES,
    WEBENGINE_STARTUP,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

CTRL = Qt.KeyboardModifier.ControlModifier


class _Pane(QWidget):
    """A pane as the window sees one: a search field, `focus_search()` and `refresh()`,
    around the widget that takes the focus."""

    def __init__(self, content: QWidget) -> None:
        super().__init__()
        self.search = QLineEdit(self)
        self.refreshed = QLabel("", self)
        self.content = content
        layout = QVBoxLayout(self)
        for widget in (self.search, self.refreshed, content):
            layout.addWidget(widget)

    def focus_search(self) -> None:
        self.search.setFocus()

    def refresh(self) -> None:
        self.refreshed.setText("Refreshed")


def _press(window: MainWindow, key: Qt.Key, modifier: Qt.KeyboardModifier) -> None:
    handle = window.windowHandle()
    assert handle is not None
    QTest.keyClick(handle, key, modifier)


def _focus_inside(qtbot: QtBot, content: QWidget) -> None:
    """Click into `content` as a user would, and wait until the focus is inside it."""
    target = content.focusProxy() or content
    QTest.mouseClick(target, Qt.MouseButton.LeftButton, pos=target.rect().center())

    def inside() -> bool:
        focus = QApplication.focusWidget()
        return focus is not None and (focus is content or content.isAncestorOf(focus))

    qtbot.waitUntil(inside, timeout=5000)


def test_shortcuts_work_with_the_focus_in_a_map_and_in_a_pdf_preview(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths, tmp_path: Path
) -> None:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    map_view = MapView("fleet", tiles=OFFLINE_TILES)
    map_pane = _Pane(map_view)
    pdf = QPdfDocument(map_pane)
    assert pdf.load(str(make_pdf(tmp_path / "bol.pdf", "BILL OF LADING"))) == pdf.Error.None_
    pdf_view = QPdfView(None)
    pdf_view.setDocument(pdf)
    preview_pane = _Pane(pdf_view)
    icon = window.style().StandardPixmap.SP_DirIcon
    window.add_pane("map", "Map", map_pane, icon)
    window.add_pane("preview", "Preview", preview_pane, icon)
    window.add_pane("other", "Other", QLabel("a third pane"), icon)
    with qtbot.waitSignal(map_view.ready, timeout=30000):
        activate(qtbot, window)

    # In the map's page.
    _focus_inside(qtbot, map_view)
    _press(window, Qt.Key.Key_F5, Qt.KeyboardModifier.NoModifier)
    assert map_pane.refreshed.text() == "Refreshed"
    _press(window, Qt.Key.Key_F, CTRL)
    assert map_pane.search.hasFocus()
    _focus_inside(qtbot, map_view)
    _press(window, Qt.Key.Key_2, CTRL)
    assert window.current_pane() is preview_pane

    # In the PDF preview.
    _focus_inside(qtbot, pdf_view)
    _press(window, Qt.Key.Key_F5, Qt.KeyboardModifier.NoModifier)
    assert preview_pane.refreshed.text() == "Refreshed"
    _press(window, Qt.Key.Key_F, CTRL)
    assert preview_pane.search.hasFocus()
    _focus_inside(qtbot, pdf_view)
    _press(window, Qt.Key.Key_3, CTRL)
    assert window.current_pane() is window.pane("other")
    window.show_pane("preview")
    _focus_inside(qtbot, pdf_view)
    _press(window, Qt.Key.Key_1, CTRL)
    assert window.current_pane() is map_pane

    # Quitting from inside the map.
    _focus_inside(qtbot, map_view)
    _press(window, Qt.Key.Key_Q, CTRL)
    assert window.is_closed() and not window.isVisible()
    gone: list[bool] = []  # the map's page goes before QtWebEngine's profile does
    map_view.destroyed.connect(lambda: gone.append(True))
    map_view.deleteLater()
    qtbot.waitUntil(lambda: bool(gone))
