"""The Documents pane against the real local service: upload by a real drop, find the
document, preview it, edit it, save a copy, drag it out, delete it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QImage,
    QPageSize,
    QPainter,
    QPdfWriter,
)
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.models.documents import SHIPPER_TENANT_UUID
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.service.uploads import UploadQueue, UploadState
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.documents.edit import DocumentEditDialog
from freightdesk.ui.panes.documents.labels import identifier_type_text
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.documents.upload import UploadDialog
from freightdesk.ui.panes.setup import install_panes
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell, clock_text
from tests.ui.test_panes_support import answer, connected, shown_pane

__all__ = ["connected"]

DOCUMENTS = "/services/document/v1/documents"


def make_pdf(path: Path, text: str) -> Path:
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    painter = QPainter(writer)
    painter.drawText(QPointF(200, 400), text)
    painter.end()
    return path


def make_png(path: Path) -> Path:
    image = QImage(120, 80, QImage.Format.Format_RGB32)
    image.fill(QColor("#3a7bd5"))
    assert image.save(str(path), "PNG")
    return path


def same_bytes(one: Path, other: Path) -> bool:
    return one.read_bytes() == other.read_bytes()


def file_drag(files: list[Path]) -> QMimeData:
    """What the file manager drags: the files' URLs (keep it while its events are sent)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(f)) for f in files])
    return mime


# A copy dragged with the left button, no key held: how files come from the file manager.
COPY = Qt.DropAction.CopyAction
LEFT = Qt.MouseButton.LeftButton
NO_KEYS = Qt.KeyboardModifier.NoModifier


def drag_enter(target: QWidget, mime: QMimeData) -> QDragEnterEvent:
    """A drag entering `target` (sent with sendEvent); accepted if a drop would be."""
    enter = QDragEnterEvent(target.rect().center(), COPY, mime, LEFT, NO_KEYS)
    QApplication.sendEvent(target, enter)
    return enter


def drop_files(target: QWidget, files: list[Path]) -> QDropEvent:
    """A real drag from the file manager: enter, then drop, sent with sendEvent."""
    mime = file_drag(files)
    assert drag_enter(target, mime).isAccepted()
    drop = QDropEvent(QPointF(target.rect().center()), COPY, mime, LEFT, NO_KEYS)
    QApplication.sendEvent(target, drop)
    return drop


async def open_pane(qtbot: QtBot, session: AppSession, settings: QSettings) -> DocumentsPane:
    return await shown_pane(qtbot, session, lambda s: DocumentsPane(s, settings), (1300, 800))


async def uploads_reach(
    session: AppSession, state: UploadState, *, every: bool = False
) -> UploadQueue:
    """The session's uploads once one of them (`every`: all) has reached `state`."""
    queue = session.uploads
    assert queue is not None
    reached = all if every else any
    await wait_until(lambda: reached(u.state is state for u in queue.uploads.values()))
    return queue


def names_found(tenant: TenantHandle, identifier: tuple[str, str]) -> list[str]:
    """The names of the documents `tenant` finds by `identifier` (type, value)."""
    kind, value = identifier
    query = {"operator": "EQUALS", "values": [{"type": kind, "value": value}]}
    found = tenant.http.post(f"{DOCUMENTS}/search", json={"identifiers": query}).json()
    return [d["name"] for d in found["results"]]


def choose_mode(qtbot: QtBot, dialog: UploadDialog, text: str = "Truckload (TL)") -> None:
    """Choose the upload's mode as a user does: the box's first letters typed into it (it has
    none chosen when the identifiers name no listed shipment)."""
    dialog.mode.setFocus()
    qtbot.keyClicks(dialog.mode, text[:2])
    assert dialog.mode.currentText() == text


def _dialog(pane: DocumentsPane) -> UploadDialog:
    dialog = pane.dialog
    assert isinstance(dialog, UploadDialog) and dialog.isVisible()
    return dialog


