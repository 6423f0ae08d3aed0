"""Keys and clicks of the forms-send-what-is-shown tests (no tests here), sent from Qt's event
loop as a user's input arrives, not from inside the test's task (docs/developing.md, Tests:
QTest's key functions there would make qasync step other tasks inside it)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from tests.ui.test_export_panes import _from_loop


async def keys(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """`edit` emptied, then `text` typed into it key by key."""

    def act() -> None:
        edit.clear()
        qtbot.keyClicks(edit, text)

    await _from_loop(act)


async def click(qtbot: QtBot, widget: QWidget) -> None:
    await _from_loop(lambda: qtbot.mouseClick(widget, Qt.MouseButton.LeftButton))
