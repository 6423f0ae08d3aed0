"""The frame of a table the user edits in a form: the table, Add and Remove under it, Delete
removing the current row, and one `changed` signal for any edit."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.ui.widgets.item_table import add_key


class EditTable(QWidget):
    """Whole rows selected; what Add puts in a row is the subclass's (it connects `add_button`)."""

    changed = Signal()

    def __init__(
        self, headers: Sequence[str], add_text: str, remove_text: str, parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, len(headers), self)
        self.table.setHorizontalHeaderLabels(list(headers))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
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
