"""The Shipments list filtered by an attribute, which only the service can answer: the user
opens More filters, types a name and a value, and the list keeps the shipments that have it."""

from __future__ import annotations

import uuid

from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_pane import _ltl, _pane, _put

__all__ = ["connected"]


async def test_an_attribute_typed_in_more_filters_keeps_the_shipments_that_have_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    _session, tenant = connected
    pros = [f"PRO{n}{uuid.uuid4().hex[:5].upper()}" for n in range(3)]
    for n, pro in enumerate(pros):
        body = _ltl(pro)
        if n < 2:
            body["attributes"] = [{"name": "customer", "value": "Acme" if n == 0 else "Globex"}]
        _put(tenant, body)
    pane = await _pane(qtbot, connected, settings)
    await wait_until(lambda: pane.model.rowCount() == 3)

    qtbot.mouseClick(pane.more_button, Qt.MouseButton.LeftButton)
    await wait_until(pane.attribute_name.isVisible)
    qtbot.keyClicks(pane.attribute_name, "customer")

    def shown() -> list[str]:
        return sorted(s.primary_identifier for s in pane.model.visible_summaries())

    await wait_until(lambda: shown() == sorted(pros[:2]), seconds=30)
    qtbot.keyClicks(pane.attribute_value, "Globex")
    await wait_until(lambda: shown() == [pros[1]], seconds=30)
    # Clearing the name shows every shipment again.
    pane.attribute_name.selectAll()
    qtbot.keyClick(pane.attribute_name, Qt.Key.Key_Delete)
    await wait_until(lambda: shown() == sorted(pros), seconds=30)
    pane.shutdown()
