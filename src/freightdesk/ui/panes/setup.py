"""Which panes the main window has, in order, and how they talk to the window.

Only the Shipments pane is made before the window shows (`add_panes`, before the session
exists: this module imports no pydantic or asyncio). The others are registered with a
factory that imports and makes them on first show (the maps import QtWebEngine); the
capacity panes are made in the first idle moments instead, because the Bookings pane
announces carriers' answers whichever pane is shown. Once the window is
attached to the session, `connect_panes` attaches the Shipments pane and joins it to the
others (the alerts inbox, maps, dropped documents).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from freightdesk.ui.icons import pane_icon
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.pane import ShipmentsPane

if TYPE_CHECKING:
    from freightdesk.service.session import AppSession
    from freightdesk.ui.panes.documents.pane import DocumentsPane

# The navigation's groups, headings over the panes in the order they are added.
TRACK = "Track"
SET_UP = "Set up"
BOOK = "Book"
PLAN = "Plan"
INBOX = "Inbox"


def install_panes(window: MainWindow, session: AppSession) -> ShipmentsPane:
    """Every pane, attached to `session` (the two steps of the app's start at once)."""
    shipments = add_panes(window)
    if not window.is_attached():
        window.attach(session)
    connect_panes(window, shipments)
    return shipments


def add_panes(window: MainWindow) -> ShipmentsPane:
    """The panes, before the session exists: the Shipments pane made (to show the cached
    list), the others as factories that make them once the window is attached."""
    shipments = ShipmentsPane(None, window.settings, window)
    window.add_pane("shipments", "Shipments", shipments, pane_icon("shipments"), group=TRACK)
    configure_maps = _maps_configurer(window)
    shipments.before_first_map = configure_maps  # the detail view's map, once it is made

    def fleet() -> QWidget:
        from freightdesk.ui.maps.fleet_map import FleetMapPane

        configure_maps()
        return FleetMapPane(
            window.session,
            shipments,
            window.settings,
            window,
            show_shipments=lambda: window.show_pane("shipments"),
        )

    window.add_pane("map", "Map", fleet, pane_icon("map"), group=TRACK)

    def documents() -> QWidget:
        from freightdesk.ui.panes.documents.pane import DocumentsPane

        return DocumentsPane(window.session, window.settings, window)

    window.add_pane("documents", "Documents", documents, pane_icon("documents"), group=TRACK)

    def stop_locations() -> QWidget:
        from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane

        return StopLocationsPane(window.session, window)

    window.add_pane(
        "stop_locations",
        "Stop locations",
        stop_locations,
        pane_icon("stop_locations"),
        group=SET_UP,
    )

    def webhooks() -> QWidget:
        from freightdesk.ui.panes.webhooks.pane import WebhooksPane

        return WebhooksPane(window.session, window)

    window.add_pane("webhooks", "Webhooks", webhooks, pane_icon("webhooks"), group=SET_UP)

    def account_groups() -> QWidget:
        from freightdesk.ui.panes.account_groups.pane import AccountGroupsPane

        return AccountGroupsPane(window.session, window)

    window.add_pane(
        "account_groups",
        "Account groups",
        account_groups,
        pane_icon("account_groups"),
        group=SET_UP,
    )

    def carrier_profiles() -> QWidget:
        from freightdesk.ui.panes.carriers.pane import CarrierProfilesPane

        return CarrierProfilesPane(window.session, window)

    window.add_pane(
        "carrier_profiles",
        "Carrier profiles",
        carrier_profiles,
        pane_icon("carrier_profiles"),
        group=SET_UP,
    )
    _add_capacity_panes(window, shipments)
    _add_alerts_pane(window)
    _add_plan_panes(window)
    return shipments


def connect_panes(window: MainWindow, shipments: ShipmentsPane) -> None:
    """Once the window is attached: the Shipments pane attached too, and joined to the
    others."""
    from freightdesk.ui.panes.documents.drop import ShipmentDocumentDrop

    if not shipments.is_attached():
        shipments.attach(window.session)
    from freightdesk.ui.panes.alerts_wiring import AlertsWiring

    # The inbox hears of new exceptions (and the rest) from the services themselves.
    window.exception_alerts = AlertsWiring(window, shipments, "alerts")

    def documents_pane() -> DocumentsPane:
        pane = window.pane("documents")
        from freightdesk.ui.panes.documents.pane import DocumentsPane

        assert isinstance(pane, DocumentsPane)
        return pane

    # Files dropped on an open shipment become its documents (the drop filter is a child of
    # the detail view, so it lives as long as the view).
    ShipmentDocumentDrop(
        shipments.detail,
        lambda files, identifiers, mode, context: documents_pane().upload_files(
            files, identifiers, mode, context, parent=window
        ),
    )


def _maps_configurer(window: MainWindow) -> Callable[[], None]:
    """Maps cache their tiles on disk, so places seen once stay drawn without a network. Set
    before the first map of either kind is made."""
    done = False

    def configure() -> None:
        nonlocal done
        if not done:
            from freightdesk.ui.maps.page import TileSettings, configure

            configure(TileSettings.from_settings(window.settings), window.paths.cache_dir / "maps")
            done = True

    return configure


# The capacity panes, as `install_capacity_panes` adds them (it makes the three together).
_CAPACITY = (("rates", "Rate requests"), ("bookings", "Bookings"), ("packages", "Packages"))


def _add_capacity_panes(window: MainWindow, shipments: ShipmentsPane) -> None:
    def make(key: str) -> Callable[[], QWidget]:
        def build() -> QWidget:
            from freightdesk.ui.panes.capacity_panes import install_capacity_panes

            # Supplies all three panes through add_pane; this one is among them.
            install_capacity_panes(window, window.session, shipments)
            return window.pane(key)

        return build

    for key, title in _CAPACITY:
        window.add_pane(key, title, make(key), pane_icon(key), warm=True, group=BOOK)


def _add_alerts_pane(window: MainWindow) -> None:
    """The Alerts inbox, in its own group past Ctrl+9: as the last of Track it would move the
    Ctrl numbers of every pane after it."""

    def alerts() -> QWidget:
        from freightdesk.ui.panes.alerts.pane import AlertsPane
        from freightdesk.ui.panes.alerts_wiring import AlertsWiring

        wiring = window.exception_alerts
        assert isinstance(wiring, AlertsWiring)
        session = window.session
        return AlertsPane(lambda: session.alerts, wiring.open_alert, window.settings, window)

    window.add_pane("alerts", "Alerts", alerts, pane_icon("alerts"), group=INBOX)


def _add_plan_panes(window: MainWindow) -> None:
    """The planning tools, after the others (past Ctrl+9: reached by a click or the
    arrow keys)."""

    def schedules() -> QWidget:
        from freightdesk.ui.panes.schedules.pane import SchedulesPane

        return SchedulesPane(window.session, window)

    window.add_pane("schedules", "Sailing schedules", schedules, pane_icon("schedules"), group=PLAN)

    def capacity() -> QWidget:
        from freightdesk.ui.panes.capacity.pane import CapacityPane

        return CapacityPane(window.session, window)

    window.add_pane(
        "carrier_capacity", "Carrier capacity", capacity, pane_icon("carrier_capacity"), group=PLAN
    )

    def vehicles() -> QWidget:
        from freightdesk.ui.panes.vehicles.pane import VehiclesPane

        return VehiclesPane(window.session, window)

    window.add_pane("vehicles", "Available vehicles", vehicles, pane_icon("vehicles"), group=PLAN)

    def rail() -> QWidget:
        from freightdesk.ui.panes.rail.pane import RailPane

        return RailPane(window.session, window)

    window.add_pane("rail", "Rail", rail, pane_icon("rail"), group=PLAN)

    def yard() -> QWidget:
        from freightdesk.ui.panes.yard.pane import YardPane

        return YardPane(window.session, window)

    window.add_pane("yard", "Yard slots", yard, pane_icon("yard"), group=PLAN)

    def vltl() -> QWidget:
        from freightdesk.ui.panes.vltl.pane import VltlPane

        return VltlPane(window.session, window)

    window.add_pane("vltl", "Volume LTL", vltl, pane_icon("vltl"), group=PLAN)

    def push() -> QWidget:
        from freightdesk.ui.panes.push.pane import PushPane

        return PushPane(window.session, window)

    window.add_pane("push", "Carrier push", push, pane_icon("push"), group=PLAN)
