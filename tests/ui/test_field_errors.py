"""Every form's rows: the label's key and a problem shown put the focus in the field."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors


def _form(qtbot: QtBot) -> tuple[QDialog, FieldErrors, QLineEdit, QTableWidget]:
    dialog = QDialog()
    qtbot.addWidget(dialog)
    form = QFormLayout(dialog)
    errors = FieldErrors(ErrorLabel(dialog))
    name = QLineEdit()
    errors.add_row(form, "&Name", "name", name)
    # A container: a table with its button beside it, as the key-value fields are made.
    container = QWidget()
    row = QHBoxLayout(container)
    table = QTableWidget(1, 2)
    row.addWidget(table)
    row.addWidget(QPushButton("Add"))
    errors.add_row(form, "&Headers", "headers", container)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog, errors, name, table


def test_each_label_points_at_its_field(qtbot: QtBot) -> None:
    dialog, _errors, name, table = _form(qtbot)
    buddies = {label.text(): label.buddy() for label in dialog.findChildren(QLabel)}
    assert buddies["&Name"] is name
    assert buddies["&Headers"] is table  # not the holder, which cannot take the focus


def test_a_problem_focuses_the_field_inside_a_container(qtbot: QtBot) -> None:
    dialog, errors, name, table = _form(qtbot)
    dialog.activateWindow()
    errors.show({"headers": "Header names must be unique"})
    qtbot.waitUntil(table.hasFocus)
    errors.show({"name": "Enter a name"})
    qtbot.waitUntil(name.hasFocus)
