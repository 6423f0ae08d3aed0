"""The Overview as the walkthrough of session 20 read it: a booked shipment's carrier key said
as a code ("CARRIER_LOAD_NUMBER", where the booking says "Carrier load number") and the last
position as bare coordinates ("43.6532, -79.3832"). Now the key reads in words and is saved
by its own name, and a position near one of the shipment's stops is said by that stop."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    iso,
    now,
    settled,
    truckload_body,
)
from tests.support import TenantHandle, wait_until
from tests.ui.plain_words import leaks
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _click_tab, _showing
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _put

__all__ = ["connected", "window"]

DALLAS = (32.7767, -96.7970)
# 0.1083 degrees of latitude north of Dallas DC: 12 km.
SEEN = (32.8850, -96.7970)


def _booked_truck(tenant: TenantHandle) -> tuple[str, str]:
    """A truckload from Louisville to Dallas DC that a booking named by the carrier's load
    number, last seen 12 km north of Dallas DC 12 minutes ago; its id and bill of lading."""
    bol = f"BOLOW{uuid.uuid4().hex[:8].upper()}"
    start = now()
    shipment = _put(
        tenant,
        {
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": bol},
                {"type": "CARRIER_SCAC", "value": "HOCS"},
            ],
            "attributes": [{"name": "CARRIER_LOAD_NUMBER", "values": ["L200731813"]}],
            "plan": {"expectedTransportationModes": ["TL"]},
            "routeInfo": {
                "stops": [
                    {"id": str(uuid.uuid4()), "type": "PICKUP", "name": "Louisville hub"},
                    {
                        "id": str(uuid.uuid4()),
                        "type": "DELIVERY",
                        "name": "Dallas DC",
                        "location": {
                            "coordinates": {"latitude": DALLAS[0], "longitude": DALLAS[1]}
                        },
                    },
                ]
            },
        },
    )
    seen = {
        "dateTime": iso(start - timedelta(minutes=12)),
        "position": {"latitude": SEEN[0], "longitude": SEEN[1]},
    }
    body = truckload_body(bol, readings=seen)
    assert settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))["status"] == (
        "PROCESSED"
    )
    return shipment, bol


async def test_the_overview_says_a_carriers_key_in_words_and_a_position_by_its_stop(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    truck, _bol = _booked_truck(tenant)
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(truck) is not None, seconds=30)
    _click_row_of(qtbot, pane, truck)
    await wait_until(lambda: _showing(pane, truck), seconds=30)
    detail = pane.detail
    _click_tab(qtbot, detail, "Overview")
    overview = detail.overview
    await wait_until(lambda: "km from" in overview.labels["position"].text(), seconds=30)
    position = overview.labels["position"].text()
    assert re.fullmatch(r"12 km from Dallas DC \(stop 2\) · \d+ min ago", position), position
    # The coordinates are still at hand, under the pointer.
    assert overview.labels["position"].toolTip().startswith("32.8850, -96.7970 · ")
    name = overview.attributes.item(0, 0)
    assert name is not None and name.text() == "Carrier load number"
    assert leaks(overview) == []

    # Saved as it is, the attribute keeps the carrier's own name: nothing lost.
    value = overview.attributes.item(0, 1)
    assert value is not None
    value.setText("L200731814")
    qtbot.mouseClick(overview.save_attributes, Qt.MouseButton.LeftButton)
    await wait_until(lambda: overview.attribute_error.text() == "Attributes saved", seconds=30)
    stored = tenant.http.get(f"/api/v4/shipments/{truck}/tracking").json()["attributes"]
    assert [(a["name"], a["values"]) for a in stored] == [("CARRIER_LOAD_NUMBER", ["L200731814"])]
