"""The shipment detail's subtitle (state · route · open exceptions) as a dispatcher reads it on
a 1920x1080 screen, the detail beside the list: a long route reads whole on two lines, one too
long for them is cut with its whole text in the tooltip, and the tabs stay put between them; the
lines break between the parts, never inside one ("1 open | exception"), whatever the window's
width. At 1366x768, the detail below the list, it keeps one line."""

from __future__ import annotations

import uuid
from datetime import timedelta

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from tests.server.test_carrier_push_support import (
    PARCEL,
    accepted,
    java_time,
    now,
    parcel_body,
    settled,
)
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


def _shipment(
    tenant: TenantHandle, stops: list[str], *, mode: str = "OCEAN", number: str = ""
) -> str:
    start = now()
    return _put(
        tenant,
        {
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": f"SUB{uuid.uuid4().hex[:8]}"},
                {"type": "TRACKING_NUMBER", "value": number or f"1ZSUB{uuid.uuid4().hex[:10]}"},
            ],
            "plan": {"expectedTransportationModes": [mode]},
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


def _with_open_exception(tenant: TenantHandle, stops: list[str]) -> str:
    """A parcel along `stops` with one open exception."""
    number = f"1ZSUB{uuid.uuid4().hex[:10].upper()}"
    shipment = _shipment(tenant, stops, mode="PARCEL", number=number)
    body = parcel_body(number, "EXCEPTION", description="Address not found, driver calling")
    body["timestamp"] = java_time(now() - timedelta(minutes=20))
    assert settled(tenant, accepted(tenant.http.post(PARCEL, json=body)))["status"] == "PROCESSED"
    return shipment


def _broken_between_parts(text: str, lines: list[str], parts: list[str]) -> bool:
    """Whether `lines` (the first of them whole, the label's wrapping of `text`) end and start
    at the joins of `parts`, no part split over two lines."""
    joined = len(lines[0].rstrip())
    ends = [text.index(part) + len(part) for part in parts]
    starts = [text.index(part) for part in parts]
    # A break after a part's end or after the separator that follows it.
    return (
        joined in ends
        or any(text[end:joined].strip() in ("·", "→") for end in ends)
        or (len(text) - len(text[joined:].lstrip()) in starts)
    )


async def test_the_lines_break_between_the_parts_at_every_width(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    """Beside the list at 1920 px, the detail made narrower and wider (as by dragging the
    splitter's handle), the subtitle's two lines part between the state, the stops and the
    open exceptions: each read whole on its line (it broke inside a stop's name, 'Alder &
    Finch European | DC Venlo', and inside '1 open | exception')."""
    session, tenant = connected
    shipment = _with_open_exception(tenant, OCEAN_ROUTE)
    pane = _pane(window)
    detail = pane.detail
    window.resize(LARGE_SCREEN)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == 1, seconds=30)
    await wait_until(lambda: detail.width() < detail.height(), seconds=10)
    _click_row_of(qtbot, pane, shipment)
    await wait_until(lambda: _showing(pane, shipment), seconds=30)
    subtitle = detail.subtitle
    await wait_until(lambda: "1 open exception" in subtitle.full_text(), seconds=30)
    text = subtitle.full_text()
    state = text.split(" · ")[0]
    parts = [state, *OCEAN_ROUTE, "1 open exception"]
    assert text == f"{state} · {' → '.join(OCEAN_ROUTE)} · 1 open exception", text
    metrics = subtitle.fontMetrics()
    total = sum(pane.splitter.sizes())
    breaks: set[str] = set()  # each first line seen
    for width in range(400, 900, 5):
        pane.splitter.setSizes([total - width, width])
        await wait_until(lambda w=width: abs(detail.width() - w) <= 20, seconds=10)  # type: ignore[misc]
        assert subtitle.lines() == 2
        lines = subtitle.shown_text().split("\n")
        room = subtitle.contentsRect().width()
        assert all(metrics.horizontalAdvance(line) <= room for line in lines), (room, lines)
        if len(lines) == 2:
            assert _broken_between_parts(text, lines, parts), (room, lines)
            breaks.add(lines[0])
    # Widths enough to have broken the text at most of its joins.
    assert len(breaks) >= 3, breaks
