"""A booking without a quote names its parent shipment as a dispatcher knows it: an identifier
(a PRO, a bill of lading) typed, completed from the shipments the app lists ('PRO1234 · LTL ·
Chicago DC → Dallas DC'), the shipment's id sent. An identifier no listed shipment has is
said in words beside the field (it was the validator's 'Input should be a valid UUID'), and
the rate identifier's source and type are chosen, not typed. Against the real local service,
with keys and clicks on the form."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialogButtonBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.dialogs.shipment_choice import UNKNOWN
from tests.server.test_rating_support import BOOKINGS, set_profile
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys
from tests.ui.plain_words import leaks
from tests.ui.test_bookings_pane import _bookings_pane
from tests.ui.test_capacity_support import settle
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import connected, new_form, shown_pane
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected"]


async def test_the_parent_shipment_is_chosen_by_its_identifier_and_its_id_sent(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZHD", behaviour="SLOW")  # unanswered while the test reads it back
    chicago = _put(tenant, _ltl("PRO1234"))
    joliet = _put(tenant, _ltl("PRO1299", city="Joliet"))
    pane = await shown_pane(qtbot, session, _bookings_pane)
    shipments = session.shipments
    assert shipments is not None
    # The list the Shipments pane keeps synced in the app.
    assert await shipments.coordinator.fetch_now()
    assert shipments.coordinator.data is not None
    assert len(shipments.coordinator.data.summaries) == 2
    form = await new_form(pane, BookingFormDialog, "No bookings yet", seconds=30)
    form.activateWindow()  # as the window manager does
    await wait_until(form.isActiveWindow)
    edit = form.shipment_id
    await click(qtbot, edit)
    assert edit.hasFocus()
    assert "uuid" not in edit.placeholderText() and "PRO" in edit.placeholderText()

    # Part of a PRO typed: both shipments offered by name, mode and lane; the first chosen.
    await keys(qtbot, edit, "pro12")
    popup = form.shipment_choice.completer.popup()
    await wait_until(popup.isVisible)
    offered = sorted(str(popup.model().index(r, 0).data()) for r in range(popup.model().rowCount()))
    assert offered == [
        "PRO1234 \u00b7 LTL \u00b7 Chicago DC \u2192 Dallas DC",
        "PRO1299 \u00b7 LTL \u00b7 Joliet DC \u2192 Dallas DC",
    ]
    row = next(r for r in range(2) if "PRO1234" in str(popup.model().index(r, 0).data()))
    for _down in range(row + 1):
        await _from_loop(lambda: qtbot.keyClick(popup, Qt.Key.Key_Down))
    await _from_loop(lambda: qtbot.keyClick(popup, Qt.Key.Key_Return))
    await wait_until(lambda: not popup.isVisible())
    assert edit.text().startswith("PRO1234 \u00b7 LTL")
    assert form.wire()["shipmentId"] == chicago

    # Another identifier (the bill of lading) typed whole: that shipment, named beside it.
    await keys(qtbot, edit, "b-pro1299")
    await _from_loop(lambda: popup.hide())
    assert form.wire()["shipmentId"] == joliet
    assert form.shipment_choice.shown.text() == (
        "PRO1299 \u00b7 LTL \u00b7 Joliet DC \u2192 Dallas DC"
    )

    # One no listed shipment has: said in words beside the field as the user leaves it.
    await keys(qtbot, edit, "not-a-pro")
    await _from_loop(lambda: popup.hide())
    await _from_loop(lambda: qtbot.keyClick(edit, Qt.Key.Key_Tab))
    await wait_until(lambda: form.errors.message_for("shipmentId") == UNKNOWN)
    assert "shipmentId" not in form.wire()
    book = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
    await click(qtbot, book)
    assert form.errors.message_for("shipmentId") == UNKNOWN  # not "is required"
    assert form.isVisible()
    assert leaks(form) == []  # no validator's words, no uuid

    # The rate identifier's source and type: the interface's values in words, chosen.
    source = form.rate_identifiers.table.cellWidget(0, 0)
    kind = form.rate_identifiers.table.cellWidget(0, 1)
    assert isinstance(source, QComboBox) and isinstance(kind, QComboBox)
    assert not source.isEditable() and not kind.isEditable()
    assert [source.itemText(i) for i in range(source.count())] == ["From outside", "The carrier's"]
    assert [kind.itemText(i) for i in range(kind.count())] == ["Contract", "Spot"]

    # Booked with the shipment chosen by its PRO: the service stores the shipment's id.
    await keys(qtbot, edit, "PRO1234")
    await _from_loop(lambda: popup.hide())
    await keys(qtbot, form.scac, "ZZHD")
    form.rate_identifiers.set_text(0, 2, "C-2024-17")
    await click(qtbot, book)
    await wait_until(lambda: not form.isVisible(), seconds=30)
    await wait_until(lambda: pane.model.rowCount() == 1, seconds=30)
    stored = tenant.http.get(f"{BOOKINGS}/{pane.model.items[0].id}").json()
    assert stored["shipmentId"] == chicago
    pane.shutdown()
    await settle(session)
