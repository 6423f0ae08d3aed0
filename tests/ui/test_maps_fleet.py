"""The fleet map against the real local service: the latest position of each active shipment
in the Shipments pane's view, coloured by state or exception, clustered, opening a shipment."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot
from sqlalchemy.orm import Session

from freightdesk.models.tracking import (
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentPosition,
)
from freightdesk.server.db import transaction
from freightdesk.server.domain import shipments as store
from freightdesk.service.session import AppSession
from freightdesk.ui.maps.fleet_map import FleetMapPane
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import emitted
from tests.ui.test_maps import (
    OFFLINE_TILES,
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


def _shipment(
    tenant: TenantHandle,
    prefix: str,
    place: tuple[float, float] | None,
    state: ShipmentStateType | None = None,
    exception: bool = False,
) -> str:
    body = {
        "identifiers": [{"type": "PRO", "value": f"{prefix}{uuid.uuid4().hex[:6].upper()}"}],
    }
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 201, answer.text
    shipment_id = str(answer.json()["id"])

    def work(session: Session) -> None:
        if place is not None:
            fix = TrackedShipmentPosition(
                date_time=NOW - timedelta(minutes=7),
                latitude=place[0],
                longitude=place[1],
                heading=45,
                speed=60,
            )
            store.add_positions(session, shipment_id, [fix], "TL")
        if state is not None:
            at = NOW - timedelta(hours=2)
            if state is ShipmentStateType.COMPLETED:
                store.set_state(session, shipment_id, ShipmentStateType.IN_TRANSIT, at, source="TL")
            store.set_state(session, shipment_id, state, at, source="TL")
        if exception:
            store.upsert_exception(session, shipment_id, ShipmentException(type="DELAY"), "TL")

    with transaction(tenant.service.context.sessions) as session:
        work(session)
    return shipment_id


async def test_follows_the_list_and_opens_a_shipment(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    session, tenant = connected
    chicago = [
        _shipment(
            tenant, "LTL", (41.85 + n * 0.01, -87.65 + n * 0.01), ShipmentStateType.IN_TRANSIT
        )
        for n in range(30)
    ]
    late = _shipment(tenant, "TRK", (32.78, -96.8), ShipmentStateType.IN_TRANSIT, exception=True)
    at_stop = _shipment(tenant, "TRK", (33.75, -84.39), ShipmentStateType.AT_STOP)
    done = _shipment(tenant, "TRK", (40.71, -74.0), ShipmentStateType.COMPLETED)
    _shipment(tenant, "TRK", None, ShipmentStateType.IN_TRANSIT)  # no position yet

    shipments = ShipmentsPane(session, settings)
    qtbot.addWidget(shipments)
    opened: list[bool] = []
    fleet = FleetMapPane(
        session,
        shipments,
        settings,
        show_shipments=lambda: opened.append(True),
        tiles=OFFLINE_TILES,
    )
    qtbot.addWidget(fleet)
    await session.connect()
    await wait_until(lambda: shipments.model.total == 34, 30)
    assert fleet.map is None  # no web view before the pane is shown

    fleet.resize(1000, 700)
    fleet.show()
    view = fleet.ensure_map()
    # "Loading map…" over the view until its first markers are drawn: a child of the view in
    # no layout. (The view itself is shown by its layout a moment later; the note with it.)
    assert view.loading.isVisibleTo(view) and view.loading.parent() is view
    assert fleet.body.indexOf(view.loading) == -1 and view.layout().indexOf(view.loading) == -1
    await wait_until(view.isVisible)
    await wait_until(lambda: not view.loading.isVisible(), 15)
    assert view.drawn
    found = await until(view, lambda s: s["fleet"] == 32, 30)
    # Dense Chicago is clustered; Dallas (exception) and Atlanta (at a stop) stand alone.
    assert found["clustered"] and found["visibleClusters"] >= 1
    markers = await evaluate(
        view,
        "JSON.stringify(Object.fromEntries(Object.entries(FD._fleet())"
        ".map(([k, v]) => [k, v.item.status])))",
    )
    assert f'"{late}":"exception"' in markers and f'"{at_stop}":"stop"' in markers
    assert done not in markers  # completed: left out by default
    assert "32 shipments on the map" in fleet.count.text()
    assert "2 of the list not shown" in fleet.count.text()

    fleet.include_completed.setChecked(True)
    await until(view, lambda s: s["fleet"] == 33)

    # The Shipments pane's filter decides which shipments are on the map.
    shipments.search.setText("TRK")
    shipments.apply_filter()
    await until(view, lambda s: s["fleet"] == 3)
    shipments.exceptions_only.setChecked(True)
    shipments.apply_filter()
    await until(view, lambda s: s["fleet"] == 1)

    # A click on a shipment opens its detail (on its map) in the Shipments pane.
    async with emitted(view.itemClicked, 10):
        await evaluate(view, f"FD._fleet()['{late}'].marker.fire('click', {{}}, true) && null")
    assert opened == [True]
    assert shipments.detail.shipment_id == late
    assert shipments.detail.tabs.currentWidget() is shipments.detail.map_tab
    assert chicago[0] not in shipments.selected_ids()
    assert (await stats(view))["fleet"] == 1
    assert view.map_page.console_errors == []

    # Hidden, the pane stops polling.
    assert fleet.fleet is not None and fleet.fleet.coordinator.polling
    fleet.hide()
    await wait_until(lambda: fleet.fleet is not None and not fleet.fleet.coordinator.polling)
    fleet.shutdown()
    shipments.shutdown()
