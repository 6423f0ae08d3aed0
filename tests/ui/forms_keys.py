"""Keys and clicks of the forms' tests (no tests here), sent from Qt's event loop as a user's
input arrives, not from inside the test's task (docs/developing.md, Tests: QTest's key
functions there would make qasync step other tasks inside it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QDateTimeEdit,
    QDialogButtonBox,
    QLineEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.ui.widgets.forms import FieldErrors
from tests.support import wait_until
from tests.ui.test_export_panes import _from_loop

ANSWER_SECONDS = 60  # the service's refusal on a loaded machine; the form's own is at once
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
Section = QDateTimeEdit.Section


async def keys(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """`edit` emptied, then `text` typed into it key by key."""

    def act() -> None:
        edit.clear()
        qtbot.keyClicks(edit, text)

    await _from_loop(act)


def shown_day(day: date) -> str:
    """A day as the date editors write it, the clock's way with the year: `Dec 3 2026`."""
    return f"{MONTHS[day.month - 1]} {day.day} {day.year}"


def day_parts(day: date, *, month_number: bool = False) -> list[tuple[Section, str]]:
    """`day` as a user types it into a date editor, part by part in the order shown: the
    month by its name (`month_number`: its number), the day, the year."""
    month = f"{day.month}" if month_number else MONTHS[day.month - 1]
    return [
        (Section.MonthSection, month),
        (Section.DaySection, f"{day.day}"),
        (Section.YearSection, f"{day.year}"),
    ]


async def type_parts(
    qtbot: QtBot, edit: QDateTimeEdit, parts: Sequence[tuple[Section, str]]
) -> None:
    """Each text typed into its part of `edit`, as a user who picks the part and types."""

    def act() -> None:
        for section, text in parts:
            edit.setFocus()
            edit.setSelectedSection(section)
            qtbot.keyClicks(edit, text)

    await _from_loop(act)


async def click(qtbot: QtBot, widget: QWidget) -> None:
    await _from_loop(lambda: qtbot.mouseClick(widget, Qt.MouseButton.LeftButton))


def ok_button(buttons: QDialogButtonBox) -> QAbstractButton:
    """The dialog's OK (or Save) button, which sends the form; enabled."""
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok) or buttons.button(
        QDialogButtonBox.StandardButton.Save
    )
    assert ok is not None and ok.isEnabled()
    return ok


async def refusal(
    qtbot: QtBot,
    typed: Mapping[QLineEdit, str],
    button: QAbstractButton,
    errors: FieldErrors,
    field: str,
) -> str:
    """What the form says beside `field` once each text of `typed` is typed into its field,
    in order, and `button` clicked (the form's own check, or the service's answer)."""
    for edit, text in typed.items():
        await keys(qtbot, edit, text)
    await click(qtbot, button)
    await wait_until(lambda: bool(errors.message_for(field)), ANSWER_SECONDS)
    return errors.message_for(field)
