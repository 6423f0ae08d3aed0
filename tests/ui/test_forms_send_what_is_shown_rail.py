"""Forms never save what the user did not enter (issue 14, point 9), the rail leg form: a user
types a leg, switches the equipment's type, the tracking start and the stops' appointment
windows on and off and back, and what the real local service stored (read back over the API)
is exactly what the form showed. The other list panes' forms are in
tests/ui/test_forms_send_what_is_shown.py."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.rail.pane import RailPane
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import Section, click, day_parts, keys, shown_day, type_parts
from tests.ui.test_forms_send_what_is_shown import _choose
from tests.ui.test_panes_support import connected, shown_pane
from tests.ui.test_rail_pane import PATH

__all__ = ["connected"]


def _present(wire: dict[str, Any]) -> dict[str, Any]:
    """The fields given (the service answers the others as null or empty)."""
    return {k: v for k, v in wire.items() if v not in (None, [], {}, "")}


async def test_rail_leg_switched_back_and_forth_saves_what_the_form_shows(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, RailPane)
    form = pane.form
    origin, destination = form.stops

    # The equipment: a trailer, then a container again.
    _choose(form.equipment_type, "TRAILER_ID")
    await keys(qtbot, form.equipment, "MSKU1234565")
    _choose(form.equipment_type, "CONTAINER_ID")
    await keys(qtbot, form.bills, "BOL-SW-1, BOL-SW-2")
    await keys(qtbot, form.waybills, "WB-9")
    form.waybills.clear()
    # Tracking from a time: ticked, then unticked (greyed, not sent).
    await click(qtbot, form.starts)
    await click(qtbot, form.starts)
    assert not form.start.isEnabled() and "trackingStartDateTime" not in form.wire()

    await keys(qtbot, origin.place, "BNSF Hobart")
    await keys(qtbot, origin.city, "Los Angeles")
    await keys(qtbot, origin.state, "CA")
    # The origin's window: ticked with a zone, unticked (not sent), ticked again (kept).
    origin.windowed.click()
    await keys(qtbot, origin.zone, "America/Los_Angeles")
    origin.windowed.click()
    assert not origin.zone.isEnabled() and "appointmentWindow" not in origin.wire()
    origin.windowed.click()
    # The window typed by the keyboard, its day as the clock writes days ("Dec 3 2026"),
    # the month typed by its number in one and its name in the other.
    day = date.today() + timedelta(days=3)
    await type_parts(
        qtbot,
        origin.start,
        [
            *day_parts(day, month_number=True),
            (Section.HourSection, "09"),
            (Section.MinuteSection, "30"),
        ],
    )
    await type_parts(
        qtbot,
        origin.end,
        [*day_parts(day), (Section.HourSection, "13"), (Section.MinuteSection, "45")],
    )
    assert origin.start.text() == f"{shown_day(day)} 09:30"
    assert origin.end.text() == f"{shown_day(day)} 13:45"
    # The destination: a city; its window ticked and unticked again.
    await keys(qtbot, destination.city, "Chicago")
    destination.windowed.click()
    destination.windowed.click()
    start = datetime(day.year, day.month, day.day, 9, 30)
    end = datetime(day.year, day.month, day.day, 13, 45)

    await click(qtbot, pane.track_button)
    await wait_until(lambda: pane.model.rowCount() == 1 and pane.track_button.isEnabled(), 30)
    (leg,) = tenant.http.get(PATH).json()["results"]
    stored = _present(leg["shipment"])
    assert [_present(e) for e in stored["equipmentIdentifiers"]] == [
        {"type": "CONTAINER_ID", "value": "MSKU1234565"}
    ]
    assert stored["shipmentIdentifiers"] == [
        {"type": "BILL_OF_LADING", "value": "BOL-SW-1"},
        {"type": "BILL_OF_LADING", "value": "BOL-SW-2"},
    ]
    stops = [_present(s) for s in stored["shipmentStops"]]
    assert [(s["stopNumber"], s["type"], _present(s["location"]["address"])) for s in stops] == [
        (1, "ORIGIN", {"pointName": "BNSF Hobart", "city": "Los Angeles", "state": "CA"}),
        (2, "DESTINATION", {"city": "Chicago"}),
    ]
    assert "appointmentWindow" not in stops[1]
    window = stops[0]["appointmentWindow"]
    zone = ZoneInfo("America/Los_Angeles")
    assert window["localTimeZoneIdentifier"] == "America/Los_Angeles"
    assert datetime.fromisoformat(window["startDateTime"]) == start.replace(tzinfo=zone)
    assert datetime.fromisoformat(window["endDateTime"]) == end.replace(tzinfo=zone)
    pane.shutdown()
