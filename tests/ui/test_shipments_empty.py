"""The Shipments list says what its empty table means, against the real local service: that
it is loading before the first answer (a first run, a service still starting), then, with
nothing to show, how to get something; never a blank table beside "0 shipments", and no
count (nor "Late (0)") until the service has answered."""

from __future__ import annotations

import re

from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected"]


async def test_the_list_says_it_is_loading_then_how_to_fill_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    session, tenant = connected
    pane = ShipmentsPane(session, settings)
    qtbot.addWidget(pane)
    pane.resize(1366, 700)
    pane.show()
    await pane.cached_list_shown()  # the (empty) cache read: nothing fetched yet
    assert pane.empty.isVisible() and pane.empty.text() == "Loading shipments…"
    # The count claims nothing yet either (it said "0 shipments" beside the loading words).
    assert pane.count_label.text() in ("", "Loading…"), pane.count_label.text()
    chips = [button.text() for button in pane.attention.buttons.values()]
    assert not any("(" in chip for chip in chips), chips  # not "Late (0)"
    choices = [combo.itemText(i) for combo in (pane.mode, pane.state) for i in range(combo.count())]
    assert not any(re.search(r"\(\d", choice) for choice in choices), choices  # not "LTL (0)"

    await session.connect()
    await wait_until(lambda: "New shipment" in pane.empty.text(), 30)
    assert pane.empty.isVisible()  # a fresh tenant tracks nothing
    assert pane.count_label.text() == "0 shipments"
    assert all(b.text().endswith(" (0)") for b in pane.attention.buttons.values())
    assert pane.mode.itemText(pane.mode.findData("LTL")) == "LTL (0)"
    assert pane.state.itemText(1).endswith(" (0)")

    _put(tenant, _ltl("EMPTY1"))
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    assert not pane.empty.isVisible()
    assert pane.count_label.text() == "1 shipment"
    assert pane.mode.itemText(pane.mode.findData("LTL")) == "LTL (1)"

    # A search that finds nothing says so; cleared, the shipment is back.
    qtbot.keyClicks(pane.search, "nothing-like-this")
    await wait_until(lambda: pane.model.rowCount() == 0, 10)
    assert pane.empty.isVisible() and "clear the search" in pane.empty.text()
    pane.search.selectAll()
    qtbot.keyClick(pane.search, Qt.Key.Key_Delete)
    await wait_until(lambda: pane.model.rowCount() == 1, 10)
    assert not pane.empty.isVisible()
    pane.shutdown()
