"""Which panes the main window has, in order, and how they talk to the window."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QStyle, QSystemTrayIcon

from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.maps.fleet_map import FleetMapPane
from freightdesk.ui.maps.page import TileSettings
from freightdesk.ui.maps.page import configure as configure_maps
from freightdesk.ui.maps.scheme import ASSETS
from freightdesk.ui.panes.account_groups.pane import AccountGroupsPane
from freightdesk.ui.panes.bookings.install import install_capacity_panes
from freightdesk.ui.panes.documents.drop import ShipmentDocumentDrop
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from freightdesk.ui.panes.webhooks.pane import WebhooksPane


class ExceptionAlerts:
    """New exceptions from background updates: a badge on the pane and a desktop note."""

    def __init__(self, window: MainWindow, pane_key: str) -> None:
        self.window = window
        self.pane_key = pane_key
        self.unseen = 0
        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = QSystemTrayIcon(window.windowIcon(), window)
            self.tray.setToolTip("FreightDesk")
            self.tray.show()
        window.nav.currentRowChanged.connect(self._pane_shown)

    def raised(self, count: int) -> None:
        self.unseen += count
        self.window.set_badge(self.pane_key, self.unseen)
        text = "A shipment has a new exception." if count == 1 else f"{count} new exceptions."
        if self.tray is not None:
            self.tray.showMessage("FreightDesk", text, QSystemTrayIcon.MessageIcon.Warning, 8000)
        self.window.statusBar().showMessage(text, 10000)

    def _pane_shown(self, _row: int) -> None:
        pane = self.window.current_pane()
        if pane is self.window.pane(self.pane_key) and self.unseen:
            self.unseen = 0
            self.window.set_badge(self.pane_key, 0)


def install_panes(window: MainWindow, session: AppSession) -> None:
    # Maps cache their tiles on disk, so places seen once stay drawn without a network.
    configure_maps(TileSettings.from_settings(window.settings), window.paths.cache_dir / "maps")
    shipments = ShipmentsPane(session, window.settings, window)
    window.add_pane(
        "shipments", "Shipments", shipments, QStyle.StandardPixmap.SP_FileDialogDetailedView
    )
    alerts = ExceptionAlerts(window, "shipments")
    shipments.exceptionsRaised.connect(alerts.raised)
    window.exception_alerts = alerts  # kept alive with the window
    fleet = FleetMapPane(
        session,
        shipments,
        window.settings,
        window,
        show_shipments=lambda: window.show_pane("shipments"),
    )
    window.add_pane("map", "Map", fleet, QIcon(str(ASSETS / "map-pane.svg")))

    documents = DocumentsPane(session, window.settings, window)
    window.add_pane("documents", "Documents", documents, QStyle.StandardPixmap.SP_FileIcon)
    # Files dropped on an open shipment become its documents (the drop filter is a child of
    # the detail view, so it lives as long as the view).
    ShipmentDocumentDrop(
        shipments.detail,
        lambda files, identifiers, mode, context: documents.upload_files(
            files, identifiers, mode, context, parent=window
        ),
    )
    window.add_pane(
        "stop_locations",
        "Stop locations",
        StopLocationsPane(session, window),
        QStyle.StandardPixmap.SP_DirHomeIcon,
    )
    window.add_pane(
        "webhooks", "Webhooks", WebhooksPane(session, window), QStyle.StandardPixmap.SP_DriveNetIcon
    )
    window.add_pane(
        "account_groups",
        "Account groups",
        AccountGroupsPane(session, window),
        QStyle.StandardPixmap.SP_FileDialogListView,
    )
    install_capacity_panes(window, session, shipments)
