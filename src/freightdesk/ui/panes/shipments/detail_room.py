"""The shipment detail's room: the timeline's columns, the Overview scrolled. Below the list
(1366 and 1440 px) the detail is wide and low; beside it (1920 px) narrow and high."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QFrame, QHeaderView, QScrollArea, QTreeWidget, QWidget

from freightdesk.ui.widgets.wrapping import wrap_column


class EventWidth(QObject):
    """The timeline's Event column takes the room its three times and the source leave it
    (`LEAST` to `MOST`), so that a wide detail (below the list at 1366 and 1440 px) does not
    wrap the events into tall rows; once the user drags the column its width is the user's."""

    LEAST = 150
    MOST = 420
    SOURCE = 100

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self._tree = tree
        self._sizing = False
        self._chosen = False
        tree.viewport().installEventFilter(self)
        tree.header().sectionResized.connect(self._resized)

    def _resized(self, index: int, _old: int, _new: int) -> None:
        if index == 0 and not self._sizing:
            self._chosen = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize and not self._chosen:
            header = self._tree.header()
            time = self._tree.fontMetrics().horizontalAdvance("Nov 27 06:43 UTC") + 12
            times = sum(max(time, header.sectionSize(c)) for c in (1, 2, 3))
            room = self._tree.viewport().width() - times - self.SOURCE
            width = max(self.LEAST, min(room, self.MOST))
            if header.sectionSize(0) != width:
                self._sizing = True
                try:
                    header.resizeSection(0, width)
                finally:
                    self._sizing = False
        return super().eventFilter(watched, event)


def set_up_timeline(timeline: QTreeWidget) -> None:
    timeline.setHeaderLabels(["Event", "Actual", "Planned", "Estimated", "Source"])
    timeline.setAlternatingRowColors(True)
    header = timeline.header()
    header.setStretchLastSection(True)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    # The event text gets a readable width the user can drag; times fit their contents.
    # It wraps, so a narrow one keeps the times in sight beside the list (1920 px).
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
    header.resizeSection(0, EventWidth.LEAST)
    wrap_column(timeline, 0)  # an exception's text is read whole, never cut
    EventWidth(timeline)


def scrolled(page: QWidget) -> QScrollArea:
    """`page` in a scroll area: low in the detail below the list, a long Overview would
    otherwise push the list (and the tabs) up and down from shipment to shipment."""
    area = QScrollArea(page.parentWidget())
    area.setObjectName(f"{page.objectName()}Scroll")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(page)
    return area
