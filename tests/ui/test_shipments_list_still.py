"""The Shipments list holds still under the user's pointer while the lines about it come and
go: a bulk action's result and the "new below, updated rows kept their places" bar. Above the
list they pushed it down a line as they came and pulled it up as they went, so a click meant
for one shipment landed on the next."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_bulk_actions import (
    SHIFT,
    _click_row,
    _listed,
    _notice,
    _set_priority_on_selection,
)
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_list import window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "window"]

pytestmark = pytest.mark.qt_log_ignore(
    r"^This plugin does not support (raise\(\)|grabbing the keyboard)$"
)


def _laid_out() -> None:
    for _ in range(4):  # the bars' layout, the list's side, the splitter, the pane
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


def _under(pane: ShipmentsPane, point: QPoint) -> str:
    """The shipment whose row is under `point` (in the pane), once laid out."""
    _laid_out()
    index = pane.table.indexAt(pane.table.viewport().mapFrom(pane, point))
    summary = pane.model.summary_at(index.row()) if index.isValid() else None
    return summary.primary_identifier or "" if summary else ""


def _list_top(pane: ShipmentsPane) -> int:
    _laid_out()
    return pane.table.viewport().mapTo(pane, QPoint(0, 0)).y()


async def test_the_rows_stay_under_the_pointer_as_the_lines_about_the_list_come_and_go(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane, pros, tenant = await _listed(connected, window, 6)
    row = pane.table.visualRect(pane.model.index(3, COLUMN_INDEX["primaryIdentifier"]))
    point = pane.table.viewport().mapTo(pane, row.center())  # where the pointer rests
    top = _list_top(pane)
    assert _under(pane, point) == pros[3]

    # A bulk action's line comes, then goes with a refresh: the same row under the pointer.
    _click_row(qtbot, pane, 0)
    _click_row(qtbot, pane, 1, SHIFT)
    await _set_priority_on_selection(qtbot, pane, 2)
    assert _notice(pane).isVisible()
    assert _under(pane, point) == pros[3] and _list_top(pane) == top
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    assert not _notice(pane).isVisible()
    assert _under(pane, point) == pros[3] and _list_top(pane) == top

    # A shipment renamed to sort first and a new one: the bar says so, the rows hold still.
    renamed = pane.model.summary_at(5)
    assert renamed is not None
    _put(tenant, {"id": renamed.id, **_ltl(f"A{pros[5]}")})
    _put(tenant, _ltl(f"A{pros[4]}N"))
    assert session.shipments is not None
    await session.shipments.coordinator.fetch_now()
    await wait_until(lambda: pane.news.isVisible(), seconds=30)
    assert "kept their places" in pane.news_label.text(), pane.news_label.text()
    assert _under(pane, point) == pros[3] and _list_top(pane) == top
    # Sort now puts the list in order (the rows move, asked to) and the bar goes: the list
    # starts where it did.
    qtbot.mouseClick(pane.sort_now_button, Qt.MouseButton.LeftButton)
    assert not pane.news.isVisible()
    assert _list_top(pane) == top
