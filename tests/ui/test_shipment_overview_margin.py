"""The Overview judges "at risk" by the margin the user set in Attention settings, as the
list's Attention column does, not by the default: an ETA 90 minutes before the end of the
appointment is fine under the default hour and at risk once the user allows two."""

from __future__ import annotations

import re
from datetime import timedelta

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.service.triage import Attention
from freightdesk.ui.panes.shipments.attention import SYMBOLS
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from tests.server.test_carrier_push_support import now
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _click_tab, _late_truck, _showing
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_triage import set_in_attention_settings

__all__ = ["connected", "window"]


async def test_the_overview_uses_the_users_at_risk_margin(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    window: QWidget,
    settings: QSettings,
) -> None:
    session, tenant = connected
    truck = _late_truck(tenant, now(), eta_after_window=-timedelta(minutes=90))
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(truck) is not None, seconds=30)
    _click_row_of(qtbot, pane, truck)
    await wait_until(lambda: _showing(pane, truck), seconds=30)
    detail = pane.detail
    _click_tab(qtbot, detail, "Overview")
    eta = detail.overview.labels["eta"]
    at_risk = SYMBOLS[Attention.AT_RISK]
    await wait_until(lambda: "CST" in eta.text(), seconds=30)
    # Under the default hour's margin: on time.
    # (The time itself in the clock's form, Dallas's zone named: pinned by the clock's tests.)
    assert re.fullmatch(r".+ CST, on time \(30 min before the window opens\)", eta.text())

    # The user allows two hours: the Overview says at risk at once, as the list does.
    await set_in_attention_settings(qtbot, pane, "triageMargin", 60, "120")
    await wait_until(lambda: eta.text().startswith(at_risk), seconds=30)
    row = pane.model.row_of(truck)
    assert row is not None
    cell = pane.model.index(row, COLUMN_INDEX["attention"])
    await wait_until(lambda: str(cell.data() or "").endswith("At risk"), seconds=30)

    # The next shipment opened, and this one again, keep the user's margin.
    other = _late_truck(tenant, now(), eta_after_window=-timedelta(minutes=90))
    await wait_until(lambda: pane.model.row_of(other) is not None, seconds=60)
    _click_row_of(qtbot, pane, other)
    await wait_until(lambda: _showing(pane, other), seconds=30)
    await wait_until(lambda: eta.text().startswith(at_risk), seconds=30)
    assert settings.value("triage/marginMinutes") in (120, "120")
