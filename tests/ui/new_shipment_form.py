"""The New shipment form, opened as a user opens it from the Shipments pane, and the
drop-downs in its tables' cells: steps shared by the shipment form's tests."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.detail import ShipmentDetailView
from freightdesk.ui.panes.shipments.form import ShipmentFormDialog
from tests.support import wait_until
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import visible_dialogs
from tests.ui.test_shipments_list import _pane


async def open_new_shipment(
    qtbot: QtBot, session: AppSession, window: QWidget
) -> ShipmentFormDialog:
    """Connect, and once the Shipments pane shows its detail side (New shipment does
    nothing before: the app is still starting), click New shipment: the form shown."""
    pane = _pane(window)
    await session.connect()
    await wait_until(
        lambda: any(
            isinstance(w, ShipmentDetailView) and w.isVisible()
            for w in (pane.splitter.widget(i) for i in range(pane.splitter.count()))
        ),
        seconds=30,
    )
    await _from_loop(lambda: qtbot.mouseClick(pane.new_button, Qt.MouseButton.LeftButton))
    await wait_until(lambda: len(visible_dialogs(ShipmentFormDialog)) == 1, seconds=30)
    (form,) = visible_dialogs(ShipmentFormDialog)
    assert isinstance(form, ShipmentFormDialog)
    return form


def combo_in(table: QTableWidget, row: int, column: int) -> QComboBox:
    """The drop-down in a cell (an identifier's or a stop's type)."""
    combo = table.cellWidget(row, column)
    assert isinstance(combo, QComboBox)
    return combo
