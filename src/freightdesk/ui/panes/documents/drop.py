"""Dropping files onto an open shipment uploads them as that shipment's documents.

Installed by `ui/panes/setup.py` on the Shipments pane's detail view, as an event filter, so
the detail view needs no code of its own: the upload dialog opens with the shipment's
identifiers (those documents accept) and its mode prefilled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt
from PySide6.QtGui import QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QLabel, QWidget

from freightdesk.models.common import LogisticsIdentifier
from freightdesk.models.documents import DOCUMENT_IDENTIFIER_TYPES, DocumentMode
from freightdesk.models.tracking import TrackingHistory
from freightdesk.ui.widgets.file_drop import FileDropFilter, local_files


def document_identifiers(identifiers: Iterable[LogisticsIdentifier]) -> list[tuple[str, str]]:
    """A shipment's identifiers that a document can carry, in order, without repeats."""
    found: list[tuple[str, str]] = []
    for identifier in identifiers:
        pair = (identifier.type, identifier.value)
        if identifier.type in DOCUMENT_IDENTIFIER_TYPES and pair not in found:
            found.append(pair)
    return found


def document_mode(history: TrackingHistory) -> DocumentMode | None:
    plan = history.shipment.plan
    for mode in plan.expected_transportation_modes if plan else []:
        try:
            return DocumentMode(mode.value)
        except ValueError:
            continue  # VLTL has no document mode
    return None


UploadRequest = Callable[[list[Path], list[tuple[str, str]], DocumentMode | None, str], object]


class ShipmentDocumentDrop(QObject):
    """Accepts files dropped on a view showing a shipment; hands them to `request`."""

    def __init__(self, view: QWidget, request: UploadRequest) -> None:
        super().__init__(view)
        self.view = view
        self.request = request
        self.filter = FileDropFilter(self, accepts=self._showing_shipment)
        self.filter.install(view)
        self.filter.filesDropped.connect(self._dropped)

    def _history(self) -> TrackingHistory | None:
        # The detail view keeps the history of the shipment it shows in `history`.
        history = getattr(self.view, "history", None)
        return history if isinstance(history, TrackingHistory) else None

    def _showing_shipment(self) -> bool:
        return self._history() is not None

    def _dropped(self, files: list[Path]) -> None:
        history = self._history()
        if history is None:
            return
        shipment = history.shipment
        label = shipment.identifiers[0].value if shipment.identifiers else str(shipment.id)
        self.request(
            files,
            document_identifiers(shipment.identifiers),
            document_mode(history),
            f"For shipment {label}",
        )


HOVER_STYLE = (
    "background: palette(highlight); color: palette(highlighted-text); "
    "padding: 6px; font-weight: bold;"
)
REFUSE_STYLE = "background: #d0453a; color: white; padding: 6px; font-weight: bold;"


def refusal(mime: QMimeData | None) -> str | None:
    """Why a drag cannot become uploads, in a word for the user; None when it carries
    files (then what it also carries that is not a file is named by `skipped`), or
    nothing a user would have meant to drop (an app's own formats)."""
    if mime is None or local_files(mime):
        return None
    urls = mime.urls() if mime.hasUrls() else []
    if urls:
        local = [Path(url.toLocalFile()) for url in urls if url.isLocalFile()]
        folders = [path for path in local if path.is_dir()]
        if len(folders) == 1:
            name = folders[0].name or str(folders[0])
            return f"{name} is a folder: only files can be uploaded. Drop the files in it."
        if folders:
            return "These are folders: only files can be uploaded. Drop the files in them."
        if local:
            return "That file cannot be read: only existing files can be uploaded."
        return "Only files on this computer can be uploaded: save the linked file first."
    if mime.hasText():
        return "Text cannot be uploaded as a document: save it as a file, then drop the file."
    return None


def skipped(mime: QMimeData | None) -> str | None:
    """What a drag of files also carries that will not be uploaded (folders, links)."""
    if mime is None or not mime.hasUrls():
        return None
    files = local_files(mime)
    left = len(mime.urls()) - len(files)
    if not files or left <= 0:
        return None
    if left == 1:
        return "1 dropped item is not a file (a folder or a link): it is left out."
    return f"{left} dropped items are not files (folders or links): they are left out."


class DropHint(QObject):
    """Says what a drop will do while a drag hovers over the pane, in a bar laid over the
    bottom of the pane: a child outside every layout, so nothing changes size while the
    drag hovers (a hint that grew in the layout squeezed the preview into its relayout
    loop). A drag of folders or text is let in and its drop refused with a word (passed to
    `refuse`), instead of the forbidden cursor alone; a drag of files is passed on to the
    file drop filter. Install it after the drop filter (Qt asks the last installed first)."""

    def __init__(
        self, pane: QWidget, widgets: list[QWidget], refuse: Callable[[str], object]
    ) -> None:
        super().__init__(pane)
        self.pane = pane
        self.refuse = refuse
        self.bar = QLabel(pane)
        self.bar.setObjectName("dropHover")
        self.bar.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.bar.setWordWrap(True)
        self.bar.setVisible(False)
        pane.installEventFilter(self)
        for widget in widgets:
            widget.installEventFilter(self)

    def _place(self) -> None:
        margin = 8
        width = max(0, self.pane.width() - 2 * margin)
        height = self.bar.heightForWidth(width)
        height = height if height > 0 else self.bar.sizeHint().height()
        self.bar.setGeometry(margin, self.pane.height() - height - margin, width, height)

    def _show(self, text: str, style: str) -> None:
        self.bar.setText(text)
        self.bar.setStyleSheet(style)
        self._place()
        self.bar.show()
        self.bar.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind == QEvent.Type.Resize and watched is self.pane:
            if self.bar.isVisible():
                self._place()
        elif kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragMoveEvent)  # a drag enter event is one too
            mime = event.mimeData()
            why = refusal(mime)
            if why is not None:
                if kind == QEvent.Type.DragEnter:
                    self._show(why, REFUSE_STYLE)
                event.acceptProposedAction()  # dropped, it is refused with this word
                return True
            count = len(local_files(mime))
            if kind == QEvent.Type.DragEnter and count:
                files = "this file" if count == 1 else f"these {count} files"
                self._show(f"Release to upload {files} as documents", HOVER_STYLE)
        elif kind == QEvent.Type.DragLeave:
            self.bar.hide()
        elif kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            self.bar.hide()
            mime = event.mimeData()
            why = refusal(mime) or skipped(mime)
            if why is not None:
                self.refuse(why)
            if local_files(mime):
                return False  # the drop filter uploads them
            if why is not None:
                event.ignore()  # the source learns that nothing was taken
                return True
        return False
