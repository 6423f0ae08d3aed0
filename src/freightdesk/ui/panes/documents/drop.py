"""Dropping files onto an open shipment uploads them as that shipment's documents.

Installed by `ui/panes/setup.py` on the Shipments pane's detail view, as an event filter, so
the detail view needs no code of its own: the upload dialog opens with the shipment's
identifiers (those documents accept) and its mode prefilled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDragEnterEvent
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


class DropHint(QObject):
    """Says what a drop will do while files hover over the pane: the file drop filter
    handles the drag and shows nothing; this sees the drag events first and passes them on.
    Install it after the drop filter (Qt asks the filter installed last first)."""

    def __init__(self, label: QLabel, widgets: list[QWidget]) -> None:
        super().__init__(label)
        self.label = label
        self.idle_text = label.text()
        self.idle_style = label.styleSheet()
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind == QEvent.Type.DragEnter:
            assert isinstance(event, QDragEnterEvent)
            count = len(local_files(event.mimeData()))
            if count:
                files = "this file" if count == 1 else f"these {count} files"
                self.label.setText(f"Release to upload {files} as documents")
                self.label.setStyleSheet(HOVER_STYLE)
        elif kind in (QEvent.Type.DragLeave, QEvent.Type.Drop):
            self.label.setText(self.idle_text)
            self.label.setStyleSheet(self.idle_style)
        return False
