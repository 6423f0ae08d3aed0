"""A document uploaded for a shipment takes that shipment's mode (the walkthrough of session 18
uploaded a proof of delivery for the ocean shipment AZMS9758487812 from the Documents pane, and
the service stored it as a truckload's: the dialog always started at Truckload). The mode
follows the listed shipment the identifiers name, until the user picks one; identifiers that
name no listed shipment leave it to the user to choose (it was Truckload, saved unseen)."""

from __future__ import annotations

import uuid
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QComboBox, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.service.uploads import UploadState
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import activated
from tests.ui.test_documents_pane import DOCUMENTS, _dialog, make_png, uploads_reach
from tests.ui.test_panes_support import answer, connected

__all__ = ["connected"]


def _ocean_shipment(tenant: TenantHandle) -> str:
    bill = f"AZMS{uuid.uuid4().hex[:10].upper()}"
    answer = tenant.http.put(
        "/api/v4/shipments/tracking",
        json={
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": bill},
                {"type": "CONTAINER_ID", "value": f"MSCU{uuid.uuid4().hex[:7].upper()}"},
            ],
            "plan": {"expectedTransportationModes": ["OCEAN"]},
        },
    )
    assert answer.status_code in (200, 201), answer.text
    return bill


async def _panes(
    qtbot: QtBot, session: AppSession, settings: QSettings
) -> tuple[ShipmentsPane, DocumentsPane]:
    """The app's Shipments list (listing the tenant's one shipment) and the Documents pane,
    where the user uploads."""
    shipments = ShipmentsPane(session, settings)
    qtbot.addWidget(shipments)
    pane = DocumentsPane(session, settings)
    qtbot.addWidget(pane)
    pane.resize(1366, 768)
    pane.show()
    await session.connect()
    await wait_until(lambda: shipments.model.rowCount() == 1, seconds=30)
    return shipments, pane


def _stored_modes_of(tenant: TenantHandle, bill: str) -> list[str]:
    query = {"operator": "EQUALS", "values": [{"type": "BILL_OF_LADING", "value": bill}]}
    found = tenant.http.post(f"{DOCUMENTS}/search", json={"identifiers": query}).json()
    return [d["mode"] for d in found["results"]]


async def test_a_document_for_an_ocean_shipment_is_saved_as_ocean(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    bill = _ocean_shipment(tenant)
    shipments, pane = await _panes(qtbot, session, settings)

    # As in the walkthrough: the bill of lading typed in the pane's search, then Upload files…
    # (the file chooser hands its files to upload_files).
    pane.identifier_type.setCurrentIndex(pane.identifier_type.findData("BILL_OF_LADING"))
    qtbot.keyClicks(pane.identifier_value, bill)
    pane.upload_files([make_png(tmp_path / "walk18_pod.png")])
    dialog = _dialog(pane)
    assert dialog.mode.currentData() == "OCEAN"
    assert dialog.mode_source.isVisibleTo(dialog)
    assert bill in dialog.mode_source.text()
    qtbot.mouseClick(dialog.upload_button, Qt.MouseButton.LeftButton)
    await uploads_reach(session, UploadState.DONE)
    assert _stored_modes_of(tenant, bill) == ["OCEAN"]

    # Opened with no identifier: the mode follows the value as it is typed into the dialog.
    pane.identifier_value.clear()
    dialog = pane.upload_files([make_png(tmp_path / "second.png")])
    assert dialog is not None and dialog.mode.currentIndex() == -1  # none chosen for the user
    value = dialog.identifiers.table.item(0, 1)
    assert value is not None
    value.setText(bill)
    assert dialog.mode.currentData() == "OCEAN"
    # The mode the user picks stays, whatever identifier comes after.
    mode = dialog.mode
    assert isinstance(mode, QComboBox)
    mode.setFocus()
    qtbot.keyClick(mode, Qt.Key.Key_Up)  # Parcel... one above Ocean, picked by key
    picked = mode.currentData()
    assert picked != "OCEAN"
    value.setText(bill + "X")
    value.setText(bill)
    assert mode.currentData() == picked and not dialog.mode_source.isVisibleTo(dialog)
    dialog.reject()
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    assert not dialog.isVisible()
    pane.shutdown()
    shipments.shutdown()


async def test_a_document_of_no_listed_shipment_has_its_mode_chosen_by_the_user(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    bill = _ocean_shipment(tenant)
    shipments, pane = await _panes(qtbot, session, settings)

    # A bill of lading no listed shipment has: no mode is chosen for the user.
    dialog = pane.upload_files([make_png(tmp_path / "pod.png")], [("BILL_OF_LADING", "NOPE42")])
    assert dialog is not None
    await activated(dialog)
    mode = dialog.mode
    assert mode.currentIndex() == -1 and mode.currentText() == ""
    assert not dialog.mode_source.isVisibleTo(dialog)
    qtbot.mouseClick(dialog.upload_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.errors.message_for("mode") == "Choose the mode"
    # A listed shipment's identifier fills its mode in; another one's empties it again.
    value = dialog.identifiers.table.item(0, 1)
    assert value is not None
    value.setText(bill)
    assert mode.currentData() == "OCEAN" and dialog.mode_source.isVisibleTo(dialog)
    assert dialog.errors.message_for("mode") == ""  # answered
    value.setText("NOPE42")
    assert mode.currentIndex() == -1 and not dialog.mode_source.isVisibleTo(dialog)
    # Chosen as a user does: Alt+M to the box, the first letters of the mode.
    qtbot.keyClick(dialog, "M", Qt.KeyboardModifier.AltModifier)
    assert dialog.focusWidget() is mode
    qtbot.keyClicks(mode, "Ai")
    assert mode.currentData() == "AIR"
    qtbot.mouseClick(dialog.upload_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    await uploads_reach(session, UploadState.DONE)
    assert _stored_modes_of(tenant, "NOPE42") == ["AIR"]
    pane.shutdown()
    shipments.shutdown()
