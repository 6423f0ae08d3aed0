"""The shipment detail's subtitle (state · route · open exceptions) as a dispatcher reads it on
a 1920x1080 screen, the detail beside the list: a long route reads whole on two lines, one too
long for them is cut with its whole text in the tooltip, and the tabs stay put between them. At
1366x768, the detail below the list, it keeps one line."""

from __future__ import annotations

import uuid
from datetime import timedelta

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from tests.server.test_carrier_push_support import now
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import (
    LONG_PLACE,
    _click_row_of,
    _showing,
    _stop,
    _tab_bar_y,
)
from tests.ui.test_shipments_list import SMALL_SCREEN, _pane, window
from tests.ui.test_shipments_pane import _put

__all__ = ["connected", "window"]

# The window's share of a 1920x1080 screen (no navigation list's, no title bar's).
LARGE_SCREEN = QSize(1920, 1030)
# The demo's ocean import: as long a route as a dispatcher meets every day.
OCEAN_ROUTE = [
    "Port Newark Container Terminal",
    "Antwerp Gateway, Deurganck Dock",
    "Alder & Finch European DC Venlo",
]


def _shipment(tenant: TenantHandle, stops: list[str]) -> str:
    start = now()
    return _put(
        tenant,
        {
            "identifiers": [{"type": "BILL_OF_LADING", "value": f"SUB{uuid.uuid4().hex[:8]}"}],
            "plan": {"expectedTransportationModes": ["OCEAN"]},
            "routeInfo": {
                "stops": [
                    _stop(
                        str(uuid.uuid4()),
                        "PICKUP" if i == 0 else "DELIVERY",
                        name,
                        (start + timedelta(days=i), start + timedelta(days=i, hours=2)),
                    )
                    for i, name in enumerate(stops)
                ]
            },
        },
    )


async def test_a_long_route_reads_whole_beside_the_list_and_a_too_long_one_says_it_all_in_its_tip(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    ocean = _shipment(tenant, OCEAN_ROUTE)
    endless = _shipment(tenant, [f"{LONG_PLACE} {i}" for i in range(5)])
    pane = _pane(window)
    detail = pane.detail
    window.resize(LARGE_SCREEN)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == 2, seconds=30)
    await wait_until(lambda: detail.width() < detail.height(), seconds=10)  # beside the list

    _click_row_of(qtbot, pane, ocean)
    await wait_until(lambda: _showing(pane, ocean), seconds=30)
    subtitle = detail.subtitle
    assert " → ".join(OCEAN_ROUTE) in subtitle.full_text()
    # Wider than the detail, and whole: on two lines, each within the label.
    metrics = subtitle.fontMetrics()
    assert metrics.horizontalAdvance(subtitle.full_text()) > subtitle.contentsRect().width()
    assert not subtitle.is_elided(), subtitle.shown_text()
    assert subtitle.toolTip() == ""
    lines = subtitle.shown_text().split("\n")
    assert len(lines) == 2, lines
    assert all(metrics.horizontalAdvance(line) <= subtitle.contentsRect().width() for line in lines)
    assert subtitle.height() >= metrics.height() + metrics.lineSpacing()
    tabs_at = _tab_bar_y(detail, window)

    _click_row_of(qtbot, pane, endless)
    await wait_until(lambda: _showing(pane, endless), seconds=30)
    assert subtitle.is_elided()
    assert subtitle.shown_text().endswith("…")
    assert subtitle.toolTip() == subtitle.full_text()
    assert f"{LONG_PLACE} 4" in subtitle.toolTip()
    assert _tab_bar_y(detail, window) == tabs_at

    # At 1366x768 the detail is below the list: one line, the rest in the tooltip.
    window.resize(SMALL_SCREEN)
    await wait_until(lambda: detail.width() > detail.height(), seconds=10)
    assert subtitle.lines() == 1
    assert "\n" not in subtitle.shown_text()
    assert subtitle.toolTip() == subtitle.full_text()
    assert subtitle.height() < metrics.height() + metrics.lineSpacing()
