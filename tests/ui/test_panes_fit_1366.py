"""At 1366x768 the planning and booking panes show what a user reads whole: no form label is
cut, every hint in a field is read whole, and the lists' key columns (a long carrier name, a
booking's lane, attributes and id) are in view and not elided. Against the real local
service, each pane shown at the room the window gives it; the Bookings pane also at 1920x1080,
where its detail goes back beside the list."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.capacity.pane import CapacityPane
from freightdesk.ui.panes.schedules.pane import SchedulesPane
from freightdesk.ui.panes.vehicles.pane import VehiclesPane
from freightdesk.ui.widgets.elided_label import ElidedLabel
from tests.server.test_capacity import truckload
from tests.server.test_rating_support import (
    booking_of,
    create_booking,
    quoted,
    set_profile,
    stop,
    tl_request,
)
from tests.service.test_vehicles_service import demo_pool
from tests.support import TenantHandle, wait_until
from tests.ui.placeholders import dates_cut, hints_cut
from tests.ui.test_bookings_pane import _bookings_pane
from tests.ui.test_capacity_support import settle, type_text
from tests.ui.test_columns_fit import AT_1366, AT_1920, assert_columns_fit
from tests.ui.test_maps import OFFLINE_TILES, WEBENGINE_STARTUP, webengine_survives_loop_exits
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected", "webengine_survives_loop_exits"]

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)


def assert_labels_whole(form: QWidget) -> None:
    """Every one-line label shown in `form` has the width its text needs."""
    for label in form.findChildren(QLabel):
        if not label.isVisible() or label.wordWrap() or isinstance(label, ElidedLabel):
            continue
        needed = label.sizeHint().width()
        assert label.width() >= needed, f"{label.text()!r}: {label.width()} of {needed} px"


def assert_hints_whole(form: QWidget) -> None:
    """Every hint shown in an empty field of `form` is read whole, as Qt draws it."""
    assert hints_cut(form) == []


async def test_carrier_capacity(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    """The minimums' labels whole beside their fields; every column in view, a long carrier
    name and SCAC whole (test_columns_fit), also in the tooltip."""
    session, tenant = connected
    truckload(tenant, "SMAT", tracked=True)  # "Sierra Madre Autotransportes (SMAT)"
    truckload(tenant, "ABCD")
    pane = await shown_pane(qtbot, session, CapacityPane, AT_1366)
    await wait_until(lambda: pane.model.rowCount() == 2, 30)
    assert_labels_whole(pane)
    assert_hints_whole(pane)
    assert any("Sierra Madre" in str(pane.model.index(r, 0).data()) for r in range(2))
    columns = ["Carrier", "Shipments", "On-time deliveries", "On-time pickups", "Tracked"]
    assert_columns_fit(pane.table, pane, columns, whole=columns[1:])
    tips = {str(pane.model.index(r, 0).data(Qt.ItemDataRole.ToolTipRole)) for r in range(2)}
    assert "Sierra Madre Autotransportes (SMAT)" in tips, tips
    pane.shutdown()
    await settle(session)


async def test_sailing_schedules(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    """The ports' and carriers' hints are read whole (what a port may be: in the tooltip),
    and so are the windows' days."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane, AT_1366)
    assert_labels_whole(pane)
    assert_hints_whole(pane)
    pane.arrival.enabled.click()  # its days, greyed until then, shown as they are typed
    assert dates_cut(pane) == []
    assert "UN/LOCODE" in pane.origin.toolTip()
    pane.shutdown()
    await settle(session)


async def test_available_vehicles(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    """The address's and the point's hints are read whole; round Chicago every carrier's
    name and SCAC, and every truck type, is whole."""
    session, tenant = connected
    demo_pool(tenant)
    pane = await shown_pane(qtbot, session, lambda s: VehiclesPane(s, tiles=OFFLINE_TILES), AT_1366)
    assert_labels_whole(pane.form)
    assert_hints_whole(pane.form)
    pane.form.where.setCurrentIndex(pane.form.where.findData("point"))
    assert_hints_whole(pane.form)
    type_text(pane.form.point.edits["latitude"], "41.8781")
    type_text(pane.form.point.edits["longitude"], "-87.6298")
    type_text(pane.form.radius, "50")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.run.running and pane.model.rowCount() > 10, 30)
    names = {str(pane.model.index(r, 0).data()) for r in range(pane.model.rowCount())}
    assert max(len(n) for n in names) >= 28, names  # a long name among them
    assert_columns_fit(pane.table, pane, ["Carrier", "Truck", "Distance", "Ready", "Near"])
    assert_columns_fit(pane.table, pane, [], whole=["Carrier", "Distance", "Ready"])
    pane.shutdown()
    await settle(session)


@pytest.mark.parametrize("room", [AT_1366, AT_1920], ids=["1366", "1920"])
async def test_bookings(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """A booking's lane, attributes and reference are whole, a booking chosen: at 1366 px
    with the detail below the list, at 1920 px beside it."""
    session, tenant = connected
    set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=0)
    stops = [
        stop("PICKUP", "Bloomington", "MN", "55425", name="Bloomington DC"),
        stop("DELIVERY", "Sacramento", "CA", "95814", name="Sacramento store"),
    ]
    request = tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
    request["rateDetail"]["routeInfo"]["stops"] = stops
    quote = quoted(tenant, request)["quotes"][0]
    # The demo's longest customer.
    attributes = [{"name": "Customer", "values": ["Kitchen Collective Oakland"]}]
    create_booking(tenant, booking_of(quote, attributes=attributes))
    pane = await shown_pane(qtbot, session, _bookings_pane, room)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    pane.table.selectRow(0)
    await wait_until(lambda: pane.detail.booking is not None, 30)
    lane = str(pane.model.index(0, 2).data())
    assert lane == "Bloomington, MN → Sacramento, CA", lane
    columns = ["Status", "Carrier", "Lane", "Total", "Expires", "Created", "Attributes"]
    # The reference (here the quote's contract) takes the room left, whole; the booking's
    # id is no column (it took the attributes' room at 1366: "Customer: Kitchen Collect…").
    assert_columns_fit(pane.table, pane, [*columns, "Reference"], whole=[*columns, "Reference"])
    detail = pane.splitter.widget(1)
    assert detail.width() >= detail.minimumSizeHint().width()
    assert detail.height() >= detail.minimumSizeHint().height()
    beside = pane.splitter.orientation() == Qt.Orientation.Horizontal
    assert beside == (room == AT_1920), pane.splitter.sizes()
    pane.shutdown()
    await settle(session)
