"""Stop locations say their days as the yard sites' hours do (`models/weekdays`): days in a
row as a range, which may wrap the week ("Sat-Mon", an en dash, for Saturday, Sunday and
Monday, not "Mon, Sat, Sun"), in the list, its tooltip and the detail under it, against the
real local service."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]

PATH = "/api/v4/stoplocations"
WEEKEND_AND_MONDAY = {"appliesSaturday": True, "appliesSunday": True, "appliesMonday": True}
WEEKDAYS = {f"applies{day}day": True for day in ("Mon", "Tues", "Wednes", "Thurs", "Fri")}


def _hours(days: dict[str, bool], opens: str, closes: str) -> dict[str, Any]:
    return {**days, "opens": opens, "closes": closes}


async def test_days_in_a_row_read_as_a_range_that_may_wrap_the_week(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    body = {
        "name": "Austin cross-dock",
        "address": {"addressLines": ["100 Congress Ave"], "city": "Austin", "state": "TX",
                    "postalCode": "78701", "country": "US"},
        "openingHours": [_hours(WEEKDAYS, "07:00", "19:00"),
                         _hours(WEEKEND_AND_MONDAY, "22:00", "24:00")],
    }  # fmt: skip
    assert tenant.http.post(PATH, json=body).status_code in (200, 201)
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    hours = pane.model.index(0, pane.model.columnCount() - 1)
    said = "Mon\u2013Fri 07:00\u201319:00; Sat\u2013Mon 22:00\u201324:00"
    assert pane.model.data(hours) == said
    assert pane.model.data(hours, Qt.ItemDataRole.ToolTipRole) == said.replace("; ", "\n")
    pane.table.selectRow(0)
    assert f"open {said}" in pane.detail.text()
    pane.shutdown()
