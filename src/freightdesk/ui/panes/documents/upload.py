"""The compact dialog that turns dropped (or chosen) files into document uploads.

It asks once for the type, mode and identifiers all the files share, and for each file's
name (from the file's name). With the carrier role the shipper tenant's uuid is asked for,
since the service requires it. Files dropped on the open dialog join it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.auth import TenantRole
from freightdesk.models.code_words import mode_text
from freightdesk.models.documents import (
    SHIPPER_TENANT_UUID,
    DocumentCreate,
    DocumentMode,
    DocumentType,
)
from freightdesk.service.documents import check_metadata, default_name, identifiers_wire
from freightdesk.service.errors import ApiError
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.service.shipment_lookup import ListedIndex
from freightdesk.ui.panes.documents.labels import (
    IDENTIFIER_TYPES,
    TYPE_TEXT,
    guess_type,
    identifier_type_text,
    size_text,
)
from freightdesk.ui.widgets.file_drop import FileDropFilter
from freightdesk.ui.widgets.form_dialog import FormDialog
from freightdesk.ui.widgets.identifiers import IdentifierTable
from freightdesk.ui.widgets.shortcuts import add_key

if TYPE_CHECKING:
    from freightdesk.service.shipments import ShipmentList

E = TypeVar("E", bound=Enum)
DOCUMENT_MODES = frozenset(mode.value for mode in DocumentMode)

FILE_COLUMN, NAME_COLUMN, TYPE_COLUMN, SIZE_COLUMN = range(4)
FILE_FILTERS = ["Documents (*.pdf *.png *.jpg *.jpeg *.tif *.tiff *.txt *.xml *.json)", "All (*)"]


def file_problem(path: Path) -> str | None:
    """Why a file cannot be uploaded as it is (the service refuses an empty one)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"{path.name} cannot be read ({exc.strerror or 'unknown error'})"
    return f"{path.name} is empty" if size == 0 else None


def document_name(path: Path) -> str:
    """The name a file suggests for its document: its name tidied, with its extension, as
    the demo's documents are named ("BOL_4711  scan.pdf" is "BOL 4711 scan.pdf"), so the
    kind of file shows in every list and a copy saved under it opens."""
    stem = re.sub(r"[\s_]+", " ", path.stem).strip()
    if not path.suffix or not stem:
        return default_name(path)
    return stem[: 255 - len(path.suffix)] + path.suffix


def file_chooser(
    parent: QWidget, title: str, name: str, chosen: Callable[[list[Path]], object]
) -> QFileDialog:
    """The dialog choosing files to upload, opened (without a nested event loop)."""
    dialog = QFileDialog(parent, title)
    dialog.setObjectName(name)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
    dialog.setNameFilters(FILE_FILTERS)
    dialog.filesSelected.connect(lambda files: chosen([Path(f) for f in files]))
    dialog.open()
    return dialog


# The shipment whose identifiers a document carries, as (its name, its document mode): the
# dialog's mode follows it (an ocean bill of lading was saved as a truckload's, session 18).
ShipmentOf = Callable[[list[tuple[str, str]]], tuple[str, DocumentMode] | None]

# Beside the mode while none is chosen: no shipment the app lists has the identifiers, and a
# mode filled in for the user was saved wrong unseen (a truckload's by default, session 18).
CHOOSE_MODE = "Choose the mode"


def listed_shipment(session: AppSession) -> ShipmentOf:
    """The one shipment of the Shipments list with any of the identifiers' values (matched
    whatever the type the user gave it), with its mode; None when none, or shipments of two
    modes, match."""

    def listed() -> ShipmentList | None:
        shipments = session.shipments
        return shipments.coordinator.data if shipments is not None else None

    index = ListedIndex(listed)

    def find(identifiers: list[tuple[str, str]]) -> tuple[str, DocumentMode] | None:
        found: dict[DocumentMode, str] = {}
        for match in index.index().named_any(value for _kind, value in identifiers):
            row = match.row
            if row.mode in DOCUMENT_MODES:  # VLTL has no document mode
                found.setdefault(DocumentMode(row.mode), row.primary_identifier or row.id)
        if len(found) != 1:
            return None
        ((mode, name),) = found.items()
        return name, mode

    return find


def type_combo(parent: QWidget, selected: DocumentType | None = None) -> QComboBox:
    return _choices(parent, "type", TYPE_TEXT, selected)


def mode_combo(parent: QWidget, selected: DocumentMode | None = None) -> QComboBox:
    return _choices(parent, "mode", {mode: mode_text(mode) for mode in DocumentMode}, selected)


