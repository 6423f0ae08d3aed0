"""The capacity panes in the main window (Rate requests, Bookings, Packages) and how they
talk: a quote booked shows its booking, a booking's answer is announced, a booked booking
opens its tracked shipment in the Shipments pane."""

from __future__ import annotations

from PySide6.QtWidgets import QStyle

from freightdesk.models.booking import Booking
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.bookings.alerts import BookingAlerts
from freightdesk.ui.panes.bookings.pane import BookingsPane
from freightdesk.ui.panes.packages.pane import PackagesPane
from freightdesk.ui.panes.rates.pane import RatesPane
from freightdesk.ui.panes.shipments.pane import ShipmentsPane


def install_capacity_panes(
    window: MainWindow, session: AppSession, shipments: ShipmentsPane
) -> tuple[RatesPane, BookingsPane, PackagesPane]:
    rates = RatesPane(session, window)
    window.add_pane(
        "rates", "Rate requests", rates, QStyle.StandardPixmap.SP_FileDialogContentsView
    )

    def open_tracked(shipment_id: str) -> None:
        if session.client is not None:
            session.shipments_changed()  # a shipment just initiated: list it soon
        window.show_pane("shipments")
        shipments.open_shipment(shipment_id)

    bookings = BookingsPane(session, window.settings, window, open_shipment=open_tracked)
    window.add_pane("bookings", "Bookings", bookings, QStyle.StandardPixmap.SP_DialogApplyButton)
    alerts = BookingAlerts(window, "bookings")
    bookings.bookingStatusChanged.connect(alerts.announce)

    def show_booking(booking: Booking) -> None:
        window.show_pane("bookings")
        bookings.show_booking(booking)

    rates.bookingCreated.connect(show_booking)
    packages = PackagesPane(session, window)
    window.add_pane("packages", "Packages", packages, QStyle.StandardPixmap.SP_DirClosedIcon)
    return rates, bookings, packages
