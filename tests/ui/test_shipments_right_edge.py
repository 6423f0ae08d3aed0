"""The Shipments list's right edge while a new user's rows arrive in batches (as the demo's
do on a first run): no column shows in part there ("N…", the column after Latest event, was
seen at 1440x900). Either a column ends at the edge or the last one ends before it. Against
the real local service, the pane at the room a 1366x768 and a 1440x900 window give it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QTableView
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, edge_gap
from tests.support import TenantHandle, wait_until
from tests.ui.test_capacity_support import settle
from tests.ui.test_columns_fit import AT_1366, AT_1440, _started
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected"]


def _cut_at_the_edge(table: QTableView) -> list[tuple[str, int, int]]:
    """The columns shown in part at the viewport's right edge (title, start, end)."""
    header = table.horizontalHeader()
    edge = table.viewport().width()
    cut = []
    for index in range(header.count()):
        if header.isSectionHidden(index):
            continue
        start = header.sectionViewportPosition(index)
        end = start + header.sectionSize(index)
        if start < edge < end:
            title = table.model().headerData(index, Qt.Orientation.Horizontal)
            cut.append((str(title), start, end))
    return cut


def test_the_gap_goes_to_the_fitted_column() -> None:
    assert edge_gap([120, 90], 15) == 15  # the next one would show 15 px
    assert edge_gap([120, 90], 150) == 30  # the next whole, the one after it in part
    assert edge_gap([120, 90], 120) == 0  # the next ends at the edge
    assert edge_gap([120, 90], 400) == 0  # all end before it
    assert edge_gap([120], 0) == 0 and edge_gap([], 15) == 0


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_no_column_in_part_at_the_right_edge_as_rows_arrive(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    room: tuple[int, int],
) -> None:
    session, tenant = connected
    for number in range(2):
        _put(tenant, _ltl(f"PRO-88{number:04d}"))
    pane = await _started(qtbot, session, settings, room)
    table = pane.table
    await wait_until(lambda: pane.model.rowCount() == 2, 30)
    # A short list: no vertical scroll bar, its room kept for a longer list's.
    assert not table.verticalScrollBar().isVisible()
    assert table.columnWidth(COLUMN_INDEX["latestEvent"]) > 0
    assert _cut_at_the_edge(table) == []
    # More rows, batch by batch, as a user's Refresh reads them: a scroll bar comes.
    for batch in range(3):
        for number in range(12):
            _put(tenant, _ltl(f"PRO-89{batch}{number:03d}"))
        qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
        wanted = 2 + 12 * (batch + 1)
        await wait_until(lambda wanted=wanted: pane.model.rowCount() == wanted, 30)
        await wait_until(lambda: _cut_at_the_edge(table) == [], 5)
    assert table.verticalScrollBar().isVisible()
    pane.shutdown()
    await settle(session)
