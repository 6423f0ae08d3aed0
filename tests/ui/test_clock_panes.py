"""One clock across the app (issue 14.4) as a dispatcher sees it, on a computer set to
Chicago's time: a stop's events in the stop's zone, times without a place in the user's zone
and labelled, the user switching those to UTC in View > Times without a place (kept for the
next start); the timeline wraps a long exception's text instead of cutting it (14.3)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu, QMenuBar, QTreeWidgetItem, QTreeWidgetItemIterator
from pytestqt.qtbot import QtBot

from freightdesk.service.clock import UserZone, user_zone
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.zone_menu import SETTING
from tests.server.test_carrier_push_support import (
    PARCEL,
    accepted,
    java_time,
    now,
    parcel_body,
    settled,
)
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import clock_text
from tests.ui.test_alerts_pane import _alerts_pane, _open_window
from tests.ui.test_export_panes import _from_loop, _read, export_view_to
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _click_tab, _late_truck, _showing
from tests.ui.test_shipments_pane import _ltl, _put
from tests.ui.test_shipments_triage import _parcel as _parcel_event
from tests.ui.test_shipments_triage import _shipment

__all__ = ["connected"]
# A menu opened under the offscreen platform says these; nothing a user would see.
pytestmark = pytest.mark.qt_log_ignore(
    r"^This plugin does not support (raise\(\)|grabbing the keyboard)$"
)

CENTRAL = ("CST", "CDT")  # Chicago's zone, whichever half of the year the test runs in
LONG = (
    "EXCEPTION reported by the driver at the consignee's gate: the trailer seal number does "
    "not match the bill of lading, the receiver refuses the load until the shipper confirms"
)


@pytest.fixture
def main_window(
    chicago_machine: None,
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
) -> Iterator[MainWindow]:
    session, _tenant = connected
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    pane = ShipmentsPane(session, settings, window)
    pane.setObjectName("shipmentsPane")
    window.add_pane("shipments", "Shipments", pane, window.style().StandardPixmap.SP_DirIcon)
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    yield window
    pane.shutdown()


def parcel_with_exception(
    tenant: TenantHandle, words: str = LONG, pickup: dict[str, str] | None = None
) -> str:
    """A parcel whose carrier reported an exception in `words` (its pickup's appointment
    window `pickup`)."""
    number = f"1ZCK{uuid.uuid4().hex[:10].upper()}"
    body = _ltl(f"P{uuid.uuid4().hex[:6].upper()}")
    body["identifiers"] = [{"type": "TRACKING_NUMBER", "value": number}]
    body["plan"] = {"expectedTransportationModes": ["PARCEL"]}
    if pickup is not None:
        body["routeInfo"]["stops"][0]["appointmentWindow"] = pickup  # type: ignore[index]
    shipment = _put(tenant, body)
    report = parcel_body(number, "EXCEPTION", description=words)
    report["timestamp"] = java_time(now() - timedelta(minutes=20))
    assert settled(tenant, accepted(tenant.http.post(PARCEL, json=report)))["status"] == (
        "PROCESSED"
    )
    return shipment


def _items(pane: ShipmentsPane) -> list[QTreeWidgetItem]:
    found = []
    walk = QTreeWidgetItemIterator(pane.detail.timeline)
    while walk.value() is not None:
        found.append(walk.value())
        walk += 1
    return found


async def _choose(window: MainWindow, *path: str) -> None:
    """Click through the menu bar along `path` (menu, submenu, choice), as a user does. The
    clicks come from Qt's loop and the waits are awaited: a nested event loop inside the
    test's task would step other tasks there, which asyncio refuses (they never run again,
    and the loop's close at teardown waits for them forever)."""
    widget: QMenuBar | QMenu = window.menuBar()
    for text in path:
        action = next(a for a in widget.actions() if a.text() == text)
        where = widget.actionGeometry(action).center()
        await _from_loop(
            lambda w=widget, p=where: QTest.mouseClick(w, Qt.MouseButton.LeftButton, pos=p)
        )
        opened = action.menu()
        if isinstance(opened, QMenu):
            await wait_until(opened.isVisible, seconds=10)
            widget = opened
    last = widget
    await wait_until(lambda: not last.isVisible(), seconds=10)


