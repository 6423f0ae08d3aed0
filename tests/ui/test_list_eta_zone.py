"""The list's Latest ETA and Event time are times at a place (issue 14.4): on a computer set to
Tokyo's time, a parcel due at its Chicago stop, and last heard of there, shows both in
Chicago's time, named, and keeps them when the user switches times without a place to UTC."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from freightdesk.models.tracking import TrackedShipmentEvent
from freightdesk.server.domain import shipments as store
from freightdesk.service.clock import UserZone, user_zone
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.server.test_carrier_push_support import java_time, now
from tests.server.test_tracking_support import receive
from tests.support import TenantHandle, machine_zone, wait_until
from tests.ui.clock_forms import cell, clock_text
from tests.ui.test_clock_panes import CENTRAL
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_pane import _put
from tests.ui.test_shipments_triage import _parcel

__all__ = ["connected"]


@pytest.fixture
def tokyo_window(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
) -> Iterator[tuple[MainWindow, ShipmentsPane]]:
    """The app's window with its Shipments pane, on a computer set to Tokyo's time (neither
    Chicago's nor UTC)."""
    with machine_zone("Asia/Tokyo"):
        window = MainWindow(connected[0], settings, paths)
        qtbot.addWidget(window)
        pane = ShipmentsPane(connected[0], settings, window)
        window.add_pane("shipments", "Shipments", pane, window.style().StandardPixmap.SP_DirIcon)
        window.resize(1440, 900)
        window.show()
        qtbot.waitExposed(window)
        yield window, pane
        pane.shutdown()


def _parcel_due_in_chicago(tenant: TenantHandle) -> str:
    """A parcel from Louisville (no zone given) whose latest event happened at its Chicago
    stop, and whose carrier's ETA is for its last stop, Milwaukee's, in Chicago's zone (a
    stop's own ETA ends once something happened there)."""
    number = f"1ZCHI{uuid.uuid4().hex[:8].upper()}"
    chicago, milwaukee = (
        {
            "id": str(uuid.uuid4()),
            "type": kind,
            "name": name,
            "appointmentWindow": {"localTimeZoneIdentifier": "America/Chicago"},
        }
        for kind, name in (("PICKUP", "Chicago terminal"), ("DELIVERY", "Milwaukee dock"))
    )
    shipment_id = _put(
        tenant,
        {
            "identifiers": [{"type": "TRACKING_NUMBER", "value": number}],
            "plan": {"expectedTransportationModes": ["PARCEL"]},
            "routeInfo": {
                "stops": [{"type": "PICKUP", "name": "Louisville hub"}, chicago, milwaukee]
            },
        },
    )
    eta = java_time(now() + timedelta(days=1))
    _parcel(tenant, number, "ETA", now() - timedelta(minutes=5), estimatedTimeOfArrival=eta)
    arrived = TrackedShipmentEvent(
        type="ARRIVAL_AT_STOP", date_time=now() - timedelta(minutes=1), stop_id=chicago["id"]
    )
    receive(tenant, lambda s: store.add_event(s, shipment_id, arrived, "PARCEL"))
    return shipment_id


async def test_the_next_eta_and_event_time_read_in_their_stops_zone_whatever_the_users_zone(
    qtbot: QtBot,
    tokyo_window: tuple[MainWindow, ShipmentsPane],
    connected: tuple[AppSession, TenantHandle],
) -> None:
    session, tenant = connected
    shipment_id = _parcel_due_in_chicago(tenant)
    window, pane = tokyo_window
    await session.connect()

    def at_stop() -> tuple[str, str]:
        row = pane.model.row_of(shipment_id)
        if row is None:
            return "", ""
        return cell(pane.model, row, "Latest ETA"), cell(pane.model, row, "Event time")

    await wait_until(lambda: "" not in at_stop(), seconds=30)
    shown = at_stop()
    for text in shown:
        assert any(clock_text(text, zone) for zone in CENTRAL), shown
    row = pane.model.row_of(shipment_id)
    assert row is not None
    assert clock_text(cell(pane.model, row, "Last updated"), "UTC+09")  # the computer's

    # View > Times without a place > UTC: the action the menu's click triggers.
    utc = window.findChild(QAction, "userZone-utc")
    assert isinstance(utc, QAction)
    utc.trigger()
    assert user_zone() is UserZone.UTC
    await wait_until(lambda: clock_text(cell(pane.model, row, "Last updated"), "UTC"))
    # A time at a place keeps its place's zone.
    assert at_stop() == shown
    window.close()