async def test_drop_upload_find_preview_edit_copy_drag_and_delete(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    pdf = make_pdf(tmp_path / "BOL 4711.pdf", "Bill of lading 4711")
    png = make_png(tmp_path / "POD 4711.png")
    pane = await open_pane(qtbot, session, settings)
    await wait_until(lambda: pane.page_label.text() == "No documents found")

    event = drop_files(pane.table.viewport(), [pdf, png])
    assert event.isAccepted()
    dialog = _dialog(pane)
    assert dialog.names() == ["BOL 4711.pdf", "POD 4711.png"]  # as the demo names them
    # Each file's type comes from its name.
    assert dialog.types() == ["BILL_OF_LADING", "PROOF_OF_DELIVERY"]
    # Without an identifier, nor a mode, the form says so beside the fields; nothing is sent.
    assert dialog.mode.currentIndex() == -1 and dialog.mode.placeholderText() == "Choose the mode"
    dialog.request_uploads()
    assert dialog.errors.message_for("identifiers")
    assert dialog.errors.message_for("mode") == "Choose the mode"
    # The identifier's types in the list's words, not the service's codes.
    kinds = dialog.identifiers.table.cellWidget(0, 0)
    assert isinstance(kinds, QComboBox) and kinds.currentText() == "BOL"
    assert not [t for t in map(kinds.itemText, range(kinds.count())) if "_" in t]
    dialog.identifiers.set_identifiers([("BILL_OF_LADING", "4711")])
    choose_mode(qtbot, dialog)
    dialog.request_uploads()
    assert not dialog.isVisible()
    queue = await uploads_reach(session, UploadState.DONE, every=True)
    assert len(queue.uploads) == 2
    await wait_until(lambda: pane.model.rowCount() == 2)
    assert pane.uploads.isVisible() and pane.uploads.table.rowCount() == 2

    # Find it by identifier; the preview shows the PDF.
    kinds = [pane.identifier_type.itemText(i) for i in range(pane.identifier_type.count())]
    assert pane.identifier_type.currentText() == "BOL" and "PO" in kinds
    assert not [kind for kind in kinds if "_" in kind], kinds
    pane.identifier_type.setCurrentIndex(pane.identifier_type.findText("BOL"))
    pane.identifier_value.setText("4711")
    pane.type.setCurrentIndex(pane.type.findData("BILL_OF_LADING"))
    pane.search()
    await wait_until(lambda: pane.model.rowCount() == 1)
    assert pane.model.items[0].name == "BOL 4711.pdf"
    await wait_until(lambda: "BOL 4711" in pane.details.text())
    assert "BILL_OF_LADING" not in pane.details.text()
    assert clock_text(cell(pane.model, 0, "Added"))  # the one clock, the zone named
    await wait_until(lambda: pane.preview.kind == "pdf")
    assert pane.preview.pdf.pageCount() == 1

    # Edit the name only: a partial update.
    pane.table.selectRow(0)
    pane.edit_selected()
    edit = pane.dialog
    assert isinstance(edit, DocumentEditDialog)
    edit.name.setText("")
    edit.save()
    assert edit.errors.message_for("name") and edit.isVisible()
    edit.name.setText("BOL 4711 signed")
    edit.name.textEdited.emit("BOL 4711 signed")
    edit.save()
    assert edit.last_operation == "PATCH"
    await wait_until(lambda: not edit.isVisible())
    await wait_until(lambda: pane.model.items[0].name == "BOL 4711 signed")
    assert tenant.http.get(f"{DOCUMENTS}/{pane.model.items[0].id}").json()["name"] == (
        "BOL 4711 signed"
    )

    # The service refuses a shipper tenant that does not exist: shown beside the
    # identifiers, the dialog kept as the user left it; closing it then asks first.
    pane.edit_selected()
    edit = pane.dialog
    assert isinstance(edit, DocumentEditDialog)
    edit.identifiers.add_identifier("SHIPPER_TENANT_UUID", "0f8fad5b-d9cb-469f-a165-70867728950e")
    edit.save()
    assert edit.last_operation == "PATCH"
    no_company = "No company has this id: check it with your partner"
    await wait_until(lambda: edit.errors.message_for("identifiers") == no_company)
    assert edit.isVisible() and len(edit.identifiers.identifiers()) == 2
    edit.reject()
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    assert not edit.isVisible()

    # Save a copy, and drag the document out as a file URL of its local copy.
    copy = tmp_path / "copy.pdf"
    pane.save_copy_to(pane.model.items[0], copy)
    await wait_until(lambda: copy.exists() and "Saved a copy" in pane.notice.text())
    assert same_bytes(copy, pdf)
    mime = pane.model.mimeData([pane.model.index(0, 0)])
    assert [Path(u.toLocalFile()).name for u in mime.urls()] == ["BOL 4711.pdf"]
    assert same_bytes(Path(mime.urls()[0].toLocalFile()), pdf)

    # The image previews as an image.
    pane.clear_search()
    await wait_until(lambda: pane.model.rowCount() == 2)
    row = next(r for r in range(2) if pane.model.items[r].name == "POD 4711.png")
    pane.table.selectRow(row)
    await wait_until(lambda: pane.preview.kind == "image")

    # Delete asks first.
    pane.confirm_delete()
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.shutdown()


async def test_drop_on_a_shipment_prefills_its_identifiers(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    from freightdesk.ui.panes.documents.drop import ShipmentDocumentDrop
    from freightdesk.ui.panes.shipments.detail import ShipmentDetailView

    answer_ = tenant.http.put(
        "/api/v4/shipments/tracking",
        json={
            "identifiers": [
                {"type": "PRO", "value": "PRO777"},
                {"type": "BILL_OF_LADING", "value": "BOL777"},
            ],
            "plan": {"expectedTransportationModes": ["LTL"]},
        },
    )
    assert answer_.status_code in (200, 201), answer_.text
    pane = await open_pane(qtbot, session, settings)
    detail = ShipmentDetailView(session)
    qtbot.addWidget(detail)
    detail.show()
    ShipmentDocumentDrop(detail, lambda f, i, m, c: pane.upload_files(f, i, m, c))
    pod = make_png(tmp_path / "pod.png")

    # No shipment shown yet: the drop is refused.
    assert not drag_enter(detail, file_drag([pod])).isAccepted()

    detail.show_shipment(str(answer_.json()["id"]))
    await wait_until(lambda: detail.history is not None)
    drop_files(detail, [pod])
    dialog = _dialog(pane)
    assert dialog.identifiers.identifiers() == [("PRO", "PRO777"), ("BILL_OF_LADING", "BOL777")]
    assert dialog.mode.currentData() == "LTL"
    assert dialog.types() == ["PROOF_OF_DELIVERY"]
    dialog.request_uploads()
    await uploads_reach(session, UploadState.DONE)
    assert names_found(tenant, ("PRO", "PRO777")) == ["pod.png"]
    detail.shutdown()
    pane.shutdown()


async def test_carrier_must_name_the_shipper_and_service_errors_are_shown(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, _tenant = connected
    pane = await open_pane(qtbot, session, settings)
    pane.role.setCurrentIndex(pane.role.findData("CARRIER"))
    assert settings.value("documents/role") == "CARRIER"
    dialog = pane.upload_files([make_png(tmp_path / "x.png")], [("PRO", "1")])
    assert dialog is not None and dialog.shipper.isVisibleTo(dialog)
    # Said in a dispatcher's words, as the Sharing tab says them, not the service's "tenant".
    captions = {label.buddy(): label.text() for label in dialog.findChildren(QLabel)}
    assert captions[dialog.shipper] == "&Shipper's company id"
    said = [label.text() for label in dialog.findChildren(QLabel) if label.isVisibleTo(dialog)]
    assert not [text for text in said if "tenant" in text.lower()], said
    assert "tenant" not in pane.role.toolTip()
    assert identifier_type_text(SHIPPER_TENANT_UUID) == "Shipper's company id"
    choose_mode(qtbot, dialog)
    dialog.request_uploads()
    assert dialog.errors.message_for("shipperTenantUuid") == (
        "As a carrier, enter the company id of the shipper the document is for"
    )
    # A well-formed uuid of no tenant: refused by the service, shown on the upload row.
    dialog.shipper.setText("0f8fad5b-d9cb-469f-a165-70867728950e")
    dialog.request_uploads()
    await uploads_reach(session, UploadState.FAILED)
    await wait_until(lambda: "Failed" in (pane.uploads.table.item(0, 2).text() or ""))
    refused = pane.uploads.table.item(0, 2).text()
    assert "No company has this id" in refused and "tenant" not in refused, refused
    pane.shutdown()


async def test_the_panes_follow_shipments_in_the_window(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    install_panes(window, session)
    keys = [
        window.nav.item(row).data(Qt.ItemDataRole.UserRole) for row in range(window.nav.count())
    ]
    ours = ["shipments", "documents", "stop_locations", "webhooks", "account_groups"]
    positions = [keys.index(key) for key in ours]
    assert positions == sorted(positions)  # in this order after Shipments (others may sit between)
    shipments = window.pane("shipments")
    assert isinstance(shipments, ShipmentsPane)
    assert shipments.detail.acceptDrops()  # files dropped on an open shipment are uploaded
    window.show_pane("documents")
    assert isinstance(window.current_pane(), DocumentsPane)
    window.close()
