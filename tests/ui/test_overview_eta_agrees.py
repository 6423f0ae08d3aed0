"""One shipment, one ETA: the list's Latest ETA and the Overview's agree as a dispatcher reads
them, against the real local service, when the Overview reads the shipment after the list's
last sync (the detail's fresher read updates the row) and after a carrier's ETA push.

Seen in the demo: estimates for the stops ahead (the next stop's calculated last) made the row
say the final stop's ETA (the latest instant) while the Overview said the next stop's."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QWidget
from pytestqt.qtbot import QtBot
from sqlalchemy.orm import Session

from freightdesk.server.domain import shipments as store
from freightdesk.service.clock import place_time
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
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
from tests.server.test_tracking_support import receive
from tests.support import LiveService, TenantHandle, make_tenant, wait_until
from tests.ui.test_panes_support import _activate, close_session
from tests.ui.test_shipment_overview import _click_row_of, _click_tab, _showing
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _put

__all__ = ["window"]

DENVER, CHICAGO = "America/Denver", "America/Chicago"


@pytest.fixture
async def connected(
    sqlite_service: LiveService, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[tuple[AppSession, TenantHandle]]:
    """`connected` with a list that syncs once an hour: what the detail reads is fresher than
    the row."""
    tenant = make_tenant(sqlite_service)
    _activate(profiles, sqlite_service.url, tenant, poll_interval=3600)
    yield session, tenant
    await close_session(session)
    tenant.http.close()


def _stop(stop_id: str, kind: str, name: str, zone: str, end: datetime) -> dict[str, object]:
    window = {
        "startDateTime": iso(end - timedelta(hours=2)),
        "endDateTime": iso(end),
        "localTimeZoneIdentifier": zone,
    }
    return {"id": stop_id, "type": kind, "name": name, "appointmentWindow": window}


def _list_eta(pane: ShipmentsPane, shipment_id: str) -> str:
    row = pane.model.row_of(shipment_id)
    assert row is not None
    return str(pane.model.index(row, COLUMN_INDEX["nextEta"]).data() or "")


async def test_the_list_and_the_overview_say_one_eta(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    start = now().replace(second=0, microsecond=0)
    bol, number = f"BOLET{uuid.uuid4().hex[:8].upper()}", f"1ZET{uuid.uuid4().hex[:10].upper()}"
    louisville, denver, dallas = (str(uuid.uuid4()) for _ in range(3))
    truck = _put(
        tenant,
        {
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": bol},
                {"type": "TRACKING_NUMBER", "value": number},
            ],
            "plan": {"expectedTransportationModes": ["TL"]},
            "routeInfo": {
                "stops": [
                    _stop(louisville, "PICKUP", "Louisville hub", CHICAGO, start),
                    _stop(denver, "DELIVERY", "Denver yard", DENVER, start + timedelta(hours=12)),
                    _stop(dallas, "DELIVERY", "Dallas DC", CHICAGO, start + timedelta(days=2)),
                ]
            },
        },
    )
    departed = {"type": "DEPARTURE_FROM_STOP", "dateTime": iso(start), "stopNumber": 1}
    body = truckload_body(bol, shipmentEvent=departed)
    assert (
        settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))["status"] == "PROCESSED"
    )
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(truck) is not None, seconds=30)
    assert _list_eta(pane, truck) == ""

    # Estimates for the stops ahead after the list's sync, the next stop's calculated last
    # (as the demo and the simulator write them): the shipment's ETA is Denver's.
    in_denver, in_dallas = start + timedelta(hours=7), start + timedelta(days=2, hours=-1)

    def estimate(db: Session) -> None:
        store.set_eta(db, truck, in_dallas, stop_id=dallas, source="TL")
        store.set_eta(db, truck, in_denver, stop_id=denver, source="TL")

    receive(tenant, estimate)
    _click_row_of(qtbot, pane, truck)
    await wait_until(lambda: _showing(pane, truck) and pane.detail.overview.overview is not None)
    detail = pane.detail
    _click_tab(qtbot, detail, "Overview")
    labels = detail.overview.labels
    denver_text = place_time(in_denver, DENVER)
    assert labels["eta"].text().startswith(denver_text), labels["eta"].text()
    assert not labels["latest_eta"].isVisible()  # the same estimate: said once
    # The row takes the detail's read at once (no sync for an hour) and says the same ETA.
    await wait_until(lambda: _list_eta(pane, truck) != "", seconds=30)
    assert _list_eta(pane, truck) == denver_text

    # The carrier pushes a new ETA for the final stop: the latest ETA is now Dallas's, for
    # another stop than the next; the Overview names it beside the next stop's, as the list.
    new_dallas = start + timedelta(days=2, hours=1)
    push = parcel_body(number, "ETA", estimatedTimeOfArrival=java_time(new_dallas))
    assert settled(tenant, accepted(tenant.http.post(PARCEL, json=push)))["status"] == "PROCESSED"
    dallas_text = place_time(new_dallas, CHICAGO)
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: labels["latest_eta"].isVisible(), seconds=30)
    assert labels["latest_eta"].text() == f"{dallas_text} at Dallas DC (stop 3)"
    assert labels["eta"].text().startswith(denver_text)  # the next stop's is unchanged
    await wait_until(lambda: _list_eta(pane, truck) == dallas_text, seconds=30)
    header = pane.model.headerData(COLUMN_INDEX["nextEta"], Qt.Orientation.Horizontal)
    title = detail.overview.facts.labelForField(labels["latest_eta"])
    assert isinstance(title, QLabel) and header == title.text().rstrip(":")


async def test_the_overview_tables_show_every_row_and_the_page_scrolls(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    attributes = [{"name": f"Attribute {n}", "value": f"value {n}"} for n in range(1, 15)]
    identifiers = [
        {"type": kind, "value": f"{kind[:3]}{uuid.uuid4().hex[:8].upper()}"}
        for kind in ("BILL_OF_LADING", "TRACKING_NUMBER", "PURCHASE_ORDER", "PRO")
    ]
    shipment = _put(tenant, {"identifiers": identifiers, "attributes": attributes})
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(shipment) is not None, seconds=30)
    _click_row_of(qtbot, pane, shipment)
    await wait_until(lambda: _showing(pane, shipment), seconds=30)
    detail = pane.detail
    _click_tab(qtbot, detail, "Overview")
    tab = detail.overview
    await wait_until(lambda: tab.attributes.rowCount() == 14)
    for table in (tab.identifiers, tab.attributes):
        # Every row whole in the table's own view: nothing to scroll there.
        last = table.visualRect(table.model().index(table.rowCount() - 1, 0))
        assert last.bottom() < table.viewport().height(), (table.objectName(), last)
        assert table.verticalScrollBar().maximum() == 0
    # The Overview is longer than the detail's room: its own scroll bar reaches the end.
    area = detail.tabs.currentWidget()
    assert isinstance(area, QScrollArea) and area.verticalScrollBar().maximum() > 0

    # A row added grows the table, the last row still whole.
    qtbot.mouseClick(tab.add_attribute, Qt.MouseButton.LeftButton)
    last = tab.attributes.visualRect(tab.attributes.model().index(14, 0))
    assert last.bottom() < tab.attributes.viewport().height()
