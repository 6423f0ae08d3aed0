"""The shipment detail as a dispatcher reads it, against the real local service: the Overview
says the state and where, the next stop against its appointment with the latest ETA and the
difference, the carrier, the last position's age; the header keeps one height from shipment
to shipment (the tabs never move); an empty table says what would be there."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QTabBar, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.detail import ShipmentDetailView
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.widgets.empty_state import EmptyState
from tests.server.test_carrier_push_support import (
    PARCEL,
    TRUCKLOAD,
    accepted,
    iso,
    java_time,
    now,
    parcel_body,
    settled,
    truckload_body,
)
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "window"]

CHICAGO = "America/Chicago"
# A day as the one clock writes it ("Mar 4", its year too when far from today).
DAY = r"[A-Z][a-z]{2} \d{1,2}( \d{4})?"
LONG_PLACE = "Distribution Center 4711 of the Greater Dallas-Fort Worth Metroplex, Dock 12"


def _stop(stop_id: str, kind: str, name: str, window: tuple[datetime, datetime]) -> Any:
    return {
        "id": stop_id,
        "type": kind,
        "name": name,
        "appointmentWindow": {
            "startDateTime": iso(window[0]),
            "endDateTime": iso(window[1]),
            "localTimeZoneIdentifier": CHICAGO,
        },
    }


def _late_truck(
    tenant: TenantHandle, start: datetime, eta_after_window: timedelta = timedelta(minutes=35)
) -> str:
    """A truckload left Louisville 5 hours ago, last seen 12 minutes ago; its latest ETA at
    Dallas is 35 minutes (`eta_after_window`) after the appointment window."""
    bol = f"BOLOV{uuid.uuid4().hex[:8].upper()}"
    number = f"1ZOV{uuid.uuid4().hex[:10].upper()}"
    pickup, delivery = str(uuid.uuid4()), str(uuid.uuid4())
    window_end = start + timedelta(hours=2)
    shipment = _put(
        tenant,
        {
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": bol},
                {"type": "CARRIER_SCAC", "value": "HOCS"},
                {"type": "TRACKING_NUMBER", "value": number},
            ],
            "attributes": [{"name": "Pieces", "value": "14"}],
            "plan": {"expectedTransportationModes": ["TL"]},
            "routeInfo": {
                "stops": [
                    _stop(
                        pickup,
                        "PICKUP",
                        "Louisville hub",
                        (start - timedelta(hours=8), start - timedelta(hours=6)),
                    ),
                    _stop(
                        delivery,
                        "DELIVERY",
                        "Dallas DC",
                        (window_end - timedelta(hours=1), window_end),
                    ),
                ],
                "routeSegments": [
                    {
                        "id": str(uuid.uuid4()),
                        "fromStopId": pickup,
                        "toStopId": delivery,
                        "transportationMode": "TL",
                        "emissions": {"cargoWeight": {"value": 9120, "unit": "KG"}},
                    }
                ],
            },
        },
    )
    departed = {
        "type": "DEPARTURE_FROM_STOP",
        "dateTime": iso(start - timedelta(hours=5)),
        "stopNumber": 1,
    }
    seen = {
        "dateTime": iso(start - timedelta(minutes=12)),
        "position": {"latitude": 33.1, "longitude": -96.5},
    }
    body = truckload_body(bol, shipmentEvent=departed, readings=seen)
    assert settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))["status"] == (
        "PROCESSED"
    )
    # The carrier's ETA, as it sends it: the service keeps it as the shipment's next ETA.
    eta = parcel_body(
        number,
        "ETA",
        carrierIdentifier={"type": "SCAC", "value": "HOCS"},
        estimatedTimeOfArrival=java_time(window_end + eta_after_window),
    )
    assert settled(tenant, accepted(tenant.http.post(PARCEL, json=eta)))["status"] == "PROCESSED"
    return shipment


def _troubled_parcel(tenant: TenantHandle, start: datetime) -> str:
    """A parcel with an open exception, a very long reference first and long stop names."""
    number = f"1ZOV{uuid.uuid4().hex[:10].upper()}"
    end = start + timedelta(days=1)
    shipment = _put(
        tenant,
        {
            "identifiers": [
                {"type": "REFERENCE_NUMBER", "value": "REF-" + "7" * 90},
                {"type": "TRACKING_NUMBER", "value": number},
            ],
            "plan": {"expectedTransportationModes": ["PARCEL"]},
            "routeInfo": {
                "stops": [
                    _stop(str(uuid.uuid4()), "PICKUP", LONG_PLACE, (start, start)),
                    _stop(str(uuid.uuid4()), "DELIVERY", LONG_PLACE + " North", (end, end)),
                ]
            },
        },
    )
    body = parcel_body(number, "EXCEPTION", description="Address not found, driver calling")
    body["timestamp"] = java_time(start - timedelta(minutes=20))
    assert settled(tenant, accepted(tenant.http.post(PARCEL, json=body)))["status"] == "PROCESSED"
    return shipment


def _detail(pane: ShipmentsPane) -> ShipmentDetailView:
    return pane.detail


def _showing(pane: ShipmentsPane, shipment_id: str) -> bool:
    history = pane.detail.history
    return history is not None and str(history.shipment.id) == shipment_id


def _click_row_of(qtbot: QtBot, pane: ShipmentsPane, shipment_id: str) -> None:
    row = pane.model.row_of(shipment_id)
    assert row is not None
    cell = pane.table.visualRect(pane.model.index(row, COLUMN_INDEX["primaryIdentifier"]))
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=cell.center())


def _click_tab(qtbot: QtBot, detail: ShipmentDetailView, title: str) -> None:
    bar = detail.tabs.tabBar()
    index = next(i for i in range(bar.count()) if bar.tabText(i).replace("&&", "&") == title)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert detail.tabs.currentIndex() == index


def _tab_bar_y(detail: ShipmentDetailView, window: QWidget) -> int:
    bar = detail.tabs.findChild(QTabBar)
    assert isinstance(bar, QTabBar)
    return bar.mapTo(window, QPoint(0, 0)).y()


async def test_the_overview_says_where_what_comes_next_and_how_late(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    start = now()
    truck = _late_truck(tenant, start)
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(truck) is not None, seconds=30)
    _click_row_of(qtbot, pane, truck)
    await wait_until(lambda: _showing(pane, truck), seconds=30)
    detail = _detail(pane)
    _click_tab(qtbot, detail, "Overview")
    labels = detail.overview.labels
    assert labels["state"].isVisible()
    assert labels["state"].text() == "In transit · last at Louisville hub (stop 1)"
    assert labels["next_stop"].text() == "Dallas DC (stop 2)"
    # The window and the ETA in Dallas's own time, the zone named; the difference in words.
    assert re.fullmatch(
        rf"{DAY} \d\d:\d\d CST to {DAY} \d\d:\d\d CST",
        labels["appointment"].text(),
    ), labels["appointment"].text()
    eta = labels["eta"].text()
    assert re.fullmatch(rf"\S+ {DAY} \d\d:\d\d CST, 35 min after the window", eta), eta
    # The carrier by its name (the service's), its code beside it.
    await wait_until(
        lambda: labels["carrier"].text() == "Hanseatic Ocean Carriers (HOCS)", seconds=10
    )
    assert labels["weight"].text() == "9,120 kg" and labels["weight"].isVisible()
    assert labels["pieces"].text() == "14"
    assert not labels["equipment"].isVisible()  # not known: not shown
    position = labels["position"].text()
    found = re.fullmatch(r"33\.1000, -96\.5000 · (\d+) min ago", position)
    assert found is not None, position
    # Seen 12 minutes before the test began; a slow machine adds its own minutes.
    assert 12 <= int(found[1]) <= 12 + (now() - start).total_seconds() // 60 + 1
    assert labels["exceptions"].text() == "None open"

    # The list's Attention column says the same as the Overview (one rule).
    def attention() -> str:
        row = pane.model.row_of(truck)
        return str(pane.model.index(row or 0, COLUMN_INDEX["attention"]).data() or "")

    await wait_until(lambda: attention().endswith("Late 35 min"), seconds=30)
    # Identifiers still below the facts.
    assert detail.identifiers.item(1, 1).text() == "HOCS"


async def test_the_tabs_hold_still_from_shipment_to_shipment_and_empty_tables_say_why(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    start = now()
    ids = [
        _late_truck(tenant, start),
        _troubled_parcel(tenant, start),
        _troubled_parcel(tenant, start),
        _put(tenant, _ltl(f"PROOV{uuid.uuid4().hex[:5].upper()}")),
    ]
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == len(ids), seconds=30)
    first = pane.model.summary_at(0)
    assert first is not None
    _click_row_of(qtbot, pane, first.id)
    await wait_until(lambda: _showing(pane, first.id), seconds=30)
    detail = _detail(pane)
    _click_tab(qtbot, detail, "Overview")
    heights = {detail.subtitle.height()}
    ys = {_tab_bar_y(detail, window)}
    seen = {first.id}
    elided = []
    # Down the list by key, then each shipment by a click: each one's header, the tabs
    # where they were.
    for step in range(2 * len(ids) - 1):
        if step < len(ids) - 1:
            qtbot.keyClick(pane.table, Qt.Key.Key_Down)
            current = pane.model.summary_at(pane.table.currentIndex().row())
            assert current is not None
            shipment_id = current.id
        else:
            shipment_id = ids[step - len(ids) + 1]
            _click_row_of(qtbot, pane, shipment_id)
        await wait_until(lambda s=shipment_id: _showing(pane, s), seconds=30)
        seen.add(shipment_id)
        ys.add(_tab_bar_y(detail, window))
        heights.add(detail.subtitle.height())
        if "open exception" in detail.subtitle.full_text():
            assert "1 open exception" in detail.subtitle.full_text()
            elided.append(detail.subtitle.toolTip())
    assert seen == set(ids)
    assert len(ys) == 1, ys
    assert len(heights) == 1, heights
    # The long header is cut to one line; its whole text is the tooltip.
    assert elided and all("1 open exception" in tip for tip in elided), elided
    # A message in the header (here the share link's) takes no line of its own either.
    assert detail.share_button.isEnabled()
    qtbot.mouseClick(detail.share_button, Qt.MouseButton.LeftButton)
    assert detail.message.isVisible() and detail.message.text() == "Share link copied"
    assert _tab_bar_y(detail, window) in ys

    # The LTL shipment has no relations: the Related tab says so and where links are made
    # (not in Edit…, which has no field for them).
    ltl = next(
        i for i in ids if (pane.model.summary_at(pane.model.row_of(i) or 0) or first).mode == "LTL"
    )
    _click_row_of(qtbot, pane, ltl)
    await wait_until(lambda: _showing(pane, ltl), seconds=30)
    _click_tab(qtbot, detail, "Related")
    words = detail.related.findChild(EmptyState)
    assert isinstance(words, EmptyState)
    assert words.isVisible()
    assert words.text() == "No related shipments — your systems link them over the API"
    _click_tab(qtbot, detail, "States & costs")
    costs = detail.costs.findChild(EmptyState)
    assert isinstance(costs, EmptyState) and costs.isVisible()
    assert costs.text().startswith("No costs")
    # A table with rows hides its words.
    _click_tab(qtbot, detail, "Route")
    stops = detail.stops.findChild(EmptyState)
    assert isinstance(stops, EmptyState) and not stops.isVisible()
