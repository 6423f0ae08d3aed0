"""A form in a dialog: errors beside fields, and a question before unsaved changes are lost.

Questions are asked with `QMessageBox.open()` and answered through signals, never with a
nested `exec()`, so they are safe while coroutines run on the same loop.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QShowEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox, QWidget

from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.screen_fit import fit_on_screen


def ask(
    parent: QWidget,
    title: str,
    text: str,
    on_yes: Callable[[], None],
    *,
    yes: QMessageBox.StandardButton = QMessageBox.StandardButton.Yes,
    name: str = "question",
    informative: str = "",
    answers: tuple[str, str] | None = None,
) -> QMessageBox:
    """Ask a yes/no question without blocking; `on_yes` runs if the user agrees.

    `answers` names the two buttons by what they do ("&Delete", "&Keep it"): to "Cancel the
    booking?" a button named Cancel could mean either.
    """
    box = _question(parent, title, text, on_yes, yes, name, informative, answers)
    box.open()
    return box


def _question(
    parent: QWidget,
    title: str,
    text: str,
    on_yes: Callable[[], None],
    yes: QMessageBox.StandardButton,
    name: str,
    informative: str,
    answers: tuple[str, str] | None,
) -> QMessageBox:
    """`ask`'s question, not shown yet."""
    no = QMessageBox.StandardButton.Cancel
    box = QMessageBox(QMessageBox.Icon.Question, title, text, yes | no, parent)
    box.setObjectName(name)
    box.setDefaultButton(no)
    if informative:
        box.setInformativeText(informative)
    if answers is not None:
        for button, label in zip((yes, no), answers, strict=True):
            found = box.button(button)
            if found is not None:
                found.setText(label)
    box.finished.connect(lambda result: on_yes() if result == yes else None)
    return box


# The answers to "Discard your changes?", said the same in every form and pane: "Cancel"
# could mean cancel the edit (discard) or cancel the closing (keep editing).
DISCARD_ANSWERS = ("&Discard", "&Keep editing")


def ask_discard(
    parent: QWidget,
    text: str,
    on_discard: Callable[[], None],
    *,
    on_save: Callable[[], bool] | None = None,
) -> QMessageBox:
    """Ask before unsaved changes are lost; Keep editing is the default, and Esc answers it.

    With `on_save`, Save is a third answer: it saves, and once saved (`on_save` says whether
    it could) goes on as Discard does; a refused save keeps the form with its problems shown.
    """
    discard = QMessageBox.StandardButton.Discard
    box = _question(
        parent,
        "Unsaved changes",
        text,
        on_discard,
        discard,
        "unsavedChanges",
        "",
        DISCARD_ANSWERS,
    )
    keep = box.button(QMessageBox.StandardButton.Cancel)
    if keep is not None:
        keep.setIcon(QIcon())  # Cancel's cross: keeping the edits is not a cancelling
    if on_save is not None:
        save = QMessageBox.StandardButton.Save
        box.addButton(save).setText("&Save")
        box.finished.connect(lambda result: on_discard() if result == save and on_save() else None)
    box.open()
    return box


class FormDialog(QDialog):
    """Base of the app's forms: `errors` (FieldErrors), dirty tracking, asking on close."""

    discard_text = "Discard your changes?"
    # Whether the form opens with the keyboard in its first field (`errors.first_field`) even
    # when Qt would start elsewhere: a tab bar made before the tabs' fields comes first.
    starts_in_first_field = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.general_error = ErrorLabel(self)
        self.general_error.setObjectName("generalError")
        self.errors = FieldErrors(self.general_error)
        self.dirty = False
        self.question: QMessageBox | None = None
        self._opened = False
        self._fitted = False

    def setVisible(self, visible: bool) -> None:  # noqa: N802 (Qt's name)
        # Fitted to the screen before it first shows (show, open and exec come here), when
        # its fields are laid out; Qt then centres it on the window it opens over.
        if visible and not self._fitted:
            self._fitted = True
            buttons = self.findChildren(
                QDialogButtonBox, options=Qt.FindChildOption.FindDirectChildrenOnly
            )
            fit_on_screen(self, [self.general_error, *buttons])
        super().setVisible(visible)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        # On the first show, not when built: the form is loaded by then (a table has rows).
        if not self._opened:
            self._opened = True
            if self.starts_in_first_field:
                self.errors.focus_first()

    def mark_dirty(self, *_args: object) -> None:
        self.dirty = True

    def mark_clean(self) -> None:
        self.dirty = False

    def reject(self) -> None:
        if not self.dirty:
            super().reject()
            return
        self.question = ask_discard(self, self.discard_text, lambda: QDialog.reject(self))
