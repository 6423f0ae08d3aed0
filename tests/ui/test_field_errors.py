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

from freightdesk.api.errors import ConnectionFailed, TimedOut
from freightdesk.service.messages import refusal
from freightdesk.ui.bridge import answering_again
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


def test_only_words_that_the_service_was_not_reached_go_once_it_answers(qtbot: QtBot) -> None:
    """Every form, with nothing wired by its pane: "cannot be reached" goes when the service
    answers again (the session's status back Online: the real one in
    test_forms_local_restart); a refusal beside a field, or a timeout (the service may have
    acted), stays until the user edits or saves again; what was typed stays."""
    _dialog, errors, name, _table = _form(qtbot)
    qtbot.keyClicks(name, "Dock 4")
    errors.show(*refusal(ConnectionFailed("POST /x: refused")))
    assert errors.general.isVisible()
    answering_again().emit()
    assert errors.general.isHidden() and name.text() == "Dock 4"

    errors.show({"name": "Enter a name"}, general="The service refused the data")
    answering_again().emit()
    assert errors.message_for("name") == "Enter a name"
    assert errors.general.text() == "The service refused the data"
    errors.show(*refusal(TimedOut("POST /x: slow", seconds=30)))
    answering_again().emit()
    assert errors.general.isVisible()
