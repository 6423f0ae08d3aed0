"""The status bar's connection indicator: state, profile, age of the data, activity."""

from __future__ import annotations

import html
import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from freightdesk.service.session import ConnectionState, ConnectionStatus
from freightdesk.ui.theme import STATE_COLORS

_STATE_TEXT = {
    ConnectionState.CONNECTING: "Connecting",
    ConnectionState.ONLINE: "Online",
    ConnectionState.DEGRADED: "Degraded",
    ConnectionState.OFFLINE: "Offline",
}


class ConnectionIndicator(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state_label = QLabel(self)
        self.state_label.setObjectName("connectionState")
        self.age_label = QLabel(self)
        self.age_label.setObjectName("dataAge")
        self.activity = QProgressBar(self)
        self.activity.setRange(0, 0)
        self.activity.setMaximumWidth(90)
        self.activity.setMaximumHeight(12)
        self.activity.setTextVisible(False)
        self.activity.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(10)
        layout.addWidget(self.activity)
        layout.addWidget(self.age_label)
        layout.addWidget(self.state_label)
        self._status: ConnectionStatus | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(5000)
        self._timer.timeout.connect(self._refresh_age)
        self._timer.start()

    def show_status(self, status: ConnectionStatus) -> None:
        self._status = status
        color = STATE_COLORS[status.state.value]
        text = f"{_STATE_TEXT[status.state]} · {html.escape(status.profile_name)}"
        self.state_label.setText(f'<span style="color:{color}">●</span> {text}')
        self.state_label.setToolTip(status.message or text)
        self.activity.setVisible(status.busy > 0 or status.state is ConnectionState.CONNECTING)
        self._refresh_age()

    def _refresh_age(self) -> None:
        if self._status is None:
            return
        text = self._status.age_text(time.time())
        if self._status.state in (ConnectionState.OFFLINE, ConnectionState.DEGRADED):
            text = f"showing saved data, {text}"
        self.age_label.setText(text)

    def stop(self) -> None:
        self._timer.stop()
