"""The shipment's timeline reads as a tracking tool's at the usual screens, against the real
local service: the Event column takes the room the times leave it, so that an event's words
(as long as the demo's longest) wrap onto two lines at most, beside the list at 1920x1080,
below it at 1366x768, and beside the map in the Map tab; its export buttons stay under the
events; an exception at a stop reads its time as the stop's events do, a closed one saying so
(its status no longer under the Source header), and so does a parcel's, whose carrier names
no stop."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QTreeWidgetItemIterator

from freightdesk.models.tracking import ExceptionStatus, ShipmentException, TrackedShipmentEvent
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipments as store
from freightdesk.ui.panes.shipments.detail_room import (
    ACTUAL,
    ESTIMATED,
    EVENT,
    PLANNED,
    SOURCE,
    WHEN,
)
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.server.test_carrier_push_support import (
    PARCEL,
    accepted,
    java_time,
    parcel_body,
    settled,
)
from tests.support import TenantHandle, wait_until
from tests.ui.test_clock_panes import parcel_with_exception
from tests.ui.test_columns_fit import AT_1366, AT_1920
from tests.ui.test_maps import WEBENGINE_STARTUP
from tests.ui.test_maps import webengine_survives_loop_exits as webengine_survives_loop_exits
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_tab
from tests.ui.test_shipment_room_support import ShipmentPanes, offline_tiles, panes
from tests.ui.test_shipments_pane import _ltl, _put

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


DAMAGE = "Receiver noted 2 damaged cartons on the delivery receipt; claim to be filed"


def _damaged_at_delivery(tenant: TenantHandle) -> str:
    """An LTL shipment delivered in New York's zone, its receiver's note there reported both
    as an event at the delivery stop and as an open exception at it, at the same moment; an
    earlier delay closed since."""
    body = _ltl(f"X{uuid.uuid4().hex[:6].upper()}")
    stops = body["routeInfo"]["stops"]  # type: ignore[index]
    stops[1]["appointmentWindow"] = {  # the zone of the delivery: the stop's events read in it
        "startDateTime": "2026-11-27T14:00:00Z",
        "localTimeZoneIdentifier": "America/New_York",
    }
    shipment = _put(tenant, body)
    delivery = uuid.UUID(stops[1]["id"])
    noted = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=3)
    note = TrackedShipmentEvent(
        type="DAMAGE_NOTED", date_time=noted, description=DAMAGE, stop_id=delivery
    )
    damage = ShipmentException(
        type="DAMAGE", description=DAMAGE, stop_id=delivery, created_date_time=noted
    )
    delay = ShipmentException(
        type="DELAY",
        status=ExceptionStatus.CLOSED,
        description="Held at the cross-dock",
        created_date_time=noted - timedelta(hours=20),
    )
    with transaction(tenant.service.context.sessions) as session:
        store.add_event(session, shipment, note, "LTL")
        store.upsert_exception(session, shipment, damage, "LTL")
        store.upsert_exception(session, shipment, delay, "LTL")
    return shipment


def _exceptions_read_as_events(tree: QTreeWidget, column: int) -> None:
    """The exception at the delivery at the event's time, both in its zone (New York's, not
    the computer's Chicago); a closed one says so, the Source column empty."""
    key = Qt.ItemDataRole.UserRole
    rows = _rows(tree)
    note = next(i for i in rows if str(i.data(EVENT, key)).startswith("event:"))
    exceptions = [i for i in rows if str(i.data(EVENT, key)).startswith("exception:")]
    damage = next(i for i in exceptions if DAMAGE in i.text(EVENT))
    delay = next(i for i in exceptions if i is not damage)
    assert note.text(column).endswith((" EST", " EDT")), note.text(column)
    assert damage.text(column) == note.text(column), (damage.text(column), note.text(column))
    assert damage.text(EVENT) == f"Damage: {DAMAGE}"  # open: in red, under "(1 open)"
    assert damage.toolTip(EVENT).startswith("Open exception: ")
    assert delay.text(EVENT) == "Delay (closed): Held at the cross-dock"
    # Without a place, the closed delay's time reads as an event without one: the user's zone.
    assert delay.text(column).endswith((" CST", " CDT")), delay.text(column)
    assert [i.text(SOURCE) for i in (damage, delay)] == ["", ""]


@pytest.mark.parametrize("room", [AT_1366, AT_1920], ids=["1366", "1920"])
async def test_an_exception_reads_as_its_stops_events(
    chicago_machine: None, panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    pane = await panes.showing(room, _damaged_at_delivery(panes.tenant))
    timeline = pane.detail.timeline
    await wait_until(lambda: any(DAMAGE in i.text(EVENT) for i in _rows(timeline)), 30)
    _exceptions_read_as_events(timeline, ACTUAL)
    assert timeline.isColumnHidden(SOURCE)  # nothing in it: no exception's status there
    # The Map tab's event list is the same timeline, beside or under the map.
    await panes.map_tab(pane)
    assert timeline.parent() is pane.detail.map_splitter and timeline.isVisible()
    _exceptions_read_as_events(timeline, WHEN if pane.detail.timeline_columns.narrow else ACTUAL)
    await panes.close()


MISSED = "Nobody at the door, notice left; next attempt tomorrow"


def _missed_at_delivery(tenant: TenantHandle) -> tuple[str, str]:
    """A parcel to a delivery in New York's zone whose carrier reported a missed delivery
    without saying where: the shipment and its delivery stop."""
    number = f"1ZMD{uuid.uuid4().hex[:10].upper()}"
    body = _ltl(f"P{uuid.uuid4().hex[:6].upper()}")
    body["identifiers"] = [{"type": "TRACKING_NUMBER", "value": number}]
    body["plan"] = {"expectedTransportationModes": ["PARCEL"]}
    stops = body["routeInfo"]["stops"]  # type: ignore[index]
    stops[1]["appointmentWindow"] = {"localTimeZoneIdentifier": "America/New_York"}
    shipment = _put(tenant, body)
    report = parcel_body(number, "DELIVERY_MISSED", description=MISSED)
    report["timestamp"] = java_time(datetime.now(UTC) - timedelta(hours=3))
    assert settled(tenant, accepted(tenant.http.post(PARCEL, json=report)))["status"] == (
        "PROCESSED"
    )
    return shipment, str(stops[1]["id"])


async def test_a_parcels_missed_delivery_reads_at_its_delivery_stop(
    chicago_machine: None, panes: ShipmentPanes
) -> None:
    """The carrier names no stop: the service places the missed delivery at the delivery
    stop, so the exception reads in that stop's zone (New York's, not the computer's
    Chicago), at the same time as its event under the stop."""
    shipment, delivery = _missed_at_delivery(panes.tenant)
    pane = await panes.showing(AT_1366, shipment)
    timeline = pane.detail.timeline
    await wait_until(lambda: any(MISSED in i.text(EVENT) for i in _rows(timeline)), 30)
    key = Qt.ItemDataRole.UserRole
    rows = _rows(timeline)
    missed = next(i for i in rows if str(i.data(EVENT, key)).startswith("exception:"))
    event = next(i for i in rows if str(i.data(EVENT, key)).startswith("event:"))
    assert missed.text(EVENT) == f"Delivery missed: {MISSED}"
    assert missed.text(ACTUAL).endswith((" EST", " EDT")), missed.text(ACTUAL)
    assert missed.text(ACTUAL) == event.text(ACTUAL)
    stop = event.parent()
    assert stop is not None and stop.data(EVENT, key) == f"stop:{delivery}", stop.text(EVENT)
    await panes.close()
