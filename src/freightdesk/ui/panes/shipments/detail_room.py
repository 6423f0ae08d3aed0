"""The shipment detail's room: the timeline's columns, the Overview scrolled. Below the list
(1366 and 1440 px) the detail is wide and low; beside it (1920 px) narrow and high."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QHeaderView,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QWidget,
)

from freightdesk.ui.widgets.wrapping import wrap_column

# The timeline's columns. `WHEN` is the narrow timeline's one time column.
EVENT, ACTUAL, PLANNED, ESTIMATED, SOURCE, WHEN = range(6)
HEADERS = ["Event", "Actual", "Planned", "Estimated", "Source", "Time"]
# In the narrow one, a row's time: what happened, else what is expected, else what was planned.
_WHEN_ORDER = ((ACTUAL, "Actual"), (ESTIMATED, "Estimated"), (PLANNED, "Planned"))


class TimelineColumns(QObject):
    """The timeline reads as a tracking tool's: the Event column takes the room the times
    leave it (so its texts wrap onto two lines at most), each time column is as wide as its
    times, and a column with nothing in it for this shipment takes no room. Where the times
    would leave the events less than `EVENT_LEAST` (beside the list at 1920 px, beside the
    map at 1366 and 1440 px), one Time column stands for the three, the others in its
    tooltip."""

    EVENT_LEAST = 330

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self._tree = tree
        self.narrow = False
        self._used: set[int] = set()  # the columns with something in them
        tree.installEventFilter(self)

    def refit(self) -> None:
        """After the timeline is filled: the narrow column's times, the columns shown."""
        tree = self._tree
        used: set[int] = set()
        found = QTreeWidgetItemIterator(tree)
        while (item := found.value()) is not None:
            used.update(c for c in (ACTUAL, PLANNED, ESTIMATED, SOURCE) if item.text(c))
            _fill_when(item)
            found += 1
        self._used = used
        self._lay_out()

    def _lay_out(self) -> None:
        tree = self._tree
        used = self._used
        times = sum(tree.sizeHintForColumn(c) for c in used)
        # The room whether or not the scroll bar shows: a row wrapping onto fewer lines can
        # hide it, and the columns must not then flip back and forth.
        room = tree.width() - 2 * tree.frameWidth() - tree.verticalScrollBar().sizeHint().width()
        depth = 2 if tree.rootIsDecorated() else 1  # an event sits under its stop
        narrow = room - times - depth * tree.indentation() < self.EVENT_LEAST
        self.narrow = narrow
        for column in (ACTUAL, PLANNED, ESTIMATED, SOURCE):
            tree.setColumnHidden(column, narrow or column not in used)
        timed = bool(used & {ACTUAL, PLANNED, ESTIMATED})
        tree.setColumnHidden(WHEN, not narrow or not timed)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self._tree and event.type() == QEvent.Type.Resize:
            self._lay_out()
        return super().eventFilter(watched, event)


def _fill_when(item: QTreeWidgetItem) -> None:
    """The narrow timeline's time of `item`: an expected or planned one in italics, each of
    the row's times named in the tooltip."""
    named = [(c, label) for c, label in _WHEN_ORDER if item.text(c)]
    if not named:
        return
    column = named[0][0]
    item.setText(WHEN, item.text(column))
    font = QFont(item.font(column))
    font.setItalic(column != ACTUAL)
    item.setFont(WHEN, font)
    item.setForeground(WHEN, item.foreground(column))
    item.setToolTip(
        WHEN,
        "\n".join(item.toolTip(c) or f"{name} {item.text(c)}" for c, name in sorted(named)),
    )


def set_up_timeline(timeline: QTreeWidget) -> TimelineColumns:
    timeline.setHeaderLabels(HEADERS)
    timeline.headerItem().setToolTip(
        WHEN, "When it happened; else, in italics, when it is expected or was planned"
    )
    timeline.setAlternatingRowColors(True)
    header = timeline.header()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(EVENT, QHeaderView.ResizeMode.Stretch)
    wrap_column(timeline, EVENT)  # an exception's text is read whole, never cut
    columns = TimelineColumns(timeline)
    columns.refit()
    return columns


def scrolled(page: QWidget) -> QScrollArea:
    """`page` in a scroll area: low in the detail below the list, a long page (the Overview,
    Sharing) scrolls where it would otherwise be squeezed (the tabs ask for no page's
    height: see `size_to_current_tab`)."""
    area = QScrollArea(page.parentWidget())
    area.setObjectName(f"{page.objectName()}Scroll")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(page)
    return area
