"""Editing a document's metadata: a partial update of what changed, or a full one.

Only the fields the user changed are sent (PATCH); when every field changed, the document's
metadata is replaced as a whole (PUT). A refused save keeps the form as the user left it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from freightdesk.models.documents import Document, DocumentPatch, DocumentUpdate
from freightdesk.service.documents import check_metadata, identifiers_wire
from freightdesk.service.messages import refusal
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.documents.labels import ALL_IDENTIFIER_TYPES, identifier_type_text
from freightdesk.ui.panes.documents.upload import mode_combo, type_combo
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import FormDialog
from freightdesk.ui.widgets.identifiers import IdentifierTable

FIELDS = ("name", "type", "mode", "identifiers")


class DocumentEditDialog(FormDialog):
    saved = Signal(object)  # Document

    discard_text = "Discard your changes to this document?"

    def __init__(
        self, session: AppSession, document: Document, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("documentEditDialog")
        self.session = session
        self.document = document
        self.last_operation = ""
        self.setWindowTitle(f"Edit {document.name}")
        self.setMinimumWidth(560)
        self.name = QLineEdit(document.name, self)
        self.name.setObjectName("name")
        self.type = type_combo(self, document.type)
        self.mode = mode_combo(self, document.mode)
        self.identifiers = IdentifierTable(ALL_IDENTIFIER_TYPES, self, label=identifier_type_text)
        self.identifiers.set_identifiers((i.type, i.value) for i in document.identifiers)
        form = QFormLayout()
        self.errors.add_row(form, "&Name", "name", self.name)
        self.errors.add_row(form, "&Type", "type", self.type)
        self.errors.add_row(form, "&Mode", "mode", self.mode)
        error = self.errors.add_row(form, "&Identifiers", "identifiers", self.identifiers)
        self.errors.register("shipperTenantUuid", self.identifiers, error)
        file = document.files[0] if document.files else None
        if file is not None:
            form.addRow("File", QLabel(file.file_name, self))
        form.addRow(self.general_error)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.name.textEdited.connect(self.mark_dirty)
        self.type.currentIndexChanged.connect(self.mark_dirty)
        self.mode.currentIndexChanged.connect(self.mark_dirty)
        self.identifiers.changed.connect(self.mark_dirty)
        # Opened from the table with F2 or Return: typing goes to the name, not to a button
        # (the first in the Tab order, where Space would close the dialog).
        self.name.setFocus()
        self.name.selectAll()
        self.mark_clean()

    def wire(self) -> dict[str, Any]:
        return {
            "name": self.name.text().strip(),
            "type": self.type.currentData(),
            "mode": self.mode.currentData(),
            "identifiers": identifiers_wire(self.identifiers.identifiers()),
        }

    def changed_fields(self, wire: dict[str, Any]) -> set[str]:
        document = self.document
        before = {
            "name": document.name,
            "type": document.type.value,
            "mode": document.mode.value,
            "identifiers": [{"type": i.type, "value": i.value} for i in document.identifiers],
        }
        return {name for name in FIELDS if wire[name] != before[name]}

    def save(self) -> None:
        wire = self.wire()
        service = self.session.documents
        checked, problems = check_metadata(wire, service.role if service else None)
        if not wire["name"]:  # in words, not the model's "String should have at least 1 …"
            problems["name"] = "Give the document a name, e.g. BOL-4711.pdf"
        if checked is None:
            self.errors.show(problems)
            return
        changed = self.changed_fields(wire)
        if not changed:
            self.mark_clean()
            self.accept()
            return
        if service is None or self.session.client is None:
            self.errors.show({}, general="Not connected to the service; your changes are kept.")
            return
        if changed == set(FIELDS):
            self.last_operation = "PUT"
            work = service.replace(self.document.id, DocumentUpdate.model_validate(wire))
        else:
            self.last_operation = "PATCH"
            patch = DocumentPatch.model_validate({k: wire[k] for k in changed})
            work = service.patch(self.document.id, patch)
        self.buttons.setEnabled(False)
        self.errors.clear()

        def done(saved: Document) -> None:
            self.buttons.setEnabled(True)
            self.mark_clean()
            self.saved.emit(saved)
            self.accept()

        def failed(error: BaseException) -> None:
            self.buttons.setEnabled(True)
            self.errors.show(*refusal(error))

        spawn(work, on_done=done, on_error=failed, name="save-document")
