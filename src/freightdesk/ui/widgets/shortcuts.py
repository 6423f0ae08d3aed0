"""Keys bound to a part of a window rather than to the whole window: `add_key` is the one way
a pane, a form or a table gives a widget a shortcut of its own (a window's shortcuts and menu
keys are the main window's)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

Keys = QKeySequence | QKeySequence.StandardKey | Qt.Key | str


def add_key(
    widget: QWidget,
    keys: Keys,
    slot: Callable[[], object],
    text: str,
    *,
    within: bool = False,
) -> QAction:
    """A shortcut (`text`: what it does) that acts while `widget` has the focus, not while
    typing elsewhere; with `within`, while the focus is anywhere inside it (a pane, a group
    of fields)."""
    action = QAction(text, widget)
    action.setShortcut(QKeySequence(keys))
    action.setShortcutContext(
        Qt.ShortcutContext.WidgetWithChildrenShortcut
        if within
        else Qt.ShortcutContext.WidgetShortcut
    )
    action.triggered.connect(slot)
    widget.addAction(action)
    return action
