"""Sort arrows that point the way the rows go: down while the highest (or last) come first.

Qt's Fusion style draws a descending sort as an arrow pointing up (Qt hands the style
`SortUp` for a descending order), which reads as "lowest first" beside rows that go down.
`arrow_follows_order(view)` gives a table's header a style that draws the arrow the other way;
nothing else about the header or its sort order changes.
"""

from __future__ import annotations

from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QApplication,
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QStyleOption,
    QStyleOptionHeader,
    QTableView,
    QWidget,
)

_FLIPPED = {
    QStyleOptionHeader.SortIndicator.SortUp: QStyleOptionHeader.SortIndicator.SortDown,
    QStyleOptionHeader.SortIndicator.SortDown: QStyleOptionHeader.SortIndicator.SortUp,
}


class ArrowFollowsOrder(QProxyStyle):
    def drawPrimitive(  # noqa: N802 (Qt's name)
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element == QStyle.PrimitiveElement.PE_IndicatorHeaderArrow and isinstance(
            option, QStyleOptionHeader
        ):
            flipped = QStyleOptionHeader(option)
            flipped.sortIndicator = _FLIPPED.get(option.sortIndicator, option.sortIndicator)
            option = flipped
        super().drawPrimitive(element, option, painter, widget)


def arrow_follows_order(view: QTableView) -> None:
    """Draw `view`'s sort arrow down for a descending order, up for an ascending one."""
    header = view.horizontalHeader()
    style = ArrowFollowsOrder(QStyleFactory.create(QApplication.style().name()))
    style.setParent(header)  # the header does not own a style set on it
    header.setStyle(style)
