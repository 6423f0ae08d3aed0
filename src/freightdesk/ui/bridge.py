"""Turns the service layer's notifications into Qt signals."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, SignalInstance

from freightdesk.service.connection import ConnectionState, ConnectionStatus

if TYPE_CHECKING:
    from freightdesk.service.session import AppSession


class SessionBridge(QObject):
    statusChanged = Signal(object)  # ConnectionStatus

    def __init__(self, session: AppSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._state = session.status.state
        self._unsubscribe = session.listen_status(self._on_status)

    def _on_status(self, status: ConnectionStatus) -> None:
        back = status.state is ConnectionState.ONLINE and self._state is not ConnectionState.ONLINE
        self._state = status.state
        self.statusChanged.emit(status)
        if back:  # once, not at each poll's Online
            answering_again().emit()

    def detach(self) -> None:
        self._unsubscribe()


class _Answering(QObject):
    again = Signal()


@cache
def _answering() -> _Answering:
    return _Answering()


def answering_again() -> SignalInstance:
    """Emitted when the freight service answers again (the session's status is back Online):
    a form's "cannot be reached" is stale then. One for the process, like its session, so
    that every form hears it without a way to the session (a dialog, a box in a pane)."""
    return _answering().again
