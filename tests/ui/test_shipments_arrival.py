"""A truck that arrives at its stop ahead of the appointment, as the new user's walkthrough
pushed it (Carrier push, "Arrival at stop", stop 2): the Shipments list no longer calls it
late by the ETA it had before arriving, its Latest ETA is the next stop's (none after the
last), and the pushed events read in words ("Arrived at Maison Claire Birmingham"), not as
their codes ("Arrival At Stop"). Against the real local service, pushes over real HTTP."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItemIterator, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.shipments import EtaReport, History
from freightdesk.service.clock import place_time
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.forms import TRUCKLOAD_EVENTS
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    iso,
    now,
    settled,
    truckload_body,
    unique,
)
from tests.server.test_tracking_support import receive
from tests.support import TenantHandle, wait_until
from tests.ui.plain_words import leaks
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _showing
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _put

__all__ = ["connected", "window"]

ZONE = "Europe/London"
STOP_NAMES = ("Alder & Finch European DC Venlo", "Maison Claire Birmingham", "Leeds cross-dock")


def _truckload(tenant: TenantHandle, bol: str, appointments: list[datetime]) -> dict[str, Any]:
    """A truckload shipment from Venlo to two stops, each with its appointment window (two
    hours, ending at `appointments`): its id and its stops' ids."""
    stops: list[dict[str, Any]] = [
        {"id": str(uuid.uuid4()), "type": "PICKUP", "name": STOP_NAMES[0]}
    ]
    for name, end in zip(STOP_NAMES[1:], appointments, strict=True):
        window = {
            "startDateTime": iso(end - timedelta(hours=2)),
            "endDateTime": iso(end),
            "localTimeZoneIdentifier": ZONE,
        }
        stops.append(
            {"id": str(uuid.uuid4()), "type": "DELIVERY", "name": name, "appointmentWindow": window}
        )
    shipment_id = _put(
        tenant,
        {
            "identifiers": [{"type": "BILL_OF_LADING", "value": bol}],
            "plan": {"expectedTransportationModes": ["TL"]},
            "routeInfo": {"stops": stops},
        },
    )
    return {"id": shipment_id, "stops": [stop["id"] for stop in stops]}


def _push(tenant: TenantHandle, bol: str, event_type: str, stop_number: int) -> None:
    """What the Carrier push pane sends for one truckload event, once the service applied it."""
    event = {"type": event_type, "dateTime": iso(now()), "stopNumber": stop_number}
    body = truckload_body(bol, shipmentEvent=event)
    assert settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))["status"] == (
        "PROCESSED"
    )


def _cell(pane: ShipmentsPane, shipment_id: str, column: str) -> str:
    row = pane.model.row_of(shipment_id)
    if row is None:
        return ""
    return str(pane.model.index(row, COLUMN_INDEX[column]).data() or "")


async def test_a_truck_at_its_stop_ahead_of_the_appointment_is_not_late_for_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    bol = unique("BOL")
    birmingham_end = now() + timedelta(hours=3)
    leeds_end = now() + timedelta(days=1)
    shipment = _truckload(tenant, bol, [birmingham_end, leeds_end])
    shipment_id = shipment["id"]
    _, birmingham, leeds = shipment["stops"]
    # Estimated at once: Birmingham 4 min after its window (the walkthrough's "Late 4 min"),
    # Leeds in good time.
    leeds_eta = leeds_end - timedelta(hours=5)
    etas = [
        EtaReport(birmingham_end + timedelta(minutes=4), birmingham),
        EtaReport(leeds_eta, leeds),
    ]
    receive(tenant, lambda s: store.add_histories(s, [History(shipment_id, "TL", etas=etas)]))
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: _cell(pane, shipment_id, "attention").endswith("Late 4 min"), 30)

    # The truck arrives at Birmingham (stop 2), hours before its appointment ends.
    _push(tenant, bol, "ARRIVAL_AT_STOP", 2)
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _cell(pane, shipment_id, "state") == "At stop", 30)
    await wait_until(lambda: _cell(pane, shipment_id, "attention") == "", 30)
    assert _cell(pane, shipment_id, "nextEta") == place_time(leeds_eta, ZONE)
    assert _cell(pane, shipment_id, "latestEvent") == f"Arrived at {STOP_NAMES[1]}"

    # At the last stop there is no ETA left to show.
    _push(tenant, bol, "ARRIVAL_AT_STOP", 3)
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _cell(pane, shipment_id, "nextEta") == "", 30)
    assert _cell(pane, shipment_id, "attention") == ""


def _timeline_texts(pane: ShipmentsPane) -> list[str]:
    texts = []
    found = QTreeWidgetItemIterator(pane.detail.timeline)
    while found.value():
        texts.append(found.value().text(0))
        found += 1
    return texts


async def test_every_truckload_event_pushed_reads_in_words_on_the_timeline(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    bol = unique("BOL")
    later = now() + timedelta(days=1)
    shipment_id = _truckload(tenant, bol, [later, later + timedelta(days=1)])["id"]
    for event_type in TRUCKLOAD_EVENTS:
        _push(tenant, bol, event_type, 2)
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(shipment_id) is not None, 30)
    _click_row_of(qtbot, pane, shipment_id)
    await wait_until(lambda: _showing(pane, shipment_id), 30)
    await wait_until(lambda: len(_timeline_texts(pane)) >= len(TRUCKLOAD_EVENTS), 30)

    shown = _timeline_texts(pane)
    # No code, and no code read out word by word ("Arrival At Stop", "Arrival at stop").
    said = {code.replace("_", " ").lower() for code in TRUCKLOAD_EVENTS}
    assert not [text for text in shown if text.lower() in said], shown
    assert not leaks(pane.detail.timeline), leaks(pane.detail.timeline)
    birmingham = STOP_NAMES[1]
    for words in (
        f"Arrived at {birmingham}",
        f"Departed {birmingham}",
        f"Picked up at {birmingham}",
        f"In transit to {birmingham}",
        f"Delivered to {birmingham}",
        "Shipment cancelled",
    ):
        assert words in shown, shown
    # The list's Latest event says it in the same words.
    assert _cell(pane, shipment_id, "latestEvent") in shown
