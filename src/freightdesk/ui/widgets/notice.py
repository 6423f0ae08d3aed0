"""A one-line message at the top of a pane: an error in red, a confirmation in green."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

ERROR_COLOR = "#d0453a"
OK_COLOR = "#2e9d5b"


class Notice(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notice")
        self.setWordWrap(True)
        self.setVisible(False)
        self.is_error = False
        # Whether the text is the list's status: a good poll clears only that, never an
        # action's refusal (a cancel the carrier refused), which stays until the next action.
        self._from_status = False

    def show_error(self, text: str) -> None:
        self._show(text, ERROR_COLOR, error=True)

    def show_info(self, text: str) -> None:
        self._show(text, OK_COLOR, error=False)

    def show_status(self, text: str) -> None:
        """A list's status: empty when all is well (then an error shown before goes away)."""
        if text:
            self.show_error(text)
            self._from_status = True
        elif self.is_error and self._from_status:
            self.clear_message()

    def clear_message(self) -> None:
        self.setText("")
        self.setVisible(False)
        self.is_error = False

    def _show(self, text: str, color: str, *, error: bool) -> None:
        self.setStyleSheet(f"color: {color};")
        self.setText(text)
        self.setVisible(bool(text))
        self.is_error = error
        self._from_status = False
