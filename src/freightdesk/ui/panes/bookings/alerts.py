"""The carriers' answers arriving in the background: a count on the Bookings pane's name until
it is looked at, the answer in the status bar, and a desktop note where there is a tray."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QSystemTrayIcon

from freightdesk.ui.main_window import MainWindow

MESSAGE_MS = 10_000


class BookingAlerts(QObject):
    def __init__(self, window: MainWindow, pane_key: str) -> None:
        super().__init__(window)  # lives as long as the window
        self.window = window
        self.pane_key = pane_key
        self.unseen = 0
        window.nav.currentRowChanged.connect(self._pane_shown)

    def announce(self, text: str) -> None:
        if self.window.current_pane() is not self.window.pane(self.pane_key):
            self.unseen += 1
            self.window.set_badge(self.pane_key, self.unseen)
        self.window.statusBar().showMessage(text, MESSAGE_MS)
        # The exception alerts' tray icon, when the desktop has a tray: one icon for the app.
        tray = getattr(self.window.exception_alerts, "tray", None)
        if isinstance(tray, QSystemTrayIcon):
            tray.showMessage("FreightDesk", text, QSystemTrayIcon.MessageIcon.Information, 8000)

    def _pane_shown(self, _row: int) -> None:
        if self.unseen and self.window.current_pane() is self.window.pane(self.pane_key):
            self.unseen = 0
            self.window.set_badge(self.pane_key, 0)
