"""The compact dialog that turns dropped (or chosen) files into document uploads.

It asks once for the type, mode and identifiers all the files share, and for each file's
name (from the file's name). With the carrier role the shipper tenant's uuid is asked for,
since the service requires it. Files dropped on the open dialog join it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.api.documents import TenantRole
from freightdesk.models.documents import (
    SHIPPER_TENANT_UUID,
    DocumentCreate,
    DocumentMode,
    DocumentType,
)
from freightdesk.service.documents import check_metadata, default_name, identifiers_wire
from freightdesk.ui.panes.documents.labels import (
    IDENTIFIER_TYPES,
    MODE_TEXT,
    TYPE_TEXT,
    guess_type,
    size_text,
)
from freightdesk.ui.widgets.file_drop import FileDropFilter
from freightdesk.ui.widgets.form_dialog import FormDialog
from freightdesk.ui.widgets.identifiers import IdentifierTable

FILE_COLUMN, NAME_COLUMN, TYPE_COLUMN, SIZE_COLUMN = range(4)


def type_combo(parent: QWidget, selected: DocumentType | None = None) -> QComboBox:
    combo = QComboBox(parent)
    combo.setObjectName("type")
    for kind, text in TYPE_TEXT.items():
        combo.addItem(text, kind.value)
    if selected is not None:
        combo.setCurrentIndex(max(0, combo.findData(selected.value)))
    return combo


def mode_combo(parent: QWidget, selected: DocumentMode | None = None) -> QComboBox:
    combo = QComboBox(parent)
    combo.setObjectName("mode")
    for mode, text in MODE_TEXT.items():
        combo.addItem(text, mode.value)
    if selected is not None:
        combo.setCurrentIndex(max(0, combo.findData(selected.value)))
    return combo


class UploadDialog(FormDialog):
    uploadsRequested = Signal(list)  # list[tuple[Path, DocumentCreate]]

    discard_text = "Close without uploading these files?"

    def __init__(
        self,
        files: Sequence[Path],
        role: TenantRole | None,
        *,
        identifiers: Iterable[tuple[str, str]] = (),
        mode: DocumentMode | None = None,
        context: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("uploadDialog")
        self.role = role
        self.setWindowTitle("Upload documents")
        self.setMinimumWidth(760)

        self.files = QTableWidget(0, 4, self)
        self.files.setObjectName("uploadFiles")
        self.files.setHorizontalHeaderLabels(["File", "Document name", "Type", "Size"])
        self.files.verticalHeader().setVisible(False)
        self.files.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.files.horizontalHeader()
        header.setSectionResizeMode(FILE_COLUMN, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(NAME_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TYPE_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SIZE_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        self.files.setColumnWidth(FILE_COLUMN, 180)
        self.files.setMinimumHeight(110)
        self.files.setMaximumHeight(260)
        first_type = next((t for f in files if (t := guess_type(f.name))), None)
        self.type = type_combo(self, first_type or DocumentType.BILL_OF_LADING)
        self.mode = mode_combo(self, mode or DocumentMode.TL)
        self.identifiers = IdentifierTable(IDENTIFIER_TYPES, self, default_type="BILL_OF_LADING")
        self.identifiers.table.setMaximumHeight(150)
        self.identifiers.set_identifiers(identifiers)
        if not self.identifiers.identifiers():
            self.identifiers.add_identifier()
        self.shipper = QLineEdit(self)
        self.shipper.setObjectName("shipperTenantUuid")
        self.shipper.setPlaceholderText("e.g. 0f8fad5b-d9cb-469f-a165-70867728950e")

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        if context:
            note = QLabel(context, self)
            note.setObjectName("uploadContext")
            note.setWordWrap(True)
            form.addRow(note)
        self.errors.add_row(form, "&Files", "name", self.files)
        self.errors.add_row(form, "&Type (all files)", "type", self.type)
        self.errors.add_row(form, "&Mode", "mode", self.mode)
        self.errors.add_row(form, "&Identifiers", "identifiers", self.identifiers)
        if role is TenantRole.CARRIER:
            error = self.errors.add_row(
                form, "&Shipper tenant (uuid)", "shipperTenantUuid", self.shipper
            )
            self.errors.register("document.identifiers", self.shipper, error)
            hint = QLabel(
                "You upload as a carrier: the document is shared with this shipper tenant.",
                self,
            )
            hint.setWordWrap(True)
            form.addRow("", hint)
        else:
            self.shipper.setVisible(False)
        form.addRow(self.general_error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.upload_button = self.buttons.addButton(
            "&Upload", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.upload_button.setDefault(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

        self.add_files(files)
        self.mark_clean()
        self.buttons.accepted.connect(self.request_uploads)
        self.buttons.rejected.connect(self.reject)
        self.files.itemChanged.connect(self.mark_dirty)
        self.type.activated.connect(self._type_for_all)
        self.mode.currentIndexChanged.connect(self.mark_dirty)
        self.identifiers.changed.connect(self.mark_dirty)
        self.shipper.textEdited.connect(self.mark_dirty)
        self.drop = FileDropFilter(self)
        self.drop.install(self)
        self.drop.filesDropped.connect(self.add_files)

    def add_files(self, files: Iterable[Path]) -> None:
        known = set(self.paths())
        self.files.blockSignals(True)
        for path in files:
            if path in known:
                continue
            known.add(path)
            row = self.files.rowCount()
            self.files.insertRow(row)
            file_item = QTableWidgetItem(path.name)
            file_item.setToolTip(str(path))
            file_item.setData(Qt.ItemDataRole.UserRole, str(path))
            file_item.setFlags(file_item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.files.setItem(row, FILE_COLUMN, file_item)
            self.files.setItem(row, NAME_COLUMN, QTableWidgetItem(default_name(path)))
            kind = guess_type(path.name) or DocumentType(self.type.currentData())
            combo = type_combo(self.files, kind)
            combo.currentIndexChanged.connect(self.mark_dirty)
            self.files.setCellWidget(row, TYPE_COLUMN, combo)
            try:
                size = size_text(path.stat().st_size)
            except OSError:
                size = "?"
            size_item = QTableWidgetItem(size)
            size_item.setFlags(size_item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.files.setItem(row, SIZE_COLUMN, size_item)
        self.files.blockSignals(False)
        self.upload_button.setText(
            "&Upload" if self.files.rowCount() == 1 else f"&Upload {self.files.rowCount()} files"
        )

    def paths(self) -> list[Path]:
        found = []
        for row in range(self.files.rowCount()):
            item = self.files.item(row, FILE_COLUMN)
            if item is not None:
                found.append(Path(str(item.data(Qt.ItemDataRole.UserRole))))
        return found

    def names(self) -> list[str]:
        names = []
        for row in range(self.files.rowCount()):
            item = self.files.item(row, NAME_COLUMN)
            names.append(item.text().strip() if item is not None else "")
        return names

    def types(self) -> list[str]:
        found = []
        for row in range(self.files.rowCount()):
            combo = self.files.cellWidget(row, TYPE_COLUMN)
            found.append(str(combo.currentData()) if isinstance(combo, QComboBox) else "")
        return found

    def _type_for_all(self, _index: int) -> None:
        kind = self.type.currentData()
        for row in range(self.files.rowCount()):
            combo = self.files.cellWidget(row, TYPE_COLUMN)
            if isinstance(combo, QComboBox):
                combo.setCurrentIndex(max(0, combo.findData(kind)))
        self.mark_dirty()

    def build(self) -> tuple[list[tuple[Path, DocumentCreate]], dict[str, str]]:
        """The uploads to start, or the problems by field."""
        identifiers = identifiers_wire(self.identifiers.identifiers())
        shipper = self.shipper.text().strip()
        if self.role is TenantRole.CARRIER and shipper:
            identifiers.append({"type": SHIPPER_TENANT_UUID, "value": shipper})
        problems: dict[str, str] = {}
        uploads: list[tuple[Path, DocumentCreate]] = []
        paths = self.paths()
        if not paths:
            problems["name"] = "Add at least one file (drop it here)"
        for path, name, kind in zip(paths, self.names(), self.types(), strict=True):
            wire = {
                "name": name,
                "type": kind,
                "mode": self.mode.currentData(),
                "identifiers": identifiers,
            }
            checked, found = check_metadata(wire, self.role)
            for key, message in found.items():
                shipper_at = f"identifiers[{len(identifiers) - 1}]"
                if shipper and self.role is TenantRole.CARRIER and key.startswith(shipper_at):
                    key = "shipperTenantUuid"
                if key == "name" and not name:
                    message = "Give every file a document name"
                elif key == "name" and len(paths) > 1:
                    message = f"{path.name}: {message}"
                problems.setdefault(key, message)
            if checked is not None:
                uploads.append((path, DocumentCreate.model_validate(checked)))
        return uploads, problems

    def request_uploads(self) -> None:
        uploads, problems = self.build()
        if problems:
            self.errors.show(problems)
            return
        self.errors.clear()
        self.mark_clean()
        self.uploadsRequested.emit(uploads)
        self.accept()
