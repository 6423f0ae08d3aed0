"""At 1366x768, the smallest window people use, each list pane shows its key columns whole:
every one inside the table's viewport (room kept for the vertical scroll bar a longer list
brings), its header not cut, and the cells of the columns named not elided. Against the real
local service, with the pane shown at the room the window gives it. The Shipments list shows
its whole key set unelided, a shipment chosen, at 1366x768, 1440x900 (the default window)
and 1920x1080, the detail's tabs all in sight."""

from __future__ import annotations

import asyncio
import random
import re
import uuid
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDate, QEvent, QModelIndex, QRect, QSettings, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import (
    QApplication,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolTip,
    QTreeWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.server.domain.yard import DEMO_SITES
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.capacity.pane import CapacityPane
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.packages.pane import PackagesPane
from freightdesk.ui.panes.rates.pane import RatesPane
from freightdesk.ui.panes.schedules.pane import SchedulesPane
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from freightdesk.ui.panes.yard.pane import YardPane
from freightdesk.ui.widgets.elided import is_elided
from freightdesk.ui.widgets.export import view_rows
from tests.server.test_capacity import truckload
from tests.server.test_carrier_push_support import iso, java_time, now
from tests.server.test_rating_support import RATE_REQUESTS, set_profile, stop, tl_request
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import exposed
from tests.ui.placeholders import placeholder_whole
from tests.ui.sort_arrows import click_header
from tests.ui.test_bookings_pane import _booking, _bookings_pane
from tests.ui.test_capacity_pane import _carriers
from tests.ui.test_capacity_support import settle, type_text
from tests.ui.test_documents_forms import _post_photo
from tests.ui.test_documents_pane import make_png
from tests.ui.test_packages_pane import PATH as PACKAGES
from tests.ui.test_packages_pane import _package
from tests.ui.test_panes_support import connected, shown_pane
from tests.ui.test_schedules_pane import _searched
from tests.ui.test_shipment_overview import _click_row_of
from tests.ui.test_shipments_pane import _ltl, _put
from tests.ui.test_shipments_triage import _parcel
from tests.ui.test_stop_locations_pane import PATH as STOP_LOCATIONS
from tests.ui.test_stop_locations_pane import _body as _location_body
from tests.ui.test_yard_pane import SITES

__all__ = ["connected"]

BOL_OCEAN = ("BILL_OF_LADING", "OCEAN")
BOL_LTL = ("BILL_OF_LADING", "LTL")

# A pane's room in a 1366x768 window: the navigation list (180 px and the splitter's handle),
# the menu bar and the status bar taken off.
AT_1366 = (1180, 718)
# The same at 1440x900, the app's default window.
AT_1440 = (1254, 850)
# The same at 1920x1080.
AT_1920 = (1734, 1030)
# The detail's least width at 1440x900: its timeline and overview without the wrapping of
# the ~330 px it used to get there (issue 14).
DETAIL_AT_1440 = 500


def assert_columns_fit(
    table: QTableView,
    pane: QWidget,
    titles: Sequence[str],
    whole: Sequence[str] = (),
    gives_way: Sequence[str] = (),
) -> None:
    """Columns `titles` of `table` lie inside its viewport with their headers not cut; the
    cells of the columns `whole` show their whole text. A column `gives_way` may take the
    scroll bar's room while the list has none (the Shipments' Latest event, so that the
    column after it does not show in part at the edge): it gives it up when the bar comes."""
    model = table.model()
    header = table.horizontalHeader()
    right_edge = table.mapTo(pane, table.rect().topRight()).x()
    assert right_edge <= pane.width(), f"the table runs {right_edge - pane.width()} px off"
    # A longer list brings the vertical scroll bar; a stretched column then gives way to it.
    bar = table.verticalScrollBar()
    room = table.viewport().width() - (0 if bar.isVisible() else bar.sizeHint().width())
    gives = table.viewport().width() - room
    # The section Qt stretches: the last one shown (hidden ones after it are skipped).
    shown = [header.logicalIndex(v) for v in range(header.count())]
    last = [s for s in shown if not header.isSectionHidden(s)][-1]
    stretched = [
        s
        for s in range(header.count())
        if header.sectionResizeMode(s) == QHeaderView.ResizeMode.Stretch
        or (s == last and header.stretchLastSection())
    ]
    # A header on two lines is named by its words on one.
    titles_shown = [
        str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())
    ]
    names = [shown.replace("\n", " ") for shown in titles_shown]
    style = header.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    for title in titles:
        column = names.index(title)
        left = header.sectionViewportPosition(column)
        slack = sum(
            header.sectionSize(s) - header.minimumSectionSize()
            for s in stretched
            if header.visualIndex(s) <= header.visualIndex(column)
        )
        right = left + header.sectionSize(column) - min(gives, slack)
        if title in gives_way:
            right -= gives
        assert not table.isColumnHidden(column) and left >= 0, title
        assert right <= room, f"{title!r} ends at {right} px, the viewport at {room} px"
        lines = titles_shown[column].split("\n")
        needed = max(header.fontMetrics().horizontalAdvance(line) for line in lines) + 2 * margin
        if header.isSortIndicatorShown() and header.sortIndicatorSection() == column:
            needed += style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header)
        assert needed <= header.sectionSize(column), f"header {title!r} is cut"
    for title in whole:
        column = names.index(title)
        for row in range(model.rowCount()):
            index = model.index(row, column, QModelIndex())
            assert not is_elided(table, index), f"{title!r} cut: {model.data(index)!r}"


