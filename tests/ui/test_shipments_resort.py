"""Sorting the Shipments list again (a click on a column's header) against the real local
service: the chosen shipment stays chosen and is brought into view, so that the list, the
detail and the Actions button speak of the same shipment; when a sort takes the chosen one
out (a held list put in order), nothing is chosen anywhere."""

from __future__ import annotations

import uuid

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import connected
from tests.ui.test_shipments_list import _click_header, _click_row, _pane, window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "window"]

ROWS = 60  # three times what the list shows at 1366x768


def _in_sight(pane: ShipmentsPane, row: int) -> bool:
    """Whether `row` is wholly within the list's height (whatever the columns scrolled)."""
    cell = pane.table.visualRect(pane.model.index(row, 0))
    view = pane.table.viewport().rect()
    return view.top() <= cell.top() and cell.bottom() <= view.bottom()


def _agree(pane: ShipmentsPane, shipment_id: str) -> None:
    """The list, the detail and the Actions button all on `shipment_id`, its row in sight."""
    row = pane.model.row_of(shipment_id)
    assert row is not None
    assert pane.selected_ids() == [shipment_id]
    assert pane.table.currentIndex().row() == row
    assert pane.table.selectionModel().isRowSelected(row)
    assert _in_sight(pane, row), f"row {row} is out of sight"
    assert pane.detail.shipment_id == shipment_id
    assert pane.bulk.button.text() == "Actions · 1 selected"


async def test_the_chosen_shipment_stays_chosen_and_in_sight_after_a_sort(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    # By shipment M000 first; by origin (its city) the same shipment comes last.
    ids = [_put(tenant, _ltl(f"M{n:03d}{tag}", city=f"C{ROWS - n:03d}")) for n in range(ROWS)]
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == ROWS)
    header = pane.table.horizontalHeader()
    _click_header(qtbot, header, COLUMN_INDEX["primaryIdentifier"])
    _click_row(qtbot, pane, 2)
    chosen = ids[2]
    await wait_until(lambda: pane.detail.shipment_id == chosen)
    _agree(pane, chosen)

    # By origin: the chosen shipment goes near the end, and the view goes with it.
    _click_header(qtbot, header, COLUMN_INDEX["origin"])
    assert pane.model.row_of(chosen) == ROWS - 3
    _agree(pane, chosen)
    # Scrolled to the top meanwhile, then sorted the other way: in sight again at the top.
    pane.table.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)
    _click_header(qtbot, header, COLUMN_INDEX["origin"])
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert pane.model.row_of(chosen) == 2
    _agree(pane, chosen)
    # The columns stay as the user scrolled them to reach the header.
    bar = pane.table.horizontalScrollBar()
    bar.setValue(bar.maximum())
    across = bar.value()
    _click_header(qtbot, header, COLUMN_INDEX["primaryIdentifier"])
    _agree(pane, chosen)
    assert bar.value() == across


async def test_a_sort_that_takes_the_chosen_shipment_out_leaves_nothing_chosen(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    ids = [_put(tenant, _ltl(f"M{n:03d}{tag}")) for n in range(ROWS)]
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == ROWS)
    header = pane.table.horizontalHeader()
    _click_header(qtbot, header, COLUMN_INDEX["primaryIdentifier"])
    await _from_loop(lambda: qtbot.keyClicks(pane.search, "M0"))
    await wait_until(lambda: pane.model.current_filter.text == "M0")
    _click_row(qtbot, pane, 4)
    chosen = ids[4]
    await wait_until(lambda: pane.detail.shipment_id == chosen)

    # Renamed elsewhere, it no longer matches the search; the list holds it in place.
    _put(tenant, {"id": chosen, **_ltl(f"X{tag}")})
    assert session.shipments is not None
    await session.shipments.coordinator.fetch_now()
    await wait_until(lambda: pane.news.isVisible())
    assert pane.selected_ids() == [chosen]

    # Sorted: the list is put in order, the renamed one out of it, and out of the detail
    # and the Actions button too.
    _click_header(qtbot, header, COLUMN_INDEX["origin"])
    assert pane.model.row_of(chosen) is None
    assert pane.selected_ids() == []
    assert not pane.table.selectionModel().hasSelection()
    assert pane.detail.shipment_id is None
    assert pane.detail.title.text() == "Select a shipment"
    assert pane.bulk.button.text() == "Actions" and not pane.bulk.button.isEnabled()
