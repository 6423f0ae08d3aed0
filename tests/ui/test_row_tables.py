"""The editable row tables of the forms: Delete removes the current row while the table has
the focus, and only then (not while a cell or another field is being typed in)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.ui.widgets.identifiers import IdentifierTable
from freightdesk.ui.widgets.key_values import KeyValueTable
from tests.ui.conftest import activate


def _window(qtbot: QtBot, table: QWidget) -> tuple[QWidget, QLineEdit]:
    """`table` in an active window, with a line edit beside it."""
    window = QWidget()
    qtbot.addWidget(window)
    other = QLineEdit(window)
    layout = QVBoxLayout(window)
    layout.addWidget(table)
    layout.addWidget(other)
    activate(qtbot, window)
    return window, other


def test_delete_removes_the_current_key_value_row(qtbot: QtBot) -> None:
    rows = KeyValueTable("Header", "Value")
    _kept, other = _window(qtbot, rows)
    rows.add_row("X-Team", "north")
    rows.add_row("X-Shift", "night")
    other.setFocus()
    qtbot.keyClick(other, Qt.Key.Key_Delete)  # typing elsewhere: no row goes
    assert rows.rows() == [("X-Team", "north"), ("X-Shift", "night")]
    rows.table.setFocus()
    rows.table.setCurrentCell(0, 0)
    qtbot.keyClick(rows.table, Qt.Key.Key_Delete)
    assert rows.rows() == [("X-Shift", "night")]


def test_delete_removes_the_current_identifier(qtbot: QtBot) -> None:
    identifiers = IdentifierTable(["PRO", "BILL_OF_LADING"])
    _kept, _other = _window(qtbot, identifiers)
    identifiers.set_identifiers([("PRO", "4711"), ("BILL_OF_LADING", "B-4711")])
    # The dispatcher clicks the second identifier's value.
    cell = identifiers.table.visualItemRect(identifiers.table.item(1, 1)).center()
    qtbot.mouseClick(identifiers.table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    assert identifiers.table.hasFocus()
    qtbot.keyClick(identifiers.table, Qt.Key.Key_Delete)
    assert identifiers.identifiers() == [("PRO", "4711")]
