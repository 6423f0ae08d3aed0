"""The shipment detail's map against the real local service: the geofence of a saved stop
location, timeline and map selecting each other, live positions without losing the view."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWebEngineCore import QWebEnginePage
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot
from sqlalchemy.orm import Session

from freightdesk.models.tracking import TrackedShipmentEvent, TrackedShipmentPosition
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipments as store
from freightdesk.service.session import AppSession
from freightdesk.ui.maps.page import map_profile
from freightdesk.ui.maps.warm import warm_up_maps
from freightdesk.ui.panes.shipments.detail import ShipmentDetailView
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import emitted
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_maps import (
    WEBENGINE_STARTUP,
    evaluate,
    stats,
    until,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)
from tests.ui.test_panes_support import connected

__all__ = ["connected"]

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

NOW = datetime.now(UTC).replace(microsecond=0)


def _shipment(tenant: TenantHandle) -> tuple[str, str, str]:
    """A shipment from a saved stop location (400 m geofence) to an address; its id, the
    pickup's id and the delivery's id."""
    location = tenant.http.post(
        "/api/v4/stoplocations",
        json={
            "name": "Joliet DC",
            "address": {
                "addressLines": ["1 Industry Rd"],
                "city": "Joliet",
                "state": "IL",
                "postalCode": "60431",
                "country": "US",
            },
            "coordinates": {"latitude": 41.52, "longitude": -88.08},
            "geofence": {"type": "DISTANCE", "units": "METERS", "value": 400},
        },
    )
    assert location.status_code == 200, location.text
    pickup, delivery = str(uuid.uuid4()), str(uuid.uuid4())
    body: dict[str, Any] = {
        "identifiers": [{"type": "PRO", "value": f"PRO{uuid.uuid4().hex[:6].upper()}"}],
        "routeInfo": {
            "stops": [
                {
                    "id": pickup,
                    "type": "PICKUP",
                    "name": "Joliet DC",
                    "location": {
                        "id": location.json()["id"],
                        "address": {"city": "Joliet", "state": "IL", "country": "US"},
                        "coordinates": {"latitude": 41.52, "longitude": -88.08},
                    },
                },
                {
                    "id": delivery,
                    "type": "DELIVERY",
                    "name": "Memphis DC",
                    "location": {
                        "address": {"city": "Memphis", "state": "TN", "country": "US"},
                        "coordinates": {"latitude": 35.15, "longitude": -90.05},
                    },
                },
            ]
        },
    }
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"]), pickup, delivery


def _report(tenant: TenantHandle, shipment_id: str, start: int, count: int) -> None:
    positions = [
        TrackedShipmentPosition(
            date_time=NOW - timedelta(hours=10) + timedelta(minutes=5 * i),
            latitude=41.52 - i * 0.04,
            longitude=-88.08 - i * 0.014 + (0.2 if (i // 20) % 2 else 0.0),
            speed=70,
            heading=190,
        )
        for i in range(start, start + count)
    ]

    def work(session: Session) -> None:
        store.add_positions(session, shipment_id, positions, "TL")

    with transaction(tenant.service.context.sessions) as session:
        work(session)


def _event(tenant: TenantHandle, shipment_id: str, stop_id: str, text: str) -> None:
    event = TrackedShipmentEvent(
        type="PICKED_UP", date_time=NOW - timedelta(hours=10), description=text, stop_id=stop_id
    )
    with transaction(tenant.service.context.sessions) as session:
        store.add_event(session, shipment_id, event, "TL")


def _click_in_timeline(qtbot: QtBot, detail: ShipmentDetailView, key: str) -> None:
    """Click the timeline's row of `key` (a stop, event or exception), as a user does."""
    timeline = detail.timeline
    rows = [
        item
        for item in timeline.findItems("", Qt.MatchFlag.MatchContains | Qt.MatchFlag.MatchRecursive)
        if item.data(0, Qt.ItemDataRole.UserRole) == key
    ]
    assert len(rows) == 1, f"{key} is in the timeline once"
    timeline.scrollToItem(rows[0])
    spot = timeline.visualItemRect(rows[0]).center()
    qtbot.mouseClick(timeline.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    assert timeline.currentItem() is rows[0]


async def test_timeline_and_map_follow_each_other_and_live_positions(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    shipment_id, pickup, _delivery = _shipment(tenant)
    _event(tenant, shipment_id, pickup, "Loaded 18 pallets")
    _report(tenant, shipment_id, 0, 80)
    await session.connect()

    detail = ShipmentDetailView(session)
    qtbot.addWidget(detail)
    detail.resize(700, 900)
    detail.show()
    detail.show_shipment(shipment_id)
    await wait_until(lambda: detail.history is not None, 30)
    assert detail.map is None  # no web view until the map is opened

    view = detail.show_map()
    assert detail.tabs.currentWidget() is detail.map_tab
    assert detail.timeline.parent() is detail.map_splitter  # the timeline sits under the map
    found = await until(view, lambda s: s["stops"] == 2 and s["fences"] == 1, 30)
    assert found["events"] == 1 and found["routePoints"] >= 2

    # Selecting the event in the timeline highlights it on the map.
    event_id = str(detail.history.events[0].id)  # type: ignore[union-attr]
    _click_in_timeline(qtbot, detail, f"event:{event_id}")
    found = await until(view, lambda s: s["selected"] == f"event:{event_id}")
    assert "Loaded 18 pallets" in (found["popup"] or "")

    # Clicking the pickup on the map selects it in the timeline.
    async with emitted(view.itemClicked, 10):
        await evaluate(view, f"FD._markers()['stop:{pickup}'].getElement().click()")
    current = detail.timeline.currentItem()
    assert current is not None and current.data(0, Qt.ItemDataRole.UserRole) == f"stop:{pickup}"
    assert current.text(0).startswith("1. Pickup: Joliet DC")
    popup = (await stats(view))["popup"] or ""
    assert "Geofence" in popup and "within 400 meters" in popup

    # The user zooms in; new positions arrive; the view stays.
    await evaluate(view, "FD._map().setView([40.5, -88.5], 10, {animate: false}) && null")
    before = await stats(view)
    _report(tenant, shipment_id, 80, 30)
    assert detail._detail is not None
    await detail._detail.coordinator.fetch_now()
    after = await until(view, lambda s: s["routePoints"] > before["routePoints"], 30)
    assert after["zoom"] == 10
    assert after["center"] == pytest.approx(before["center"], abs=1e-6)
    # The row the user selected stays selected across the update.
    current = detail.timeline.currentItem()
    assert current is not None and current.data(0, Qt.ItemDataRole.UserRole) == f"stop:{pickup}"

    # Back on the Timeline tab, the tree is there again.
    detail.tabs.setCurrentWidget(detail.timeline_tab)
    assert detail.timeline.parent() is detail.timeline_tab
    assert view.map_page.console_errors == []
    detail.shutdown()


async def test_a_warmed_map_shows_each_shipment_at_once_in_the_same_page(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    first, _pickup, _delivery = _shipment(tenant)
    _report(tenant, first, 0, 40)
    second, _pickup, _delivery = _shipment(tenant)
    _report(tenant, second, 0, 25)
    await session.connect()

    detail = ShipmentDetailView(session)
    qtbot.addWidget(detail)
    detail.resize(900, 800)
    detail.show()
    # As the app does in an idle moment after it starts: the map is made, its page loads
    # while the Timeline tab is shown.
    warm = warm_up_maps(detail.prepare_map)
    await wait_until(lambda: warm.finished, 30)
    view = detail.map
    assert view is not None and not view.isVisible()
    assert detail.tabs.currentWidget() is detail.timeline_tab
    await wait_until(lambda: view.is_ready, 30)
    page = view.page()

    detail.show_shipment(first)
    await wait_until(lambda: detail.history is not None, 30)
    assert detail.map is view
    opened = detail.show_map()
    # Asked for and not drawn yet: "Loading map…" over the map, a child outside any layout.
    assert opened is view and view.loading.isVisible()
    assert view.loading.parent() is view and detail.map_splitter.indexOf(view.loading) == -1
    size = view.size()
    await wait_until(lambda: not view.loading.isVisible(), 15)
    assert view.drawn and view.size() == size
    # The track (thinned where straight) up to the last position of the 40.
    found = await until(view, lambda s: s["routePoints"] >= 2 and s["stops"] == 2, 15)
    assert found["routeLayers"] >= 1 and found["current"]["lat"] == pytest.approx(39.96)
    # Drawn while the tab was hidden, fitted again to the view's size once shown: the whole
    # route, Joliet to Memphis, is in sight.

    def in_sight(found: dict[str, Any]) -> bool:
        west, south, east, north = map(float, found["bounds"].split(","))
        return south < 35.15 and north > 41.52 and west < -90.05 and east > -88.08

    await until(view, in_sight, 15)

    # Another shipment: drawn in the same page, with the same profile; no other page made.
    detail.show_shipment(second)
    await until(view, lambda s: (s["current"] or {}).get("lat") == pytest.approx(40.56), 15)
    assert detail.map is view and view.page() is page and page.profile() is map_profile()
    assert len(detail.findChildren(QWebEnginePage)) == 1
    await wait_until(lambda: view.drawn and not view.loading.isVisible(), 15)
    assert view.map_page.console_errors == []
    detail.shutdown()


def _row_of(detail: ShipmentDetailView, key: str) -> QTreeWidgetItem:
    found = detail.timeline.findItems("", Qt.MatchFlag.MatchContains | Qt.MatchFlag.MatchRecursive)
    return next(i for i in found if i.data(0, Qt.ItemDataRole.UserRole) == key)


# Offscreen, the window cannot be raised over the others (it is under Xvfb and on a desktop).
@pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP, r"^This plugin does not support raise\(\)$")
async def test_the_map_window_follows_the_row_chosen_in_the_timeline(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The window's map showed the shipment but not the row chosen: the Map tab's map did."""
    session, tenant = connected
    shipment_id, pickup, delivery = _shipment(tenant)
    _event(tenant, shipment_id, pickup, "Loaded 18 pallets")
    await session.connect()
    detail = ShipmentDetailView(session)
    qtbot.addWidget(detail)
    detail.resize(1100, 500)
    detail.show()
    detail.show_shipment(shipment_id)
    await wait_until(lambda: detail.history is not None, 30)
    docked = detail.show_map()
    await until(docked, lambda s: s["stops"] == 2, 30)
    # The pickup chosen before the window opens: the window opens showing it.
    timeline = detail.timeline
    rect = timeline.visualItemRect(_row_of(detail, f"stop:{pickup}"))
    await _from_loop(
        lambda: qtbot.mouseClick(timeline.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    )
    await _from_loop(lambda: qtbot.mouseClick(detail.map_window.button, Qt.MouseButton.LeftButton))
    window = detail.map_window.window
    assert window is not None
    await until(window.map, lambda s: s["stops"] == 2 and s["selected"] == f"stop:{pickup}", 30)

    # The user goes down the timeline with the keys: the event at the pickup, in the window.
    event_id = str(detail.history.events[0].id)  # type: ignore[union-attr]
    await _from_loop(lambda: qtbot.keyClick(timeline, Qt.Key.Key_Down))
    assert timeline.currentItem() is _row_of(detail, f"event:{event_id}")
    found = await until(window.map, lambda s: s["selected"] == f"event:{event_id}")
    assert "Loaded 18 pallets" in (found["popup"] or "")
    # A click on the Map tab's map chooses the row there and in the window.
    async with emitted(docked.itemClicked, 10):
        await evaluate(docked, f"FD._markers()['stop:{delivery}'].getElement().click()")
    await until(window.map, lambda s: s["selected"] == f"stop:{delivery}")
    # And a click in the window chooses it in the timeline and on the Map tab's map.
    async with emitted(window.map.itemClicked, 10):
        await evaluate(window.map, f"FD._markers()['stop:{pickup}'].getElement().click()")
    assert timeline.currentItem() is _row_of(detail, f"stop:{pickup}")
    await until(docked, lambda s: s["selected"] == f"stop:{pickup}")
    assert window.map.map_page.console_errors == []
    detail.shutdown()
    await wait_until(lambda: detail.map_window.window is None, 10)
