"""An editable table of rows (line items, handling units, stops' contacts) with Add and
Remove, numbers read as typed, and errors about its rows gathered under the table."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHeaderView, QTableWidgetItem, QWidget

from freightdesk.models.numbers import NumberRefused, read_number
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.edit_table import EditTable
from freightdesk.ui.widgets.forms import plain

_ROW = re.compile(r"^\[(\d+)\](?:\.(.*))?$")


def number(text: str) -> float | str | None:
    """A number as typed, by the one rule of `models/numbers.py` (1,500.5 and 2,5 read; 1,500
    refused as two-way): None when blank, the text itself when it is not a number (so the
    check names the field, and says why, instead of dropping what the user typed)."""
    try:
        return read_number(text)
    except NumberRefused:
        return text.strip()


def integer(text: str) -> float | int | str | None:
    """Like `number`; a whole number comes back as an int (a fraction is left for the check
    to refuse)."""
    value = number(text)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def fold_rows(
    problems: dict[str, str], tables: dict[str, tuple[str, dict[str, str]]]
) -> dict[str, str]:
    """Messages about rows of a table, gathered under the table's name.

    `tables` maps a path prefix (`items`) to the name its table is registered under and the
    words for its fields; `items[1].unitQuantity` becomes "Row 2, quantity: ..." there. The
    messages are put in plain words first, while their field paths still say what they are.
    """
    shown: dict[str, str] = {}
    for path, message in plain(problems).items():
        for prefix, (target, words) in tables.items():
            match = _ROW.match(path[len(prefix) :]) if path.startswith(prefix + "[") else None
            if match is None:
                continue
            rest = match.group(2) or ""
            field = words.get(rest.split(".")[0], "") if rest else ""
            where = f"Row {int(match.group(1)) + 1}" + (f", {field}" if field else "")
            line = f"{where}: {message}"
            shown[target] = f"{shown[target]}\n{line}" if target in shown else line
            break
        else:
            shown.setdefault(path, message)
    return shown


class RowTable(EditTable):
    """A table of rows with Add and Remove buttons; Delete removes the current row.

    Columns are text cells, or combo boxes (`choices` per column, editable when the list ends
    with an empty string; `label` says a choice as the user reads it, the choice itself is the
    cell's text), or check boxes (`checks`)."""

    def __init__(
        self,
        headers: Sequence[str],
        noun: str,
        parent: QWidget | None = None,
        *,
        choices: dict[int, Sequence[str]] | None = None,
        checks: Sequence[int] = (),
        defaults: dict[int, str] | None = None,
        widths: dict[int, int] | None = None,
        label: Callable[[str], str] = str,
    ) -> None:
        super().__init__(headers, f"Add {noun}", f"Remove {noun}", parent)
        self.choices = dict(choices or {})
        self.label = label
        self.checks = set(checks)
        self.defaults = dict(defaults or {})
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.setDefaultSectionSize(92)
        for column, width in (widths or {}).items():
            self.table.setColumnWidth(column, width)
        self.table.setMinimumHeight(110)
        self.add_button.clicked.connect(lambda: self.add_row(focus=True))

    def add_row(self, values: Sequence[str | bool] = (), *, focus: bool = False) -> int:
        row = self.table.rowCount()
        self.table.blockSignals(True)
        self.table.insertRow(row)
        for column in range(self.table.columnCount()):
            given = values[column] if column < len(values) else None
            if column in self.checks:
                item = QTableWidgetItem()
                item.setFlags(
                    Qt.ItemFlag.ItemIsUserCheckable
                    | Qt.ItemFlag.ItemIsEnabled
                    | Qt.ItemFlag.ItemIsSelectable
                )
                item.setCheckState(Qt.CheckState.Checked if given else Qt.CheckState.Unchecked)
                self.table.setItem(row, column, item)
            elif column in self.choices:
                text = str(given) if given not in (None, "") else self.defaults.get(column, "")
                self.table.setCellWidget(row, column, self._combo(column, text))
            else:
                text = str(given) if given is not None else self.defaults.get(column, "")
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.table.blockSignals(False)
        if focus:
            first = next((c for c in range(self.table.columnCount()) if c not in self.choices), 0)
            self.table.setCurrentCell(row, first)
            cell = self.table.item(row, first)
            if cell is not None and self.table.isVisible():
                self.table.editItem(cell)
        self.changed.emit()
        return row

    def _combo(self, column: int, text: str) -> QComboBox:
        options = list(self.choices[column])
        combo = QComboBox(self.table)
        combo.setEditable(options[-1:] == [""])
        add_codes(combo, [o for o in options if o] if combo.isEditable() else options, self.label)
        if text:
            choose_code(combo, text, self.label)  # kept even if unknown; the check says so
        else:
            combo.setCurrentText(text)
        combo.currentTextChanged.connect(lambda _t: self.changed.emit())
        return combo

    def clear(self) -> None:
        self.table.setRowCount(0)

    def text(self, row: int, column: int) -> str:
        widget = self.table.cellWidget(row, column)
        if isinstance(widget, QComboBox):
            return code_of(widget)
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""

    def checked(self, row: int, column: int) -> bool:
        item = self.table.item(row, column)
        return item is not None and item.checkState() == Qt.CheckState.Checked

    def set_text(self, row: int, column: int, text: str) -> None:
        widget = self.table.cellWidget(row, column)
        if isinstance(widget, QComboBox):
            choose_code(widget, text, self.label)
            return
        item = self.table.item(row, column)
        if item is not None:
            item.setText(text)

    def rows(self) -> int:
        return self.table.rowCount()

    def filled_rows(self, columns: Sequence[int]) -> list[int]:
        """Rows with something typed in any of `columns` (empty rows are left out).

        A column's default is what Add put there, not what the user entered: a row added and
        left as it came (e.g. a quantity of 1) is empty too, and is never sent."""
        return [
            r
            for r in range(self.rows())
            if any(self.text(r, c) not in ("", self.defaults.get(c, "")) for c in columns)
        ]
