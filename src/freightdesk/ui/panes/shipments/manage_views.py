"""The Manage views dialog: rename, delete, reorder saved views and choose the default one."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    QWidget,
)

from freightdesk.ui.panes.shipments.view_names import moved, rename_problem


class ManageViewsDialog(QDialog):
    """Edits a copy of the views' names, order, renames and default; the caller stores it on OK."""

    def __init__(self, names: list[str], default: str | None, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Manage views")
        self.names = list(names)
        self.default = default if default in names else None
        # Renames as new name → original name, so the caller can carry the stored filters over.
        self.origin = {name: name for name in names}
        self.list = QListWidget(self)
        self.list.setObjectName("viewList")
        self.name = QLineEdit(self)
        self.name.setObjectName("viewName")
        self.problem = QLabel(self)
        self.problem.setObjectName("viewNameProblem")
        self.problem.setStyleSheet("color: #b00020")
        self.rename_button = QPushButton("Rename", self)
        self.delete_button = QPushButton("Delete…", self)
        self.default_button = QPushButton("Set as default", self)
        self.up_button = QPushButton("Move up", self)
        self.down_button = QPushButton("Move down", self)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QGridLayout(self)
        layout.addWidget(self.list, 0, 0, 6, 1)
        for row, button in enumerate(
            (self.up_button, self.down_button, self.delete_button, self.default_button)
        ):
            layout.addWidget(button, row, 1)
        layout.addWidget(self.name, 6, 0)
        layout.addWidget(self.rename_button, 6, 1)
        layout.addWidget(self.problem, 7, 0, 1, 2)
        layout.addWidget(buttons, 8, 0, 1, 2)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.list.currentRowChanged.connect(self._row_changed)
        self.rename_button.clicked.connect(self.rename)
        self.name.returnPressed.connect(self.rename)
        self.name.textEdited.connect(lambda _text: self.problem.clear())
        self.delete_button.clicked.connect(self.delete)
        self.default_button.clicked.connect(self.set_default)
        self.up_button.clicked.connect(lambda: self._move(-1))
        self.down_button.clicked.connect(lambda: self._move(1))
        self._fill(0)

    def _fill(self, row: int) -> None:
        self.list.clear()
        for name in self.names:
            self.list.addItem(f"{name} (default)" if name == self.default else name)
        self.list.setCurrentRow(min(row, len(self.names) - 1))
        self._row_changed(self.list.currentRow())

    def _row_changed(self, row: int) -> None:
        self.name.setText(self.names[row] if 0 <= row < len(self.names) else "")
        self.problem.clear()
        for widget in (self.name, self.rename_button, self.delete_button, self.default_button):
            widget.setEnabled(row >= 0)

    def _move(self, step: int) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.names = moved(self.names, row, step)
            self._fill(min(max(row + step, 0), len(self.names) - 1))

    def rename(self) -> None:
        row = self.list.currentRow()
        if row < 0:
            return
        old = self.names[row]
        problem = rename_problem(self.name.text(), old, self.names)
        if problem:
            # The typed name stays in the field so it can be corrected.
            self.problem.setText(problem)
            return
        new = self.name.text().strip()
        self.names[row] = new
        self.origin[new] = self.origin.pop(old)
        if self.default == old:
            self.default = new
        self._fill(row)

    def delete(self) -> None:
        row = self.list.currentRow()
        if row < 0:
            return
        name = self.names[row]
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Delete view",
            f"Delete the view “{name}”?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setObjectName("deleteView")
        box.finished.connect(lambda result: self._deleted(box, name, result))
        box.open()

    def _deleted(self, box: QMessageBox, name: str, result: int) -> None:
        box.deleteLater()
        if result != QMessageBox.StandardButton.Yes or name not in self.names:
            return
        row = self.names.index(name)
        del self.names[row]
        del self.origin[name]
        if self.default == name:
            self.default = None
        self._fill(row)

    def set_default(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.default = self.names[row]
            self._fill(row)
