"""Forms never save what the user did not enter (issue 14, point 9), the carrier push
console's truckload form: a user types an update, switches the event and the readings off and
on, the event type and units away and back, types values and takes them out, and the body the
service received (caught by the test proxy in front of it) is exactly what the form showed.
The other list panes' forms are in tests/ui/test_forms_send_what_is_shown.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pytestqt.qtbot import QtBot

from freightdesk.api.carrier_push import TRUCKLOAD_PATH
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.pane import PushPane
from tests.proxy import FaultyProxy
from tests.service.test_carrier_push_service import demo_shipment, iso
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys
from tests.ui.test_panes_support import proxied, shown_pane

__all__ = ["proxied"]


async def test_truckload_update_switched_back_and_forth_sends_what_the_form_shows(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    shipment_id, bol = demo_shipment(tenant)
    pane = await shown_pane(qtbot, session, PushPane)
    form = pane.truckload
    moment = (datetime.now(UTC) - timedelta(minutes=1)).replace(second=0, microsecond=0)
    when = iso(moment)  # the editor holds the minute

    await keys(qtbot, form.bill_of_lading, bol)
    await keys(qtbot, form.order, "4533964024")
    form.order.clear()  # typed and taken out: not sent
    # The event: off and on again; its type departure, then arrival.
    form.event_box.setChecked(False)
    form.event_box.setChecked(True)
    form.event_type.setCurrentText("Departure from stop")
    form.event_type.setCurrentText("Arrival at stop")
    form.event_time.set_value(moment)
    await keys(qtbot, form.stop_number, "1")
    # Readings: on, typed, off, on again (kept as typed).
    form.readings_box.setChecked(True)
    form.readings_time.set_value(moment)
    await keys(qtbot, form.latitude, "41.88")
    await keys(qtbot, form.longitude, "-87.63")
    form.readings_box.setChecked(False)
    form.readings_box.setChecked(True)
    # A speed typed and taken out: neither it nor its unit is sent.
    await keys(qtbot, form.speed, "55")
    form.speed.clear()
    form.ignition.setCurrentText("ON")
    form.ignition.setCurrentText("")
    await keys(qtbot, form.temperature, "3.5")
    form.temperature_unit.setCurrentText("Fahrenheit")
    form.temperature_unit.setCurrentText("Celsius")
    await keys(qtbot, form.fuel, "62")
    form.fuel.clear()

    await click(qtbot, pane.send_button)
    await wait_until(
        lambda: pane.history_model.rowCount() == 1 and pane.following is None, seconds=60
    )
    assert proxy.sent("POST", TRUCKLOAD_PATH) == [
        {
            "truckload": {
                "identifiers": {"billOfLadingNumber": bol},
                "shipmentEvent": {"type": "ARRIVAL_AT_STOP", "dateTime": when, "stopNumber": 1},
                "readings": {
                    "dateTime": when,
                    "position": {"latitude": 41.88, "longitude": -87.63},
                    "sensor": {"ambientTemperature": {"value": 3.5, "unit": "CELSIUS"}},
                },
            }
        }
    ]
    assert pane.history_model.items[0].matched == (shipment_id,)
    pane.shutdown()
