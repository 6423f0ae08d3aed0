"""Edits in the shipment detail never undo a change made meanwhile by someone else: Edit…
opens the shipment as the service has it now (getTrackedShipment), not as last polled, and
Save attributes first asks the service for the attributes (getShipmentAttributes) and, when
someone changed them since the user began, says what they are now and asks; the user's edits
stay whatever the answer."""

from __future__ import annotations

import uuid
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.form import ShipmentFormDialog
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import (
    click_answer,
    connected,
    message_box,
    visible_dialogs,
)
from tests.ui.test_shipment_overview import _click_row_of, _click_tab, _showing
from tests.ui.test_shipments_list import _pane, window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "window"]


async def _open(
    qtbot: QtBot, session: AppSession, window: QWidget, shipment_id: str
) -> ShipmentsPane:
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.row_of(shipment_id) is not None, seconds=30)
    _click_row_of(qtbot, pane, shipment_id)
    await wait_until(lambda: _showing(pane, shipment_id), seconds=30)
    return pane


async def _type_attribute(qtbot: QtBot, table: QTableWidget, name: str, value: str) -> None:
    """Into the new row's name cell (its editor open), then Tab to the value, then Return."""
    row = table.rowCount() - 1
    for column, text, key in ((0, name, Qt.Key.Key_Tab), (1, value, Qt.Key.Key_Return)):
        await wait_until(
            lambda c=column: (
                isinstance(QApplication.focusWidget(), QLineEdit) and table.currentColumn() == c
            ),
            seconds=10,
        )
        editor = QApplication.focusWidget()
        assert editor is not None
        qtbot.keyClicks(editor, text)
        qtbot.keyClick(editor, key)
    await wait_until(lambda: (table.item(row, 1) or QTableWidgetItem()).text() == value, seconds=10)


def _attributes(tenant: TenantHandle, shipment_id: str) -> dict[str, list[str]]:
    answer = tenant.http.get(f"/api/v4/shipments/{shipment_id}/attributes").json()
    return {a["attributeName"]: a["attributeValues"] for a in answer}


async def test_edit_opens_the_shipment_as_it_is_now(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    pro = f"PROFR{uuid.uuid4().hex[:6].upper()}"
    body: dict[str, Any] = _ltl(pro)
    shipment_id = _put(tenant, body)
    pane = await _open(qtbot, session, window, shipment_id)
    detail = pane.detail
    # Another user adds a purchase order; the detail has not polled it yet (this test holds
    # the event loop from the change to the click).
    added = {"type": "PURCHASE_ORDER", "value": f"PO-{uuid.uuid4().hex[:6].upper()}"}
    _put(tenant, {**body, "id": shipment_id, "identifiers": [*body["identifiers"], added]})
    assert detail.history is not None
    assert added["value"] not in {i.value for i in detail.history.shipment.identifiers}
    qtbot.mouseClick(detail.edit_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: len(visible_dialogs(ShipmentFormDialog)) == 1, seconds=30)
    (form,) = visible_dialogs(ShipmentFormDialog)
    assert isinstance(form, ShipmentFormDialog)
    assert (added["type"], added["value"]) in form.identifier_rows()
    form.reject()
    await wait_until(lambda: not form.isVisible(), seconds=10)


async def test_save_attributes_asks_when_someone_changed_them_meanwhile(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    body: dict[str, Any] = {
        **_ltl(f"PROAT{uuid.uuid4().hex[:6].upper()}"),
        "attributes": [{"name": "customer", "value": "ACME"}],
    }
    shipment_id = _put(tenant, body)
    pane = await _open(qtbot, session, window, shipment_id)
    detail = pane.detail
    _click_tab(qtbot, detail, "Overview")
    overview = detail.overview
    await wait_until(lambda: overview.attributes.rowCount() == 1, seconds=30)

    # The user adds "dock = 7" by keys.
    qtbot.mouseClick(overview.add_attribute, Qt.MouseButton.LeftButton)
    await _type_attribute(qtbot, overview.attributes, "dock", "7")
    assert overview.attributes.item(1, 0).text() == "dock"
    assert overview.attributes.item(1, 1).text() == "7"

    # Meanwhile another user changes the customer.
    _put(tenant, {**body, "id": shipment_id, "attributes": [{"name": "customer", "value": "GX"}]})

    # Save: the user is told, and Return (the default) saves nothing and keeps the edits.
    qtbot.mouseClick(overview.save_attributes, Qt.MouseButton.LeftButton)
    await wait_until(lambda: message_box("confirmAttributesChanged") is not None, seconds=30)
    box = message_box("confirmAttributesChanged")
    assert box is not None and "customer = GX" in box.informativeText()
    qtbot.keyClick(box, Qt.Key.Key_Return)
    await wait_until(lambda: message_box("confirmAttributesChanged") is None, seconds=10)
    assert _attributes(tenant, shipment_id) == {"customer": ["GX"]}
    assert overview.attributes.rowCount() == 2 and overview.attributes.item(1, 0).text() == "dock"
    assert overview.attribute_error.text() == "Changed meanwhile on the service: customer = GX"

    # Saved over them when the user says so.
    qtbot.mouseClick(overview.save_attributes, Qt.MouseButton.LeftButton)
    await click_answer(
        qtbot, "confirmAttributesChanged", QMessageBox.StandardButton.Yes, "&Save mine"
    )
    await wait_until(lambda: overview.attribute_error.text() == "Attributes saved", seconds=30)
    assert _attributes(tenant, shipment_id) == {"customer": ["ACME"], "dock": ["7"]}

    # Saved again with nobody else's change in between: no question. (The question took the
    # window's focus; a window manager gives it back, the offscreen platform does not.)
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()
    await wait_until(lambda: QApplication.activeWindow() is window, seconds=10)
    qtbot.mouseClick(overview.add_attribute, Qt.MouseButton.LeftButton)
    await _type_attribute(qtbot, overview.attributes, "door", "B")
    qtbot.mouseClick(overview.save_attributes, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _attributes(tenant, shipment_id).get("door") == ["B"], seconds=30)
    assert message_box("confirmAttributesChanged") is None
