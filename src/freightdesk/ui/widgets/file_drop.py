"""Dropping files from the file manager onto any widget, as an event filter.

`FileDropFilter.install(widget)` makes `widget` (and, for tables and other scroll areas, its
viewport) accept drags that carry local files, highlights it while such a drag hovers, and
emits `filesDropped` with the paths. A widget it is installed on needs no code of its own,
which is how a drop onto another pane's view is handled without editing that pane.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

HIGHLIGHT_PROPERTY = "fileDropHover"


def local_files(mime: QMimeData | None) -> list[Path]:
    """The local files (not folders, not web links) a drag carries."""
    if mime is None or not mime.hasUrls():
        return []
    found: list[Path] = []
    for url in mime.urls():
        if not url.isLocalFile():
            continue
        path = Path(url.toLocalFile())
        if path.is_file():
            found.append(path)
    return found


class FileDropFilter(QObject):
    filesDropped = Signal(list)  # list[Path]

    def __init__(
        self, parent: QObject | None = None, *, accepts: Callable[[], bool] | None = None
    ) -> None:
        super().__init__(parent)
        self._accepts = accepts or (lambda: True)
        self._widgets: list[QWidget] = []

    def install(self, widget: QWidget) -> None:
        targets = [widget]
        if isinstance(widget, QAbstractScrollArea):
            targets.append(widget.viewport())
        for target in targets:
            target.setAcceptDrops(True)
            target.installEventFilter(self)
            self._widgets.append(target)

    def _highlight(self, on: bool) -> None:
        for widget in self._widgets:
            widget.setProperty(HIGHLIGHT_PROPERTY, on)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent | QDragMoveEvent)
            if self._accepts() and local_files(event.mimeData()):
                event.acceptProposedAction()
                self._highlight(True)
            else:
                event.ignore()
            return True
        if kind == QEvent.Type.DragLeave:
            self._highlight(False)
            return True
        if kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            self._highlight(False)
            files = local_files(event.mimeData())
            if not files or not self._accepts():
                event.ignore()
                return True
            event.acceptProposedAction()
            self.filesDropped.emit(files)
            return True
        return False
