"""The Carrier push console reads in a dispatcher's words, as the new user's walkthrough met
it: the choices say "Arrival at stop" and "Kilometers per hour" (their codes go on the wire),
the times are the app's date and time editor in the user's zone (no "2026-11-29T20:24:55Z"),
a time too far ahead is said without ISO 8601, and what was sent reads in words in the status
line and the history. Against the real local service, with keys and clicks."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDateTimeEdit, QLabel
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.forms import TOO_FAR_AHEAD
from freightdesk.ui.panes.push.pane import PushPane
from tests.service.test_carrier_push_service import demo_shipment
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click
from tests.ui.test_capacity_support import type_text
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]

EVENT_TIME = "truckload.shipmentEvent.dateTime"
CODE = re.compile(r"\b[A-Z]+_[A-Z_]+\b")  # ARRIVAL_AT_STOP, KILOMETERS_PER_HOUR
WIRE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def _items(box: QComboBox) -> list[str]:
    return [box.itemText(i) for i in range(box.count())]


def _on_screen(pane: PushPane) -> str:
    """Every label and every choice and time the form shows."""
    texts = [label.text() for label in pane.findChildren(QLabel)]
    for box in pane.findChildren(QComboBox):
        texts += [box.currentText(), *_items(box)]
    texts += [edit.text() for edit in pane.findChildren(QDateTimeEdit)]
    return "\n".join(texts)


async def test_the_push_console_speaks_a_dispatchers_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _shipment_id, bol = demo_shipment(tenant)
    pane = await shown_pane(qtbot, session, PushPane)
    form = pane.truckload
    form.readings_box.setChecked(True)

    assert form.event_type.currentText() == "Arrival at stop"
    assert form.speed_unit.currentText() == "Kilometers per hour"
    assert form.temperature_unit.currentText() == "Celsius"
    assert form.fuel_unit.currentText() == "Percent remaining"
    assert "Departure from stop" in _items(form.event_type)
    assert "Carrier SCAC" in _items(pane.parcel.carrier_type)
    shown = _on_screen(pane)
    assert not CODE.search(shown), CODE.findall(shown)
    assert not WIRE_TIME.search(shown) and "ISO 8601" not in shown, WIRE_TIME.findall(shown)
    # The time now, as the app writes a time to type: "Nov 29 2026 20:24 UTC".
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2} \d{4} \d{2}:\d{2} \S+", form.event_time.text())

    # A time a year ahead, by the keyboard (a day ahead fails on the last day of a month: the
    # day does not go on into the next): said without the wire's spelling of it.
    type_text(form.bill_of_lading, bol)
    type_text(form.latitude, "41.88")
    type_text(form.longitude, "-87.63")

    def year_ahead() -> None:
        form.event_time.setFocus()
        form.event_time.setSelectedSection(QDateTimeEdit.Section.YearSection)
        qtbot.keyClick(form.event_time, Qt.Key.Key_Up)

    await _from_loop(year_ahead)
    await click(qtbot, pane.send_button)
    assert form.errors.message_for(EVENT_TIME) == TOO_FAR_AHEAD
    assert pane.history_model.rowCount() == 0

    # Now, and the next event type by the keyboard: sent as its code, read in words.
    def departure() -> None:
        form.event_type.setFocus()
        qtbot.keyClick(form.event_type, Qt.Key.Key_Down)

    await _from_loop(departure)
    assert form.event_type.currentText() == "Departure from stop"
    await click(qtbot, form.findChild(type(pane.send_button), "eventDateTimeNow"))
    before = datetime.now(UTC)
    await click(qtbot, pane.send_button)
    await wait_until(
        lambda: pane.history_model.rowCount() == 1 and pane.following is None, seconds=60
    )
    sent = pane.history_model.items[0]
    event = sent.body["truckload"]["shipmentEvent"]
    assert event["type"] == "DEPARTURE_FROM_STOP"
    moment = datetime.fromisoformat(event["dateTime"])
    assert before - timedelta(minutes=2) <= moment <= before
    assert pane.status.text().startswith(f"BOL {bol}: Departure from stop + readings: ")
    update = pane.history_model.index(0, 2).data()
    assert update == f"BOL {bol}: Departure from stop + readings", update
    pane.shutdown()
