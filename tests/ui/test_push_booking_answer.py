"""The Carrier push console answers a booking as its carrier (an extension of the local
service), against the real local service with clicks and keys: the bookings waiting for an
answer offered, a refused acceptance (no identifier tracking can follow) said beside the
identifier, the fields that do not apply greyed and holding nothing (what was typed comes
back), and exactly what the dialog shows stored with the booking."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.booking_answer import NONE_WAITING, BookingAnswerDialog
from freightdesk.ui.panes.push.pane import PushPane
from tests.server.test_rating_support import set_profile
from tests.support import TenantHandle, wait_until
from tests.ui.test_bookings_pane import _booking
from tests.ui.test_panes_support import answer, connected, message_box, shown_dialog, shown_pane

__all__ = ["connected"]

BOOKINGS = "/services/booking/v1/bookings"
LEFT = Qt.MouseButton.LeftButton
WAIT = 60.0
# A combo box's list pops up on a click; the offscreen platform says it cannot raise it.
pytestmark = pytest.mark.qt_log_ignore(r"^This plugin does not support")


def _click(qtbot: QtBot, widget: Any) -> None:
    qtbot.mouseClick(widget, LEFT, pos=QPoint(6, widget.height() // 2))


async def _opened(qtbot: QtBot, pane: PushPane, count: int) -> BookingAnswerDialog:
    qtbot.mouseClick(pane.answer_button, LEFT)
    dialog = shown_dialog(pane, BookingAnswerDialog)
    await wait_until(lambda: dialog.booking.count() == count and dialog.waiting != [], WAIT)
    return dialog


async def test_answer_a_booking_as_its_carrier(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZRV", behaviour="REVIEW", responseDelaySeconds=0)
    first, second = _booking(tenant, "ZZRV"), _booking(tenant, "ZZRV")
    pane = await shown_pane(qtbot, session, PushPane)
    dialog = await _opened(qtbot, pane, 2)
    assert {dialog.booking.itemData(i) for i in range(2)} == {first["id"], second["id"]}
    dialog.booking.setCurrentIndex(dialog.booking.findData(first["id"]))
    # A truckload booking: tracking follows it by bill of lading or order number.
    types = [dialog.identifier_type.itemText(i) for i in range(dialog.identifier_type.count())]
    assert types == ["Bill of lading", "Purchase order"]

    # Accepting without an identifier: the service's refusal beside the identifier.
    assert not dialog.notes.isEnabled() and not dialog.reason.isEnabled()
    qtbot.mouseClick(dialog.send_button, LEFT)
    await wait_until(lambda: bool(dialog.errors.message_for("carrierProvidedIdentifiers")), WAIT)
    # In a dispatcher's words, the kinds as the Identifier choice names them.
    assert dialog.errors.message_for("carrierProvidedIdentifiers") == (
        "Give a bill of lading or purchase order number so the shipment can be found"
    )
    assert dialog.isVisible()

    # Reject, notes typed, then Accept again: the notes are set aside, not sent; they come
    # back with Reject.
    _click(qtbot, dialog.reject_choice)
    assert dialog.notes.isEnabled() and not dialog.identifier_value.isEnabled()
    qtbot.keyClicks(dialog.notes, "No trucks this week")
    _click(qtbot, dialog.accept_choice)
    assert dialog.notes.text() == "" and not dialog.notes.isEnabled()
    assert "carrierRejectionNotes" not in dialog.wire()
    _click(qtbot, dialog.reject_choice)
    assert dialog.notes.text() == "No trucks this week"
    _click(qtbot, dialog.accept_choice)

    qtbot.keyClicks(dialog.identifier_value, "BOL-77")
    dialog.method.setCurrentIndex(dialog.method.findData("PORTAL"))
    shown = dialog.wire()
    assert shown == {
        "decision": "ACCEPT",
        "responseMethod": "PORTAL",
        "carrierProvidedIdentifiers": [{"type": "BILL_OF_LADING", "value": "BOL-77"}],
    }
    qtbot.mouseClick(dialog.send_button, LEFT)
    await wait_until(lambda: not dialog.isVisible(), WAIT)
    # The mode in words, as every list says it.
    assert pane.notice.text().startswith("Answered as the carrier: ZZRV: booked, Truckload (TL)")
    booked = tenant.http.get(f"{BOOKINGS}/{first['id']}").json()
    assert booked["status"] == "BOOKED" and booked["carrierResponseMethod"] == "PORTAL"
    assert booked["carrierProvidedIdentifiers"] == shown["carrierProvidedIdentifiers"]

    # The other one, rejected with a reason and notes.
    dialog = await _opened(qtbot, pane, 1)
    _click(qtbot, dialog.reject_choice)
    dialog.reason.setCurrentIndex(dialog.reason.findData("NO_CAPACITY"))
    qtbot.keyClicks(dialog.notes, "Full until Monday")
    dialog.method.setCurrentIndex(dialog.method.findData("PHONE"))
    qtbot.mouseClick(dialog.send_button, LEFT)
    await wait_until(lambda: not dialog.isVisible(), WAIT)
    rejected = tenant.http.get(f"{BOOKINGS}/{second['id']}").json()
    assert rejected["status"] == "REJECTED"
    assert rejected["rejectionReason"] == "NO_CAPACITY"
    assert rejected["carrierRejectionNotes"] == "Full until Monday"
    assert rejected["carrierResponseMethod"] == "PHONE"

    # None left: the dialog says so, and how a booking comes to wait.
    qtbot.mouseClick(pane.answer_button, LEFT)
    dialog = shown_dialog(pane, BookingAnswerDialog)
    await wait_until(lambda: dialog.general_error.text() == NONE_WAITING, WAIT)
    assert not dialog.send_button.isEnabled()
    dialog.reject()
    pane.shutdown()


async def test_escape_asks_before_a_chosen_answer_is_lost(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZRV", behaviour="REVIEW", responseDelaySeconds=0)
    _booking(tenant, "ZZRV")
    pane = await shown_pane(qtbot, session, PushPane)
    dialog = await _opened(qtbot, pane, 1)
    # Reject clicked and a reason picked with the keys: nothing typed, but an answer chosen.
    _click(qtbot, dialog.reject_choice)
    dialog.reason.setFocus()
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Down)
    assert dialog.reason.currentIndex() == 1
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert message_box("unsavedChanges") is not None and dialog.isVisible()
    answer("unsavedChanges", QMessageBox.StandardButton.Cancel)
    assert dialog.reject_choice.isChecked() and dialog.reason.currentIndex() == 1
    dialog.mark_clean()
    dialog.reject()
    pane.shutdown()


async def test_a_booking_cancelled_meanwhile_is_said_under_the_booking(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The shipper cancels the booking while the carrier's answer is being written: the
    service's refusal names its `status`; the dialog says it in words under the booking, not
    as "status: ..." under the form."""
    session, tenant = connected
    set_profile(tenant, "ZZRV", behaviour="REVIEW", responseDelaySeconds=0)
    booking = _booking(tenant, "ZZRV")
    pane = await shown_pane(qtbot, session, PushPane)
    dialog = await _opened(qtbot, pane, 1)
    qtbot.keyClicks(dialog.identifier_value, "BOL-78")
    assert tenant.http.post(f"{BOOKINGS}/{booking['id']}/cancellations").status_code == 200
    qtbot.mouseClick(dialog.send_button, LEFT)
    await wait_until(lambda: bool(dialog.errors.message_for("booking")), WAIT)
    assert dialog.errors.message_for("booking") == (
        "This booking was cancelled; only a booking being processed or under review can take "
        "the carrier's answer"
    )
    assert dialog.general_error.isHidden(), dialog.general_error.text()
    assert dialog.isVisible()
    dialog.mark_clean()
    dialog.reject()
    pane.shutdown()
