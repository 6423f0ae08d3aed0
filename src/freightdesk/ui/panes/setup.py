"""Which panes the main window has, in order."""

from __future__ import annotations

from PySide6.QtWidgets import QStyle

from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import EmptyPane, MainWindow


def install_panes(window: MainWindow, session: AppSession) -> None:
    window.add_pane(
        "shipments",
        "Shipments",
        EmptyPane("Shipments are loading…"),
        QStyle.StandardPixmap.SP_FileDialogDetailedView,
    )
