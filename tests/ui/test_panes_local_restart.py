"""Panes' own lines (not a form's general error: test_forms_local_restart) while the Local
sandbox's service restarts, as a dispatcher meets them: the real `freightdesk serve` child of
the session killed (SIGKILL) under the real window, a carrier looked up, a push sent, the
booking answer opened and a booking cancelled meanwhile. Each line says the local service is
restarting; once the status is back Online each goes by itself, what was typed stays, and the
booking answer reads what it could not. A restart that failed is said as such, not as
"restarting" nor as "check the network"."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.local_service import ServiceState
from freightdesk.service.messages import NOT_RESTARTED, RESTARTING
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.bookings.pane import BookingsPane
from freightdesk.ui.panes.carriers.pane import CarrierProfilesPane
from freightdesk.ui.panes.push.booking_answer import NONE_WAITING, BookingAnswerDialog
from freightdesk.ui.panes.push.pane import PushPane
from tests.support import wait_until
from tests.ui.test_local_service_faults import START_SECONDS, _back, _pane_online
from tests.ui.test_panes_support import answer, message_box, shown_dialog
from tests.ui.test_push_pane import _compose

REFUSED_SECONDS = 30.0  # a request refused after the client's retries, at a load of 10
LEFT = Qt.MouseButton.LeftButton


def _look_up(qtbot: QtBot, pane: CarrierProfilesPane, scac: str) -> None:
    qtbot.keyClicks(pane.scac, scac)
    qtbot.mouseClick(pane.look_up_button, LEFT)


@pytest.mark.timeout(900)
async def test_a_carrier_looked_up_while_the_local_service_restarts(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    async with _pane_online(qtbot, session, settings, paths, CarrierProfilesPane) as shown:
        window, pane, service, pid = shown
        os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: service.state is not ServiceState.RUNNING, START_SECONDS)
        _look_up(qtbot, pane, "ZPHR")
        said = lambda: pane.look_up_errors.message_for("scac")  # noqa: E731
        await wait_until(lambda: bool(said()), REFUSED_SECONDS)
        assert service.state is not ServiceState.RUNNING  # still restarting
        assert said() == f"ZPHR: {RESTARTING}"

        await _back(session, window, pid)
        # It said nothing but that the service could not be reached: stale now.
        await wait_until(lambda: said() == "", 10)
        assert pane.scac.text() == "ZPHR"


@pytest.mark.timeout(900)
async def test_a_push_and_a_booking_answer_while_the_local_service_restarts(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    async with _pane_online(qtbot, session, settings, paths, PushPane) as shown:
        window, pane, service, pid = shown
        _compose(pane, "BOL-RESTART-1")
        typed = pane.truckload.bill_of_lading.text()
        os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: service.state is not ServiceState.RUNNING, START_SECONDS)
        # Both at once, within one restart: each waits out the client's retries.
        qtbot.mouseClick(pane.send_button, LEFT)
        qtbot.mouseClick(pane.answer_button, LEFT)
        dialog = shown_dialog(pane, BookingAnswerDialog)
        line = dialog.general_error
        await wait_until(
            lambda: not pane.sending and pane.notice.isVisible() and line.text() == RESTARTING,
            REFUSED_SECONDS,
        )
        assert service.state is not ServiceState.RUNNING  # still restarting
        assert pane.notice.text() == RESTARTING

        await _back(session, window, pid)
        await wait_until(lambda: pane.notice.isHidden() and line.text() != RESTARTING, 10)
        assert pane.truckload.bill_of_lading.text() == typed
        # The dialog reads what it could not read then (the demo's bookings under review),
        # rather than stay empty until opened again.
        await wait_until(
            lambda: dialog.booking.count() > 0 or line.text() == NONE_WAITING, REFUSED_SECONDS
        )
        assert dialog.send_button.isEnabled() == (dialog.booking.count() > 0)
        dialog.reject()


@pytest.mark.timeout(900)
async def test_a_booking_cancelled_while_the_local_service_restarts(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    """The Bookings pane's notice (through the list page) says the service is restarting after
    a cancel that could not reach it, and goes by itself once it is back."""
    make = lambda s, w: BookingsPane(s, settings, w, open_shipment=lambda _id: None)  # noqa: E731
    async with _pane_online(qtbot, session, settings, paths, make) as shown:
        window, pane, service, pid = shown
        await wait_until(lambda: pane.model.rowCount() > 0, START_SECONDS)
        pane.table.selectRow(0)
        booking = pane.table.selected()
        assert booking is not None
        os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: service.state is not ServiceState.RUNNING, START_SECONDS)
        qtbot.mouseClick(pane.detail.cancel_button, LEFT)
        await wait_until(lambda: message_box("confirmCancelBooking") is not None, 30)
        answer("confirmCancelBooking", QMessageBox.StandardButton.Yes)
        await wait_until(lambda: pane.notice.text() == RESTARTING, REFUSED_SECONDS)
        assert service.state is not ServiceState.RUNNING  # still restarting

        await _back(session, window, pid)
        await wait_until(lambda: pane.notice.text() != RESTARTING, 10)


@pytest.mark.timeout(900)
async def test_a_restart_that_failed_is_said_as_such(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    """The supervisor's restart of the killed service fails (its program exits at once, as
    a broken installation's would): a carrier looked up meanwhile says the local service
    could not be restarted and where to look, not "try again in a moment"."""
    async with _pane_online(qtbot, session, settings, paths, CarrierProfilesPane) as shown:
        _window, pane, service, pid = shown
        states: list[ServiceState] = []
        service.listen(lambda state, _message: states.append(state))
        service.python = "/bin/false"
        os.kill(pid, signal.SIGKILL)
        await wait_until(lambda: ServiceState.FAILED in states, START_SECONDS)
        _look_up(qtbot, pane, "ZPHR")
        said = lambda: pane.look_up_errors.message_for("scac")  # noqa: E731
        await wait_until(lambda: bool(said()), REFUSED_SECONDS)
        assert said() == f"ZPHR: {NOT_RESTARTED}"
        assert "Check the network" not in said()
