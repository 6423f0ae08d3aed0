"""The Carrier push console's fields as the new user's walkthrough left them: the other sensor
readings typed into a table (reading, zone or tire, value, unit) instead of the wire's JSON,
each bad value said of its row under the table; the parcel ETA in the app's date and time
editor, so no format can be typed wrong; the speed unit's rule spelt as its choice; nothing
of the wire's words on screen after bad inputs or after a push; Tab reaching Send. Against the
real local service (through the test proxy, which keeps the bodies it passed), with keys and
clicks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QDateTimeEdit, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.api.carrier_push import PARCEL_PATH, TRUCKLOAD_PATH
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.forms import java_text
from freightdesk.ui.panes.push.pane import PushPane
from freightdesk.ui.panes.push.sensors import READING, UNIT
from tests.proxy import FaultyProxy
from tests.service.test_carrier_push_service import demo_shipment
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys
from tests.ui.plain_words import leaks
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import proxied, shown_pane

__all__ = ["proxied"]

SENSOR = "truckload.readings.sensor"
LATITUDE = "truckload.readings.position.latitude"


def _focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None
    return widget


async def _reading(qtbot: QtBot, pane: PushPane, words: str, of: str, value: str) -> int:
    """A row added with its button, the zone or tire and the value typed into the cells the
    keyboard is taken to (Tab from one to the next), the reading chosen in its drop-down by
    the Down key."""
    table = pane.truckload.sensors
    await click(qtbot, table.add_button)
    row = table.rows() - 1

    # One step at a time, Qt's events between (an editor closed is deleted then), as keys
    # come from a user.
    await _from_loop(lambda: qtbot.keyClicks(_focused(), of))
    await _from_loop(lambda: qtbot.keyClick(_focused(), Qt.Key.Key_Tab))
    await _from_loop(lambda: qtbot.keyClicks(_focused(), value))
    await _from_loop(lambda: qtbot.keyClick(_focused(), Qt.Key.Key_Return))
    box = table.table.cellWidget(row, READING)
    assert isinstance(box, QComboBox)

    def chosen() -> None:
        box.setFocus()
        for _ in range(box.findText(words) - box.currentIndex()):
            qtbot.keyClick(box, Qt.Key.Key_Down)

    await _from_loop(chosen)
    assert table.table.cellWidget(row, READING).currentText() == words  # type: ignore[union-attr]
    return row


async def _sent(pane: PushPane, count: int) -> None:
    await wait_until(
        lambda: pane.history_model.rowCount() == count and pane.following is None, seconds=60
    )


async def test_sensor_readings_typed_in_a_table_and_each_bad_value_said_of_its_row(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    shipment_id, bol = demo_shipment(tenant)
    pane = await shown_pane(qtbot, session, PushPane)
    form = pane.truckload
    moment = (datetime.now(UTC) - timedelta(minutes=1)).replace(second=0, microsecond=0)
    await keys(qtbot, form.bill_of_lading, bol)
    form.event_time.set_value(moment)

    def readings_on() -> None:
        form.readings_box.setFocus()
        qtbot.keyClick(form.readings_box, Qt.Key.Key_Space)

    await _from_loop(readings_on)
    assert form.readings_box.isChecked()
    form.readings_time.set_value(moment)
    # The speed unit's rule says it as its choice does ("Kilometers", not "Kilometres").
    assert form.speed_unit.currentText() == "Kilometers per hour"
    assert (
        "Kilometers per hour when not given"
        in form.rule_labels["truckload.readings.position.speed"].text()
    )

    await keys(qtbot, form.latitude, "95")
    await keys(qtbot, form.longitude, "-87.63")
    humidity = await _reading(qtbot, pane, "Zone humidity", "1", "150")
    assert form.sensors.text(humidity, UNIT) == "%"  # the one unit it is read in
    await _reading(qtbot, pane, "Reefer engine speed", "", "fast")
    await click(qtbot, pane.send_button)
    assert form.errors.message_for(LATITUDE) == "Enter 90 or less"
    assert form.errors.message_for(SENSOR).splitlines() == [
        "Row 1, Zone humidity: Enter 100 or less",
        "Row 2, Reefer engine speed: Enter a valid number, such as 1500 or 2.5",
    ]
    assert pane.history_model.rowCount() == 0 and not pane.sending
    assert leaks(pane) == [], leaks(pane)

    # Mended: the engine speed's row removed by the keyboard, the humidity typed again, two
    # readings more (a tire, and a zone's set point in Fahrenheit).
    table = form.sensors.table

    def removed() -> None:
        table.setFocus()
        table.setCurrentCell(1, 2)
        qtbot.keyClick(table, Qt.Key.Key_Delete)
        table.setCurrentCell(0, 2)
        qtbot.keyClick(table, Qt.Key.Key_F2)

    await _from_loop(removed)
    await _from_loop(
        lambda: qtbot.keyClick(_focused(), Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    )
    await _from_loop(lambda: qtbot.keyClicks(_focused(), "45"))
    await _from_loop(lambda: qtbot.keyClick(_focused(), Qt.Key.Key_Return))
    assert table.rowCount() == 1 and form.sensors.text(0, 2) == "45"
    await keys(qtbot, form.latitude, "41.88")
    await _reading(qtbot, pane, "Tire pressure", "2 LO", "105")
    set_point = await _reading(qtbot, pane, "Zone set point", "1", "-0,5")
    unit = table.cellWidget(set_point, UNIT)
    assert isinstance(unit, QComboBox) and unit.currentText() == "Celsius"
    await _from_loop(lambda: qtbot.keyClicks(unit, "Fahrenheit"))
    await click(qtbot, pane.send_button)
    await _sent(pane, 1)
    sensor = proxy.sent("POST", TRUCKLOAD_PATH)[0]["truckload"]["readings"]["sensor"]
    assert sensor == {
        "zones": [
            {
                "id": 1,
                "humidity": {"percentage": 45},
                "setPoint": -0.5,
                "temperatureUnit": "FAHRENHEIT",
            }
        ],
        "tirePressure": [{"axle": 2, "position": "LO", "psi": 105}],
    }
    assert pane.history_model.items[0].matched == (shipment_id,), pane.status.text()
    assert form.errors.message_for(SENSOR) == ""
    assert leaks(pane) == [], leaks(pane)
    pane.shutdown()


async def test_parcel_eta_in_the_date_and_time_editor(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, _tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, PushPane)
    pane.tabs.setCurrentIndex(1)
    parcel = pane.parcel
    await keys(qtbot, parcel.carrier, "UPSN")
    await keys(qtbot, parcel.tracking, "1Z999AA10123456784")
    assert isinstance(parcel.eta, QDateTimeEdit) and not parcel.eta.isEnabled()

    # The ETA event chosen by the keyboard ticks the ETA's box: an ETA event needs one.
    def eta_event() -> None:
        parcel.event_type.setFocus()
        qtbot.keyClicks(parcel.event_type, "ETA")

    await _from_loop(eta_event)
    assert parcel.event_type.currentText() == "ETA"
    assert parcel.eta_given.isChecked() and parcel.eta.isEnabled()
    # Letters cannot go into it; a year later by the keyboard (a day later fails on the 30th
    # of November: the day does not go on into the next month).
    before = parcel.eta.value()

    shown = parcel.eta.text()

    def letters() -> None:
        parcel.eta.setFocus()
        qtbot.keyClicks(parcel.eta, "tomorrow at five")

    await _from_loop(letters)
    assert parcel.eta.text() == shown

    def year_later() -> None:
        parcel.eta.setSelectedSection(QDateTimeEdit.Section.YearSection)
        qtbot.keyClick(parcel.eta, Qt.Key.Key_Up)

    await _from_loop(year_later)
    assert parcel.eta.value() == before.replace(year=before.year + 1), parcel.eta.text()

    # Unticked with the space bar: the ETA event is refused beside the ETA, in words.
    def untick() -> None:
        parcel.eta_given.setFocus()
        qtbot.keyClick(parcel.eta_given, Qt.Key.Key_Space)

    await _from_loop(untick)
    assert not parcel.eta.isEnabled()
    await click(qtbot, pane.send_button)
    assert parcel.errors.message_for("estimatedTimeOfArrival") == "An ETA event needs its ETA"
    assert leaks(pane) == [], leaks(pane)

    await _from_loop(untick)
    await click(qtbot, pane.send_button)
    await _sent(pane, 1)
    body = proxy.sent("POST", PARCEL_PATH)[0]
    assert body["eventType"] == "ETA"
    assert body["estimatedTimeOfArrival"] == java_text(parcel.eta.value())
    assert leaks(pane) == [], leaks(pane)
    pane.shutdown()


async def test_tab_goes_through_each_form_to_send(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, _tenant, _proxy = proxied
    pane = await shown_pane(qtbot, session, PushPane)
    pane.truckload.readings_box.setChecked(True)
    for index, first in ((0, pane.truckload.customer), (1, pane.parcel.carrier)):
        pane.tabs.setCurrentIndex(index)
        seen: list[QWidget] = []

        def tabbed(start: QWidget = first, seen: list[QWidget] = seen) -> None:
            start.setFocus()
            for _ in range(80):
                widget = _focused()
                seen.append(widget)
                if widget is pane.send_button:
                    return
                qtbot.keyClick(widget, Qt.Key.Key_Tab)

        await _from_loop(tabbed)
        names = " ".join(w.objectName() or type(w).__name__ for w in seen)
        assert seen[-1] is pane.send_button, names
    pane.shutdown()
