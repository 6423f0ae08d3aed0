"""Forms never save what the user did not enter (issue 14, point 9), the yard site form: a user
types a site, changes the dock doors, the slot length and the opening hours and changes them
back, and the body the service received (caught by the test proxy in front of it) and the
site it stored are exactly what the form showed. The other list panes' forms are in
tests/ui/test_forms_send_what_is_shown.py."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.yard.pane import YardPane
from tests.proxy import FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys
from tests.ui.test_capacity_support import type_text
from tests.ui.test_panes_support import proxied, shown_pane
from tests.ui.test_yard_pane import SITES

__all__ = ["proxied"]


async def test_yard_site_changed_back_and_forth_sends_what_the_form_shows(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, YardPane)
    await wait_until(lambda: pane.add_button.isEnabled() and pane.site_model.rowCount() == 0, 30)

    await keys(qtbot, pane.code, "DEN-XD")
    await keys(qtbot, pane.name, "Denver Cross-Dock")
    # The zone without keys: its completer's popup cannot grab the offscreen keyboard.
    type_text(pane.time_zone, "America/Chicago")
    type_text(pane.time_zone, "America/Denver")
    # Doors up to 6 and back down to 5; the slot 45 minutes, then 30.
    pane.doors.setValue(6)
    pane.doors.setValue(5)
    pane.slot_minutes.setValue(45)
    pane.slot_minutes.setValue(30)
    # Saturday hours added, then taken out again.
    await keys(qtbot, pane.hours, "MON-FRI 06:00-14:00; SAT 08:00-12:00")
    await keys(qtbot, pane.hours, "MON-FRI 06:00-14:00")

    await click(qtbot, pane.add_button)
    await wait_until(lambda: pane.site_model.rowCount() == 1, 30)
    (sent,) = proxy.sent("POST", SITES)
    assert sent == {
        "code": "DEN-XD",
        "name": "Denver Cross-Dock",
        "timeZone": "America/Denver",
        "dockDoorCount": 5,
        "slotMinutes": 30,
        "openingHours": [
            {"days": ["MON", "TUE", "WED", "THU", "FRI"], "opens": "06:00", "closes": "14:00"}
        ],
    }
    (stored,) = tenant.http.get(SITES).json()["sites"]
    assert {k: stored[k] for k in sent if k != "dockDoorCount"} == {
        k: v for k, v in sent.items() if k != "dockDoorCount"
    }
    assert len(stored["dockDoors"]) == 5
    pane.shutdown()