async def test_one_clock_in_the_list_the_timeline_and_the_users_switch_to_utc(
    qtbot: QtBot,
    main_window: MainWindow,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    truck = _late_truck(tenant, now())
    parcel = parcel_with_exception(tenant)
    pane = main_window.findChild(ShipmentsPane, "shipmentsPane")
    assert isinstance(pane, ShipmentsPane)
    await session.connect()
    await wait_until(lambda: None not in (pane.model.row_of(truck), pane.model.row_of(parcel)), 30)

    # The list: a time without a place, in this computer's zone, labelled.
    row = pane.model.row_of(truck)
    assert row is not None
    created = pane.model.data(pane.model.index(row, COLUMN_INDEX["created"]))
    assert any(clock_text(created, zone) for zone in CENTRAL), created

    # Exported (as File > Export view does, once a path is chosen): the instant in ISO 8601
    # with its offset, in the workbook and in the CSV, whatever the screen shows.
    summary = pane.model.summary_of(truck)
    assert summary is not None
    for suffix in ("xlsx", "csv"):
        path = tmp_path / f"shipments.{suffix}"
        await export_view_to(qtbot, pane, path)
        header, *rows = _read(path)
        line = next(r for r in rows if summary.primary_identifier in r)
        written = str(line[header.index("Latest ETA")])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", written), written
        assert summary.next_eta is not None
        assert datetime.fromisoformat(written) == summary.next_eta.replace(microsecond=0)

    # The timeline: the departure in the stop's own zone (Chicago's, named).
    _click_row_of(qtbot, pane, truck)
    await wait_until(lambda: _showing(pane, truck), seconds=30)
    _click_tab(qtbot, pane.detail, "Timeline")
    departed = next(i for i in _items(pane) if i.text(0).startswith("Departed "))
    assert any(clock_text(departed.text(1), zone) for zone in CENTRAL), departed.text(1)
    # States: times without a place, labelled.
    state_start = pane.detail.states.item(0, 1)
    assert state_start is not None
    assert any(clock_text(state_start.text(), zone) for zone in CENTRAL), state_start.text()

    # A long exception wraps: the whole text in the row, the row as tall as its lines.
    _click_row_of(qtbot, pane, parcel)
    await wait_until(lambda: _showing(pane, parcel), seconds=30)
    exception = next(i for i in _items(pane) if LONG in i.text(0))
    timeline = pane.detail.timeline
    line = timeline.fontMetrics().height()
    assert timeline.fontMetrics().horizontalAdvance(exception.text(0)) > timeline.columnWidth(0)
    await wait_until(lambda: timeline.visualItemRect(exception).height() >= 2 * line)
    assert any(clock_text(exception.text(1), zone) for zone in CENTRAL), exception.text(1)

    # The user chooses UTC for times without a place: the open list and detail follow now.
    await _choose(main_window, "&View", "Times &without a place", "&UTC")
    assert user_zone() is UserZone.UTC and settings.value(SETTING) == "utc"
    created = pane.model.data(pane.model.index(row, COLUMN_INDEX["created"]))
    assert clock_text(created, "UTC"), created

    def exception_time() -> str:
        found = [i for i in _items(pane) if LONG in i.text(0)]
        return found[0].text(1) if found else ""

    await wait_until(lambda: clock_text(exception_time(), "UTC"), seconds=30)
    # A time at a place does not move with the user's zone.
    _click_row_of(qtbot, pane, truck)
    await wait_until(lambda: _showing(pane, truck), seconds=30)
    departed = next(i for i in _items(pane) if i.text(0).startswith("Departed "))
    assert any(clock_text(departed.text(1), zone) for zone in CENTRAL), departed.text(1)

    # Kept for the next start.
    main_window.close()
    again = MainWindow(session, settings, paths)
    qtbot.addWidget(again)
    assert user_zone() is UserZone.UTC
    chosen = again.findChild(QAction, "userZone-utc")
    assert isinstance(chosen, QAction) and chosen.isChecked()


async def test_the_switch_rewrites_the_alerts_inbox(
    qtbot: QtBot,
    chicago_machine: None,
    paths: AppPaths,
    settings: QSettings,
    connected: tuple[AppSession, TenantHandle],
) -> None:
    """The whole window as the app makes it: an alert's time follows the user's choice at once
    (the inbox is a tree of written texts, not a table that paints its cells)."""
    session, tenant = connected
    number = f"1ZCLK{uuid.uuid4().hex[:8].upper()}"
    start = now()
    shipment_id = _shipment(
        tenant, "PARCEL", [("TRACKING_NUMBER", number)], start + timedelta(days=2)
    )
    window = await _open_window(qtbot, session, settings, paths)
    shipments = window.pane("shipments")
    assert isinstance(shipments, ShipmentsPane)
    await wait_until(lambda: shipments.model.row_of(shipment_id) is not None, seconds=30)
    _parcel_event(tenant, number, "EXCEPTION", start - timedelta(minutes=2))
    assert session.shipments is not None
    session.shipments.coordinator.poke()
    pane = _alerts_pane(window)
    await wait_until(lambda: pane.tree.topLevelItemCount() == 1, seconds=30)
    shown = pane.tree.topLevelItem(0).text(0)
    assert any(clock_text(shown, zone) for zone in CENTRAL), shown

    await _choose(window, "&View", "Times &without a place", "&UTC")
    shown = pane.tree.topLevelItem(0).text(0)
    assert clock_text(shown, "UTC"), shown
    await _choose(window, "&View", "Times &without a place", "&Local time (this computer's zone)")
    shown = pane.tree.topLevelItem(0).text(0)
    assert any(clock_text(shown, zone) for zone in CENTRAL), shown
    window.close()
