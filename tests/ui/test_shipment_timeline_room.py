"""The shipment's timeline reads as a tracking tool's at the usual screens, against the real
local service: the Event column takes the room the times leave it, so that an event's words
(as long as the demo's longest) wrap onto two lines at most, beside the list at 1920x1080,
below it at 1366x768, and beside the map in the Map tab; its export buttons stay under the
events."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QTreeWidgetItemIterator

from freightdesk.ui.panes.shipments.detail_room import ACTUAL, ESTIMATED, EVENT, PLANNED, WHEN
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.test_clock_panes import parcel_with_exception
from tests.ui.test_columns_fit import AT_1366, AT_1920
from tests.ui.test_maps import WEBENGINE_STARTUP
from tests.ui.test_maps import webengine_survives_loop_exits as webengine_survives_loop_exits
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_tab
from tests.ui.test_shipment_room_support import ShipmentPanes, offline_tiles, panes

__all__ = ["connected", "offline_tiles", "panes"]

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

# As long as the demo's longest event words.
WORDS = "Carrier missed the pickup appointment; truck re-dispatched for the next day at the dock"


def _rows(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    found = []
    walk = QTreeWidgetItemIterator(tree)
    while (item := walk.value()) is not None:
        found.append(item)
        walk += 1
    return found


def _reads_well(tree: QTreeWidget) -> list[str]:
    """What is wrong with the timeline as shown: the Event column not the widest, or a row's
    words on more than two lines."""
    wrong = []
    header = tree.header()
    shown = [c for c in range(tree.columnCount()) if not tree.isColumnHidden(c)]
    widest = max(shown, key=header.sectionSize)
    if widest != EVENT:
        wrong.append(
            f"column {widest} is wider than the Event column: {header.sectionSize(widest)}"
        )
    line = tree.fontMetrics().height()
    for item in _rows(tree):
        height = tree.visualItemRect(item).height()
        if height >= 3 * line:
            wrong.append(f"{item.text(EVENT)!r} is {height} px high at {header.sectionSize(0)}")
    return wrong


async def _reading_well(tree: QTreeWidget) -> None:
    """The rows are measured again once the columns settle: wait for it, then say what is
    still wrong."""
    try:
        await wait_until(lambda: not _reads_well(tree), 5)
    except AssertionError:
        raise AssertionError((_reads_well(tree), tree.width())) from None


@pytest.mark.parametrize("room", [AT_1366, AT_1920], ids=["1366", "1920"])
async def test_the_events_take_the_room_the_times_leave(
    panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    # A parcel whose carrier reported an exception in words as long as the demo's; its
    # pickup has an appointment (a Planned time) beside the events' Actual ones.
    appointment = {
        "startDateTime": "2026-11-27T06:00:00Z",
        "localTimeZoneIdentifier": "Europe/Berlin",
    }
    shipment = parcel_with_exception(panes.tenant, WORDS, appointment)
    pane = await panes.showing(room, shipment)
    timeline = pane.detail.timeline
    await wait_until(lambda: any(WORDS in i.text(EVENT) for i in _rows(timeline)), 30)
    await _reading_well(timeline)
    # No column with nothing in it for this shipment: it has no estimated time.
    assert timeline.isColumnHidden(ESTIMATED)
    # The Map tab: the timeline beside the map at 1366 px, under it at 1920 px.
    await panes.map_tab(pane)
    assert timeline.parent() is pane.detail.map_splitter and timeline.isVisible()
    await _reading_well(timeline)
    if room == AT_1366:
        # Beside the map, narrow: one Time column, the event's time there, the appointment's
        # in italics (planned), all of the row's times in its tooltip.
        assert timeline.width() < 600, timeline.width()
        assert not timeline.isColumnHidden(WHEN)
        assert all(timeline.isColumnHidden(c) for c in (ACTUAL, PLANNED, ESTIMATED))
        key = Qt.ItemDataRole.UserRole
        pickup = next(i for i in _rows(timeline) if str(i.data(EVENT, key)).startswith("stop:"))
        assert pickup.text(WHEN) == pickup.text(PLANNED) != ""
        assert pickup.font(WHEN).italic() and pickup.toolTip(WHEN).startswith("Appointment ")
    await panes.close()


async def _buttons_under_the_events(pane: ShipmentsPane) -> None:
    detail = pane.detail
    timeline, buttons = detail.timeline, detail.history_export
    assert timeline.parent() is detail.timeline_tab
    await wait_until(lambda: timeline.isVisible() and buttons.isVisible())  # shown once moved
    assert buttons.geometry().top() >= timeline.geometry().bottom(), (
        buttons.geometry(),
        timeline.geometry(),
    )


@pytest.mark.parametrize("room", [AT_1366, AT_1920], ids=["1366", "1920"])
async def test_the_export_buttons_stay_under_the_events(
    panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    pane = await panes.showing(room, parcel_with_exception(panes.tenant, WORDS))
    await _buttons_under_the_events(pane)
    # The Map tab borrows the timeline; back on the Timeline tab it is above the buttons
    # again (put back last, it had the buttons over the events from then on).
    await panes.map_tab(pane)
    _click_tab(panes.qtbot, pane.detail, "Timeline")
    await _buttons_under_the_events(pane)
    await panes.close()
