"""The Shipments detail at the usual screens, against the real local service: its tabs stay
where they are whatever tab is shown and whatever bar comes and goes about the list (a click
meant for the Overview tab hit "Copy share link"), and the Route and States & costs tabs'
tables take the tab's height with their texts whole."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.splitter_drag import drag_handle
from tests.ui.test_columns_fit import AT_1366, AT_1440, AT_1920, _started, assert_cells_whole
from tests.ui.test_maps import (
    WEBENGINE_STARTUP,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _click_tab
from tests.ui.test_shipment_room_support import ShipmentPanes, offline_tiles, panes
from tests.ui.test_shipments_pane import _put

__all__ = ["connected", "offline_tiles", "panes"]

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

ROOMS = [AT_1366, AT_1440, AT_1920]
ROOM_IDS = ["1366", "1440", "1920"]
TABS = ["Timeline", "Map", "Overview", "Route", "States & costs", "Related", "Sharing", "JSON"]


def _stop(kind: str, name: str, street: str, city: str, state: str, zone: str) -> dict[str, object]:
    return {
        "id": str(uuid.uuid4()),
        "type": kind,
        "name": name,
        "location": {
            "address": {
                "addressLines": [street],
                "city": city,
                "state": state,
                "postalCode": "91761",
                "country": "US",
            },
            "coordinates": {"latitude": 34.059, "longitude": -117.574},
        },
        "appointmentWindow": {
            "startDateTime": "2026-11-26T16:00:00Z",
            "endDateTime": "2026-11-27T01:00:00Z",
            "localTimeZoneIdentifier": zone,
        },
    }


def _shipment(pro: str) -> dict[str, object]:
    """An LTL shipment with the demo's long stop names and addresses, two planned costs."""
    pickup = _stop(
        "PICKUP",
        "Alder & Finch Ontario DC",
        "4500 E Airport Dr",
        "Ontario",
        "CA",
        "America/Los_Angeles",
    )
    delivery = _stop(
        "DELIVERY",
        "Kitchen Collective Oakland",
        "3038 Commerce Dr",
        "Oakland",
        "CA",
        "America/Los_Angeles",
    )
    return {
        "identifiers": [{"type": "PRO", "value": pro}],
        "plan": {"expectedTransportationModes": ["LTL"]},
        "routeInfo": {"stops": [pickup, delivery]},
        "costs": [
            {"type": "PLANNED", "totalCost": {"amount": 1234.5, "currency": "USD"}},
            {"type": "ACTUAL", "totalCost": {"amount": 1301.0, "currency": "USD"}},
        ],
    }


def _tab_bar_at(pane: ShipmentsPane) -> QPoint:
    bar = pane.detail.tabs.tabBar()
    return bar.mapTo(pane, QPoint(0, 0))