def _choices(parent: QWidget, name: str, texts: Mapping[E, str], selected: E | None) -> QComboBox:
    """A combo box of `texts` in their order, each holding its value; `selected` chosen, else
    none (the box blank until the user chooses)."""
    combo = QComboBox(parent)
    combo.setObjectName(name)
    for choice, text in texts.items():
        combo.addItem(text, choice.value)
    combo.setCurrentIndex(combo.findData(selected.value) if selected is not None else -1)
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
        shipment_of: ShipmentOf | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.shipment_of = shipment_of
        # The mode the user picked, or the shipment's the upload is for: kept, not followed.
        self.mode_chosen = mode is not None
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
        self.add_files_button = QPushButton("&Add files…", self)
        self.add_files_button.setObjectName("addFiles")
        self.remove_file_button = QPushButton("&Remove file", self)
        self.remove_file_button.setObjectName("removeFile")
        self.remove_file_button.setToolTip("Leave the selected files out (Delete)")
        drop_more = QLabel("or drop more files here", self)
        drop_more.setStyleSheet("color: palette(mid);")
        file_buttons = QHBoxLayout()
        file_buttons.setContentsMargins(0, 0, 0, 0)
        file_buttons.addWidget(self.add_files_button)
        file_buttons.addWidget(self.remove_file_button)
        file_buttons.addWidget(drop_more)
        file_buttons.addStretch(1)
        files_box = QWidget(self)
        files_layout = QVBoxLayout(files_box)
        files_layout.setContentsMargins(0, 0, 0, 0)
        files_layout.addWidget(self.files)
        files_layout.addLayout(file_buttons)
        add_key(
            self.files, QKeySequence.StandardKey.Delete, self.remove_selected_files, "Remove file"
        )
        first_type = next((t for f in files if (t := guess_type(f.name))), None)
        self.type = type_combo(self, first_type or DocumentType.BILL_OF_LADING)
        self.mode = mode_combo(self, mode)
        self.mode.setPlaceholderText(CHOOSE_MODE)
        self.identifiers = IdentifierTable(
            IDENTIFIER_TYPES, self, default_type="BILL_OF_LADING", label=identifier_type_text
        )
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
        files_error = self.errors.add_row(form, "&Files", "files", files_box)
        self.errors.register("name", self.files, files_error)
        self.errors.add_row(form, "&Type (all files)", "type", self.type)
        mode_error = self.errors.add_row(form, "&Mode", "mode", self.mode)
        self.mode_source = QLabel(self)
        self.mode_source.setObjectName("modeSource")
        self.mode_source.setVisible(False)
        form.addRow("", self.mode_source)
        self.errors.add_row(form, "&Identifiers", "identifiers", self.identifiers)
        if role is TenantRole.CARRIER:
            error = self.errors.add_row(
                form, "&Shipper's company id", "shipperTenantUuid", self.shipper
            )
            self.errors.register("document.identifiers", self.shipper, error)
            hint = QLabel(
                "You upload as a carrier: the document is shared with this shipper's company.",
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
        # "Choose the mode" is answered by a mode, picked or the shipment's.
        self.mode.currentIndexChanged.connect(
            lambda index: mode_error.clear_message() if index >= 0 else None
        )
        self.mode.activated.connect(self._mode_picked)
        self.identifiers.changed.connect(self.mark_dirty)
        self.identifiers.changed.connect(self._follow_shipment)
        self.shipper.textEdited.connect(self.mark_dirty)
        self.add_files_button.clicked.connect(self.choose_files)
        self.remove_file_button.clicked.connect(self.remove_selected_files)
        self.files.itemSelectionChanged.connect(self._update_buttons)
        self.drop = FileDropFilter(self)
        self.drop.install(self)
        self.drop.filesDropped.connect(self.add_files)
        self.file_dialog: QFileDialog | None = None
        self.sent: DocumentCreate | None = None  # what a refused upload sent (see prefill)
        self._edit_identifier = False
        self._update_buttons()
        self._follow_shipment()
        self.mark_clean()
        self._focus_first_gap()

    def _focus_first_gap(self) -> None:
        """Start where the user has to type: the shipper (as a carrier), an identifier, else
        the upload button, so Return uploads what was dropped."""
        if self.role is TenantRole.CARRIER and not self.shipper.text().strip():
            self.shipper.setFocus()
        elif not self.identifiers.identifiers():
            table = self.identifiers.table
            table.setFocus()
            table.setCurrentCell(0, 1)
            self._edit_identifier = True
        else:
            self.upload_button.setFocus()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        table = self.identifiers.table
        if self._edit_identifier and table.currentRow() >= 0:
            self._edit_identifier = False
            item = table.item(table.currentRow(), 1)
            if item is not None:
                table.editItem(item)  # typing goes into the value at once

    def choose_files(self) -> None:
        self.file_dialog = file_chooser(self, "Add files", "addFilesDialog", self.add_files)

    def remove_selected_files(self) -> None:
        rows = sorted({i.row() for i in self.files.selectionModel().selectedRows()}, reverse=True)
        if not rows and self.files.currentRow() >= 0:
            rows = [self.files.currentRow()]
        for row in rows:
            self.files.removeRow(row)
        if rows:
            self.mark_dirty()
            self._update_buttons()

    def _update_buttons(self) -> None:
        count = self.files.rowCount()
        self.remove_file_button.setEnabled(count > 0)
        self.upload_button.setEnabled(count > 0)
        self.upload_button.setText("&Upload" if count == 1 else f"&Upload {count} files")

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
            self.files.setItem(row, NAME_COLUMN, QTableWidgetItem(document_name(path)))
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
        self._update_buttons()

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

    def _mode_picked(self, _index: int) -> None:
        self.mode_chosen = True
        self.mode_source.setVisible(False)

    def _follow_shipment(self) -> None:
        """The mode of the shipment the identifiers name, until the user picks one; none
        while they name no listed shipment (the user chooses it)."""
        if self.mode_chosen:
            return
        found = self.shipment_of(self.identifiers.identifiers()) if self.shipment_of else None
        self.mode_source.setVisible(found is not None)
        if found is None:
            self.mode.setCurrentIndex(-1)
            return
        name, mode = found
        self.mode.setCurrentIndex(self.mode.findData(mode.value))
        self.mode_source.setText(f"The mode of shipment {name}")

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
        if self.mode.currentIndex() < 0:
            problems["mode"] = CHOOSE_MODE
        uploads: list[tuple[Path, DocumentCreate]] = []
        paths = self.paths()
        if not paths:
            problems["files"] = "Add at least one file (drop it here)"
        unusable = [p for path in paths if (p := file_problem(path))]
        if unusable:
            problems["files"] = "; ".join(unusable) + ": remove it or replace the file"
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

    def prefill(self, metadata: DocumentCreate) -> None:
        """Show one file's form as it was sent, to correct what the service refused."""
        if self.files.rowCount() != 1:
            return
        item = self.files.item(0, NAME_COLUMN)
        if item is not None:
            self.files.blockSignals(True)
            item.setText(metadata.name or document_name(self.paths()[0]))
            self.files.blockSignals(False)
        combo = self.files.cellWidget(0, TYPE_COLUMN)
        if isinstance(combo, QComboBox):
            combo.setCurrentIndex(max(0, combo.findData(metadata.type.value)))
        self.type.setCurrentIndex(max(0, self.type.findData(metadata.type.value)))
        self.mode.setCurrentIndex(max(0, self.mode.findData(metadata.mode.value)))
        self.mode_chosen = True  # as it was sent
        self.mode_source.setVisible(False)
        shippers = [i.value for i in metadata.identifiers if i.type == SHIPPER_TENANT_UUID]
        self.identifiers.set_identifiers(
            (i.type, i.value) for i in metadata.identifiers if i.type != SHIPPER_TENANT_UUID
        )
        self.shipper.setText(shippers[0] if shippers else "")
        self.sent = metadata
        self.mark_clean()

    def show_refusal(self, error: BaseException) -> None:
        """The service's answer to the upload, each error beside its field."""
        fields = error.field_errors() if isinstance(error, ApiError) else {}
        sent = self.sent.identifiers if self.sent is not None else []
        shipper_at = {
            f"identifiers[{n}]" for n, i in enumerate(sent) if i.type == SHIPPER_TENANT_UUID
        }
        shown: dict[str, str] = {}
        for path, message in fields.items():
            key = path.removeprefix("document.")
            if key.split(".")[0] in shipper_at:
                key = "shipperTenantUuid"
            elif key.startswith("identifiers["):
                key = "identifiers"  # the rows were renumbered without the shipper's
            elif key.split(".")[0] in ("file", "upload_file"):
                key = "files"
            shown.setdefault(key, message)
        self.errors.show(shown, general=None if shown else explain(error))

    def request_uploads(self) -> None:
        uploads, problems = self.build()
        if problems:
            self.errors.show(problems)
            return
        self.errors.clear()
        self.mark_clean()
        self.uploadsRequested.emit(uploads)
        self.accept()
