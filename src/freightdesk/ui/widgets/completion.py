"""A line edit's completer that does not stand between the user and the form.

Qt's completion popup takes the mouse while it is open: the first click beside it only closes
it, so a click on Search after typing a port searched nothing (the user clicked twice).
`ClickThrough` lets that click do what it was aimed at, the completion the user highlighted
taken first; `sole_completion` is the one completion left for what is typed ("Hamb" is
Hamburg), for a search that would otherwise refuse a name typed in part.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QAbstractButton, QCompleter, QLineEdit, QWidget


class ClickThrough(QObject):
    """A press outside `completer`'s popup closes it, puts the highlighted completion (if
    any) into the edit, and reaches what was clicked: a button is clicked, any other widget
    takes the focus."""

    def __init__(self, completer: QCompleter) -> None:
        super().__init__(completer)
        self.completer = completer
        popup = completer.popup()
        assert popup is not None  # a completer makes its popup with it
        # Installed after the completer's own filter, so it sees the press first.
        popup.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        popup = self.completer.popup()
        if popup is None or watched is not popup or event.type() != QEvent.Type.MouseButtonPress:
            return False
        assert isinstance(event, QMouseEvent)
        if popup.rect().contains(event.position().toPoint()):
            return False  # a completion picked: the completer's own work
        edit = self.completer.widget()
        if edit is None:
            return False
        window = edit.window()
        target = window.childAt(window.mapFromGlobal(event.globalPosition().toPoint()))
        if target is None or target is edit or edit.isAncestorOf(target):
            return False  # the edit itself (its clear button): Qt's way is right there
        highlighted = popup.currentIndex()
        popup.hide()
        if highlighted.isValid() and isinstance(edit, QLineEdit):
            edit.setText(str(highlighted.data(self.completer.completionRole())))
        button = _button_of(target)
        if button is not None:
            if button.isEnabled():
                button.click()
        elif target.focusPolicy() & Qt.FocusPolicy.ClickFocus:
            target.setFocus(Qt.FocusReason.MouseFocusReason)
        return True


def _button_of(widget: QWidget) -> QAbstractButton | None:
    """The button `widget` is, or is part of (a label drawn on it)."""
    found: QWidget | None = widget
    while found is not None and not found.isWindow():
        if isinstance(found, QAbstractButton):
            return found
        found = found.parentWidget()
    return None


def sole_completion(edit: QLineEdit) -> str | None:
    """The one completion `edit`'s completer offers for its text, or None (none, or many)."""
    completer = edit.completer()
    text = edit.text().strip()
    if completer is None or not text:
        return None
    completer.setCompletionPrefix(text)
    if completer.completionCount() != 1:
        return None
    return completer.currentCompletion()
