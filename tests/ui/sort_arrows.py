"""A table's header as a user sees it: which way its sort arrow points, read from the header
as drawn, and a click on a column's title."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QTableView
from pytestqt.qtbot import QtBot


def arrow_of(table: QTableView) -> str:
    """Which way the sort arrow drawn on `table`'s header points: "down" or "up" (its wide
    end is at the top of a down arrow)."""
    header = table.horizontalHeader()
    section = header.sortIndicatorSection()
    image = header.grab().toImage()
    right = header.sectionViewportPosition(section) + header.sectionSize(section)
    widths = [
        sum(1 for x in range(right - 26, right - 2) if image.pixelColor(x, y).lightness() < 120)
        for y in range(image.height())
    ]
    drawn = [w for w in widths if w > 1]
    assert len(drawn) >= 2, widths  # an arrow is drawn
    return "down" if drawn[0] > drawn[-1] else "up"


def click_header(qtbot: QtBot, table: QTableView, column: int) -> None:
    """A click in the middle of `table`'s header section of (logical) `column`."""
    header = table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    qtbot.mouseClick(
        header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2)
    )
