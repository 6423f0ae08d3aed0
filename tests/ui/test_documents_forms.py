"""The Documents pane as a dispatcher uses it, after a look at the running app: the keyboard
reaches every field and action, a dropped file that cannot be sent is said so before
anything is sent, a refused upload reopens its form with the service's errors, paging and
hovering files say what happens."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QDragLeaveEvent, QImage, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFileDialog,
    QLabel,
    QMessageBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.models.auth import TenantRole
from freightdesk.models.documents import Document
from freightdesk.service.documents import DocumentQuery
from freightdesk.service.session import AppSession
from freightdesk.service.uploads import UploadState
from freightdesk.ui.panes.documents.edit import DocumentEditDialog
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.documents.upload import UploadDialog
from freightdesk.ui.panes.documents.uploads_view import FIX
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, make_tenant, wait_until
from tests.ui.conftest import activate
from tests.ui.test_capacity_support import press
from tests.ui.test_documents_pane import (
    DOCUMENTS,
    choose_mode,
    drag_enter,
    drop_files,
    file_drag,
    make_pdf,
    make_png,
    names_found,
    open_pane,
    uploads_reach,
)
from tests.ui.test_panes_support import answer, connected, message_box, proxied

__all__ = ["connected", "proxied"]

MENU_LETTERS = set("FEVH")  # the main window's File, Edit, View and Help menus


def mnemonics(root: QWidget) -> list[str]:
    """The Alt+letter keys the visible buttons and labels of `root` offer."""
    found = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, QAbstractButton | QLabel) or not widget.isVisibleTo(root):
            continue
        text = widget.text().replace("&&", "")
        if "&" in text:
            found.append(text[text.index("&") + 1].upper())
    return found


def a_document(name: str = "BOL 1") -> Document:
    return Document.model_validate(
        {
            "id": str(uuid.uuid4()),
            "name": name,
            "type": "BILL_OF_LADING",
            "mode": "TL",
            "identifiers": [{"type": "BILL_OF_LADING", "value": "1"}],
            "files": [],
            "createdDateTime": "2026-01-01T00:00:00Z",
            "lastModifiedDateTime": "2026-01-01T00:00:00Z",
        }
    )


def test_the_edit_form_opens_in_the_name_and_every_label_key_reaches_its_field(
    qtbot: QtBot, session: AppSession
) -> None:
    dialog = DocumentEditDialog(session, a_document())
    qtbot.addWidget(dialog)
    activate(qtbot, dialog)
    # Typing replaces the name (before, a button had the focus and Space closed the form).
    assert dialog.focusWidget() is dialog.name and dialog.name.hasSelectedText()
    qtbot.keyClicks(dialog.name, "BOL 1 signed")
    assert dialog.name.text() == "BOL 1 signed" and dialog.isVisible()
    for letter, field in (("T", dialog.type), ("M", dialog.mode), ("N", dialog.name)):
        qtbot.keyClick(dialog, letter, Qt.KeyboardModifier.AltModifier)
        assert dialog.focusWidget() is field, letter
    qtbot.keyClick(dialog, "I", Qt.KeyboardModifier.AltModifier)
    assert dialog.identifiers.isAncestorOf(dialog.focusWidget())
    dialog.mark_clean()
    dialog.close()


def test_a_name_wiped_out_is_asked_for_in_words(qtbot: QtBot, session: AppSession) -> None:
    dialog = DocumentEditDialog(session, a_document())
    qtbot.addWidget(dialog)
    activate(qtbot, dialog)
    for blank in ("", "   "):
        dialog.name.selectAll()
        qtbot.keyClick(dialog.name, Qt.Key.Key_Delete)
        qtbot.keyClicks(dialog.name, blank)
        qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
        assert dialog.isVisible()
        assert dialog.errors.message_for("name") == "Give the document a name, e.g. BOL-4711.pdf"
        assert dialog.focusWidget() is dialog.name
    dialog.mark_clean()
    dialog.close()


def test_the_upload_form_starts_where_typing_is_needed_and_files_can_be_added_or_left_out(
    qtbot: QtBot, tmp_path: Path
) -> None:
    files = [make_png(tmp_path / f"POD {n}.png") for n in range(3)]
    empty = tmp_path / "scan.pdf"
    empty.write_bytes(b"")
    dialog = UploadDialog([*files, empty], TenantRole.SHIPPER)
    qtbot.addWidget(dialog)
    sent: list[object] = []
    dialog.uploadsRequested.connect(sent.append)
    activate(qtbot, dialog)
    # No identifier yet: the focus is in the identifier's value, ready for typing.
    table = dialog.identifiers.table
    assert dialog.focusWidget() in (table, table.viewport()) or table.isAncestorOf(
        dialog.focusWidget()
    )
    assert table.currentColumn() == 1
    dialog.identifiers.set_identifiers([("BILL_OF_LADING", "4711")])

    # An empty file is named beside the files and nothing is sent.
    assert dialog.upload_button.text() == "&Upload 4 files"
    dialog.request_uploads()
    assert "scan.pdf is empty" in dialog.errors.message_for("files")
    assert dialog.isVisible() and not sent

    # Delete on the files table leaves the selected file out.
    dialog.files.selectRow(3)
    dialog.files.setFocus()
    press(dialog.files, QKeySequence(QKeySequence.StandardKey.Delete))
    assert [p.name for p in dialog.paths()] == [f.name for f in files]
    assert dialog.upload_button.text() == "&Upload 3 files"
    dialog.files.selectRow(0)
    dialog.remove_file_button.click()
    assert [p.name for p in dialog.paths()] == ["POD 1.png", "POD 2.png"]

    # Add files… opens a file dialog whose choice joins the list.
    dialog.add_files_button.click()
    chooser = dialog.file_dialog
    assert isinstance(chooser, QFileDialog) and chooser.isVisible()
    chooser.filesSelected.emit([str(files[0])])
    chooser.close()
    assert [p.name for p in dialog.paths()] == ["POD 1.png", "POD 2.png", "POD 0.png"]
    choose_mode(qtbot, dialog)
    dialog.request_uploads()
    assert not dialog.isVisible() and len(sent) == 1 and len(sent[0]) == 3  # type: ignore[arg-type]


def test_a_file_keeps_its_extension_in_the_documents_default_name(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """As the demo's documents are named ("BOL-4471.pdf"): the kind of file shows in the
    lists, and a copy saved under the name opens."""
    files = [tmp_path / "BOL_4711  scan.pdf", tmp_path / "POD 12.JPG", tmp_path / "notes"]
    for file in files:
        file.write_bytes(b"x")
    dialog = UploadDialog(files, TenantRole.SHIPPER)
    qtbot.addWidget(dialog)
    assert dialog.names() == ["BOL 4711 scan.pdf", "POD 12.JPG", "notes"]


async def test_the_upload_count_speaks_of_the_last_batch_only(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, _tenant = connected
    pane = await open_pane(qtbot, session, settings)
    first = pane.upload_files([make_png(tmp_path / "a.png")], [("PRO", "1")])
    assert first is not None
    choose_mode(qtbot, first)
    first.request_uploads()
    await wait_until(lambda: pane.notice.text() == "1 file uploaded.")
    second = pane.upload_files(
        [make_png(tmp_path / "b.png"), make_png(tmp_path / "c.png")], [("PRO", "1")]
    )
    assert second is not None
    choose_mode(qtbot, second)
    second.request_uploads()
    # The first batch's file is still listed below, but not counted again.
    await wait_until(lambda: pane.notice.text().endswith("uploaded."))
    assert pane.notice.text() == "2 files uploaded."
    assert pane.uploads.table.rowCount() == 3
    pane.shutdown()


def test_a_carrier_starts_in_the_shipper_field(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = UploadDialog(
        [make_png(tmp_path / "x.png")], TenantRole.CARRIER, identifiers=[("PRO", "1")]
    )
    qtbot.addWidget(dialog)
    activate(qtbot, dialog)
    assert dialog.focusWidget() is dialog.shipper
    qtbot.keyClick(dialog, "I", Qt.KeyboardModifier.AltModifier)
    assert dialog.identifiers.isAncestorOf(dialog.focusWidget())
    qtbot.keyClick(dialog, "S", Qt.KeyboardModifier.AltModifier)
    assert dialog.focusWidget() is dialog.shipper
    dialog.close()


async def test_the_panes_keys_do_not_clash_with_the_menus_or_each_other(
    qtbot: QtBot, session: AppSession, settings: QSettings
) -> None:
    pane = DocumentsPane(session, settings)
    qtbot.addWidget(pane)
    pane.uploads.setVisible(True)  # shown once an upload starts
    keys = mnemonics(pane)
    assert not MENU_LETTERS & set(keys), keys  # Alt+E opened the Edit menu, not Edit…
    assert len(keys) == len(set(keys)), keys
    assert {"I", "C", "O", "D", "U", "X", "P", "S", "T", "A", "M"} <= set(keys)
    pane.shutdown()


def _post_photo(
    tenant: TenantHandle,
    photo: Path,
    name: str,
    pro: str,
    *,
    more: tuple[str, str] | None = None,
    kind: tuple[str, str] = ("PROOF_OF_DELIVERY", "TL"),
    others: Sequence[tuple[str, str]] = (),
) -> None:
    """A proof of delivery photo uploaded by `tenant` itself (not through the app); `more`,
    another identifier (type, value) after its PRO. `kind` and `others`: another type and
    mode, with these identifiers rather than a PRO (a `pro` left empty)."""
    identifiers = [{"type": "PRO", "value": pro}] if pro else []
    for kind_of, value in [*([more] if more else []), *others]:
        identifiers.append({"type": kind_of, "value": value})
    metadata = {"name": name, "type": kind[0], "mode": kind[1], "identifiers": identifiers}
    created = tenant.http.post(
        DOCUMENTS,
        files={
            "document": (None, json.dumps(metadata), "application/json"),
            "upload_file": (photo.name, photo.read_bytes(), "image/png"),
        },
    )
    assert created.status_code in (200, 201), created.text


async def test_a_refused_upload_reopens_its_form_with_the_error_beside_the_field(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    pane = await open_pane(qtbot, session, settings)
    await wait_until(lambda: pane.page_label.text() == "No documents found")
    pane.role.setCurrentIndex(pane.role.findData("CARRIER"))

    # Hovering files over the table says what a drop does, in a bar over the pane (the
    # hint in the layout stays as it is); leaving takes the bar away.
    pod = make_pdf(tmp_path / "POD 77.pdf", "proof of delivery")
    idle = pane.drop_hint.text()
    hover = pane.drop_feedback.bar
    dragged = file_drag([pod, pod])
    assert drag_enter(pane.table.viewport(), dragged).isAccepted()
    assert hover.isVisible() and hover.text() == "Release to upload these 2 files as documents"
    assert pane.drop_hint.text() == idle
    QApplication.sendEvent(pane.table.viewport(), QDragLeaveEvent())
    assert not hover.isVisible()

    drop_files(pane.table.viewport(), [pod])
    dialog = pane.dialog
    assert isinstance(dialog, UploadDialog)
    dialog.identifiers.set_identifiers([("PRO", "77")])
    unknown = "0f8fad5b-d9cb-469f-a165-70867728950e"
    dialog.shipper.setText(unknown)
    choose_mode(qtbot, dialog)
    dialog.request_uploads()
    queue = await uploads_reach(session, UploadState.FAILED)
    # Sending it again as it was would be refused again: the row offers to fix it.
    await wait_until(lambda: pane.uploads.table.item(0, 3).text() == FIX)
    assert "not uploaded" in pane.notice.text()
    # The uploads list is as tall as its one row; the results keep the room.
    table = pane.uploads.table
    assert table.height() <= table.horizontalHeader().height() + 2 * 28
    assert not pane.uploads.cancel_button.isEnabled()

    pane.uploads.table.selectRow(0)
    press(pane.uploads.table, Qt.Key.Key_Return)
    fix = pane.dialog
    assert isinstance(fix, UploadDialog) and fix is not dialog and fix.isVisible()
    # The form as it was sent, with the service's answer beside the shipper field.
    assert fix.names() == ["POD 77.pdf"] and fix.shipper.text() == unknown
    assert fix.identifiers.identifiers() == [("PRO", "77")]
    # In a dispatcher's words (the company's id, as Sharing says it), not the uuid again.
    said = fix.errors.message_for("shipperTenantUuid")
    assert said == "No company has this id: check it with your partner"
    shipper = make_tenant(tenant.service)
    fix.shipper.setText(shipper.uuid)
    fix.request_uploads()
    await uploads_reach(session, UploadState.DONE, every=True)
    assert len(queue.uploads) == 1  # the same row, uploaded this time
    await wait_until(lambda: "1 file uploaded." in pane.notice.text())
    assert names_found(shipper, ("PRO", "77")) == ["POD 77.pdf"]
    shipper.http.close()
    pane.shutdown()


async def test_paging_selects_and_previews_the_first_document_of_the_page(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    for n in range(3):
        _post_photo(tenant, make_png(tmp_path / f"photo {n}.png"), f"photo {n}", f"P{n}")
    pane = await open_pane(qtbot, session, settings)
    # The first page shows with its first document selected and previewed.
    await wait_until(lambda: pane.model.rowCount() == 3)
    await wait_until(lambda: pane.preview.kind == "image")
    assert pane.title.text() == pane.model.items[0].name
    pane.search_with(DocumentQuery(size=2))
    await wait_until(lambda: pane.page_label.text().startswith("Page 1 of 2"))
    pane.go_to_page(1)
    await wait_until(lambda: pane.page_label.text().startswith("Page 2 of 2"))
    await wait_until(lambda: pane.title.text() == pane.model.items[0].name)
    assert pane.model.rowCount() == 1 and pane.edit_button.isEnabled()

    # Deleting several asks first, naming them, with a Delete button (not Yes).
    pane.go_to_page(-1)
    await wait_until(lambda: pane.page_label.text().startswith("Page 1 of 2"))
    pane.table.selectAll()
    pane.confirm_delete()
    box = message_box("confirmDelete")
    assert (
        box is not None and box.text() == "Delete these 2 documents for everyone who can see them?"
    )
    names = [d.name for d in pane.model.items]
    assert all(f"• {n} (Proof of delivery)" in box.informativeText() for n in names)
    delete = box.button(QMessageBox.StandardButton.Yes)
    assert delete is not None and delete.text() == "&Delete"
    answer("confirmDelete", QMessageBox.StandardButton.Cancel)
    assert pane.model.rowCount() == 2
    pane.shutdown()


async def test_a_file_over_the_size_limit_says_so_and_is_not_offered_again(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session, tenant = connected
    context = tenant.service.context
    monkeypatch.setattr(context, "settings", replace(context.settings, upload_limit_bytes=2048))
    pane = await open_pane(qtbot, session, settings)
    big = tmp_path / "scan archive.tif"
    big.write_bytes(b"II*\x00" + bytes(8192))
    dialog = pane.upload_files([big], [("PRO", "9")])
    assert dialog is not None
    choose_mode(qtbot, dialog)
    dialog.request_uploads()
    queue = await uploads_reach(session, UploadState.FAILED)
    status = pane.uploads.table.item(0, 2)
    await wait_until(lambda: status is not None and "size limit" in status.text())
    assert status is not None
    assert "is over the service's size limit of 2.0 KB" in status.text()
    # Sending it again cannot help: no retry is offered, Return does nothing.
    assert pane.uploads.table.item(0, 3).text() == ""  # type: ignore[union-attr]
    assert not pane.uploads.retry_button.isEnabled()
    pane.uploads.table.selectRow(0)
    press(pane.uploads.table, Qt.Key.Key_Return)
    assert next(iter(queue.uploads.values())).state is UploadState.FAILED
    pane.shutdown()


async def test_a_photo_is_fitted_to_the_preview(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    photo = tmp_path / "damaged pallet.png"
    image = QImage(1600, 1200, QImage.Format.Format_RGB32)
    image.fill(QColor("#88aacc"))
    assert image.save(str(photo), "PNG")
    _post_photo(tenant, photo, "damaged pallet", "P1")
    pane = await open_pane(qtbot, session, settings)
    await wait_until(lambda: pane.preview.kind == "image")
    viewport = pane.preview.image_area.viewport().size()
    shown = pane.preview.image.pixmap().size()
    # Fitted to the preview (before, to the hidden page's size: a stamp-sized thumbnail).
    assert shown.width() >= viewport.width() - 2 or shown.height() >= viewport.height() - 2
    assert viewport.width() > 300
    pane.shutdown()


async def test_the_service_failing_keeps_the_edit_form_and_an_upload_can_be_retried(
    qtbot: QtBot,
    proxied: tuple[AppSession, TenantHandle, FaultyProxy],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    session, _tenant, proxy = proxied
    pane = await open_pane(qtbot, session, settings)
    await wait_until(lambda: pane.page_label.text() == "No documents found")
    # An upload the service fails (not refuses) offers Retry, which sends it again.
    proxy.inject(Fault(status=503, path_prefix=DOCUMENTS), times=5)
    dialog = pane.upload_files([make_png(tmp_path / "POD 5.png")], [("PRO", "5")])
    assert dialog is not None
    choose_mode(qtbot, dialog)
    dialog.request_uploads()
    await uploads_reach(session, UploadState.FAILED)
    await wait_until(lambda: pane.uploads.table.item(0, 3).text() == "Retry")  # type: ignore[union-attr]
    assert pane.uploads.retry_button.isEnabled()
    proxy.faults.clear()
    pane.uploads.table.selectRow(0)
    press(pane.uploads.table, Qt.Key.Key_Return)
    await uploads_reach(session, UploadState.DONE, every=True)
    await wait_until(lambda: pane.model.rowCount() == 1)

    # A failed save keeps the edit form as the user left it, the problem said in it.
    pane.table.selectRow(0)
    pane.edit_selected()
    edit = pane.dialog
    assert isinstance(edit, DocumentEditDialog)
    edit.name.setText("POD 5 signed")
    edit.name.textEdited.emit("POD 5 signed")
    proxy.inject(Fault(status=503, path_prefix=DOCUMENTS), times=5)
    edit.save()
    await wait_until(lambda: edit.general_error.isVisible())
    assert edit.isVisible() and edit.name.text() == "POD 5 signed" and edit.buttons.isEnabled()
    proxy.faults.clear()
    edit.save()
    await wait_until(lambda: not edit.isVisible())
    await wait_until(lambda: pane.model.items[0].name == "POD 5 signed")
    pane.shutdown()
