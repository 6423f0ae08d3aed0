"""The signing secret of a push configuration, shown once (after a create, or a rotation) so
the receiver can verify every message."""

from __future__ import annotations

from datetime import datetime
from html import escape

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

from freightdesk.service.clock import user_time


def rotated_text(name: str, previous_until: datetime | None) -> str:
    """What a new secret made by a rotation means for the receiver."""
    overlap = (
        f"Until {user_time(previous_until)} each message carries two signatures, one with "
        "this secret and one with the previous secret, so the receiver can switch without "
        "losing messages; after that the previous secret no longer verifies anything."
        if previous_until is not None
        else "The previous secret no longer verifies messages."
    )
    return f"A new signing secret for <b>{escape(name)}</b>. {overlap}"


class SigningSecretDialog(QDialog):
    def __init__(
        self, name: str, secret: str, parent: QWidget | None = None, *, text: str = ""
    ) -> None:
        """`text` says what the secret is (by default: of a configuration just made)."""
        super().__init__(parent)
        self.setObjectName("signingSecret")
        self.setWindowTitle("Signing secret")
        self.setMinimumWidth(560)
        about = QLabel(
            text
            or f"<b>{escape(name)}</b> is saved. Every message it sends is signed with this "
            "secret: give it to the receiver now.",
            self,
        )
        about.setWordWrap(True)
        self.warning = QLabel(
            "It is shown only this once and will not be shown again: copy it now.", self
        )
        self.warning.setObjectName("onceWarning")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("font-weight: bold;")
        self.secret = QLineEdit(secret, self)
        self.secret.setObjectName("secret")
        self.secret.setReadOnly(True)
        self.copy_button = QPushButton("&Copy", self)
        row = QHBoxLayout()
        row.addWidget(self.secret, 1)
        row.addWidget(self.copy_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addLayout(row)
        layout.addWidget(self.warning)
        layout.addWidget(buttons)
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.reject)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.secret.text())
        self.copy_button.setText("Copied")
