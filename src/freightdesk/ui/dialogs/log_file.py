"""Where the log file is, for a desktop with no program to open it: its path, and a button
that copies it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class LogFileDialog(QDialog):
    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("logFileDialog")
        self.setWindowTitle("Log file")
        self.path = path
        explanation = QLabel("No program on this desktop opens the log file. It is here:", self)
        explanation.setWordWrap(True)
        self.path_field = QLineEdit(str(path), self)
        self.path_field.setReadOnly(True)
        self.path_field.setMinimumWidth(self.fontMetrics().horizontalAdvance(str(path)) + 24)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("&Copy", self)
        self.copy_button.setToolTip("Copy the path to the clipboard")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.copy_button.clicked.connect(self.copy_path)
        self.copied = QLabel("", self)
        layout = QVBoxLayout(self)
        layout.addWidget(explanation)
        layout.addWidget(self.path_field)
        layout.addWidget(self.copied)
        layout.addWidget(buttons)

    def copy_path(self) -> None:
        QApplication.clipboard().setText(str(self.path))
        self.copied.setText("Copied to the clipboard.")
