"""Within the Late shipments at the top of the list, the latest first: the most overdue is
what a dispatcher deals with first, whatever was updated last. A header the user clicks
sorts by it instead."""

from __future__ import annotations

import uuid
from datetime import timedelta

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from tests.server.test_carrier_push_support import java_time, now
from tests.support import TenantHandle, wait_until
from tests.ui.sort_arrows import click_header
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_triage import _attention, _parcel, _shipment, _shown

__all__ = ["connected", "window"]


def _late_parcel(tenant: TenantHandle, late_by: timedelta) -> tuple[str, str]:
    """A parcel whose ETA is `late_by` after its delivery window's end: (id, tracking number)."""
    start = now()
    number = f"1ZLATE{uuid.uuid4().hex[:8].upper()}"
    end = start + timedelta(hours=2)
    shipment_id = _shipment(tenant, "PARCEL", [("TRACKING_NUMBER", number)], end)
    _parcel(tenant, number, "PICKED_UP", start - timedelta(minutes=30))
    eta = java_time(end + late_by)
    _parcel(tenant, number, "ETA", start - timedelta(minutes=5), estimatedTimeOfArrival=eta)
    return shipment_id, number


async def test_the_latest_shipments_come_first_among_the_late(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    # Updated in this order: the most recently updated is not the latest.
    very, _ = _late_parcel(tenant, timedelta(hours=5))
    little, _ = _late_parcel(tenant, timedelta(hours=1))
    middle, middle_number = _late_parcel(tenant, timedelta(hours=2, minutes=30))
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.total == 3, seconds=30)
    await wait_until(
        lambda: all(_attention(pane, i).startswith("●") for i in (very, little, middle)),
        seconds=30,
    )
    # Nobody sorted: the most overdue first.
    await wait_until(lambda: _shown(pane) == [very, middle, little])
    assert [_attention(pane, i)[2:] for i in _shown(pane)] == [
        "Late 5 h",
        "Late 2 h 30 min",
        "Late 1 h",
    ]

    # The carrier's better ETA makes the middle one 20 minutes late: it moves down.
    end = now() + timedelta(hours=2)
    better = java_time(end + timedelta(minutes=20))
    _parcel(tenant, middle_number, "ETA", now(), estimatedTimeOfArrival=better)
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _attention(pane, middle).endswith("Late 20 min"), seconds=30)
    await wait_until(lambda: _shown(pane) == [very, little, middle])

    # The user's click on Attention turns the order round (the least late first) ...
    click_header(qtbot, pane.table, COLUMN_INDEX["attention"])
    await wait_until(lambda: _shown(pane) == [middle, little, very])
    # ... and a click on another header sorts by it: the soonest ETA first.
    click_header(qtbot, pane.table, COLUMN_INDEX["nextEta"])
    header = pane.table.horizontalHeader()
    assert header.sortIndicatorSection() == COLUMN_INDEX["nextEta"]
    await wait_until(lambda: _shown(pane) == [middle, little, very])
    click_header(qtbot, pane.table, COLUMN_INDEX["nextEta"])
    await wait_until(lambda: _shown(pane) == [very, little, middle])
