"""The Carrier push console against the real local service, driven as a user: a truckload
update for a demo shipment typed, sent and followed to "matched"; a refused field beside its
field before sending (nothing sent); one refused by the service beside its field; resend from
the history; a carrier's own client application pushing for its customer."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from freightdesk.models.push import PARCEL_RULES, TRUCKLOAD_RULES
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.forms import TOO_FAR_AHEAD, shown_rule
from freightdesk.ui.panes.push.pane import PushPane
from tests.service.test_carrier_push_service import demo_shipment
from tests.support import TenantHandle, make_tenant, wait_until
from tests.ui.clock_forms import cell, clock_text
from tests.ui.test_capacity_support import type_text
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]

EVENT_TIME = "truckload.shipmentEvent.dateTime"
ACCOUNT = "customerAccountNumber"


def _compose(pane: PushPane, bol: str, *, account: str = "") -> None:
    """A truckload arrival at stop 1 with a position, typed into the form."""
    form = pane.truckload
    type_text(form.customer, account)
    type_text(form.bill_of_lading, bol)
    form.event_type.setCurrentText("Arrival at stop")
    form.event_time.set_value(datetime.now(UTC) - timedelta(minutes=1))
    type_text(form.stop_number, "1")
    form.readings_box.setChecked(True)
    form.readings_time.set_value(datetime.now(UTC) - timedelta(minutes=1))
    type_text(form.latitude, "41.88")
    type_text(form.longitude, "-87.63")
    type_text(form.temperature, "3.5")


async def _sent_and_settled(pane: PushPane, qtbot: QtBot, before: int) -> None:
    qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
    await wait_until(
        lambda: pane.history_model.rowCount() == before + 1 and pane.following is None, 60
    )


async def test_typed_sent_followed_to_matched_and_resent(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], qtmodeltester: object
) -> None:
    session, tenant = connected
    shipment_id, bol = demo_shipment(tenant)
    pane = await shown_pane(qtbot, session, PushPane)
    keys = mnemonics(pane)  # Alt+letter: each once, none of the menus'
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys
    # The interface's rules stand beside their fields.
    rule = pane.truckload.rule_labels[EVENT_TIME].text()
    assert (
        rule == shown_rule(TRUCKLOAD_RULES[EVENT_TIME], time=True)
        and "5 minutes in the future" in rule
    )
    shown = " ".join(label.text() for label in pane.findChildren(QLabel, "rule"))
    times = (EVENT_TIME, "truckload.readings.dateTime", "timestamp", "estimatedTimeOfArrival")
    for path, text in (*TRUCKLOAD_RULES.items(), *PARCEL_RULES.items()):
        # Every rule of the models is on screen, in the form's words.
        assert shown_rule(text, time=path in times) in shown, text
    # In company words: "tenant" is the service's word, not a dispatcher's.
    customer = pane.truckload.rule_labels[ACCOUNT].text()
    assert "the customer's company id" in customer and "a carrier's account may" in customer
    assert "tenant" not in shown.lower()

    _compose(pane, bol)
    await _sent_and_settled(pane, qtbot, 0)
    assert pane.status.text().startswith(f"BOL {bol}: Arrival at stop + readings: Processed")
    assert "matched 1 shipment" in pane.status.text()
    assert not pane.progress.isVisible() and not pane.cancel_button.isVisible()
    qtmodeltester.check(pane.history_model)  # type: ignore[attr-defined]
    sent = pane.history_model.items[0]
    assert sent.matched == (shipment_id,) and sent.status == "PROCESSED"
    assert pane.history_model.data(pane.history_model.index(0, 5)).startswith("Processed")
    assert clock_text(cell(pane.history_model, 0, "Sent"))  # the one clock, the zone named
    # What was typed stays, for the next push.
    assert pane.truckload.bill_of_lading.text() == bol

    # Resend from the history: the same body, a new receipt, matched again.
    pane.history.selectRow(0)
    qtbot.mouseClick(pane.resend_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.history_model.rowCount() == 2 and pane.following is None, 60)
    again = pane.history_model.items[0]
    assert again.body == sent.body and again.ingestion_id != sent.ingestion_id
    assert again.status == "PROCESSED" and again.matched == (shipment_id,)

    # A new pane over the same profile shows the history from the cache.
    reopened = PushPane(session)
    qtbot.addWidget(reopened)
    await wait_until(lambda: reopened.history_model.rowCount() == 2, 30)
    reopened.shutdown()
    pane.shutdown()


async def test_refused_beside_the_field_before_and_by_the_service(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _shipment_id, bol = demo_shipment(tenant)
    pane = await shown_pane(qtbot, session, PushPane)
    form = pane.truckload
    _compose(pane, bol)
    # Before sending, nothing sent: a latitude past the pole, then (that mended) a time ten
    # minutes ahead, which breaks the clock rule.
    type_text(form.latitude, "95")
    qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
    assert "90" in form.errors.message_for("truckload.readings.position.latitude")
    type_text(form.latitude, "41.88")
    form.event_time.set_value(datetime.now(UTC) + timedelta(minutes=10))
    qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
    assert form.errors.message_for(EVENT_TIME) == TOO_FAR_AHEAD
    assert form.errors.message_for("truckload.readings.position.latitude") == ""
    assert pane.history_model.rowCount() == 0 and not pane.sending

    # By the service: only a carrier may push for another tenant; said beside the field.
    form.event_time.set_value(datetime.now(UTC) - timedelta(minutes=1))
    type_text(form.customer, "00000000-0000-4000-8000-000000000000")
    qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: bool(form.errors.message_for(ACCOUNT)), 30)
    assert form.errors.message_for(ACCOUNT) == (
        "Only a carrier's account may push updates for another company: leave this empty to "
        "update your own shipments"
    )
    assert form.errors.message_for(EVENT_TIME) == ""
    assert pane.status.text() == "Not sent." and pane.history_model.rowCount() == 0
    assert form.customer.text() == "00000000-0000-4000-8000-000000000000"  # kept as typed
    pane.shutdown()


async def test_a_carrier_pushes_for_its_customer(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    shipment_id, bol = demo_shipment(tenant)
    carrier = make_tenant(tenant.service, kind="CARRIER")
    pane = await shown_pane(qtbot, session, PushPane)
    try:
        qtbot.mouseClick(pane.as_carrier, Qt.MouseButton.LeftButton)
        assert pane.client_id.isEnabled()
        _compose(pane, bol, account=tenant.uuid)
        qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
        assert pane.who_errors.message_for("clientId").startswith("Enter")
        type_text(pane.client_id, carrier.client_id)
        type_text(pane.secret, "not the secret")
        qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: bool(pane.who_errors.message_for("clientSecret")), 30)
        assert "refused" in pane.who_errors.message_for("clientSecret")
        assert pane.history_model.rowCount() == 0
        type_text(pane.secret, carrier.client_secret)
        await _sent_and_settled(pane, qtbot, 0)
        assert pane.who_errors.message_for("clientSecret") == ""
        sent = pane.history_model.items[0]
        assert sent.sent_as == carrier.client_id, pane.status.text()
        assert sent.matched == (shipment_id,), pane.status.text()
    finally:
        pane.shutdown()
        await wait_until(lambda: pane.service.pushing_as == "profile", 10)
        carrier.http.close()


async def test_a_rule_of_several_fields_names_them_as_the_form_does(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The "at least one of" rules, said beside the fields in the form's words: the service's
    (and the models') messages name the wire fields ("billOfLadingNumber or orderNumber")."""
    session, tenant = connected
    _shipment_id, bol = demo_shipment(tenant)
    pane = await shown_pane(qtbot, session, PushPane)
    form = pane.truckload
    _compose(pane, bol)

    def refused(path: str) -> str:
        qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
        message = form.errors.message_for(path)
        assert message and not re.search(r"[a-z][A-Z]", message), message  # no camelCase
        return message

    type_text(form.bill_of_lading, "")
    assert refused("truckload.identifiers") == "Enter a bill of lading or an order number"
    type_text(form.bill_of_lading, bol)
    # Readings without a position or a reading.
    type_text(form.latitude, "")
    type_text(form.longitude, "")
    type_text(form.temperature, "")
    assert refused("truckload.readings").startswith("Enter a latitude and longitude, or a ")
    # Neither an event nor readings: both boxes unticked with the space bar.
    for box in (form.event_box, form.readings_box):
        box.setFocus()
        qtbot.keyClick(box, Qt.Key.Key_Space)
        assert not box.isChecked()
    assert refused("truckload") == "Tick Shipment event, Readings, or both"
    assert pane.history_model.rowCount() == 0 and not pane.sending

    # The parcel form: a position update with no place.
    pane.tabs.setCurrentIndex(1)
    parcel = pane.parcel
    type_text(parcel.carrier, "UPSN")
    type_text(parcel.tracking, "1Z999AA10123456784")
    parcel.event_type.setCurrentText("Position update")
    qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
    said = parcel.errors.message_for("location")
    assert said == "A position update needs a latitude and longitude, or an address", said
    pane.shutdown()
