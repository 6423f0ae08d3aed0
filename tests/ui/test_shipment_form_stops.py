"""A new shipment's stops: a stop is sent only when the user entered a place in it, and a
truckload or LTL shipment needs its pickup and delivery (said beside the stops); an ocean,
air, parcel or rail shipment is tracked by its identifier alone.

With only an identifier the form used to save "Scheduled · ? → ?": both empty rows went as
stops of nothing but the default country ("1. Pickup: — US" on the timeline), while a new
rate request refuses such a stop ("Enter a city, a postal code or a state")."""

from __future__ import annotations

import uuid

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.form import CITY, NAME, ShipmentFormDialog
from tests.server.test_tracking_support import SEARCH
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import activated
from tests.ui.new_shipment_form import open_new_shipment
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import connected
from tests.ui.test_row_tables import click_cell
from tests.ui.test_shipments_list import _pane, window

__all__ = ["connected", "window"]

WHY = "a truckload is tracked from its pickup to its delivery"


async def _type_cell(qtbot: QtBot, table: QTableWidget, row: int, column: int, text: str) -> None:
    """Double-click the cell, type `text` into its editor, Return."""
    await _from_loop(lambda: click_cell(qtbot, table, row, column, double=True))
    editor = table.indexWidget(table.model().index(row, column))
    assert editor is not None
    await _from_loop(lambda: qtbot.keyClicks(editor, text))
    await _from_loop(lambda: qtbot.keyClick(editor, Qt.Key.Key_Return))
    await wait_until(lambda: table.item(row, column).text() == text)


async def _save(qtbot: QtBot, form: ShipmentFormDialog) -> None:
    save = form.buttons.button(QDialogButtonBox.StandardButton.Save)
    await _from_loop(lambda: qtbot.mouseClick(save, Qt.MouseButton.LeftButton))


async def test_a_truckload_needs_its_pickup_and_delivery(qtbot: QtBot, session: AppSession) -> None:
    form = ShipmentFormDialog(session, None)
    qtbot.addWidget(form)
    await activated(form)
    await _type_cell(qtbot, form.identifiers, 0, 1, "BOL4471")
    await _save(qtbot, form)
    assert form.errors.message_for("routeInfo").splitlines() == [
        f"Stop 1: enter the pickup's city, postal code or state ({WHY})",
        f"Stop 2: enter the delivery's city, postal code or state ({WHY})",
    ]
    assert form.isVisible()

    await _type_cell(qtbot, form.stops, 0, CITY, "Dallas")
    await _type_cell(qtbot, form.stops, 1, NAME, "Store 12")  # a name is not a place
    await _save(qtbot, form)
    assert form.errors.message_for("routeInfo") == (
        "Stop 2: enter a city, a postal code or a state"
    )
    await _type_cell(qtbot, form.stops, 1, CITY, "Austin")
    await _save(qtbot, form)
    assert not form.errors.message_for("routeInfo")
    assert "Not connected" in form.errors.general.text()  # checked, then on to send
    form.mark_clean()
    form.close()


async def test_an_ocean_shipment_is_tracked_without_stops(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    form = await open_new_shipment(qtbot, session, window)
    await activated(form)
    # Ocean chosen by keys in the mode list; a bill of lading typed; the stops left blank.
    await _from_loop(lambda: qtbot.keyClicks(form.mode, "Oc"))
    assert form.mode.currentText() == "Ocean"
    bill = f"OCEANBL{uuid.uuid4().hex[:6].upper()}"
    await _type_cell(qtbot, form.identifiers, 0, 1, bill)
    await _save(qtbot, form)
    await wait_until(lambda: not form.isVisible(), seconds=30)

    found = tenant.http.post(SEARCH, json={"text": bill}).json()["results"]
    assert len(found) == 1
    stored = tenant.http.get(f"/api/v4/shipments/{found[0]['id']}/tracking").json()
    assert stored["identifiers"] == [{"type": "BILL_OF_LADING", "value": bill}]
    assert not (stored.get("routeInfo") or {}).get("stops")
    _pane(window).shutdown()
