"""A form saved while the Local sandbox's service restarts, in a pane other than Volume LTL
(whose quote form: test_vltl_local_restart), as a dispatcher meets it: the real `freightdesk
serve` child of the session killed (SIGKILL) under the real window, the Stop locations' New
location form open with text typed, Save clicked meanwhile. The form says the local service is
restarting; once the status is back Online the words go by themselves (no pane wires that:
the shared form machinery hears it), what was typed stays, and Save then saves. Likewise a
form saved before the app is connected at all."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QAbstractButton, QDialogButtonBox, QStyle
from pytestqt.qtbot import QtBot

from freightdesk.service.local_service import ServiceState
from freightdesk.service.messages import NOT_CONNECTED, RESTARTING
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from tests.support import wait_until
from tests.ui.test_local_service_faults import (
    START_SECONDS,
    _back,
    _closed,
    _pane_online,
    _window,
)
from tests.ui.test_panes_support import shown_dialog

SAVE_SECONDS = 30.0  # a save refused after the client's retries, at a load of 10
NAME = "Fort Worth cross-dock"


def _typed(form: StopLocationFormDialog) -> tuple[str, str, str]:
    return form.name.text(), form.latitude.text(), form.longitude.text()


def _new_location(qtbot: QtBot, pane: StopLocationsPane) -> StopLocationFormDialog:
    """The New location form, a place typed by its coordinates (no address)."""
    pane.new_item()
    form = shown_dialog(pane, StopLocationFormDialog)
    qtbot.keyClicks(form.name, NAME)
    for edit in (*form.lines, form.city, form.state, form.postal_code):
        edit.clear()
    qtbot.keyClicks(form.latitude, "32.75")
    qtbot.keyClicks(form.longitude, "-97.33")
    return form


async def _saved_once_back(
    qtbot: QtBot, pane: StopLocationsPane, form: StopLocationFormDialog
) -> None:
    """Save clicked once the words went: the form closes, the location is listed."""
    qtbot.mouseClick(_save(form), Qt.MouseButton.LeftButton)
    await wait_until(lambda: not form.isVisible(), SAVE_SECONDS)
    assert form.general_error.isHidden()
    await wait_until(
        lambda: any(
            pane.model.index(row, 0).data() == NAME for row in range(pane.model.rowCount())
        ),
        10,
    )


def _save(form: StopLocationFormDialog) -> QAbstractButton:
    return form.buttons.button(QDialogButtonBox.StandardButton.Save)


@pytest.mark.timeout(900)
async def test_a_form_saved_while_the_local_service_restarts(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    async with _pane_online(qtbot, session, settings, paths, StopLocationsPane) as shown:
        window, pane, service, pid = shown
        form = _new_location(qtbot, pane)
        typed = _typed(form)
        general = form.general_error

        os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: service.state is not ServiceState.RUNNING, START_SECONDS)
        qtbot.mouseClick(_save(form), Qt.MouseButton.LeftButton)
        await wait_until(lambda: _save(form).isEnabled() and general.isVisible(), SAVE_SECONDS)
        assert service.state is not ServiceState.RUNNING  # still restarting
        assert general.text() == RESTARTING
        assert form.isVisible() and _typed(form) == typed

        await _back(session, window, pid)
        # It said nothing but that the service could not be reached: stale now.
        await wait_until(lambda: general.isHidden(), 10)
        assert form.isVisible() and _typed(form) == typed
        await _saved_once_back(qtbot, pane, form)


@pytest.mark.timeout(900)
async def test_a_form_saved_before_the_local_service_answers(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    """Saved while the app still connects (its local service starting): "not connected"
    under the form, which goes by itself once the session is Online; what was typed stays
    and Save then saves."""
    window = _window(qtbot, session, settings, paths)
    pane = StopLocationsPane(session, window)
    window.add_pane("stops", "Stop locations", pane, QStyle.StandardPixmap.SP_FileIcon)
    window.show_pane("stops")
    try:
        form = _new_location(qtbot, pane)
        typed = _typed(form)
        qtbot.mouseClick(_save(form), Qt.MouseButton.LeftButton)
        general = form.general_error
        assert general.isVisible() and general.text() == NOT_CONNECTED

        await session.connect()
        await wait_until(
            lambda: window.indicator.state_label.text().startswith("Online"), START_SECONDS
        )
        await wait_until(lambda: general.isHidden(), 10)
        assert form.isVisible() and _typed(form) == typed
        await _saved_once_back(qtbot, pane, form)
    finally:
        pane.shutdown()
        window.show_pane("shipments")
        await _closed(session, window)
