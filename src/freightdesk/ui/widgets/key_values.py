"""An editable table of names and values (HTTP headers, query parameters)."""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTableWidgetItem, QWidget

from freightdesk.ui.widgets.edit_table import EditTable


class KeyValueTable(EditTable):
    def __init__(
        self,
        key_title: str = "Name",
        value_title: str = "Value",
        parent: QWidget | None = None,
        *,
        add_text: str = "Add",
    ) -> None:
        super().__init__([key_title, value_title], add_text, "Remove row", parent)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(96)
        self.add_button.clicked.connect(lambda: self.add_row())

    def add_row(self, key: str = "", value: str = "") -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(key))
        self.table.setItem(row, 1, QTableWidgetItem(value))
        if not key:
            self.table.setCurrentCell(row, 0)
            item = self.table.item(row, 0)
            if item is not None and self.table.isVisible():
                self.table.editItem(item)
        self.changed.emit()

    def set_values(self, values: dict[str, str]) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for key, value in values.items():
            row = self.table.rowCount()
            self.table.insertRow(row)
            self.table.setItem(row, 0, QTableWidgetItem(key))
            self.table.setItem(row, 1, QTableWidgetItem(value))
        self.table.blockSignals(False)

    def rows(self) -> list[tuple[str, str]]:
        found = []
        for row in range(self.table.rowCount()):
            key_item, value_item = self.table.item(row, 0), self.table.item(row, 1)
            key = key_item.text().strip() if key_item else ""
            value = value_item.text() if value_item else ""
            if key or value.strip():
                found.append((key, value))
        return found

    def values(self) -> dict[str, str]:
        """The rows as a map (a later row with the same name wins; see `duplicates`)."""
        return dict(self.rows())

    def duplicates(self) -> list[str]:
        seen: set[str] = set()
        repeated = []
        for key, _value in self.rows():
            if key.lower() in seen:
                repeated.append(key)
            seen.add(key.lower())
        return repeated
