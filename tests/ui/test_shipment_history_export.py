"""Export events… and Export track… under the detail's Timeline, against the real local
service: a click reads the shipment's events (stops named) or positions from the service, the
save dialog takes a path typed by keys, the file holds every row with times as instants; a
shipment with nothing to export says so instead of writing an empty file."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.history_bar import HistoryExportBar
from tests.server.test_carrier_push_support import iso, now
from tests.service.test_history_export import report_positions
from tests.support import TenantHandle, wait_until
from tests.ui.test_export_panes import _read, save_export
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _showing
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _put

__all__ = ["connected", "window"]


async def _export(qtbot: QtBot, bar: HistoryExportBar, button: str, path: Path) -> None:
    """A click on the bar's button, the file chosen in the save dialog, then until the notice
    says it is written (off the GUI thread)."""
    bar.dialog = None
    qtbot.mouseClick(getattr(bar, button), Qt.MouseButton.LeftButton)
    await wait_until(lambda: bar.dialog is not None and bar.dialog.isVisible(), seconds=30)
    await save_export(qtbot, path)
    await wait_until(lambda: f"to {path}" in bar.notice.text(), seconds=30)
    assert bar.notice.text().startswith("Exported "), bar.notice.text()


# Qt's own save dialog asks the window system for what the offscreen platform has not.
@pytest.mark.qt_log_ignore("This plugin does not support")
async def test_export_the_events_and_the_track_of_a_shipment(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget, tmp_path: Path
) -> None:
    session, tenant = connected
    bol = f"BOLHE{uuid.uuid4().hex[:8].upper()}"
    pickup = str(uuid.uuid4())
    shipment = _put(
        tenant,
        {
            "identifiers": [{"type": "BILL_OF_LADING", "value": bol}],
            "routeInfo": {"stops": [{"id": pickup, "type": "PICKUP", "name": "Chicago DC"}]},
            "events": [
                {
                    "type": "ARRIVAL_AT_STOP",
                    "dateTime": iso(now() - timedelta(hours=2)),
                    "stopId": pickup,
                }
            ],
        },
    )
    quiet = _put(tenant, {"identifiers": [{"type": "BILL_OF_LADING", "value": f"Q{bol}"}]})
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(quiet) is not None, seconds=30)

    # Nothing reported yet: said, and no file.
    _click_row_of(qtbot, pane, quiet)
    await wait_until(lambda: _showing(pane, quiet), seconds=30)
    bar = pane.detail.history_export
    assert bar.isVisible() and bar.track_button.isEnabled()
    qtbot.mouseClick(bar.track_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: "nothing to export" in bar.notice.text(), seconds=30)
    assert bar.notice.text() == "This shipment has no positions yet: nothing to export."
    assert bar.dialog is None

    # Positions reported after the detail opened are in the file: read when asked.
    _click_row_of(qtbot, pane, shipment)
    await wait_until(lambda: _showing(pane, shipment), seconds=30)
    report_positions(tenant, bol, [(40, 41.5), (10, 40.9)])
    track = tmp_path / "track.csv"
    await _export(qtbot, bar, "track_button", track)
    rows = _read(track)
    assert rows[0] == ["Time", "Latitude", "Longitude", "Speed (km/h)", "Heading (°)", "Source"]
    assert [row[1] for row in rows[1:]] == ["41.5", "40.9"]
    # Instants with their offset (ISO 8601), whatever the screen's clock.
    assert all(re.search(r"T\d\d:\d\d:\d\d[+-]\d\d:\d\d$", str(row[0])) for row in rows[1:])
    await wait_until(lambda: bar.notice.text().startswith("Exported 2 "), seconds=30)

    events = tmp_path / "events.xlsx"
    await _export(qtbot, bar, "events_button", events)
    rows = _read(events)
    assert rows[0][:3] == ["Event", "Description", "Stop"]
    assert rows[1][0] == "ARRIVAL_AT_STOP" and rows[1][2] == "1. Chicago DC"
