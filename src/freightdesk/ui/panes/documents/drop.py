"""Dropping files onto an open shipment uploads them as that shipment's documents.

Installed by `ui/panes/setup.py` on the Shipments pane's detail view, as an event filter, so
the detail view needs no code of its own: the upload dialog opens with the shipment's
identifiers (those documents accept) and its mode prefilled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from freightdesk.models.common import LogisticsIdentifier
from freightdesk.models.documents import DOCUMENT_IDENTIFIER_TYPES, DocumentMode
from freightdesk.models.tracking import TrackingHistory
from freightdesk.ui.widgets.file_drop import FileDropFilter


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