async def test_carrier_capacity(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    session, tenant = connected
    _carriers(tenant)
    truckload(tenant, "SMAT", tracked=True)  # "Sierra Madre Autotransportes (SMAT)"
    pane = await shown_pane(qtbot, session, CapacityPane, AT_1366)
    await wait_until(lambda: pane.model.rowCount() == 3, 30)
    columns = ["Carrier", "Shipments", "On-time deliveries", "On-time pickups", "Tracked"]
    assert_columns_fit(pane.table, pane, columns, whole=columns[1:])
    # Every column in view (the last two were off to the side): nothing to scroll sideways
    # to; a long carrier's name whole too ("Sierra Madre Autotransportes (SMAT)": it was cut
    # in the middle, the figures' headers keeping room for a sort arrow each).
    every = [
        str(pane.model.headerData(c, Qt.Orientation.Horizontal)).replace("\n", " ")
        for c in range(pane.model.columnCount())
    ]
    assert_columns_fit(pane.table, pane, every, whole=every)
    assert pane.table.horizontalScrollBar().maximum() == 0
    assert pane.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert view_rows(pane.table).header == every  # the two-line headers one line in a file
    # At 1440 px (the default window) the carriers' names are whole too.
    pane.resize(*AT_1440)
    await wait_until(lambda: pane.table.viewport().width() > 850)
    assert_columns_fit(pane.table, pane, every, whole=every)
    assert pane.table.horizontalScrollBar().maximum() == 0
    pane.resize(*AT_1366)
    await wait_until(lambda: pane.width() == AT_1366[0])
    # The lane's parts show their hints whole (city, state, ZIP or prefix, country).
    for end in (pane.origin, pane.destination):
        for edit in end.parts.values():
            assert placeholder_whole(edit), (edit.placeholderText(), edit.width())
    assert pane.minimumSizeHint().width() <= pane.width()
    # The order's longest choice ("Deliveries on schedule") is read whole.
    assert pane.sort_by.sizeHint().width() <= pane.sort_by.width(), pane.sort_by.width()
    pane.shutdown()


async def test_sailing_schedules(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane, AT_1366)
    later = date.today() + timedelta(days=70)
    pane.departure.end.setDate(QDate(later.year, later.month, later.day))
    await _searched(pane, qtbot, "CNSHA", "NLRTM")
    columns = ["Carrier", "Departs", "Arrives", "Transit", "Stops", "Route"]
    # The form gives the sailings most of the room.
    assert pane.table.width() > pane.width() * 0.6
    # The carrier whole with its code (it was cut before it, "Hanseatic Ocean Carrie…", also
    # at 1920x1080 beside a half-empty route); the stops whole with their hubs by name (they
    # were cut at 1366, "1 transshipme…"), their count and codes said in the tooltip.
    stops = {str(pane.model.index(r, 4).data()) for r in range(pane.model.rowCount())}
    assert "Direct" in stops and any(s.startswith("Via ") for s in stops), stops
    tips = {
        str(pane.model.index(r, 4).data(Qt.ItemDataRole.ToolTipRole))
        for r in range(pane.model.rowCount())
    }
    assert any(t.startswith("1 transshipment: ") for t in tips), tips
    whole = ["Carrier", "Departs", "Arrives", "Transit", "Stops"]
    assert_columns_fit(pane.table, pane, columns, whole=whole)
    # The route reads its ports by name: "Shanghai → Santos → Rotterdam" (it read
    # "CNSHA → B…Z → NLRTM"). At 1366 a route with a hub is cut in its middle: Shanghai's
    # times read by their offset ("Dec 1 12:00 UTC+08", its "CST" read as US Central), 30 px
    # wider; its hubs read whole in Stops ("Via Santos") and the route in its tooltip.
    _routes_read(pane, hubs_shown=False)
    pane.resize(*AT_1440)
    await wait_until(lambda: pane.width() == AT_1440[0])
    _routes_read(pane)
    pane.resize(*AT_1920)
    await wait_until(lambda: pane.width() == AT_1920[0])
    assert_columns_fit(pane.table, pane, columns, whole=whole)
    _routes_read(pane)
    pane.shutdown()


def _routes_read(pane: SchedulesPane, *, hubs_shown: bool = True) -> None:
    """Every sailing's route shows its ports by name, its hubs between its ends, uncut, its
    vessels where the room allows (where `hubs_shown`; else its ends, its hubs in Stops);
    every leg in the tooltip."""
    for row in range(pane.model.rowCount()):
        route = pane.model.index(row, 5)
        shown = _shown_text(pane.table, route)
        stops = str(pane.model.index(row, 4).data())
        hubs = stops.removeprefix("Via ").split(", ") if stops != "Direct" else []
        assert shown.startswith("Shanghai ") and shown.endswith(" Rotterdam"), shown
        if hubs_shown or not hubs:
            assert "…" not in shown, shown
            assert all(f" → {hub} → " in shown for hub in hubs), (shown, hubs)
        tip = str(route.data(Qt.ItemDataRole.ToolTipRole))
        assert tip.count("\n") == len(hubs) + 1, tip  # the sailing's line, then each leg's


async def test_bookings(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    session, tenant = connected
    set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=0)
    _booking(tenant, "PRLF", totalRate={"amount": 52832.5, "currency": "MXN"})
    pane = await shown_pane(qtbot, session, _bookings_pane, AT_1366)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    # Before a pick the detail says what it will show and how to get it.
    body = pane.detail.body
    assert "Pick a booking" in body.placeholderText() and not body.toPlainText()
    # Drawn on one line: whole in the detail's room.
    assert body.fontMetrics().horizontalAdvance(body.placeholderText()) < body.viewport().width()
    pane.table.selectRow(0)  # the detail beside the list: a booked one's, the widest
    await wait_until(lambda: "Booked" in pane.detail.title.text(), 30)
    columns = ["Status", "Carrier", "Lane", "Total", "Expires", "Created", "Attributes"]
    assert_columns_fit(pane.table, pane, columns, whole=["Status", "Total", "Created"])
    detail = pane.splitter.widget(1)
    assert detail.width() >= detail.minimumSizeHint().width()
    pane.shutdown()


def _place(name: str, city: str, state: str, country: str = "US") -> dict[str, Any]:
    return {"name": name, "address": {"city": city, "state": state, "country": country}}


def _placed(number: int, origin: str, where: tuple[str, str, str]) -> dict[str, Any]:
    """Package PKG-2401NN from `origin` in (city, state, country)."""
    body = _package(number)
    body["identifiers"] = [{"type": "PACKAGE_ID", "value": f"PKG-2401{49 - 7 * (number - 1)}"}]
    body["originLocation"] = _place(origin, *where)
    return body


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_packages(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    session, tenant = connected
    # The demo's package and places: at 1440 px the origin was cut beside an empty Volume
    # column, "PACKAGE_ID " taking the room.
    body = _placed(1, "Alder & Finch Queretaro Plant", ("Queretaro", "QUE", "MX"))
    body["items"][0]["unitQuantity"] = 1200
    body["package"]["dimensions"] = {"length": 48, "width": 40, "height": 64, "unit": "IN"}
    body["destinationLocation"] = _place("Northfield Goods Sacramento", "Sacramento", "CA")
    assert tenant.http.post(PACKAGES, json=body).is_success
    # The demo's longest origin, whose name does not say its city.
    other = _placed(2, "Alder & Finch Montreal DC", ("Boucherville", "QC", "CA"))
    other["destinationLocation"] = _place("Hearth & Home Reno", "Reno", "NV")
    assert tenant.http.post(PACKAGES, json=other).is_success
    pane = await shown_pane(qtbot, session, PackagesPane, room)
    await wait_until(lambda: pane.model.rowCount() == 2, 30)
    columns = ["Identifiers", "Status", "Type", "Items", "Weight", "Dimensions", "Volume"]
    whole = ["Identifiers", "Status", "Type", "Items", "Weight", "Dimensions"]
    if room == AT_1440:
        whole += ["Origin", "Destination"]
    assert_columns_fit(pane.table, pane, [*columns, "Stackable", "Origin", "Destination"], whole)
    # Both places read by their name's start and their city (or state, where the name says
    # the city): at 1366 px the destination was left 130 px, "Northfiel…ento, CA)", beside a
    # 290 px origin. The whole in the tooltip.
    rows = {str(pane.model.index(r, 0).data()): r for r in range(2)}
    places = [
        ("PKG-240149", 9, "Alder & Finch Queretaro", "(QUE)", "Queretaro"),
        ("PKG-240149", 10, "Northfield Goods", "Sacramento (CA)", "Sacramento"),
        ("PKG-240142", 9, "Alder & Finch M", "QC)", "Boucherville"),
        ("PKG-240142", 10, "Hearth & Home Reno", "(NV)", "Reno"),
    ]
    for package, column, start, end, city in places:
        index = pane.model.index(rows[package], column)
        shown = _shown_text(pane.table, index)
        assert shown.startswith(start) and shown.endswith(end), shown
        assert f"({city}, " in str(index.data(Qt.ItemDataRole.ToolTipRole))
    pane.shutdown()


async def test_documents(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings, tmp_path: Path
) -> None:
    session, tenant = connected
    # Named as the demo's carriers name them (it was cut before its last digit and ".pdf").
    photo = make_png(tmp_path / "pod.png")
    # As the demo's: its number in its name, and its order's.
    more = ("PURCHASE_ORDER", "4525248675")
    _post_photo(tenant, photo, "POD-06141412488973840.pdf", "06141412488973840", more=more)
    long_name = "POD-06141412488973840-signed-at-the-dock-by-the-receiver.pdf"
    _post_photo(tenant, photo, long_name, "4711")
    # The demo's longest identifiers: an ocean bill of lading's container and booking, an
    # LTL one's bill of lading and order (its name says its PRO).
    ocean = [("CONTAINER_ID", "AZMU0371329"), ("BOOKING_NUMBER", "444768388")]
    _post_photo(tenant, photo, "BOL-AZMS8603998186.pdf", "", kind=BOL_OCEAN, others=ocean)
    ltl = [("BILL_OF_LADING", "06141417433552965"), ("PURCHASE_ORDER", "4548085626")]
    _post_photo(tenant, photo, "BOL-8837583974.pdf", "8837583974", kind=BOL_LTL, others=ltl)
    pane = await shown_pane(qtbot, session, lambda s: DocumentsPane(s, settings), AT_1366)
    await wait_until(lambda: pane.model.rowCount() == 4)
    rows = {document.name: row for row, document in enumerate(pane.model.items)}
    short_row = rows["POD-06141412488973840.pdf"]
    columns = ["Name", "Type", "Mode", "Identifiers", "Added"]
    # The identifiers read whole, short, without the number the name says (they were cut
    # to 'PRO: 061…4525248675'); the demo's longest too (at 1366x768 they were cut in
    # their middle, 'Containe…44768388', 'BOL 0614…48085626', Added off to the side): the
    # list takes the room its key columns need from the preview, the mode short ("TL").
    # All of them, typed in the same words, in the tooltip.
    await wait_until(lambda: pane.splitter.sizes()[0] > 0.61 * sum(pane.splitter.sizes()), 5)
    assert_columns_fit(pane.table, pane, columns, whole=columns[1:])
    name = pane.model.index(short_row, 0)
    assert not is_elided(pane.table, name), name.data()
    assert pane.model.index(short_row, 2).data() == "TL"
    assert pane.model.index(short_row, 2).data(Qt.ItemDataRole.ToolTipRole) == "Truckload (TL)"
    identifiers = pane.model.index(short_row, 3)
    assert identifiers.data() == "PO 4525248675", identifiers.data()
    tip = str(identifiers.data(Qt.ItemDataRole.ToolTipRole))
    assert tip == "PRO: 06141412488973840, PO: 4525248675", tip
    assert pane.model.index(rows[long_name], 3).data() == "PRO 4711"
    # A longer name is cut in its middle: its end (".pdf") still shows.
    assert pane.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    # The filters' hints are read whole, and the filters fit the window's room (a wider
    # minimum takes it from the navigation).
    assert pane.minimumSizeHint().width() <= AT_1366[0], pane.minimumSizeHint().width()
    for field in (pane.identifier_value, pane.name):
        assert placeholder_whole(field), (field.placeholderText(), field.width())
    pane.shutdown()
    await settle(session)


async def test_stop_locations(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    session, tenant = connected
    weekdays = {f"applies{d}": True for d in ("Monday", "Tuesday", "Wednesday", "Thursday")}
    # As the demo's: a long address and a weekday and Saturday rule.
    body = _location_body(
        "Alder & Finch Montreal DC",
        suppliedId="BOUCHERVILLE-DC",
        address={
            "addressLines": ["Carretera Miguel Aleman km 24"],
            "city": "Tarnowo Podgorne",
            "state": "QC",
            "postalCode": "J4B 5Y1",
            "country": "CA",
        },
        openingHours=[
            {**weekdays, "appliesFriday": True, "opens": "06:00", "closes": "22:00"},
            {"appliesSaturday": True, "opens": "07:00", "closes": "15:00"},
        ],
    )
    assert tenant.http.post(STOP_LOCATIONS, json=body).status_code in (200, 201)
    pane = await shown_pane(qtbot, session, StopLocationsPane, AT_1366)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    titles = [column.title for column in pane.model.columns]
    # Every column in view, the opening hours whole (they ran off to the side before).
    assert_columns_fit(pane.table, pane, titles, whole=["Name", "Address", "Opening hours"])
    pane.shutdown()
    await settle(session)


# A tooltip shown offscreen (the name's) is raised.
@pytest.mark.qt_log_ignore(r"^This plugin does not support raise\(\)$")
async def test_rate_requests(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    session, tenant = connected
    # As the demo asks: every truckload carrier, more quotes than the table shows at once
    # (its scroll bar takes room).
    carriers = ["PRLF", "MPLF", "CDRF", "GLKT", "TRNX", "CSCX", "BLRT", "IRHX"]
    long_name = "Lancaster to Columbus, housewares, small kitchen appliances and glassware"
    request = tl_request(carriers, name=long_name)
    # The demo's lane: longer than its column at 1366 px.
    request["rateDetail"]["routeInfo"]["stops"] = [
        stop("PICKUP", "Lancaster", "TX", "75146", name="Alder & Finch Dallas DC"),
        stop("DELIVERY", "Columbus", "OH", "43215", name="Pantry Lane Markets Columbus"),
    ]
    made = tenant.http.post(RATE_REQUESTS, json=request).json()
    pane = await shown_pane(qtbot, session, RatesPane, AT_1366)
    type_text(pane.open_id, made["id"])
    qtbot.keyClick(pane.open_id, Qt.Key.Key_Return)
    await wait_until(lambda: pane.quotes.rowCount() == 16, 30)
    columns = ["Carrier", "Type", "Total", "Line haul", "Fuel surcharge", "Accessorials"]
    more = ["Transit", "Delivery by", "Service", "Valid for", "vs market"]
    # "Contract" whole, in bold too (the cheapest of a currency); the carrier whole with its
    # SCAC, "Maple Leaf Freightways (MPLF)" in bold as the cheapest in Canadian dollars (it
    # was cut, "(MP…", the figures' columns wider than their text).
    assert any("Maple Leaf" in str(q.carrier_name) for q in pane.quotes.items)
    assert_columns_fit(pane.quote_table, pane, [*columns, *more], whole=[*columns, *more])
    # The lane cut in its middle: where it goes still read (it was cut at its end, "Alder &
    # Finch Dallas DC (Lancaster, TX) → Pantry La…"); the name cut at its end.
    lane = _shown_text(pane.request_table, pane.requests.index(0, 1))
    assert lane.startswith("Alder & Finch") and lane.endswith("(Columbus, OH)"), lane
    assert "…" in lane  # cut: the test means something at this width
    name = pane.requests.index(0, 0)
    assert _shown_text(pane.request_table, name).startswith("Lancaster to Columbus, house")
    assert _tooltip_of(pane.request_table, name) == long_name
    # Sorted by a click on a header: its arrow has room beside its title, all still whole.
    click_header(qtbot, pane.quote_table, 4)  # Fuel surcharge
    assert pane.quote_table.horizontalHeader().sortIndicatorSection() == 4
    assert_columns_fit(pane.quote_table, pane, [*columns, *more], whole=[*columns, *more])
    pane.shutdown()
    await settle(session)


async def test_shipments(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    session, tenant = connected
    _put(tenant, _ltl("PRO-7730041"))
    # A long reference and a long place: cut in the middle, whole in the tooltip.
    long_pro = "MAEU-2026-LONG-REFERENCE-000123456789"
    _put(tenant, _ltl(long_pro, city="Rancho Santa Margarita Distribution"))
    # A long latest event: read from its start, so cut at its end.
    departed = "Departed from Rancho Santa Margarita Distribution, 2 of 3 pallets loaded"
    with_event = _ltl("PRO-7730042")
    at = iso(now() - timedelta(hours=1))
    with_event["events"] = [
        {"type": "DEPARTURE_FROM_STOP", "dateTime": at, "description": departed}
    ]
    event_id = _put(tenant, with_event)
    pane = await shown_pane(qtbot, session, lambda s: ShipmentsPane(s, settings), AT_1366)
    await wait_until(lambda: pane.model.rowCount() == 3, 30)
    columns = ["Shipment", "Mode", "State", "Attention", "Origin", "Destination"]
    columns += ["Latest ETA", "Carrier"]
    assert_columns_fit(pane.table, pane, columns, whole=["Mode", "State", "Latest ETA"])
    # The detail beside the list keeps the room it needs.
    detail = pane.splitter.widget(1)
    assert detail.width() >= detail.minimumSizeHint().width()
    # Its timeline's columns (the Event one alone, nothing chosen yet) end in sight.
    _times_in_sight(pane.detail.timeline)
    row = pane.model.row_of(
        next(s.id for s in pane.model.visible_summaries() if s.primary_identifier == long_pro)
    )
    assert row is not None
    cell = pane.model.index(row, 0)
    assert is_elided(pane.table, cell)
    assert pane.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert long_pro in str(pane.model.data(cell, Qt.ItemDataRole.ToolTipRole))
    event = pane.model.index(pane.model.row_of(event_id) or 0, COLUMN_INDEX["latestEvent"])
    shown = _shown_text(pane.table, event)
    assert shown.startswith("Departed from Rancho") and shown.endswith("…"), shown
    assert pane.model.data(event, Qt.ItemDataRole.ToolTipRole) == departed
    pane.shutdown()
    await settle(session)


def _tooltip_of(table: QTableView, index: QModelIndex) -> str:
    """The tooltip shown when the pointer rests on the cell at `index`."""
    point = table.visualRect(index).center()
    event = QHelpEvent(QEvent.Type.ToolTip, point, table.viewport().mapToGlobal(point))
    QApplication.sendEvent(table.viewport(), event)
    text = QToolTip.text()
    QToolTip.hideText()
    return text


def _shown_text(table: QTableView, index: QModelIndex) -> str:
    """The text the cell at `index` shows, cut as its delegate and `table` cut it now."""
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.rect = table.visualRect(index)
    option.textElideMode = table.textElideMode()  # as the view starts each cell's option
    delegate = table.itemDelegateForIndex(index)
    assert isinstance(delegate, QStyledItemDelegate)
    delegate.initStyleOption(option, index)
    room = table.style().subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, table)
    return option.fontMetrics.elidedText(option.text, option.textElideMode, room.width())


# The Shipments list's key columns, in their order.
SHIPMENT_KEYS = ["Shipment", "Mode", "State", "Attention", "Origin", "Destination"]
SHIPMENT_KEYS += ["Latest ETA", "Carrier"]


def _demo_like_parcel(tenant: TenantHandle, late_by: timedelta) -> tuple[str, str]:
    """A parcel as the demo's are, its texts the usual longest of the key columns: a 17-digit
    number, a depot's name, late by `late_by` against its delivery window. (id, number)"""
    start = now()
    number = f"0614141{random.randrange(10**10):010d}"
    end = start + timedelta(hours=2)
    stops = [
        {"id": str(uuid.uuid4()), "type": "PICKUP", "name": "Alder & Finch Poznan Plant"},
        {
            "id": str(uuid.uuid4()),
            "type": "DELIVERY",
            "name": "Alder & Finch Ontario DC",
            "appointmentWindow": {"startDateTime": iso(start), "endDateTime": iso(end)},
        },
    ]
    shipment_id = _put(
        tenant,
        {
            "identifiers": [{"type": "TRACKING_NUMBER", "value": number}],
            "plan": {"expectedTransportationModes": ["PARCEL"]},
            "routeInfo": {"stops": stops},
        },
    )
    _parcel(tenant, number, "PICKED_UP", start - timedelta(minutes=30))
    eta = java_time(end + late_by)
    _parcel(tenant, number, "ETA", start - timedelta(minutes=5), estimatedTimeOfArrival=eta)
    return shipment_id, number


@pytest.mark.parametrize("room", [AT_1366, AT_1440, AT_1920], ids=["1366", "1440", "1920"])
async def test_shipments_key_columns_whole_with_a_shipment_chosen(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    room: tuple[int, int],
) -> None:
    """A new user's list at each usual screen, a shipment chosen (the detail shares the
    pane): every key column in view, its header whole, and every cell of them unelided: a
    17-digit number, a depot's name, "Late 21 h" (the minutes in the tooltip). The detail's
    tabs are all in sight, no scroll arrows."""
    session, tenant = connected
    chosen, number = _demo_like_parcel(tenant, timedelta(hours=21, minutes=17))
    _demo_like_parcel(tenant, timedelta(hours=9, minutes=58))
    _put(tenant, _ltl("PRO-7730041"))
    pane = await _started(qtbot, session, settings, room)
    await wait_until(lambda: pane.model.rowCount() == 3, 30)
    _click_row_of(qtbot, pane, chosen)
    await wait_until(lambda: number in pane.detail.title.text(), 30)
    attention = pane.model.index(pane.model.row_of(chosen) or 0, COLUMN_INDEX["attention"])
    await wait_until(lambda: str(pane.model.data(attention)).endswith("Late 21 h"), 30)
    assert "21 h 17 min" in str(pane.model.data(attention, Qt.ItemDataRole.ToolTipRole))
    # At 1366 and 1440 px (the list above the detail) the latest event in view too, its
    # header whole (a long one cut, whole in the tooltip).
    event = ["Latest event"] if room != AT_1920 else []
    assert_columns_fit(
        pane.table, pane, [*SHIPMENT_KEYS, *event], whole=SHIPMENT_KEYS, gives_way=event
    )
    if event:
        # It has the room beyond a usual place name in each place (it was left 150 px at
        # 1366, "Customs selected the…", the places 20 px wider than their names).
        width = pane.table.columnWidth(COLUMN_INDEX["latestEvent"])
        assert width >= (175 if room == AT_1366 else 240), width
    detail = pane.splitter.widget(1)
    assert detail.width() >= detail.minimumSizeHint().width()
    bar = pane.detail.tabs.tabBar()
    last = bar.tabRect(bar.count() - 1)
    assert last.right() <= bar.width(), (last.right(), bar.width())
    # The list keeps the larger share, beside or above the detail.
    assert pane.splitter.sizes()[0] > pane.splitter.sizes()[1], pane.splitter.sizes()
    pane.shutdown()
    await settle(session)


async def test_shipments_shown_before_the_session(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    """As at the app's start: the list painted first, the detail (and its minimum) after."""
    session, tenant = connected
    _put(tenant, _ltl("PRO-5512"))
    pane = await _started(qtbot, session, settings, AT_1366)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    columns = ["Shipment", "Mode", "State", "Attention", "Origin", "Destination"]
    assert_columns_fit(pane.table, pane, [*columns, "Latest ETA", "Carrier"])
    detail = pane.splitter.widget(1)
    assert detail.width() >= detail.minimumSizeHint().width()
    pane.shutdown()
    await settle(session)


async def test_shipments_detail_at_the_default_window(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    """At 1440x900, started as the app starts, the detail gets room for its timeline and
    overview (below the list, the window too narrow for both side by side) while the list
    keeps its key columns in view."""
    session, tenant = connected
    shipment = _ltl("PRO-5513")
    stops = shipment["routeInfo"]["stops"]  # type: ignore[index]
    stops[0]["appointmentWindow"] = {
        "startDateTime": "2026-11-27T06:00:00Z",
        "endDateTime": "2026-11-27T08:00:00Z",
        "localTimeZoneIdentifier": "America/Chicago",
    }
    shipment_id = _put(tenant, shipment)
    pane = await _started(qtbot, session, settings, AT_1440)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    columns = ["Shipment", "Mode", "State", "Attention", "Origin", "Destination"]
    assert_columns_fit(pane.table, pane, [*columns, "Latest ETA", "Carrier"], whole=["Mode"])
    detail = pane.splitter.widget(1)
    assert detail.width() >= DETAIL_AT_1440, pane.splitter.sizes()
    # The list still has the larger share: it is where the dispatcher works.
    assert pane.splitter.sizes()[0] > pane.splitter.sizes()[1], pane.splitter.sizes()
    # The timeline shows its times whole beside the event's words, in sight. The stop's
    # appointment is its Planned time, the window whole in the tooltip.
    _click_row_of(qtbot, pane, shipment_id)
    timeline = pane.detail.timeline
    await wait_until(lambda: timeline.topLevelItemCount() == 2, 30)
    pickup = timeline.topLevelItem(0)
    assert pickup is not None
    assert pickup.text(2) == "Nov 27 00:00 CST"
    assert pickup.toolTip(2) == "Appointment Nov 27 00:00 CST to Nov 27 02:00 CST"
    _times_in_sight(timeline)
    # Nothing happened yet: no Actual or Estimated column takes room from the events.
    assert [c for c in range(1, 6) if not timeline.isColumnHidden(c)] == [2]
    pane.shutdown()
    await settle(session)


def _times_in_sight(timeline: QTreeWidget) -> None:
    """Each column of `timeline` shown ends in its viewport, each time in it whole."""
    header = timeline.header()
    metrics = timeline.fontMetrics()
    for column in range(timeline.columnCount()):
        if timeline.isColumnHidden(column):
            continue
        ends = header.sectionViewportPosition(column) + header.sectionSize(column)
        assert ends <= timeline.viewport().width(), (column, ends, timeline.width())
        if column == 0:
            continue  # the events' words wrap
        for row in range(timeline.topLevelItemCount()):
            item = timeline.topLevelItem(row)
            assert item is not None
            text = metrics.horizontalAdvance(item.text(column))
            assert text < header.sectionSize(column), (item.text(column), column)


async def _started(
    qtbot: QtBot, session: AppSession, settings: QSettings, size: tuple[int, int]
) -> ShipmentsPane:
    """The pane as at the app's start: painted first, then given the session (the detail,
    and its minimum, come after)."""
    pane = ShipmentsPane(None, settings)
    qtbot.addWidget(pane)
    pane.resize(*size)
    pane.show()
    await exposed(pane)
    pane.attach(session)
    await session.connect()
    return pane


def assert_cells_whole(table: QTableView) -> None:
    """Every cell of `table` shows its whole text, its words wrapped in the room the column
    and the row give it (no word wider than the column, no line below the row)."""
    model = table.model()
    delegate = table.itemDelegate()
    assert isinstance(delegate, QStyledItemDelegate)
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            option = QStyleOptionViewItem()
            option.initFrom(table)
            option.rect = table.visualRect(index)
            delegate.initStyleOption(option, index)
            room = table.style().subElementRect(
                QStyle.SubElement.SE_ItemViewItemText, option, table
            )
            text = str(model.data(index))
            flags = Qt.TextFlag.TextWordWrap
            needed = option.fontMetrics.boundingRect(QRect(0, 0, room.width(), 10_000), flags, text)
            assert needed.width() <= room.width(), f"{text!r}: {needed.width()} of {room.width()}"
            assert needed.height() <= room.height(), f"{text!r}: {needed.height()} px high"


@pytest.mark.parametrize("room", [AT_1366, AT_1440, AT_1920], ids=["1366", "1440", "1920"])
async def test_yard_sites(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """Every column of the sites, the opening hours too, in view beside the slots and read
    whole: the longest name of the demo and a site open on two rules."""
    session, tenant = connected
    body = {"code": "BRA-DC", "name": "Brampton Distribution Centre", "dockDoorCount": 10,
            "timeZone": "America/Los_Angeles",
            "openingHours": [{"days": ["MON", "TUE", "WED", "THU", "FRI"], "opens": "06:00",
                              "closes": "22:00"},
                             {"days": ["SAT"], "opens": "07:00", "closes": "15:00"}]}  # fmt: skip
    assert tenant.http.post(SITES, json=body).status_code == 201
    pane = await shown_pane(qtbot, session, YardPane, room)
    await wait_until(lambda: pane.site_model.rowCount() == 1, 30)
    # No Search pressed: the site's slots are asked for as the pane opens.
    await wait_until(lambda: pane.answer is not None and not pane.search_pending, 30)
    columns = ["Code", "Name", "Doors", "Slot", "Time zone", "Opening hours"]
    assert_columns_fit(pane.site_table, pane, columns)
    assert_cells_whole(pane.site_table)
    hours = pane.site_model.index(0, columns.index("Opening hours"))
    assert pane.site_model.data(hours) == "Mon\u2013Fri 06:00\u201322:00\nSat 07:00\u201315:00"
    # The name on one line (it wrapped onto two) and whole, at 1366 too (it was cut in the
    # middle there, "Brampton D…ion Centre"); a longer one cut in the middle, whole in the
    # tooltip.
    table = pane.site_table
    name = pane.site_model.index(0, columns.index("Name"))
    assert not table.wordWrap()
    assert table.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert pane.site_model.data(name, Qt.ItemDataRole.ToolTipRole) == body["name"]
    assert not is_elided(table, name)
    pane.shutdown()
    await settle(session)


@pytest.mark.parametrize("room", [AT_1366, AT_1920], ids=["1366", "1920"])
async def test_yard_sites_stay_as_a_slot_is_picked(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """The demo's sites read whole beside the slots (at 1366 x 768 they read "Brampton
    …on Centre", "Joliet Dist…tion Center"), and stay so as a slot is clicked: its doors, said
    under the slots, widened their side and took the sites' room (the layout moved under the
    pointer). The slot's time names its site's zone as the Shipments pane does (PST, not
    UTC-08)."""
    session, tenant = connected
    for code, name, zone, doors, hours, minutes in DEMO_SITES:
        body = {"code": code, "name": name, "timeZone": zone, "dockDoorCount": doors,
                "openingHours": hours, "slotMinutes": minutes}  # fmt: skip
        assert tenant.http.post(SITES, json=body).status_code == 201
    pane = await shown_pane(qtbot, session, YardPane, room)
    await wait_until(lambda: pane.site_model.rowCount() == len(DEMO_SITES), 30)
    # The site open round the clock, its 16 doors all free: the longest slot words.
    pane.site.setCurrentIndex(pane.site.findData("ONT-WH"))
    await wait_until(
        lambda: (
            not pane.search_pending
            and pane.answer is not None
            and bool(pane.answer.results)
            and pane.answer.results[0].site_code == "ONT-WH"
        ),
        30,
    )
    table, names = pane.site_table, range(pane.site_model.rowCount())
    cut = [
        pane.site_model.index(r, 1).data()
        for r in names
        if is_elided(table, table.model().index(r, 1))
    ]
    assert not cut, cut
    width = table.width()
    row, slot = next(
        (r, s) for r, (_day, slots) in enumerate(pane.timeline.days) for s in slots if s.available
    )
    await wait_until(lambda: pane.timeline.isVisible() and pane.timeline.width() > 200, 10)
    center = pane.timeline.slot_rect(row, slot).center().toPoint()
    qtbot.mouseClick(pane.timeline, Qt.MouseButton.LeftButton, pos=center)
    said = pane.detail.text()
    assert re.search(r"\d\d:\d\d P[SD]T: 16 of 16 doors free \(D01, .*, D16\)$", said), said
    # The layout follows the words in a later pass of the event loop: given a few.
    await asyncio.sleep(0.3)
    assert table.width() == width, (width, table.width())
    cut = [
        pane.site_model.index(r, 1).data()
        for r in names
        if is_elided(table, table.model().index(r, 1))
    ]
    assert not cut, cut
    pane.shutdown()
    await settle(session)
