"""Whether a line edit's placeholder, or its text, reads whole, as Qt draws it."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDateTimeEdit,
    QLineEdit,
    QStyle,
    QStyleOptionFrame,
    QToolButton,
    QWidget,
)


def placeholder_whole(edit: QLineEdit) -> bool:
    """Whether `edit`'s placeholder reads whole: the room Qt draws it in (the contents less
    the text margins, the visible side buttons and its 2 px each side) holds it."""
    return edit.fontMetrics().horizontalAdvance(edit.placeholderText()) <= _room(edit)


def text_whole(edit: QLineEdit) -> bool:
    """Whether what is typed in `edit` reads whole, in the same room as its placeholder."""
    return edit.fontMetrics().horizontalAdvance(edit.text()) <= _room(edit)


def _room(edit: QLineEdit) -> int:
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    contents = edit.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, edit)
    margins = edit.textMargins()
    room = contents.width() - margins.left() - margins.right() - 4
    return room - sum(b.width() for b in edit.findChildren(QToolButton) if b.isVisibleTo(edit))


def hints_cut(form: QWidget) -> list[str]:
    """The hints shown in empty fields of `form` that do not read whole (`placeholder_whole`)."""
    return [
        edit.placeholderText()
        for edit in form.findChildren(QLineEdit)
        if edit.isVisible()
        and edit.placeholderText()
        and not edit.text()
        and not placeholder_whole(edit)
    ]


def dates_cut(form: QWidget) -> list[str]:
    """The days and times shown in date editors of `form` that do not read whole (the
    clock's `Nov 30 2026` is wider than `2026-11-30`)."""
    return [
        edit.text()
        for edit in form.findChildren(QDateTimeEdit)
        if edit.isVisible()
        and isinstance(line := edit.findChild(QLineEdit), QLineEdit)
        and not text_whole(line)
    ]
