"""A first run (`AppController` on a fresh home: its Local sandbox writes the demo): the maps'
warm-up, QtWebEngine's start, waits until the demo's first shipments are listed instead of
taking the CPU the service needs to write them; it then happens as on every start."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.ui.application import AppController
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.test_maps import (
    OFFLINE_TILES,
    WEBENGINE_STARTUP,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)

pytestmark = [pytest.mark.slow, pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)]

# A first run's service start and first demo batch on a machine at a load of 10.
FIRST_ROWS_SECONDS = 180.0


@pytest.mark.timeout(600)
@pytest.mark.usefixtures("webengine_survives_loop_exits")
async def test_a_first_run_warms_up_the_maps_once_its_first_shipments_are_listed(
    qtbot: QtBot, paths: AppPaths
) -> None:
    controller = AppController(paths, secrets=MemorySecretStore(), simulate=False)
    OFFLINE_TILES.store(controller.settings)
    window = controller.window
    qtbot.addWidget(window)
    pane = window.pane("shipments")
    assert isinstance(pane, ShipmentsPane)
    detail = pane.detail
    warmed_before_rows: list[bool] = []

    def listed() -> bool:
        rows = pane.model.rowCount() > 0
        if not rows:
            warmed_before_rows.append(detail.map is not None)
        return rows

    try:
        controller.start()
        await wait_until(lambda: window.is_made("packages"), seconds=FIRST_ROWS_SECONDS)
        await wait_until(listed, seconds=FIRST_ROWS_SECONDS)
        assert warmed_before_rows and not any(warmed_before_rows)
        await wait_until(lambda: detail.map is not None, seconds=FIRST_ROWS_SECONDS)
    finally:
        # Shut down before the window closes: closing the last window quits the loop.
        await controller.shutdown()
        window.close()
