"""The signing secret of a new push configuration, shown once so the receiver can verify
every message."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class SigningSecretDialog(QDialog):
    def __init__(self, name: str, secret: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("signingSecret")
        self.setWindowTitle("Signing secret")
        self.setMinimumWidth(560)
        text = QLabel(
            f"<b>{name}</b> is saved. Every message it sends is signed with this secret: give "
            "it to the receiver now. It is shown only this once.",
            self,
        )
        text.setWordWrap(True)
        self.secret = QLineEdit(secret, self)
        self.secret.setObjectName("secret")
        self.secret.setReadOnly(True)
        self.copy_button = QPushButton("&Copy", self)
        row = QHBoxLayout()
        row.addWidget(self.secret, 1)
        row.addWidget(self.copy_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.reject)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.secret.text())
        self.copy_button.setText("Copied")
