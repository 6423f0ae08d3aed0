"""Cut cells tell their whole text: a cell whose text is elided (the column too narrow for it)
shows the whole text as its tooltip, unless the model gives a tooltip of its own.

`tip_elided(table)` is the one way a table gets this; `is_elided` says whether a cell is cut.
`cut_at_end(view, column)` cuts one column's texts at their end, whatever the view's mode;
`shorten(view, column, forms)` shows a column's texts in the longest of their shorter forms
that fits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

Index = QModelIndex | QPersistentModelIndex


class ElidedTipDelegate(QStyledItemDelegate):
    """Paints as the default delegate; a cut cell's tooltip is its whole text."""

    def helpEvent(  # noqa: N802 (Qt's name)
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: Index,
    ) -> bool:
        if (
            event.type() == QEvent.Type.ToolTip
            and index.isValid()
            and not index.data(Qt.ItemDataRole.ToolTipRole)
            and self.cut(option, index, view)
        ):
            text = str(index.data(Qt.ItemDataRole.DisplayRole))
            QToolTip.showText(event.globalPos(), text, view, option.rect)
            return True
        return super().helpEvent(event, view, option, index)

    def cut(self, option: QStyleOptionViewItem, index: Index, widget: QWidget | None) -> bool:
        """Whether the cell's text is wider than the room its column gives it."""
        text = index.data(Qt.ItemDataRole.DisplayRole)
        if not isinstance(text, str) or not text:
            return False
        styled = QStyleOptionViewItem(option)
        self.initStyleOption(styled, index)
        style = widget.style() if widget is not None else QApplication.style()
        room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, styled, widget)
        return styled.fontMetrics.horizontalAdvance(text) > room.width()


class _CutAtEnd(ElidedTipDelegate):
    """Cut at the end, the whole text in the tooltip as every cut cell's."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight


def cut_at_end(view: QAbstractItemView, column: int) -> None:
    """Cut the long texts of `view`'s `column` at their end ("Departed from Chicago Lo…"),
    for a text read from its start; the view's elide mode stays that of its other columns."""
    view.setItemDelegateForColumn(column, _CutAtEnd(view))


class _Shortened(ElidedTipDelegate):
    """A cell in the longest of its forms that fits its room, else the shortest (cut as the
    view cuts); the whole text in the tooltip as every cut cell's."""

    def __init__(
        self,
        view: QAbstractItemView,
        forms: Callable[[Index], Sequence[str]],
        mode: Qt.TextElideMode | None = None,
    ) -> None:
        super().__init__(view)
        self._forms = forms
        self._mode = mode

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        if self._mode is not None:
            option.textElideMode = self._mode
        forms = self._forms(index)
        if option.rect.width() <= 0 or not forms:
            return  # asked its size: the whole text's
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, widget)
        # As the style draws the text: inside a margin on each side.
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        width = room.width() - 2 * margin
        metrics = option.fontMetrics
        fitting = (
            f for f in forms if metrics.elidedText(f, Qt.TextElideMode.ElideRight, width) == f
        )
        option.text = next(fitting, forms[-1])


def shorten(
    view: QAbstractItemView,
    column: int,
    forms: Callable[[Index], Sequence[str]],
    *,
    at_end: bool = False,
) -> None:
    """Show each cell of `view`'s `column` in the longest of its `forms` (longest first) that
    fits the column, the shortest cut where none does (`at_end`: cut at its end, for a text
    read from its start, whatever the view's mode): a sailing's route drops its vessels'
    details before its ports ("CNSHA → SGSIN → NLRTM" rather than "CNSHA → […] → NLRTM")."""
    mode = Qt.TextElideMode.ElideRight if at_end else None
    view.setItemDelegateForColumn(column, _Shortened(view, forms, mode))


def tip_elided(view: QAbstractItemView) -> ElidedTipDelegate:
    """Give every cut cell of `view` its whole text as a tooltip."""
    delegate = ElidedTipDelegate(view)
    view.setItemDelegate(delegate)
    return delegate


def is_elided(view: QAbstractItemView, index: QModelIndex) -> bool:
    """Whether the cell at `index` shows its text cut (as `view` lays it out now)."""
    option = QStyleOptionViewItem()
    option.initFrom(view)
    option.rect = view.visualRect(index)
    delegate = view.itemDelegateForIndex(index)
    if not isinstance(delegate, ElidedTipDelegate):
        delegate = ElidedTipDelegate()
    return delegate.cut(option, index, view)
