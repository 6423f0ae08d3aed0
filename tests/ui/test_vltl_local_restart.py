"""Quotes asked while the Local sandbox's service restarts, as a dispatcher meets it: the real
`freightdesk serve` child of the session killed (SIGKILL) under the real window, Get quotes
clicked meanwhile. The form says the local service is restarting (not "check the network"),
in sight under the form; once the service is back the message goes by itself, what was typed
stays, and the quotes come. The killed service and the status bar: test_local_service_faults."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.local_service import ServiceState
from freightdesk.service.messages import RESTARTING
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.vltl.form import WEIGHT
from freightdesk.ui.panes.vltl.pane import VltlPane
from tests.support import wait_until
from tests.ui.test_local_service_faults import START_SECONDS, _back, _pane_online
from tests.ui.test_vltl_pane import _fill_quote

QUOTE_SECONDS = 30.0  # a quote refused after the client's retries, at a load of 10


def _typed(pane: VltlPane) -> tuple[str, str, str]:
    form = pane.form
    return form.origin.edits["city"].text(), form.pickup.start.text(), form.items.text(0, WEIGHT)


@pytest.mark.timeout(900)
async def test_quotes_asked_while_the_local_service_restarts(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    async with _pane_online(qtbot, session, settings, paths, VltlPane) as shown:
        window, pane, service, pid = shown
        window.activateWindow()  # the button clicked takes the focus, as on a desktop
        await wait_until(window.isActiveWindow, 10)
        await wait_until(lambda: bool(pane.carriers) and pane.form.group.count() > 0, 60)
        _fill_quote(qtbot, pane)
        typed = _typed(pane)
        general = pane.form.errors.general
        os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: service.state is not ServiceState.RUNNING, START_SECONDS)
        qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)
        assert pane.quote_button.hasFocus() or not pane.quote_button.isEnabled()
        await wait_until(lambda: not pane.running, QUOTE_SECONDS)
        assert service.state is not ServiceState.RUNNING  # still restarting
        assert general.text() == RESTARTING
        # Whole, in sight: the message makes the form taller than its area (the offscreen
        # screen is 800 px high) and came below its fold (on a desktop the focus also left
        # the disabled button for the form's first field, scrolling the form to its top).
        await wait_until(lambda: general.visibleRegion().boundingRect() == general.rect(), 10)
        assert _typed(pane) == typed

        await _back(session, window, pid)
        # It said nothing but that the service could not be reached: stale now.
        await wait_until(lambda: general.isHidden(), 10)
        assert _typed(pane) == typed
        qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not pane.running and pane.model.rowCount() > 0, QUOTE_SECONDS)
        assert general.isHidden()
