"""The status bar's connection indicator: state, profile, age of the data, activity, and
while the service fails, what happened in a few words.

The activity bar shows once for a load and goes once it is over: fetches close together (the
list's every second while the demo is written, a sync's pages) keep it shown, so it does not
blink and shift the texts beside it. A load that counts (the demo's shipments) fills it. Words
beside it say what runs ("Updating shipments…"): a bar alone, seen over any pane, left the
user guessing what the app was doing.
"""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QSizePolicy, QWidget

from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.ui.theme import STATE_COLORS

# The activity bar stays this long after the last fetch ended: the next one of a load comes
# within it (the demo's list polls every second).
ACTIVITY_LINGER_MS = 1500

_STATE_TEXT = {
    ConnectionState.CONNECTING: "Connecting",
    ConnectionState.ONLINE: "Online",
    ConnectionState.DEGRADED: "Degraded",
    ConnectionState.OFFLINE: "Offline",
}


class ConnectionIndicator(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state_dot = QLabel("●", self)  # coloured by state; the text stays plain
        # Never wider than the glyph: room given to it would part the dot from its words.
        self.state_dot.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.state_label = QLabel(self)
        self.state_label.setObjectName("connectionState")
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
        self.age_label = QLabel(self)
        self.age_label.setObjectName("dataAge")
        # Why the data is not current (offline, degraded), elided; the tooltip has it whole.
        self.reason_label = QLabel(self)
        self.reason_label.setObjectName("connectionReason")
        self.reason_label.setTextFormat(Qt.TextFormat.PlainText)
        self.reason_label.setVisible(False)
        self.reason_label.setMinimumWidth(40)  # gives way in a narrow window, never widens it
        self.activity = QProgressBar(self)
        self.activity.setRange(0, 0)
        self.activity.setMaximumHeight(12)
        self.activity.setTextVisible(False)
        self.activity.setVisible(False)
        # A progress bar asks to expand: shown, it would have the status bar widen the
        # indicator beyond its texts (the room went to the dot, 50 px from "Online").
        self.activity.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.activity.setFixedWidth(90)
        self.activity_label = QLabel(self)
        self.activity_label.setObjectName("activityText")
        self.activity_label.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(10)
        layout.addWidget(self.reason_label)
        layout.addWidget(self.activity_label)
        layout.addWidget(self.activity)
        layout.addWidget(self.age_label)
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(self.state_dot)
        row.addWidget(self.state_label)
        layout.addLayout(row)
        self._status: ConnectionStatus | None = None
        self._progress: tuple[int, int] | None = None  # (done, total) of a counted load
        self._linger = QTimer(self)
        self._linger.setSingleShot(True)
        self._linger.setInterval(ACTIVITY_LINGER_MS)
        self._linger.timeout.connect(self._linger_over)
        self._timer = QTimer(self)
        self._timer.setInterval(5000)
        self._timer.timeout.connect(self._refresh_age)
        self._timer.start()

    def show_status(self, status: ConnectionStatus) -> None:
        shown = self._status
        if (
            status.last_success is None
            and shown is not None
            and shown.profile_name == status.profile_name
        ):
            # The data on screen does not get newer or of unknown age while the session
            # connects: the cached list's time (the first paint's) stays said until a fetch
            # answers ("never updated · Connecting" was shown over rows 12 min old).
            status = replace(status, last_success=shown.last_success)
        self._status = status
        self.state_dot.setStyleSheet(f"color: {STATE_COLORS[status.state.value]}")
        text = f"{_STATE_TEXT[status.state]} · {status.profile_name}"
        self.state_label.setText(text)
        self.setToolTip(status.message or text)
        failing = status.state in (ConnectionState.OFFLINE, ConnectionState.DEGRADED)
        reason = status.message if failing else _waiting_for(status)
        metrics = self.reason_label.fontMetrics()
        self.reason_label.setText(metrics.elidedText(reason, Qt.TextElideMode.ElideRight, 480))
        self.reason_label.setVisible(bool(reason))
        self._show_activity()
        self._refresh_age()

    def show_progress(self, done: int, total: int) -> None:
        """A counted load under way: the bar shown, `done` of `total` filled (moving, not
        filled, while `total` is 0), until `end_progress`."""
        self._progress = (done, total)
        self.activity.setRange(0, total)
        self.activity.setValue(min(done, total))
        self._show_activity()

    def end_progress(self) -> None:
        if self._progress is None:
            return
        self._progress = None
        self.activity.setRange(0, 0)
        self._show_activity()

    def _busy(self) -> bool:
        status = self._status
        if status is None:
            return False
        return status.busy > 0 or status.state is ConnectionState.CONNECTING

    def _show_activity(self) -> None:
        if self._progress is not None or self._busy():
            self._linger.stop()
            self._say_activity()
            self.activity.setVisible(True)
        elif self.activity.isVisibleTo(self) and not self._linger.isActive():
            self._linger.start()  # hidden then, unless the next fetch comes first

    def _say_activity(self) -> None:
        """What the bar shows for: beside it when the texts around do not say it already (the
        demo's label counts its shipments; "Connecting" is the state's word), in its tooltip
        always."""
        status = self._status
        if self._progress is not None:
            words, tip = "", "The demo's shipments loaded so far"
        elif status is not None and status.busy > 0 and status.doing:
            words = tip = f"{status.doing}\u2026"
        else:
            words, tip = "", "Connecting to the freight service"
        self.activity_label.setText(words)
        self.activity_label.setVisible(bool(words))
        self.activity.setToolTip(tip)

    def _linger_over(self) -> None:
        if self._progress is None and not self._busy():
            self.activity.setVisible(False)
            self.activity_label.setVisible(False)

    def _refresh_age(self) -> None:
        if self._status is None:
            return
        text = self._status.age_text(time.time())
        if self._status.state in (ConnectionState.OFFLINE, ConnectionState.DEGRADED):
            text = f"showing saved data, {text}"
        self.age_label.setText(text)

    def stop(self) -> None:
        self._timer.stop()
        self._linger.stop()


def _waiting_for(status: ConnectionStatus) -> str:
    """What a connection under way waits for ("Starting the local service…": 10 to 40 s on a
    busy machine), when it says more than "Connecting to" the profile the label names."""
    message = status.message
    if status.state is not ConnectionState.CONNECTING or not message:
        return ""
    if message == f"Connecting to {status.profile_name}":
        return ""
    return f"{message}…"
