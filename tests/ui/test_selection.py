"""Rows chosen by the app stay chosen whatever keys the user holds down meanwhile."""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QTableView
from pytestqt.qtbot import QtBot

from freightdesk.ui.widgets.selection import select_only
from tests.ui.conftest import release_modifier_keys


def _table(qtbot: QtBot) -> QTableView:
    table = QTableView()
    qtbot.addWidget(table)
    table.setModel(QStringListModel([f"Document {n}" for n in range(5)], table))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    table.show()
    return table


def _selected(table: QTableView) -> list[int]:
    return sorted(i.row() for i in table.selectionModel().selectedRows())


def test_a_row_chosen_while_ctrl_or_shift_is_held_is_the_only_one_selected(
    qtbot: QtBot,
) -> None:
    table = _table(qtbot)
    select_only(table, 1)
    assert _selected(table) == [1]
    for held in (Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier):
        QTest.keyClick(table, Qt.Key.Key_F20, held)  # held while the app chooses a row
        assert QGuiApplication.keyboardModifiers() == held
        select_only(table, 3)
        assert _selected(table) == [3]
        assert table.currentIndex().row() == 3
        select_only(table, 3)  # chosen again: still selected (Ctrl would have toggled it)
        assert _selected(table) == [3]
        release_modifier_keys()
        select_only(table, 1)
    # Rows that are not there are ignored.
    select_only(table, 9)
    assert _selected(table) == [1]