@pytest.mark.parametrize("room", ROOMS, ids=ROOM_IDS)
async def test_the_detail_tabs_stay_where_they_are(
    qtbot: QtBot, panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    tag = uuid.uuid4().hex[:4].upper()
    ids = [_put(panes.tenant, _shipment(f"PRO{n}{tag}")) for n in range(12)]
    pane = await panes.showing(room, ids[0])
    detail = pane.detail
    places = {}
    # Each tab in turn, and the Map again: the bar about the list comes while it shows.
    for title in [*TABS, "Map"]:
        _click_tab(qtbot, detail, title)
        if title == "Map":
            await panes.map_tab(pane)
        await asyncio.sleep(0.05)  # laid out, as the user's next click finds it
        places[title] = _tab_bar_at(pane)
    assert len(set(places.values())) == 1, places
    where = places["Map"]

    # A shipment comes while the user works: the bar about the list comes ("1 new below")
    # and goes (Sort now); the tabs stay under the pointer.
    assert pane.news.isHidden()
    _put(panes.tenant, _shipment(f"PRONEW{tag}"))
    assert panes.session.shipments is not None
    await panes.session.shipments.coordinator.fetch_now()
    await wait_until(lambda: pane.news.isVisible(), 30)
    await asyncio.sleep(0.05)
    assert _tab_bar_at(pane) == where, (_tab_bar_at(pane), where)
    # Another pane looked at and this one shown again (its split worked out anew).
    pane.hide()
    pane.show()
    await asyncio.sleep(0.05)
    assert _tab_bar_at(pane) == where, (_tab_bar_at(pane), where)
    qtbot.mouseClick(pane.sort_now_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.news.isHidden(), 10)
    await asyncio.sleep(0.05)
    assert _tab_bar_at(pane) == where, (_tab_bar_at(pane), where)
    await panes.close()


def _assert_read_whole(table: QTableWidget) -> None:
    """Every row of `table` in sight, each cell's text whole (wrapped where narrow), nothing
    scrolled to sideways."""
    assert table.rowCount() > 0
    header = table.horizontalHeader()
    assert header.length() <= table.viewport().width(), (header.length(), table.viewport().width())
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert rows <= table.viewport().height(), (rows, table.viewport().height())
    assert_cells_whole(table)


@pytest.mark.parametrize("room", ROOMS, ids=ROOM_IDS)
async def test_the_route_and_costs_tables_read_whole(
    qtbot: QtBot, panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    tag = uuid.uuid4().hex[:4].upper()
    shipment = _put(panes.tenant, _shipment(f"PRO{tag}"))
    pane = await panes.showing(room, shipment)
    detail = pane.detail
    _click_tab(qtbot, detail, "Route")
    await asyncio.sleep(0.05)
    stop = detail.stops.item(0, 0)
    assert (
        stop is not None and stop.text() == "1. Pickup: Alder & Finch Ontario DC — Ontario, CA, US"
    )
    for table in (detail.stops, detail.segments):
        if table.rowCount():
            _assert_read_whole(table)
    _click_tab(qtbot, detail, "States & costs")
    await asyncio.sleep(0.05)
    _assert_read_whole(detail.costs)
    await panes.close()


# The list's whole rows in sight, with no shipment chosen and with one (the detail below the
# list at 1366 and 1440 px, beside it at 1920). 73639ff left 8 at 1366x768 either way, a blank
# "Select a shipment" detail taking 360 px.
LIST_ROWS = {AT_1366: (13, 10), AT_1440: (17, 10), AT_1920: (30, 30)}


def _rows_in_sight(pane: ShipmentsPane) -> int:
    return pane.table.viewport().height() // pane.table.verticalHeader().defaultSectionSize()


@pytest.mark.parametrize("room", ROOMS, ids=ROOM_IDS)
async def test_the_list_keeps_its_rows_above_the_detail(
    qtbot: QtBot, panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    tag = uuid.uuid4().hex[:4].upper()
    ids = [_put(panes.tenant, _shipment(f"PRO{n:02}{tag}")) for n in range(40)]
    pane = await _started(qtbot, panes.session, panes.settings, room)
    panes.opened.append(pane)
    await wait_until(lambda: all(pane.model.row_of(i) is not None for i in ids), 30)
    nothing, chosen = LIST_ROWS[room]
    await wait_until(lambda: _rows_in_sight(pane) >= nothing, 5)
    # The user clicks the lowest row in sight: the detail takes its room, the row stays in sight.
    row = _rows_in_sight(pane) - 1
    shipment = pane.model.summary_at(row)
    assert shipment is not None
    _click_row_of(qtbot, pane, str(shipment.id))
    await wait_until(lambda: pane.detail.history is not None, 30)
    await asyncio.sleep(0.05)
    assert _rows_in_sight(pane) >= chosen, (_rows_in_sight(pane), pane.splitter.sizes())
    cell = pane.table.visualRect(pane.table.currentIndex())
    assert pane.table.currentIndex().row() == row
    assert pane.table.viewport().rect().contains(cell), (cell, pane.table.viewport().rect())
    await panes.close()


async def test_the_users_split_stays_when_a_shipment_is_chosen(
    qtbot: QtBot, panes: ShipmentPanes
) -> None:
    tag = uuid.uuid4().hex[:4].upper()
    shipment = _put(panes.tenant, _shipment(f"PRO{tag}"))
    pane = await _started(qtbot, panes.session, panes.settings, AT_1366)
    panes.opened.append(pane)
    await wait_until(lambda: pane.model.row_of(shipment) is not None, 30)
    await asyncio.sleep(0.05)
    # Nothing chosen yet, the user drags the handle 150 px up; then chooses a shipment.
    drag_handle(qtbot, pane.splitter, 150)
    split = pane.splitter.sizes()
    _click_row_of(qtbot, pane, shipment)
    await wait_until(lambda: pane.detail.history is not None, 30)
    await asyncio.sleep(0.05)
    assert pane.splitter.sizes() == split, (pane.splitter.sizes(), split)
    await panes.close()
