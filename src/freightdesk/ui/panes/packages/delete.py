"""Delete a package named by one of its identifiers (the interface's delete by identifier):
the identifier typed, checked as the service checks it, the deletion confirmed, and a
package that has no such identifier said to be missing beside the value typed."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text
from freightdesk.models.packaging import DeletedPackage
from freightdesk.service.errors import NotFound
from freightdesk.service.messages import refusal
from freightdesk.service.packages import check_identifier
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.form_dialog import FormDialog, ask


class DeleteByIdentifierDialog(FormDialog):
    """Closing it deletes nothing, so it closes without asking."""

    deleted = Signal(object)  # DeletedPackage

    def __init__(
        self,
        session: AppSession,
        identifier_types: tuple[str, ...],
        parent: QWidget | None = None,
        *,
        type_: str = "",
        value: str = "",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("deleteByIdentifier")
        self.setWindowTitle("Delete a package by identifier")
        self.session = session
        note = QLabel(
            "The package with exactly this identifier is deleted, wherever it is in the list. "
            "Its identifiers become free for another package.",
            self,
        )
        note.setWordWrap(True)
        self.identifier_type = QComboBox(self)
        self.identifier_type.setObjectName("identifierType")
        self.identifier_type.setEditable(True)
        add_codes(self.identifier_type, identifier_types)
        choose_code(self.identifier_type, type_ or identifier_types[0])
        self.value = QLineEdit(value, self)
        self.value.setObjectName("identifierValue")
        self.value.setPlaceholderText("exact value, e.g. 00012345678900000011")
        form = QFormLayout()
        self.errors.add_row(form, "Identifier &type", "identifier.type", self.identifier_type)
        self.errors.add_row(form, "&Value", "identifier.value", self.value)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("&Delete…")
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(520)
        self.buttons.accepted.connect(self.confirm)
        self.buttons.rejected.connect(self.reject)
        self.value.setFocus()

    def identifier(self) -> tuple[str, str]:
        return code_of(self.identifier_type), self.value.text().strip()

    def confirm(self) -> None:
        """Check the identifier, then ask before deleting."""
        type_, value = self.identifier()
        problems = check_identifier(type_, value)
        if problems:
            self.errors.show(problems)
            return
        self.errors.clear()
        self.question = ask(
            self,
            "Delete package",
            f"Delete the package with {code_text(type_)} {value}?",
            self.delete,
            name="confirmDeleteByIdentifier",
            informative="Its identifiers become free for another package.",
            answers=("&Delete it", "&Keep it"),
        )

    def delete(self) -> None:
        service = self.session.packages
        if service is None or self.session.client is None:
            self.errors.show({}, general="Not connected to the service; nothing was deleted.")
            return
        type_, value = self.identifier()
        self.buttons.setEnabled(False)

        def failed(error: BaseException) -> None:
            self.buttons.setEnabled(True)
            if isinstance(error, NotFound):
                missing = f"No package has {code_text(type_)} {value!r}"
                self.errors.show({"identifier.value": missing})
                return
            self.errors.show(*refusal(error))

        spawn(
            service.delete_by_identifier(type_, value),
            on_done=self._deleted,
            on_error=failed,
            name="delete-package-by-identifier",
            owner=self,
        )

    def _deleted(self, deleted: DeletedPackage) -> None:
        self.buttons.setEnabled(True)
        self.deleted.emit(deleted)
        self.accept()
