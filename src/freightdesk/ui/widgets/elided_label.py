"""A one-line label that never wraps or widens its parent: text too long for its width is cut
with "…" and the whole text is its tooltip. For headers whose height must not change with
what they show."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        super().__init__(parent)
        self._full = ""
        self._mode = mode
        self.setWordWrap(False)
        self.setTextFormat(Qt.TextFormat.PlainText)
        # Any width the layout gives; always one line high (also when empty).
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(1)
        self._fit_height()
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        """Show `text`, cut to the width when too long (`full_text` is all of it)."""
        self._full = text
        self._elide()

    def clear(self) -> None:
        self.setText("")

    def text(self) -> str:
        """All of the text (what the label says, whether or not it fits)."""
        return self._full

    def full_text(self) -> str:
        return self._full

    def shown_text(self) -> str:
        """The text as painted: cut with "…" when too wide."""
        return super().text()

    def is_elided(self) -> bool:
        return self.shown_text() != self._full

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_height()
            self._elide()

    def _fit_height(self) -> None:
        self.setFixedHeight(self.fontMetrics().height() + 2 * self.margin() + 2)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(1, self.contentsRect().width())
        shown = self.fontMetrics().elidedText(self._full, self._mode, width)
        super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")
        self.setAccessibleName(self._full)
