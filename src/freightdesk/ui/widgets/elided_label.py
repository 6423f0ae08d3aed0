"""A label of a fixed number of lines (one unless told) that never widens its parent: text too
long for its lines is cut with "…" at the end of the last one and the whole text is its tooltip.
For headers whose height must not change with what they show. Its lines break between words,
never inside a phrase it is told to keep whole ("1 open exception", a stop's name)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QResizeEvent, QTextLayout, QTextOption
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

# A space no line breaks at (Unicode's line breaking rules): as wide as a space.
NO_BREAK_SPACE = "\u00a0"


class ElidedLabel(QLabel):
    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
        lines: int = 1,
    ) -> None:
        super().__init__(parent)
        self._full = ""
        self._whole: tuple[str, ...] = ()
        self._mode = mode
        self._lines = lines
        self.setWordWrap(False)
        self.setTextFormat(Qt.TextFormat.PlainText)
        # Any width the layout gives; always as high as its lines (also when empty).
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(1)
        self._fit_height()
        self.setText(text)

    def setText(self, text: str, *, whole: Sequence[str] = ()) -> None:  # noqa: N802 (Qt's name)
        """Show `text`, cut to the width when too long (`full_text` is all of it); on more
        than one line, never broken inside one of the phrases `whole` (parts of `text`)."""
        self._full = text
        self._whole = tuple(whole)
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
        return self.shown_text().replace("\n", " ") != self._full

    def lines(self) -> int:
        return self._lines

    def set_lines(self, lines: int) -> None:
        """Wrap the text over up to `lines` lines, the height of all of them whatever is shown."""
        if lines != self._lines:
            self._lines = lines
            self._fit_height()
            self._elide()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_height()
            self._elide()

    def _fit_height(self) -> None:
        metrics = self.fontMetrics()
        text_height = metrics.height() + (self._lines - 1) * metrics.lineSpacing()
        self.setFixedHeight(text_height + 2 * self.margin() + 2)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(1, self.contentsRect().width())
        metrics = self.fontMetrics()
        if self._lines == 1 or metrics.horizontalAdvance(self._full) <= width:
            shown = metrics.elidedText(self._full, self._mode, width)
        else:
            shown = "\n".join(self._wrapped(width))
        super().setText(shown)
        self.setToolTip(self._full if self.is_elided() else "")
        self.setAccessibleName(self._full)

    def _wrapped(self, width: int) -> list[str]:
        """The text broken at word boundaries into the label's lines, the last one cut to fit."""
        # The phrases' spaces are no-break ones for the layout only: the same length, so its
        # lines' positions are the text's.
        laid_out = self._full
        for phrase in self._whole:
            laid_out = laid_out.replace(phrase, phrase.replace(" ", NO_BREAK_SPACE))
        layout = QTextLayout(laid_out, self.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        shown: list[str] = []
        start = 0
        layout.beginLayout()
        while len(shown) < self._lines - 1:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            end = line.textStart() + line.textLength()
            shown.append(self._full[start:end].rstrip())
            start = end
        layout.endLayout()
        rest = self._full[start:]
        if rest:
            shown.append(self.fontMetrics().elidedText(rest, self._mode, width))
        return shown
