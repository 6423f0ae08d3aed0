"""Whether a line edit's placeholder reads whole, as Qt draws it."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QStyle, QStyleOptionFrame, QToolButton


def placeholder_whole(edit: QLineEdit) -> bool:
    """Whether `edit`'s placeholder reads whole: the room Qt draws it in (the contents less
    the text margins, the visible side buttons and its 2 px each side) holds it."""
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    contents = edit.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, edit)
    margins = edit.textMargins()
    room = contents.width() - margins.left() - margins.right() - 4
    room -= sum(b.width() for b in edit.findChildren(QToolButton) if b.isVisibleTo(edit))
    return edit.fontMetrics().horizontalAdvance(edit.placeholderText()) <= room
