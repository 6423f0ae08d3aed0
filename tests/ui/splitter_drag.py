"""Dragging a splitter's handle with the mouse, as a user does."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QSplitter
from pytestqt.qtbot import QtBot


def drag_handle(qtbot: QtBot, splitter: QSplitter, by: int) -> None:
    """Drag the handle between the first two widgets of `splitter` `by` px towards the
    first: pressed, moved, released."""
    handle = splitter.handle(1)
    middle = handle.rect().center()
    step = QPoint(by, 0) if splitter.orientation() == Qt.Orientation.Horizontal else QPoint(0, by)
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=middle)
    qtbot.mouseMove(handle, middle - step)
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=middle - step)
