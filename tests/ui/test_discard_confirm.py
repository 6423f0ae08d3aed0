"""Esc in a form with unsaved changes asks one question, worded alike in every form: "Discard"
or "Keep editing" (the walkthrough of session 18 saw "Discard / Cancel" in New location and
New booking, where Cancel meant keep editing, and "Keep editing" in the quit prompt). Esc on
the question keeps editing; Discard closes the form."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.widgets.form_dialog import FormDialog

FORMS: dict[str, Callable[[AppSession], FormDialog]] = {
    "stop location": lambda session: StopLocationFormDialog(session, None),
    "booking": lambda session: BookingFormDialog(session),
}


def _question() -> QMessageBox | None:
    boxes = [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QMessageBox) and w.objectName() == "unsavedChanges" and w.isVisible()
    ]
    return boxes[0] if boxes else None


def _first_text_field(form: QWidget) -> QLineEdit:
    fields = [f for f in form.findChildren(QLineEdit) if f.isVisible() and not f.isReadOnly()]
    assert fields
    return fields[0]


@pytest.mark.parametrize("kind", FORMS)
def test_esc_with_changes_asks_discard_or_keep_editing(
    qtbot: QtBot, session: AppSession, kind: str
) -> None:
    form = FORMS[kind](session)
    qtbot.addWidget(form)
    form.show()
    qtbot.waitExposed(form)
    field = _first_text_field(form)
    field.setFocus()
    qtbot.keyClicks(field, "Dock 7")
    assert form.dirty

    qtbot.keyClick(field, Qt.Key.Key_Escape)
    question = _question()
    assert question is not None and form.isVisible()
    answers = sorted(b.text().replace("&", "") for b in question.buttons())
    assert answers == ["Discard", "Keep editing"], answers
    # Esc on the question keeps the form, and what was typed in it.
    qtbot.keyClick(question, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: _question() is None)
    assert form.isVisible() and form.dirty and "Dock 7" in field.text()

    qtbot.keyClick(field, Qt.Key.Key_Escape)
    question = _question()
    assert question is not None
    discard = question.button(QMessageBox.StandardButton.Discard)
    assert discard is not None
    qtbot.mouseClick(discard, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not form.isVisible())
