"""A tree's column whose long text wraps onto more lines (the row grows) instead of being cut
with "…": the shipment timeline's exception and event texts are read in full."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTreeView

# Tall enough for any wrapped text: the style measures within it, the row takes what it needs.
_TALL = 100_000


class _Wrapping(QStyledItemDelegate):
    def __init__(self, tree: QTreeView) -> None:
        super().__init__(tree)
        self._tree = tree
        tree.header().sectionResized.connect(self._relayout)

    def _relayout(self) -> None:
        self._tree.doItemsLayout()

    def sizeHint(  # noqa: N802 (Qt's name)
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        # A tree asks without the column's width, so text would measure as one line: give
        # the width the text really has (the column less the indentation in the first).
        measured = QStyleOptionViewItem(option)
        self.initStyleOption(measured, index)
        width = self._tree.header().sectionSize(index.column())
        if index.column() == 0:
            depth = 1 if self._tree.rootIsDecorated() else 0
            parent = index.parent()
            while parent.isValid():
                depth += 1
                parent = parent.parent()
            width -= self._tree.indentation() * depth
        measured.rect.setWidth(max(width, 16))
        measured.rect.setHeight(_TALL)
        measured.features |= QStyleOptionViewItem.ViewItemFeature.WrapText
        size = self._tree.style().sizeFromContents(
            QStyle.ContentsType.CT_ItemViewItem, measured, QSize(), self._tree
        )
        return QSize(max(width, 16), size.height())


def wrap_column(tree: QTreeView, column: int) -> None:
    """`column`'s text wraps at the column's width; rows re-measure when a column is resized."""
    tree.setWordWrap(True)
    tree.setTextElideMode(Qt.TextElideMode.ElideNone)
    tree.setItemDelegateForColumn(column, _Wrapping(tree))
