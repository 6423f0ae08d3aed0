"""The table of documents, and dragging documents out to the file manager.

A drag carries `file://` URLs of local copies (downloaded once into the profile's files
directory). Copies not yet on this computer are fetched when the drag starts and join the
next drag; the pane downloads the selected document's copy for its preview anyway, so a
document someone looked at is ready to be dragged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QMimeData, QModelIndex, QObject, QPersistentModelIndex, Qt, QUrl

from freightdesk.models.code_words import mode_short, mode_text
from freightdesk.models.documents import SHIPPER_TENANT_UUID, Document
from freightdesk.service.clock import user_time
from freightdesk.ui.panes.documents.labels import (
    identifier_type_text,
    size_text,
    type_text,
)
from freightdesk.ui.widgets.listing import Column, ListingModel

Index = QModelIndex | QPersistentModelIndex


def identifiers_text(document: Document) -> str:
    """Every identifier, typed as the service names it (an export)."""
    return ", ".join(
        f"{i.type}: {i.value}" for i in document.identifiers if i.type != SHIPPER_TENANT_UUID
    )


def identifiers_tip(document: Document) -> str:
    """Every identifier in the list's words ("PO: 4525248675"), over its cell."""
    return ", ".join(
        f"{identifier_type_text(i.type)}: {i.value}"
        for i in document.identifiers
        if i.type != SHIPPER_TENANT_UUID
    )


def identifiers_short(document: Document) -> str:
    """The identifiers the name does not already say, short ("PO 4525248675" beside
    "BOL-06141412488973840.pdf"); all of them when it says every one."""
    shown = [i for i in document.identifiers if i.type != SHIPPER_TENANT_UUID]
    others = [i for i in shown if i.value not in document.name] or shown
    return ", ".join(f"{identifier_type_text(i.type)} {i.value}" for i in others)


COLUMNS: list[Column[Document]] = [
    # Each as wide as its texts (the pane fits them, from the least width given here to its
    # `most`), Name to Added whole beside the preview in a 1366 px window: the pane's split
    # gives the list their room. Cut cells tell their whole text.
    # The name is what a dispatcher reads first: a name as the carriers write them
    # ("BOL-06141412488973840.pdf") whole, a longer one cut in its middle; the identifiers
    # say what it does not, short, whole ("Container AZMU0371234, Booking 444768388").
    Column("Name", lambda d: d.name, 160, tooltip=lambda d: d.name, most=220),
    Column("Type", lambda d: type_text(d.type), 70),
    Column("Mode", lambda d: mode_short(d.mode), 50, tooltip=lambda d: mode_text(d.mode)),
    Column(
        "Identifiers",
        identifiers_short,
        140,
        tooltip=identifiers_tip,
        value=identifiers_text,
    ),
    Column(
        "Added",
        lambda d: user_time(d.created_date_time),
        100,
        value=lambda d: d.created_date_time,
    ),
    Column("Added by", lambda d: d.added_by_company or "", 100),
    Column("Size", lambda d: size_text(d.files[0].size) if d.files else "", 60),
]


class DocumentTableModel(ListingModel[Document]):
    def __init__(
        self,
        local_copy: Callable[[Document], Path | None],
        prepare: Callable[[list[Document]], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(COLUMNS, parent)
        self._local_copy = local_copy
        self._prepare = prepare

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid():
            flags |= Qt.ItemFlag.ItemIsDragEnabled
        return flags

    def mimeTypes(self) -> list[str]:  # noqa: N802 (Qt's name)
        return ["text/uri-list"]

    def supportedDragActions(self) -> Qt.DropAction:  # noqa: N802 (Qt's name)
        return Qt.DropAction.CopyAction

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:  # noqa: N802 (Qt's name)
        rows = sorted({index.row() for index in indexes if index.isValid()})
        documents = [d for r in rows if (d := self.item_at(r)) is not None]
        ready: list[Path] = []
        missing: list[Document] = []
        for document in documents:
            path = self._local_copy(document)
            if path is None:
                missing.append(document)
            else:
                ready.append(path)
        if missing:
            self._prepare(missing)
        mime = QMimeData()
        if ready:
            mime.setUrls([QUrl.fromLocalFile(str(path)) for path in ready])
        return mime
