"""The Documents pane: find documents by identifier, name and type; preview, edit, delete,
save a copy, drag out; upload by dropping files on the pane (or on an open shipment)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QSettings, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.auth import TenantRole
from freightdesk.models.code_words import mode_text
from freightdesk.models.documents import (
    Document,
    DocumentCreate,
    DocumentMode,
    DocumentType,
)
from freightdesk.service.clock import user_time
from freightdesk.service.documents import DocumentQuery, check_query
from freightdesk.service.listing import ListChange
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.service.uploads import Upload
from freightdesk.ui.panes.documents.drop import DropHint
from freightdesk.ui.panes.documents.edit import DocumentEditDialog
from freightdesk.ui.panes.documents.labels import (
    IDENTIFIER_TYPES,
    TYPE_TEXT,
    identifier_type_text,
    size_text,
    type_text,
)
from freightdesk.ui.panes.documents.model import DocumentTableModel
from freightdesk.ui.panes.documents.preview import DocumentPreview
from freightdesk.ui.panes.documents.split import documents_split
from freightdesk.ui.panes.documents.upload import UploadDialog, file_chooser, listed_shipment
from freightdesk.ui.panes.documents.uploads_view import UploadsView
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.elided import tip_elided
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.file_drop import FileDropFilter
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.item_table import ColumnFit
from freightdesk.ui.widgets.listing import ListBinding, current_row
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.selection import select_only
from freightdesk.ui.widgets.shortcuts import add_key

ROLE_SETTING = "documents/role"
MAX_LISTED = 8  # documents named in the question before a delete


def _open_with_system(path: Path) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class DocumentsPane(ListExport, QWidget):
    def __init__(
        self, session: AppSession, settings: QSettings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.settings = settings
        self.dialog: QWidget | None = None
        self.question: QMessageBox | None = None
        self._search_filled = False

        # --- search -------------------------------------------------------------------
        self.identifier_type = QComboBox(self)
        self.identifier_type.setObjectName("identifierType")
        # In the list's words ("PO"), the code as the data.
        add_codes(self.identifier_type, IDENTIFIER_TYPES, identifier_type_text)
        choose_code(self.identifier_type, "BILL_OF_LADING", identifier_type_text)
        # Long type names must not squeeze the value field.
        self.identifier_type.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.identifier_type.setMinimumContentsLength(15)
        self.identifier_value = QLineEdit(self)
        self.identifier_value.setObjectName("identifierValue")
        self.identifier_value.setPlaceholderText("e.g. 4711, 4712")  # short: fits 1366 px
        self.identifier_value.setToolTip(
            "One or more values of the chosen identifier type, separated by commas; a document "
            "with any one of them is found."
        )
        self.identifier_value.setClearButtonEnabled(True)
        self.identifier_value.setMinimumWidth(130)
        self.name = QLineEdit(self)
        self.name.setObjectName("documentName")
        self.name.setPlaceholderText("Exact name")
        self.name.setToolTip("The document's exact name")
        self.name.setMinimumWidth(110)  # its hint read whole in a 1366 px window
        self.name.setClearButtonEnabled(True)
        self.type = QComboBox(self)
        self.type.setObjectName("typeFilter")
        self.type.addItem("All types", None)
        for kind, text in TYPE_TEXT.items():
            self.type.addItem(text, kind.value)
        self.role = QComboBox(self)
        self.role.setObjectName("role")
        self.role.addItem("Shipper", TenantRole.SHIPPER.value)
        self.role.addItem("Carrier", TenantRole.CARRIER.value)
        self.role.setToolTip(
            "Your role toward the service: as a carrier, every document names the company "
            "id of the shipper it is for."
        )
        stored_role = str(settings.value(ROLE_SETTING, TenantRole.SHIPPER.value))
        self.role.setCurrentIndex(max(0, self.role.findData(stored_role)))
        self.search_button = QPushButton("&Search", self)
        self.clear_button = QPushButton("C&lear", self)
        self.upload_button = QPushButton("&Upload files…", self)
        search_errors = ErrorLabel(self)
        self.search_errors = FieldErrors(search_errors)
        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        identifier = QHBoxLayout()
        identifier.addWidget(self.identifier_type)
        identifier.addWidget(self.identifier_value, 1)
        # Mnemonics: none of the main window's menus (File, Edit, View, Help) and none twice.
        identifier_label = QLabel("Identifie&r", self)
        identifier_label.setBuddy(self.identifier_value)
        name_label = QLabel("&Name", self)
        name_label.setBuddy(self.name)
        type_label = QLabel("T&ype", self)
        type_label.setBuddy(self.type)
        role_label = QLabel("Actin&g as", self)
        role_label.setBuddy(self.role)
        identifier_error = ErrorLabel(self)
        name_error = ErrorLabel(self)
        self.search_errors.register("identifiers", self.identifier_value, identifier_error)
        self.search_errors.register("name", self.name, name_error)
        grid.addWidget(identifier_label, 0, 0)
        grid.addLayout(identifier, 0, 1)
        grid.addWidget(name_label, 0, 2)
        grid.addWidget(self.name, 0, 3)
        grid.addWidget(type_label, 0, 4)
        grid.addWidget(self.type, 0, 5)
        grid.addWidget(self.search_button, 0, 6)
        grid.addWidget(self.clear_button, 0, 7)
        grid.addWidget(identifier_error, 1, 1)
        grid.addWidget(name_error, 1, 3)
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(3, 2)
        top = QHBoxLayout()
        top.addLayout(grid, 1)
        top.addSpacing(8)
        top.addWidget(role_label)
        top.addWidget(self.role)
        top.addWidget(self.upload_button)

        self.notice = Notice(self)
        self.drop_hint = QLabel(
            "Drop files here (or on an open shipment) to upload them as documents.", self
        )
        self.drop_hint.setObjectName("dropHint")
        self.drop_hint.setStyleSheet("color: palette(mid);")

        # --- results ------------------------------------------------------------------
        self.model = DocumentTableModel(self._ready_copy, self._prepare_copies, self)
        self.table = QTableView(self)
        self.table.setObjectName("documentsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        # A longer name or identifier keeps its end (the number's last digits, ".pdf").
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setDragEnabled(True)
        self.table.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.table.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for index, column in enumerate(self.model.columns):
            self.table.setColumnWidth(index, column.width)
        self.fit = ColumnFit(self.table, self.model, self.model.columnCount() - 1)
        tip_elided(self.table)
        self.previous_button = QPushButton("◀ &Previous", self)
        self.next_button = QPushButton("Ne&xt ▶", self)
        self.page_label = QLabel(self)
        self.page_label.setObjectName("pageLabel")
        paging = QHBoxLayout()
        paging.addWidget(self.page_label)
        paging.addStretch(1)
        paging.addWidget(self.previous_button)
        paging.addWidget(self.next_button)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addLayout(paging)

        # --- the selected document ----------------------------------------------------
        self.title = QLabel("No document selected", self)
        self.title.setObjectName("documentTitle")
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.details = QLabel(self)
        self.details.setObjectName("documentDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.edit_button = QPushButton("Ed&it…", self)
        self.edit_button.setToolTip("Change the name, type, mode or identifiers (F2)")
        self.save_copy_button = QPushButton("Save a &copy…", self)
        self.save_copy_button.setToolTip("Save the file somewhere on this computer (Ctrl+Shift+S)")
        self.open_button = QPushButton("&Open", self)
        self.open_button.setToolTip("Open the file with its usual program (Ctrl+O)")
        self.delete_button = QPushButton("&Delete…", self)
        self.delete_button.setToolTip("Delete the selected documents (Delete)")
        actions = QHBoxLayout()
        for button in (self.edit_button, self.save_copy_button, self.open_button):
            actions.addWidget(button)
        actions.addStretch(1)
        actions.addWidget(self.delete_button)
        self.preview = DocumentPreview(session, self)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(8, 0, 0, 0)
        right_layout.addWidget(self.title)
        right_layout.addWidget(self.details)
        right_layout.addLayout(actions)
        right_layout.addWidget(self.preview, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.uploads = UploadsView(self)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.uploads)
        layout.addWidget(self.drop_hint)

        # --- wiring -------------------------------------------------------------------
        self.search_button.clicked.connect(self.search)
        self.clear_button.clicked.connect(self.clear_search)
        self.identifier_value.returnPressed.connect(self.search)
        self.name.returnPressed.connect(self.search)
        self.type.activated.connect(lambda _i: self.search())
        self.role.currentIndexChanged.connect(self._role_changed)
        self.upload_button.clicked.connect(self.choose_files)
        self.previous_button.clicked.connect(lambda: self.go_to_page(-1))
        self.next_button.clicked.connect(lambda: self.go_to_page(1))
        self.edit_button.clicked.connect(self.edit_selected)
        self.save_copy_button.clicked.connect(self.save_copy)
        self.open_button.clicked.connect(self.open_selected)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        add_key(self, "Ctrl+U", self.choose_files, "Upload files", within=True)
        add_key(self, "Ctrl+Shift+S", self.save_copy, "Save a copy", within=True)
        add_key(self, "Ctrl+O", self.open_selected, "Open the document", within=True)
        for keys in (Qt.Key.Key_Return, Qt.Key.Key_F2):
            add_key(self.table, keys, self.edit_selected, "Edit the document")
        add_key(
            self.table, QKeySequence.StandardKey.Delete, self.confirm_delete, "Delete the document"
        )
        self.drop = FileDropFilter(self)
        self.drop.install(self)
        self.drop.install(self.table)
        self.drop.filesDropped.connect(lambda files: self.upload_files(files))
        self.drop_feedback = DropHint(
            self, [self.table, self.table.viewport()], self.notice.show_error
        )
        self.uploads.fixRequested.connect(self.fix_upload)
        self.uploads.allFinished.connect(self._uploads_finished)

        self.binding = ListBinding(self, session, lambda s: s.documents)
        self.binding.changed.connect(self._show)
        self.binding.statusChanged.connect(self.notice.show_status)
        self._unconnected = session.listen_connected(self._attach_services)
        self._attach_services()
        self._selection_changed()
        self.split = documents_split(self.splitter, self.table, self.fit, settings)

    # --- services --------------------------------------------------------------------------

    def _attach_services(self) -> None:
        self.uploads.attach(self.session.uploads)
        if self.session.documents is not None:
            self.session.documents.role = self.current_role()

    def current_role(self) -> TenantRole:
        return TenantRole(str(self.role.currentData()))

    def _role_changed(self) -> None:
        self.settings.setValue(ROLE_SETTING, self.current_role().value)
        self._attach_services()

    # --- searching -------------------------------------------------------------------------

    def query(self, page: int = 1) -> DocumentQuery:
        values = [v.strip() for v in self.identifier_value.text().split(",") if v.strip()]
        kind = code_of(self.identifier_type)
        selected = self.type.currentData()
        return DocumentQuery(
            identifiers=tuple((kind, v) for v in dict.fromkeys(values)),
            name=self.name.text().strip(),
            types=(DocumentType(selected),) if selected else (),
            page=page,
        )

    def search(self, page: int = 1) -> None:
        query = self.query(page)
        problems = check_query(query)
        if problems:
            self.search_errors.show(problems)
            return
        self.search_errors.clear()
        self._search_filled = True
        service = self.session.documents
        if service is None or self.session.client is None:
            self.notice.show_error("Searching needs a connection to the service.")
            return

        def failed(error: BaseException) -> None:
            self.notice.show_error(explain(error))

        def done(_listing: object) -> None:
            self.notice.clear_message()
            if self.model.rowCount():
                select_only(self.table, 0)

        spawn(service.search(query), on_done=done, on_error=failed, name="search-documents")

    def _fill_search(self, query: DocumentQuery) -> None:
        """Show the criteria of the results shown (those the pane was closed with)."""
        self._search_filled = True
        if query.identifiers:
            choose_code(self.identifier_type, query.identifiers[0][0], identifier_type_text)
            self.identifier_value.setText(", ".join(v for _t, v in query.identifiers))
        self.name.setText(query.name)
        if query.types:
            self.type.setCurrentIndex(max(0, self.type.findData(query.types[0].value)))

    def clear_search(self) -> None:
        self.identifier_value.clear()
        self.name.clear()
        self.type.setCurrentIndex(0)
        self.search()

    def go_to_page(self, step: int) -> None:
        service = self.session.documents
        if service is None:
            return
        current = service.query
        self.search_with(
            DocumentQuery(
                identifiers=current.identifiers,
                name=current.name,
                types=current.types,
                page=max(1, current.page + step),
                size=current.size,
            )
        )

    def search_with(self, query: DocumentQuery) -> None:
        service = self.session.documents
        if service is None or self.session.client is None:
            return
        spawn(
            service.search(query),
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="page-documents",
        )

    def _show(self, _change: ListChange | None = None) -> None:
        data = self.binding.data
        service = self.session.documents
        if data is None or service is None:
            return
        selected = {str(d.id) for d in self.selected_documents()}
        self.model.set_items(data.items)
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for row, document in enumerate(data.items):
            if str(document.id) in selected:
                self.table.selectionModel().select(self.model.index(row, 0), flags)
        query = service.query
        if not self._search_filled:
            self._fill_search(query)
        pages = max(1, -(-data.total // query.size))
        if data.total == 0:
            self.page_label.setText("No documents found")
        else:
            self.page_label.setText(
                f"Page {query.page} of {pages} · {data.total:,} document"
                + ("" if data.total == 1 else "s")
            )
        self.previous_button.setEnabled(query.page > 1)
        self.next_button.setEnabled(query.page < pages)
        if data.items and not self.table.selectionModel().hasSelection():
            # A page shown (at start, after paging or a search) has its first document
            # selected and previewed, and the table scrolled to it.
            select_only(self.table, 0)
        self._selection_changed()

    # --- the selection ---------------------------------------------------------------------

    def selected_documents(self) -> list[Document]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [d for r in rows if (d := self.model.item_at(r)) is not None]

    def current_document(self) -> Document | None:
        chosen = self.selected_documents()
        if len(chosen) == 1:
            return chosen[0]
        return self.model.item_at(current_row(self.table)) if chosen else None

    def _selection_changed(self, *_args: object) -> None:
        documents = self.selected_documents()
        document = documents[0] if len(documents) == 1 else None
        for button in (self.edit_button, self.save_copy_button, self.open_button):
            button.setEnabled(document is not None)
        self.delete_button.setEnabled(bool(documents))
        if document is None:
            self.title.setText(
                f"{len(documents)} documents selected" if documents else "No document selected"
            )
            self.details.clear()
            if self.preview.document is not None or not documents:
                self.preview.show_document(None)
            return
        self.title.setText(document.name)
        self.details.setText(self._details_text(document))
        self.details.setToolTip(
            f"Added by {document.added_by_user}" if document.added_by_user else ""
        )
        if self.preview.document is None or self.preview.document != document:
            self.preview.show_document(document)

    def _details_text(self, document: Document) -> str:
        file = document.files[0] if document.files else None
        identifiers = ", ".join(
            f"{identifier_type_text(i.type)} {i.value}" for i in document.identifiers
        )
        lines = [
            f"{type_text(document.type)} · {mode_text(document.mode)}",
            identifiers,
            # The user is often a client application's id: in the tooltip, not in the way.
            f"Added {user_time(document.created_date_time)} by "
            f"{document.added_by_company or 'unknown'}",
        ]
        if document.last_modified_date_time != document.created_date_time:
            lines.append(f"Changed {user_time(document.last_modified_date_time)}")
        if file is not None:
            lines.append(f"{file.file_name} · {file.content_type} · {size_text(file.size)}")
        return "\n".join(lines)

    # --- local copies (preview, open, drag out) ----------------------------------------------

    def _ready_copy(self, document: Document) -> Path | None:
        service = self.session.documents
        return service.local_copy_ready(document) if service else None

    def _prepare_copies(self, documents: list[Document]) -> None:
        service = self.session.documents
        if service is None or self.session.client is None:
            return
        names = ", ".join(d.name for d in documents[:3])
        self.notice.show_info(f"Fetching {names}… drag again in a moment.")
        for document in documents:
            spawn(
                service.local_copy(document),
                on_error=lambda error: self.notice.show_error(explain(error)),
                name="prepare-copy",
            )

    # --- actions ---------------------------------------------------------------------------

    def choose_files(self) -> None:
        self.dialog = file_chooser(self, "Upload documents", "chooseFiles", self.upload_files)

    def upload_files(
        self,
        files: Sequence[Path],
        identifiers: Iterable[tuple[str, str]] = (),
        mode: DocumentMode | None = None,
        context: str = "",
        parent: QWidget | None = None,
    ) -> UploadDialog | None:
        """Ask for the documents' details, then queue the uploads. A dialog already open
        for other dropped files takes these too."""
        if not files:
            return None
        open_dialog = self.dialog
        if isinstance(open_dialog, UploadDialog) and open_dialog.isVisible():
            open_dialog.add_files(files)
            return open_dialog
        prefilled = list(identifiers)
        if not prefilled:
            query = self.query()
            prefilled = list(query.identifiers)
        dialog = UploadDialog(
            files,
            self.current_role(),
            identifiers=prefilled,
            mode=mode,
            context=context,
            shipment_of=listed_shipment(self.session),
            parent=parent or self,
        )
        dialog.uploadsRequested.connect(self.start_uploads)
        self.dialog = dialog
        dialog.open()
        return dialog

    def start_uploads(self, uploads: list[tuple[Path, DocumentCreate]]) -> None:
        queue = self.session.uploads
        if queue is None:
            self.notice.show_error("Uploading needs a connection to the service.")
            return
        role = self.current_role()
        for path, metadata in uploads:
            queue.add(path, metadata, role)
        count = len(uploads)
        self.notice.show_info(
            f"Uploading {count} file{'s' if count != 1 else ''}; progress is shown below."
        )

    def fix_upload(self, upload: Upload) -> None:
        """Reopen the form for a file the service refused, as it was sent, with the
        service's errors beside the fields; sending it retries the same row."""
        queue = self.session.uploads
        if queue is None:
            return
        dialog = UploadDialog([upload.path], upload.role, parent=self)
        dialog.prefill(upload.metadata)
        if upload.error is not None:
            dialog.show_refusal(upload.error)

        def send(uploads: list[tuple[Path, DocumentCreate]]) -> None:
            for _path, metadata in uploads:
                queue.retry(upload.id, metadata)
            self.notice.show_info(f"Uploading {upload.path.name} again.")

        dialog.uploadsRequested.connect(send)
        self.dialog = dialog
        dialog.open()

    def _uploads_finished(self, uploaded: int, failed: int) -> None:
        if failed:
            self.notice.show_error(
                f"{failed} file{'s' if failed != 1 else ''} not uploaded: see the reason "
                "below; Return on a row fixes or retries it."
            )
        else:
            self.notice.show_info(
                f"{uploaded} file{'s' if uploaded != 1 else ''} uploaded."
                if uploaded
                else "No uploads under way."
            )

    def edit_selected(self) -> None:
        document = self.current_document()
        if document is None:
            return
        dialog = DocumentEditDialog(self.session, document, self)
        dialog.saved.connect(lambda saved: self.notice.show_info(f"Saved {saved.name}."))
        self.dialog = dialog
        dialog.open()

    def confirm_delete(self) -> None:
        documents = self.selected_documents()
        if not documents:
            return
        many = len(documents) > 1
        what = f"these {len(documents)} documents" if many else f"{documents[0].name!r}"
        # Which documents go, by name (a few, then how many more), so a wrong selection is
        # seen before it is too late.
        shown = [f"• {d.name} ({type_text(d.type)})" for d in documents[:MAX_LISTED]]
        if len(documents) > MAX_LISTED:
            shown.append(f"… and {len(documents) - MAX_LISTED} more")
        self.question = ask(
            self,
            "Delete documents",
            f"Delete {what} for everyone who can see them?",
            lambda: self.delete(documents),
            name="confirmDelete",
            informative=("\n".join(shown) + "\n\n" if many else "")
            + "This cannot be undone; keep a copy first if you may need the file.",
            answers=("&Delete", "Cancel"),
        )

    def delete(self, documents: list[Document]) -> None:
        service = self.session.documents
        if service is None:
            return
        for document in documents:
            spawn(
                service.delete(document.id),
                on_error=lambda error: self.notice.show_error(explain(error)),
                name="delete-document",
            )

    def save_copy(self) -> None:
        document = self.current_document()
        if document is None or not document.files:
            return
        dialog = QFileDialog(self, "Save a copy")
        dialog.setObjectName("saveCopy")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.selectFile(str(Path.home() / document.files[0].file_name))
        dialog.fileSelected.connect(lambda path: self.save_copy_to(document, Path(path)))
        self.dialog = dialog
        dialog.open()

    def save_copy_to(self, document: Document, destination: Path) -> None:
        service = self.session.documents
        if service is None or self.session.client is None:
            self.notice.show_error("Saving a copy needs a connection to the service.")
            return
        spawn(
            service.save_copy(document, destination),
            on_done=lambda path: self.notice.show_info(f"Saved a copy at {path}."),
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="save-document-copy",
        )

    def open_selected(self) -> None:
        document = self.current_document()
        service = self.session.documents
        if document is None or service is None or self.session.client is None:
            return
        spawn(
            service.local_copy(document),
            on_done=_open_with_system,
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="open-document",
        )

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.identifier_value.setFocus()
        self.identifier_value.selectAll()

    def new_item(self) -> None:
        self.choose_files()

    def refresh(self) -> None:
        self.binding.refresh()

    def shutdown(self) -> None:
        self.split.shutdown()
        self.binding.shutdown()
        self.uploads.shutdown()
        self._unconnected()
