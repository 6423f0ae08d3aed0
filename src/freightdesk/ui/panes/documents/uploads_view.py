"""The uploads under way: one row per file with its progress, cancel and retry.

Rows are plain items (the progress bar is painted by a delegate, the row's action is a
link-like cell) rather than widgets per cell, so twenty dropped files add their rows in a
few milliseconds. A file the service refused (a bad identifier, an unknown shipper tenant)
is not sent again as it was: its action is "Fix…", which asks the pane to reopen the upload
form with the service's errors beside the fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QKeySequence, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.service.errors import BadRequest, PayloadTooLarge
from freightdesk.service.messages import explain
from freightdesk.service.uploads import Upload, UploadQueue, UploadState
from freightdesk.ui.panes.documents.labels import size_text
from freightdesk.ui.widgets.shortcuts import add_key

_STATE_TEXT = {
    UploadState.QUEUED: "Waiting",
    UploadState.UPLOADING: "Uploading",
    UploadState.DONE: "Uploaded",
    UploadState.FAILED: "Failed",
    UploadState.CANCELLED: "Cancelled",
}
FILE, PROGRESS, STATUS, ACTIONS = range(4)
FRACTION_ROLE = Qt.ItemDataRole.UserRole + 1
CANCEL, RETRY, FIX = "Cancel", "Retry", "Fix…"
MAX_ROWS_SHOWN = 6


def refused(upload: Upload) -> bool:
    """The service refused what was sent: sending it again as it is would fail again."""
    return upload.state is UploadState.FAILED and isinstance(upload.error, BadRequest)


def too_large(upload: Upload) -> bool:
    """The file is over the service's size limit: no retry (and no form) can change that."""
    return upload.state is UploadState.FAILED and isinstance(upload.error, PayloadTooLarge)


def failure_text(upload: Upload) -> str:
    error = upload.error
    if isinstance(error, PayloadTooLarge):
        # The service names its limit in bytes; said in the units of the file's size.
        found = re.search(r"limit of (\d+) bytes", " ".join(e.message for e in error.errors))
        limit = f" of {size_text(int(found.group(1)))}" if found else ""
        return (
            f"{upload.path.name} ({size_text(upload.total)}) is over the service's size "
            f"limit{limit}; split or compress it"
        )
    return explain(error) if error is not None else ""


