"""The Shipments pane at a screen's size with a shipment's detail shown, against the real local
service, for the tests of the map's and the timeline's room (no tests here).

A module using the `panes` fixture imports it with `connected` and `offline_tiles`, and, as
its tests bring QtWebEngine up, `webengine_survives_loop_exits` (tests/ui/test_maps.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot
from shiboken6 import isValid

from freightdesk.service.session import AppSession
from freightdesk.ui.maps.page import CONFIG
from freightdesk.ui.maps.shipment_map import ShipmentMapView
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_capacity_support import settle
from tests.ui.test_columns_fit import _started
from tests.ui.test_maps import OFFLINE_TILES
from tests.ui.test_shipment_overview import _click_row_of, _click_tab


@pytest.fixture
def offline_tiles() -> Iterator[None]:
    """The maps' tiles from a server that refuses at once (the offline case), as the app's
    window sets them before the first map; the app's own afterwards."""
    kept = CONFIG.tiles
    CONFIG.tiles = OFFLINE_TILES
    yield
    CONFIG.tiles = kept


class ShipmentPanes:
    """Shipments panes of one tenant, each opened at a screen's size."""

    def __init__(
        self, qtbot: QtBot, session: AppSession, tenant: TenantHandle, settings: QSettings
    ) -> None:
        self.qtbot = qtbot
        self.session = session
        self.tenant = tenant
        self.settings = settings
        self.opened: list[ShipmentsPane] = []

    async def showing(self, room: tuple[int, int], shipment: str) -> ShipmentsPane:
        """The pane at `room`, `shipment` chosen in its list as a user does, its detail shown."""
        pane = await _started(self.qtbot, self.session, self.settings, room)
        self.opened.append(pane)
        await wait_until(lambda: pane.model.row_of(shipment) is not None, 30)
        _click_row_of(self.qtbot, pane, shipment)
        await wait_until(lambda: pane.detail.history is not None, 30)
        return pane

    async def map_tab(self, pane: ShipmentsPane) -> ShipmentMapView:
        """The detail's Map tab clicked; its map, once drawn."""
        _click_tab(self.qtbot, pane.detail, "Map")
        await wait_until(lambda: pane.detail.map is not None and pane.detail.map.drawn, 60)
        assert pane.detail.map is not None
        return pane.detail.map

    def shut(self) -> None:
        """The panes opened shut down, as the app's window does on closing."""
        while self.opened:
            pane = self.opened.pop()
            # After a failure: pytest-qt may have deleted the test's widgets already.
            if isValid(pane):
                pane.shutdown()

    async def close(self) -> None:
        """The panes shut down and nothing left under way: a test's last step."""
        self.shut()
        await settle(self.session)


@pytest.fixture
async def panes(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    offline_tiles: None,
) -> AsyncIterator[ShipmentPanes]:
    """Shipments panes with the maps offline; closed by the test (`close`), else after it."""
    session, tenant = connected
    opened = ShipmentPanes(qtbot, session, tenant, settings)
    yield opened
    await opened.close()
