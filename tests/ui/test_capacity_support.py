"""Helpers of the Rate requests, Bookings and Packages pane tests (no tests here)."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLayout, QLineEdit, QWidget

from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import cancel_all
from freightdesk.ui.widgets.forms import ErrorLabel
from tests.ui.conftest import close_session


async def settle(session: AppSession) -> None:
    """End a test with nothing under way, as the app does on quit: the panes' tasks are
    cancelled and awaited and the session closed while the loop still runs (qasync drops the
    callbacks still queued when a test's loop stops, which would leave a task pending)."""
    await cancel_all()
    await close_session(session)
    await asyncio.sleep(0)


def type_text(edit: QLineEdit, text: str) -> None:
    """Type into a line edit as a user does (the form sees `textEdited`).

    Not with QTest key events: those process Qt events inside the running test's task, and
    qasync then runs other tasks' wake-ups re-entrantly, which asyncio refuses (the wake-up is
    lost and that task never resumes)."""
    edit.setText(text)
    edit.textEdited.emit(text)


def press(view: QWidget, key: QKeySequence | Qt.Key) -> None:
    """Press a key bound to `view` (a keyboard path of the pane), without QTest events."""
    wanted = key if isinstance(key, QKeySequence) else QKeySequence(key)
    for action in view.actions():
        if wanted in action.shortcuts():
            action.trigger()
            return
    raise AssertionError(f"no action for {wanted.toString()} on {view.objectName()}")


def unplaced_error_labels(form: QWidget) -> list[str]:
    """The form's error labels that no layout places (Qt draws those over their parent's top
    left corner, on top of the fields), by the text they would show."""

    def holds(layout: QLayout | None, widget: QWidget) -> bool:
        if layout is None:
            return False
        for index in range(layout.count()):
            item = layout.itemAt(index)
            if item is not None and (item.widget() is widget or holds(item.layout(), widget)):
                return True
        return False

    return [
        label.objectName()
        for label in form.findChildren(ErrorLabel)
        if label.parentWidget() is not None and not holds(label.parentWidget().layout(), label)  # type: ignore[union-attr]
    ]