class ProgressDelegate(QStyledItemDelegate):
    """Paints a progress bar from the item's fraction (per mille)."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(4, 6, -4, -6)
        bar.minimum, bar.maximum = 0, 1000
        bar.progress = int(index.data(FRACTION_ROLE) or 0)
        bar.textVisible = False
        bar.state = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Horizontal
        style = option.widget.style() if option.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter)


class UploadsView(QWidget):
    fixRequested = Signal(object)  # Upload: reopen the form for a refused file
    allFinished = Signal(int, int)  # uploaded, failed: the last running upload ended

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.queue: UploadQueue | None = None
        self._unlisten: Callable[[], None] | None = None
        self._rows: dict[int, int] = {}
        self._normal_color = QTableWidgetItem().foreground()
        self._running = False
        # The uploads of this batch: those seen running since the queue was last idle, so
        # "3 files uploaded" counts them, not the files of earlier batches still listed.
        self._batch: set[int] = set()

        self.title = QLabel("Uploads", self)
        self.table = QTableWidget(0, 4, self)
        self.table.setObjectName("uploadsTable")
        self.table.setHorizontalHeaderLabels(["File", "Progress", "Status", ""])
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(28)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(FILE, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(PROGRESS, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(STATUS, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(ACTIONS, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setColumnWidth(FILE, 220)
        self.table.setColumnWidth(PROGRESS, 180)
        self.table.setItemDelegateForColumn(PROGRESS, ProgressDelegate(self.table))
        self.table.setMouseTracking(True)
        # Mnemonics the main window's menus (File, Edit) and the pane do not use.
        self.cancel_button = QPushButton("C&ancel upload", self)
        self.cancel_button.setToolTip("Cancel the selected uploads (Delete)")
        self.retry_button = QPushButton("Re&try", self)
        self.retry_button.setToolTip("Send the selected (or else every failed) file again")
        self.clear_button = QPushButton("Re&move finished", self)
        self.clear_button.setToolTip("Take the uploaded, failed and cancelled files off the list")
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.title)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.retry_button)
        buttons.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.table)
        add_key(self.table, QKeySequence.StandardKey.Delete, self.cancel_selected, "Cancel upload")
        for keys in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            add_key(self.table, keys, self.act_on_current, "Fix or retry the upload")
        self.cancel_button.clicked.connect(self.cancel_selected)
        self.retry_button.clicked.connect(self.retry_selected)
        self.clear_button.clicked.connect(self.clear_finished)
        self.table.cellClicked.connect(self._clicked)
        self.table.cellDoubleClicked.connect(lambda row, _column: self._act(row))
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.setVisible(False)

    def attach(self, queue: UploadQueue | None) -> None:
        if queue is self.queue:
            return
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self.queue = queue
        self.table.setRowCount(0)
        self._rows.clear()
        self._batch.clear()
        if queue is not None:
            self._unlisten = queue.listen(self.show_upload)
            for upload in queue.uploads.values():
                self.show_upload(upload)

    # --- rows ------------------------------------------------------------------------------

    def show_upload(self, upload: Upload) -> None:
        row = self._rows.get(upload.id)
        if row is None:
            row = self._add_row(upload)
        progress = self.table.item(row, PROGRESS)
        if progress is not None:
            # A refused or cancelled file did not arrive, however much of it was sent.
            arrived = upload.fraction if not upload.finished or upload.document else 0.0
            progress.setData(FRACTION_ROLE, int(arrived * 1000))
        status = _STATE_TEXT[upload.state]
        if upload.state is UploadState.UPLOADING:
            status += f" · {size_text(upload.sent)} of {size_text(upload.total)}"
        elif upload.state is UploadState.FAILED and upload.error is not None:
            status += f": {failure_text(upload)}"
        item = self.table.item(row, STATUS)
        if item is not None:
            item.setText(status)
            item.setToolTip(status)
            item.setForeground(
                Qt.GlobalColor.red if upload.state is UploadState.FAILED else self._normal_color
            )
        action = self.table.item(row, ACTIONS)
        if action is not None:
            if not upload.finished:
                action.setText(CANCEL)
                action.setToolTip(f"Cancel the upload of {upload.path.name}")
            elif too_large(upload):
                action.setText("")
                action.setToolTip("")
            elif refused(upload):
                action.setText(FIX)
                action.setToolTip(f"Correct what the service refused and upload {upload.path.name}")
            elif upload.state in (UploadState.FAILED, UploadState.CANCELLED):
                action.setText(RETRY)
                action.setToolTip(f"Upload {upload.path.name} again")
            else:
                action.setText("")
                action.setToolTip("")
        self._update_title()

    def _add_row(self, upload: Upload) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self._rows[upload.id] = row
        name = QTableWidgetItem(upload.path.name)
        name.setToolTip(str(upload.path))
        name.setData(Qt.ItemDataRole.UserRole, upload.id)
        self.table.setItem(row, FILE, name)
        self.table.setItem(row, PROGRESS, QTableWidgetItem())
        self.table.setItem(row, STATUS, QTableWidgetItem(""))
        action = QTableWidgetItem("")
        action.setForeground(self.palette().link())
        self.table.setItem(row, ACTIONS, action)
        self.setVisible(True)
        self._fit_height()
        return row

    def _fit_height(self) -> None:
        """As tall as its rows (up to six, then it scrolls): the results keep the room."""
        rows = min(max(self.table.rowCount(), 1), MAX_ROWS_SHOWN)
        frame = 2 * self.table.frameWidth()
        header = self.table.horizontalHeader().sizeHint().height()
        row_height = self.table.verticalHeader().defaultSectionSize()
        self.table.setFixedHeight(frame + header + rows * row_height)

    def _clicked(self, row: int, column: int) -> None:
        """The action cell of a row: cancel it while it runs, retry it once failed."""
        item, action = self.table.item(row, FILE), self.table.item(row, ACTIONS)
        if column != ACTIONS or item is None or action is None or self.queue is None:
            return
        upload_id = int(item.data(Qt.ItemDataRole.UserRole))
        if action.text() == CANCEL:
            self.queue.cancel(upload_id)
        elif action.text() == RETRY:
            self.queue.retry(upload_id)
        elif action.text() == FIX:
            self._act(row)

    def _act(self, row: int) -> None:
        """Return (or a double click) on a row: fix a refused file, retry a failed one."""
        item = self.table.item(row, FILE)
        if item is None or self.queue is None:
            return
        upload = self.queue.uploads.get(int(item.data(Qt.ItemDataRole.UserRole)))
        if upload is None:
            return
        if refused(upload):
            self.fixRequested.emit(upload)
        elif upload.state in (UploadState.FAILED, UploadState.CANCELLED) and not too_large(upload):
            self.queue.retry(upload.id)

    def act_on_current(self) -> None:
        self._act(self.table.currentRow())

    def _update_title(self) -> None:
        queue = self.queue
        if queue is None:
            return
        active = queue.active
        failed = sum(1 for u in queue.uploads.values() if u.state is UploadState.FAILED)
        done = sum(1 for u in queue.uploads.values() if u.state is UploadState.DONE)
        parts = [f"{active} uploading" if active else "all finished"]
        if done:
            parts.append(f"{done} uploaded")
        if failed:
            parts.append(f"{failed} failed")
        self.title.setText("Uploads: " + ", ".join(parts))
        self._update_buttons()
        self._batch.update(u.id for u in queue.uploads.values() if not u.finished)
        if active:
            self._running = True
        elif self._running:
            self._running = False
            batch = [u for i in self._batch if (u := queue.uploads.get(i)) is not None]
            self._batch.clear()
            self.allFinished.emit(
                sum(1 for u in batch if u.state is UploadState.DONE),
                sum(1 for u in batch if u.state is UploadState.FAILED),
            )

    def _update_buttons(self) -> None:
        queue = self.queue
        uploads = [] if queue is None else [queue.uploads.get(i) for i in self.selected_ids()]
        chosen = [u for u in uploads if u is not None]
        everything = [] if queue is None else list(queue.uploads.values())
        again = (UploadState.FAILED, UploadState.CANCELLED)
        self.cancel_button.setEnabled(any(not u.finished for u in chosen))
        self.retry_button.setEnabled(
            any(u.state in again and not too_large(u) for u in chosen or everything)
        )
        self.clear_button.setEnabled(any(u.finished for u in everything))

    # --- actions ---------------------------------------------------------------------------

    def selected_ids(self) -> list[int]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        ids = []
        for row in rows:
            item = self.table.item(row, FILE)
            if item is not None:
                ids.append(int(item.data(Qt.ItemDataRole.UserRole)))
        return ids

    def cancel_selected(self) -> None:
        if self.queue is not None:
            for upload_id in self.selected_ids():
                self.queue.cancel(upload_id)

    def retry_selected(self) -> None:
        """Send the selected files again (else every failed one); a file the service refused
        is opened for fixing instead, since it would be refused again."""
        queue = self.queue
        if queue is None:
            return
        selected = [u for i in self.selected_ids() if (u := queue.uploads.get(i)) is not None]
        chosen = selected or [
            u
            for u in queue.uploads.values()
            if u.state in (UploadState.FAILED, UploadState.CANCELLED)
        ]
        to_fix = [u for u in chosen if refused(u)]
        for upload in chosen:
            if not refused(upload) and not too_large(upload):
                queue.retry(upload.id)
        if to_fix and (selected or len(to_fix) == len(chosen)):
            self.fixRequested.emit(to_fix[0])

    def clear_finished(self) -> None:
        if self.queue is None:
            return
        self.queue.forget_finished()
        self.table.setRowCount(0)
        self._rows.clear()
        for upload in self.queue.uploads.values():
            self.show_upload(upload)
        self.setVisible(bool(self.queue.uploads))
        self._fit_height()

    def shutdown(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
