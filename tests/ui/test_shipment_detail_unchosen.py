"""The Shipments detail with no shipment chosen says to choose one: its empty views' own
words ("No events yet — they appear here as the carrier reports them") are about a chosen
shipment, and come back once one is. Against the real local service, the pane as the main
window shows it."""

from __future__ import annotations

import uuid

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.widgets.empty_state import EmptyState
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _showing
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "window"]


def _words(view: QWidget) -> EmptyState:
    words = view.findChild(EmptyState)
    assert isinstance(words, EmptyState)
    return words


async def test_with_no_shipment_chosen_the_detail_says_to_choose_one(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    shipment = _put(tenant, _ltl(f"PROUC{uuid.uuid4().hex[:5].upper()}"))
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == 1, seconds=30)
    detail = pane.detail
    assert detail.title.full_text() == "Select a shipment"
    timeline = _words(detail.timeline)
    assert timeline.isVisible()
    assert timeline.text() == "Select a shipment in the list to see its events", timeline.text()
    # The other tabs' empty views say the same (they show once a shipment is stopped).
    views = [detail.stops, detail.segments, detail.states, detail.costs, detail.related]
    views += [detail.identifiers, detail.attributes, detail.sharing.recipients]
    for view in views:
        assert _words(view).text().startswith("Select a shipment in the list"), view
    # A shipment chosen: each view's own words again.
    _click_row_of(qtbot, pane, shipment)
    await wait_until(lambda: _showing(pane, shipment), seconds=30)
    assert timeline.text().startswith("No events yet"), timeline.text()
    assert _words(detail.related).text().startswith("No related shipments")
    assert _words(detail.costs).text().startswith("No costs")
    await wait_until(lambda: not _words(detail.sharing.recipients).text().startswith("Select"))
