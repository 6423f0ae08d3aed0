"""An editable list of identifiers: a type from a fixed vocabulary and a value per row."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from PySide6.QtWidgets import QComboBox, QHeaderView, QTableWidgetItem, QWidget

from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.edit_table import EditTable


class IdentifierTable(EditTable):
    """`label` says a type as the user reads it (e.g. `code_text`); the type itself is sent."""

    def __init__(
        self,
        types: Sequence[str],
        parent: QWidget | None = None,
        *,
        default_type: str = "",
        label: Callable[[str], str] = str,
    ) -> None:
        super().__init__(["Type", "Value"], "Add identifier", "Remove identifier", parent)
        self.types = list(types)
        self.label = label
        self.default_type = default_type or (self.types[0] if self.types else "")
        self.table.setObjectName("identifierTable")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 230)
        self.table.setMinimumHeight(90)
        self.add_button.clicked.connect(lambda: self.add_identifier(focus=True))

    def _combo(self, selected: str) -> QComboBox:
        combo = QComboBox(self.table)
        add_codes(combo, self.types, self.label)
        # What the data has is kept even when not in the list; validation says what is wrong.
        choose_code(combo, selected or self.default_type, self.label)
        combo.currentIndexChanged.connect(lambda _i: self.changed.emit())
        return combo

    def add_identifier(self, kind: str = "", value: str = "", *, focus: bool = False) -> None:
        row = self.table.rowCount()
        self.table.blockSignals(True)
        self.table.insertRow(row)
        self.table.setCellWidget(row, 0, self._combo(kind))
        self.table.setItem(row, 1, QTableWidgetItem(value))
        self.table.blockSignals(False)
        if focus:
            self.table.setCurrentCell(row, 1)
            item = self.table.item(row, 1)
            if item is not None and self.table.isVisible():
                self.table.editItem(item)
        self.changed.emit()

    def set_identifiers(self, identifiers: Iterable[tuple[str, str]]) -> None:
        self.table.setRowCount(0)
        for kind, value in identifiers:
            self.add_identifier(kind, value)

    def identifiers(self) -> list[tuple[str, str]]:
        """The rows with a value, as (type, value), values trimmed."""
        found = []
        for row in range(self.table.rowCount()):
            combo = self.table.cellWidget(row, 0)
            kind = code_of(combo) if isinstance(combo, QComboBox) else ""
            item = self.table.item(row, 1)
            value = item.text().strip() if item is not None else ""
            if value:
                found.append((kind, value))
        return found
