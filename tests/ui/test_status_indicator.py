"""The status bar's connection state reads as one: its dot beside its words ("● Online ·
Local sandbox"), whether or not the activity bar shows beside it (it was 50 px apart while
the bar showed: seen at 1366x768 on a fresh demo)."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtWidgets import QStyle
from pytestqt.qtbot import QtBot

from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.widgets.status import ConnectionIndicator
from tests.support import TenantHandle, wait_until
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import connected

__all__ = ["connected"]

# The dot's room beyond its glyph and the spacing between it and its words.
NEAR = 8


def dot_gap(indicator: ConnectionIndicator) -> int:
    """Pixels between the dot's glyph, drawn at its label's left, and the state's words."""
    dot = indicator.state_dot
    glyph_end = dot.geometry().left() + dot.fontMetrics().horizontalAdvance(dot.text())
    return indicator.state_label.geometry().left() - glyph_end


def laid_out(indicator: ConnectionIndicator) -> bool:
    """Whether the indicator's layout has made room for the shown activity bar: the bar left
    of the age, and the indicator given at least the width it asks for."""
    bar, age = indicator.activity.geometry(), indicator.age_label.geometry()
    return bar.right() < age.left() and indicator.width() >= indicator.sizeHint().width()


@pytest.mark.parametrize("width", [1366, 1920])
def test_the_dot_stays_beside_its_words_while_the_activity_bar_shows(
    qtbot: QtBot, settings: QSettings, paths: AppPaths, width: int
) -> None:
    window = MainWindow(None, settings, paths)
    qtbot.addWidget(window)
    window.showNormal()
    window.resize(width, 700)
    qtbot.waitExposed(window)
    # The first run's status bar: the demo's progress beside the indicator.
    window.demo_progress.setText("Preparing demo data: 114 of 307 shipments loaded")
    window.demo_progress.setVisible(True)
    indicator = window.indicator
    now = time.time()
    online = ConnectionStatus(ConnectionState.ONLINE, "Local sandbox", last_success=now)
    indicator.show_status(online)
    qtbot.waitUntil(lambda: indicator.state_label.text() == "Online · Local sandbox")
    assert not indicator.activity.isVisible()
    assert 0 <= dot_gap(indicator) <= NEAR, dot_gap(indicator)
    indicator.show_progress(114, 307)
    qtbot.waitUntil(lambda: indicator.activity.isVisible() and laid_out(indicator))
    assert 0 <= dot_gap(indicator) <= NEAR, dot_gap(indicator)
    # The words whole, and at the bar's right end as before.
    label = indicator.state_label
    assert label.width() >= label.sizeHint().width()
    assert indicator.geometry().right() >= window.statusBar().width() - 30
    busy = ConnectionStatus(ConnectionState.ONLINE, "Local sandbox", last_success=now, busy=1)
    indicator.show_status(busy)
    indicator.end_progress()
    assert indicator.activity.isVisible()  # still busy: no linger, it stays
    qtbot.waitUntil(lambda: laid_out(indicator))
    assert 0 <= dot_gap(indicator) <= NEAR, dot_gap(indicator)
    indicator.stop()


def test_while_connecting_the_bar_says_what_it_waits_for(
    qtbot: QtBot, settings: QSettings, paths: AppPaths
) -> None:
    # A second start's wait for the local service (42 s at load 13) showed only
    # "Connecting · Local sandbox", the reason in a tooltip nobody hovers.
    window = MainWindow(None, settings, paths)
    qtbot.addWidget(window)
    window.showNormal()
    window.resize(1366, 700)
    qtbot.waitExposed(window)
    indicator = window.indicator
    reason = indicator.reason_label
    for message in ("Starting the local service", "Signing in to the local service"):
        indicator.show_status(
            ConnectionStatus(ConnectionState.CONNECTING, "Local sandbox", message=message)
        )
        qtbot.waitUntil(reason.isVisible)
        assert reason.text() == f"{message}…"
        assert indicator.state_label.text() == "Connecting · Local sandbox"
    # The bare "Connecting to" the profile adds nothing to the label beside it.
    plain = "Connecting to Local sandbox"
    indicator.show_status(
        ConnectionStatus(ConnectionState.CONNECTING, "Local sandbox", message=plain)
    )
    qtbot.waitUntil(lambda: not reason.isVisible())
    indicator.show_status(ConnectionStatus(ConnectionState.ONLINE, "Local sandbox"))
    assert not reason.isVisible()


async def test_the_activity_bar_says_what_runs(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings, paths: AppPaths
) -> None:
    """The bar, seen over any pane (Documents, Alerts), is the shipment list's update: it says
    so beside it and in its tooltip, as F5 asks for one. It showed alone, unexplained."""
    session, _tenant = connected
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    pane = ShipmentsPane(session, settings, window)
    window.add_pane("shipments", "Shipments", pane, QStyle.StandardPixmap.SP_FileIcon)
    window.show()
    await session.connect()
    indicator = window.indicator
    said: list[tuple[str, str]] = []  # the words beside the bar and its tooltip, as it shows

    class Shown(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
            if event.type() is QEvent.Type.Show:
                words = indicator.activity_label
                said.append(
                    (words.text() if words.isVisibleTo(indicator) else "", watched.toolTip())
                )
            return False

    shown = Shown(window)
    indicator.activity.installEventFilter(shown)
    await wait_until(lambda: session.status.state is ConnectionState.ONLINE, 60)
    await wait_until(lambda: not indicator.activity.isVisible(), 30)
    said.clear()
    await _from_loop(lambda: qtbot.keyClick(pane.table, Qt.Key.Key_F5))
    await wait_until(lambda: bool(said), 30)
    assert said[0] == ("Updating shipments\u2026", "Updating shipments\u2026"), said
    await wait_until(lambda: not indicator.activity.isVisible(), 30)
    assert not indicator.activity_label.isVisible()
    indicator.activity.removeEventFilter(shown)
