"""Turns the service layer's notifications into Qt signals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from freightdesk.service.connection import ConnectionStatus

if TYPE_CHECKING:
    from freightdesk.service.session import AppSession


class SessionBridge(QObject):
    statusChanged = Signal(object)  # ConnectionStatus

    def __init__(self, session: AppSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._unsubscribe = session.listen_status(self._on_status)

    def _on_status(self, status: ConnectionStatus) -> None:
        self.statusChanged.emit(status)

    def detach(self) -> None:
        self._unsubscribe()
