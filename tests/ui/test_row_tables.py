"""The editable row tables of the forms: Delete removes the current row while the table has
the focus, and only then (not while a cell or another field is being typed in)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QTableView, QTableWidget, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.stop_locations.form import CLOSES, OPENS, StopLocationFormDialog
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


def click_cell(qtbot: QtBot, table: QTableView, row: int, column: int, double: bool) -> None:
    """Click a cell, or double-click it (as a mouse does: a click, then the double-click)."""
    center = table.visualRect(table.model().index(row, column)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=center)
    if double:
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=center)


def _show_tab(qtbot: QtBot, form: StopLocationFormDialog, field: QWidget) -> None:
    """Click the tab that holds `field`."""
    tabs = form.tabs
    page = next(i for i in range(tabs.count()) if tabs.widget(i).isAncestorOf(field))
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(page).center())
    assert field.isVisible()


def _opens(table: QTableWidget) -> list[str]:
    return [table.item(row, OPENS).text() for row in range(table.rowCount())]


def test_delete_in_a_stop_locations_hours_removes_a_row_only_from_the_table(
    qtbot: QtBot, session: AppSession
) -> None:
    form = StopLocationFormDialog(session, None)
    qtbot.addWidget(form)
    activate(qtbot, form)
    hours = form.hours
    _show_tab(qtbot, form, hours)
    qtbot.mouseClick(form.hours_box.add_button, Qt.MouseButton.LeftButton)
    assert _opens(hours) == ["08:00", "08:00"]

    # Typing in a cell of the table: Delete edits the text, no row goes.
    click_cell(qtbot, hours, 0, OPENS, double=True)
    editor = form.focusWidget()
    assert isinstance(editor, QLineEdit) and editor.text() == "08:00"
    qtbot.keyClick(editor, Qt.Key.Key_Home)
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the cell takes the text a moment later
    qtbot.waitUntil(lambda: _opens(hours) == ["8:00", "08:00"])

    # Typing in another field of the form: the same.
    _show_tab(qtbot, form, form.name)
    qtbot.mouseClick(form.name, Qt.MouseButton.LeftButton)
    assert form.name.hasFocus()
    qtbot.keyClicks(form.name, "Dock 4")
    qtbot.keyClick(form.name, Qt.Key.Key_Home)
    qtbot.keyClick(form.name, Qt.Key.Key_Delete)
    assert form.name.text() == "ock 4"
    assert hours.rowCount() == 2

    # A click on the first row's hours, then Delete: that row goes.
    _show_tab(qtbot, form, hours)
    click_cell(qtbot, hours, 0, CLOSES, double=False)
    assert hours.hasFocus()
    qtbot.keyClick(hours, Qt.Key.Key_Delete)
    assert _opens(hours) == ["08:00"]
    form.mark_clean()  # closed after the test without the unsaved-changes question
