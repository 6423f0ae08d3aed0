"""The frame of a table the user edits in a form: the table, Add and Remove under it, Delete
removing the current row, and one `changed` signal for any edit; Tab goes through the table's
cells and on to the form's next field."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.ui.widgets.shortcuts import add_key


class FormTable(QTableWidget):
    """Tab goes from cell to cell and, from the last cell, on to the next field; Shift+Tab
    likewise back from the first. (Qt's table goes round to its first cell: Tab never left
    it, and the fields and buttons after it could not be reached by keyboard.)"""

    def setCellWidget(self, row: int, column: int, widget: QWidget) -> None:  # noqa: N802
        """A drop-down (say) in a cell takes the keyboard when its cell becomes current, as Qt
        does, and from a click, but Tab does not stop at it from outside: it joined the focus
        chain when it was made, after the form's buttons, and Tab went from Cancel to it."""
        widget.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        super().setCellWidget(row, column, widget)

    def focusNextPrevChild(self, next_: bool) -> bool:  # noqa: N802 (Qt's name)
        current = self.currentIndex()
        end = (self.rowCount() - 1, self.columnCount() - 1) if next_ else (0, 0)
        if not current.isValid() or (current.row(), current.column()) == end:
            return self._leave(next_)
        return super().focusNextPrevChild(next_)

    def _leave(self, next_: bool) -> bool:
        """Focus the field after (or before) the table: the next in the focus chain from the
        table, not from where the keyboard is (a cell's drop-down: see `setCellWidget`)."""
        widget: QWidget | None = self
        while True:
            assert widget is not None
            widget = widget.nextInFocusChain() if next_ else widget.previousInFocusChain()
            if widget is None or widget is self:
                return False
            if (
                not self.isAncestorOf(widget)
                and widget.isVisible()
                and widget.isEnabled()
                and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
            ):
                widget.setFocus(
                    Qt.FocusReason.TabFocusReason if next_ else Qt.FocusReason.BacktabFocusReason
                )
                return True


class EditTable(QWidget):
    """Whole rows selected; what Add puts in a row is the subclass's (it connects `add_button`).
    `table`: one made and set up by the caller, for `headers` (then unused)."""

    changed = Signal()

    def __init__(
        self,
        headers: Sequence[str],
        add_text: str,
        remove_text: str,
        parent: QWidget | None,
        *,
        table: QTableWidget | None = None,
    ) -> None:
        super().__init__(parent)
        if table is None:
            table = FormTable(0, len(headers), self)
            table.setHorizontalHeaderLabels(list(headers))
            table.verticalHeader().setVisible(False)
            table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table = table
        self.add_button = QPushButton(add_text, self)
        self.remove_button = QPushButton("Remove", self)
        # Delete removes the current row while the table (not a cell editor) has the focus.
        add_key(
            self.table,
            QKeySequence(QKeySequence.StandardKey.Delete),
            self.remove_current,
            remove_text,
        )
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self.remove_button.clicked.connect(self.remove_current)
        self.table.itemChanged.connect(lambda _item: self.changed.emit())

    def remove_current(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)
            self.changed.emit()
