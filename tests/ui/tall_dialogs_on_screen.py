"""Run by tests/ui/test_dialogs_fit_laptop.py in a process of its own whose offscreen screen is
a laptop's (FREIGHTDESK_TEST_SCREEN, 1366x768): the dialogs taller than such a screen leaves
room for (a title bar, a taskbar) open shorter, their buttons in sight. Not collected with the
suite (its name): the suite's own offscreen screen is 800x800."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.maps.picker import LocationPickerDialog
from freightdesk.ui.panes.rates.form import RateRequestFormDialog
from freightdesk.ui.panes.stop_locations.picking import PickRequest
from freightdesk.ui.widgets.screen_fit import ROOM_AROUND
from tests.ui.conftest import activated
from tests.ui.test_maps import (
    OFFLINE_TILES,
    WEBENGINE_STARTUP,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)

SCREEN = os.environ.get("FREIGHTDESK_TEST_SCREEN", "")

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)


async def _fits(dialog: QDialog, wanted: int) -> None:
    available = QApplication.primaryScreen().availableGeometry()
    assert f"{available.width()}x{available.height()}" == SCREEN, available
    assert wanted > available.height() - ROOM_AROUND  # this screen cannot give it its height
    await activated(dialog)
    assert dialog.height() <= available.height() - ROOM_AROUND, dialog.size()
    (buttons,) = dialog.findChildren(QDialogButtonBox)
    bottom = buttons.mapTo(dialog, QPoint(0, buttons.height())).y()
    assert bottom <= dialog.height(), (bottom, dialog.size())
    dialog.close()


async def test_the_stop_location_picker_fits(qtbot: QtBot) -> None:
    host = QWidget()  # closing the picker must not close the last window
    qtbot.addWidget(host)
    host.show()
    dialog = LocationPickerDialog(PickRequest(name="Joliet DC"), host, tiles=OFFLINE_TILES)
    await _fits(dialog, 720)


async def test_the_rate_request_form_fits(qtbot: QtBot, session: AppSession) -> None:
    dialog = RateRequestFormDialog(session)
    qtbot.addWidget(dialog)
    await _fits(dialog, 780)
