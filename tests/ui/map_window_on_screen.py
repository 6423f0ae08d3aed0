"""Run by tests/ui/test_shipment_map_room.py in a process of its own whose offscreen screen is
a real one's size (FREIGHTDESK_TEST_SCREEN, e.g. 1366x768): the app's window, as it opens on
that screen, the Map tab and "Map in window" clicked as a user does; the map window keeps the
timeline it follows in sight. Not collected with the suite (its name): the suite's own
offscreen screen is 800x800."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.setup import install_panes
from freightdesk.ui.panes.shipments.map_room import BESIDE_LEAST_WIDTH
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import close_session
from tests.ui.test_alerts_pane import windows_may_close
from tests.ui.test_maps import (
    WEBENGINE_STARTUP,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _click_tab
from tests.ui.test_shipment_room_support import offline_tiles
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "offline_tiles", "windows_may_close"]

SCREEN = os.environ.get("FREIGHTDESK_TEST_SCREEN", "")


def _global(widget: QWidget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


# Offscreen, the window cannot be raised over the others.
@pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP, r"^This plugin does not support raise\(\)$")
async def test_the_map_window_keeps_the_timeline_in_sight(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    offline_tiles: None,
    windows_may_close: None,
) -> None:
    session, tenant = connected
    available = QApplication.primaryScreen().availableGeometry()
    assert f"{available.width()}x{available.height()}" == SCREEN, available
    shipment = _put(tenant, _ltl("PRO-7741000"))
    window = MainWindow(session, settings, paths)  # sized for the screen, as at a first run
    qtbot.addWidget(window)
    install_panes(window, session)
    window.show()
    await wait_until(window.isVisible)
    await session.connect()
    pane = window.pane("shipments")
    assert isinstance(pane, ShipmentsPane)
    await wait_until(lambda: pane.model.row_of(shipment) is not None, 30)
    _click_row_of(qtbot, pane, shipment)
    await wait_until(lambda: pane.detail.history is not None, 30)
    _click_tab(qtbot, pane.detail, "Map")
    await wait_until(lambda: pane.detail.map is not None and pane.detail.map.drawn, 60)
    await wait_until(lambda: pane.detail.timeline.isVisible(), 10)
    timeline = _global(pane.detail.timeline)
    qtbot.mouseClick(pane.detail.map_window.button, Qt.MouseButton.LeftButton)
    opened = pane.detail.map_window.window
    assert opened is not None and opened.isVisible()
    placed = opened.frameGeometry()
    main = window.frameGeometry()
    report = f"map window {placed}, timeline {timeline}, app {main}, screen {available}"
    print(report)
    assert available.contains(placed), report
    assert not placed.intersects(timeline), report
    assert _global(pane.detail.timeline) == timeline, report  # the timeline did not move
    if SCREEN == "1920x1080" or available.width() - main.width() >= BESIDE_LEAST_WIDTH:
        # Room beside the app: beside it, the whole app in sight.
        assert not placed.intersects(main), report
    else:
        # Over the app: a map as large as the Map tab's at least, its top controls in sight.
        assert placed.width() >= 600 and placed.height() >= 600, report
        assert placed.top() > main.top(), report
    assert opened.map.width() >= 400 and opened.map.height() >= 400, report
    # Ctrl+Q in the map's window quits the app (it did nothing there).
    await wait_until(opened.isActiveWindow, 10)
    qtbot.keyClick(opened.map, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    await wait_until(lambda: not window.isVisible(), 10)
    await wait_until(lambda: pane.detail.map_window.window is None, 10)
    await close_session(session)
