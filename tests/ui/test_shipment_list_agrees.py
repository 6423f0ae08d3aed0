"""The Shipments list and the detail of the selected shipment never show two states for one
shipment: a carrier's report that lands after the list's last sync is in the detail when the
user selects the row, and the row says the same at once, not at the list's next poll (a
profile may poll every minute or hour)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.profiles import ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.server.test_carrier_push_support import create_shipment, history, unique
from tests.service.test_shipments_fresher import report
from tests.support import LiveService, TenantHandle, make_tenant, wait_until
from tests.ui.conftest import close_session
from tests.ui.test_panes_support import _activate
from tests.ui.test_shipment_overview import _click_row_of, _showing
from tests.ui.test_shipments_list import _pane, window

__all__ = ["window"]

LIST_POLL = 600.0  # seconds: the list's next poll cannot be what brings the row up to date
AGREE_WITHIN = 2.0  # seconds from the detail showing the state to the row showing it


@pytest.fixture
async def connected(
    sqlite_service: LiveService, session: AppSession, profiles: ProfileStore
) -> AsyncIterator[tuple[AppSession, TenantHandle]]:
    """A fresh tenant of the local service, through a profile whose list polls rarely."""
    tenant = make_tenant(sqlite_service)
    _activate(profiles, sqlite_service.url, tenant, poll_interval=LIST_POLL)
    yield session, tenant
    await close_session(session)
    tenant.http.close()


def _current_state(tenant: TenantHandle, shipment_id: str) -> str:
    states = history(tenant, shipment_id)["states"]
    return str(next(s["type"] for s in states if "endDateTime" not in s))


def _row_state(pane: ShipmentsPane, shipment_id: str) -> str:
    row = pane.model.row_of(shipment_id)
    if row is None:
        return ""
    return str(pane.model.index(row, COLUMN_INDEX["state"]).data() or "")


def _detail_state(pane: ShipmentsPane) -> str:
    return pane.detail.subtitle.text().split(" · ")[0]


async def test_the_row_says_what_the_detail_says_after_a_report_since_the_sync(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    bol = unique("BOL")
    shipment_id = str(create_shipment(tenant, [("BILL_OF_LADING", bol)], stops=2)["id"])
    await asyncio.to_thread(report, tenant, bol, "DEPARTURE_FROM_STOP", 30)
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: _row_state(pane, shipment_id) == "In transit", seconds=30)

    # The truck arrives at its next stop after the list's sync.
    await asyncio.to_thread(report, tenant, bol, "ARRIVAL_AT_STOP", 5)
    assert await asyncio.to_thread(_current_state, tenant, shipment_id) == "AT_STOP"
    assert _row_state(pane, shipment_id) == "In transit"

    _click_row_of(qtbot, pane, shipment_id)
    await wait_until(lambda: _showing(pane, shipment_id), seconds=30)
    assert _detail_state(pane) == "At stop"
    await wait_until(lambda: _row_state(pane, shipment_id) == "At stop", seconds=AGREE_WITHIN)
