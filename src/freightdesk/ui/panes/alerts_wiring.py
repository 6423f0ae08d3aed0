"""The inbox in the window: it follows the shipment list and its triage, the bookings' answers
and the webhooks' delivery logs; the Alerts pane's name carries the unread count; new
exceptions (every alert, when the user asks) become a desktop note and a status-bar line.

Silence is the one condition time alone brings: at the Shipments list's minute the inbox
judges again the rows whose silence ran out since the last (the list's moments, `timePassed`),
not every shipment in transit (0.2 to 0.8 s of the window for 100,000), unless the minute
cannot say which."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QSystemTrayIcon

from freightdesk.service.alerts import Alert, AlertKind, AlertsChange, AlertsInbox, Opens
from freightdesk.service.bookings import StatusChange
from freightdesk.service.shipments import ShipmentsChange
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.alerts.pane import NOTIFY_ALL
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.tasks import spawn

MESSAGE_MS = 10_000


class AlertsWiring(QObject):
    def __init__(self, window: MainWindow, shipments: ShipmentsPane, pane_key: str) -> None:
        super().__init__(window)  # lives as long as the window
        self.window = window
        self.shipments = shipments
        self.pane_key = pane_key
        self._inbox: AlertsInbox | None = None
        self._unlisten: Callable[[], None] | None = None
        # The app's one tray icon (the Bookings pane's notes use it too).
        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = QSystemTrayIcon(window.windowIcon(), window)
            self.tray.setToolTip("FreightDesk")
            self.tray.show()
        # The list's minute, until the window closes (as its own timer stopped then).
        self._closed = False
        shipments.triage.timePassed.connect(self._minute)
        window.closing.connect(self._close)
        session = window.session
        session.catching_up(lambda: session.listen_connected(self._connected))
        self._inbox_changed()

    @property
    def inbox(self) -> AlertsInbox | None:
        return self.window.session.alerts

    def _inbox_changed(self) -> None:
        inbox = self.inbox
        if inbox is not self._inbox:
            if self._unlisten is not None:
                self._unlisten()
            self._inbox = inbox
            self._unlisten = inbox.listen(self._changed) if inbox is not None else None
        self.window.set_badge(self.pane_key, inbox.unread if inbox is not None else 0)

    def _connected(self) -> None:
        """Follow this connection's services (the inbox closes the subscriptions)."""
        self._inbox_changed()
        if self.window.is_made(self.pane_key):
            from freightdesk.ui.panes.alerts.pane import AlertsPane

            pane = self.window.pane(self.pane_key)
            if isinstance(pane, AlertsPane):
                pane.follow()  # this connection's inbox
        session = self.window.session
        inbox, service = session.alerts, session.shipments
        if inbox is None or service is None:
            return
        facts = self.shipments.triage.facts
        if facts is not None:
            inbox.follow(facts.listen(lambda ids: self._judge(ids)))
        inbox.follow(service.coordinator.listen(self._shipments_changed))
        self._judge(None)  # the list as it is: noted the first time, compared after that
        bookings = session.bookings
        if bookings is not None:
            inbox.follow(bookings.watch.listen(self._answered))
        webhooks = session.webhooks
        if webhooks is not None:
            inbox.follow_webhooks(webhooks)

    def _answered(self, changes: list[StatusChange]) -> None:
        if self._inbox is not None:
            self._inbox.bookings_answered(changes)

    def _shipments_changed(self, change: ShipmentsChange) -> None:
        # Whole until a list was first noted (the first run's cache is empty).
        whole = change.full or (self._inbox is not None and not self._inbox.baselined)
        self._judge(None if whole else change.changed, change.removed)

    def _judge(self, ids: frozenset[str] | None, removed: frozenset[str] = frozenset()) -> None:
        service, inbox = self.window.session.shipments, self._inbox
        data = service.coordinator.data if service is not None else None
        if data is None or inbox is None:
            return
        triage = self.shipments.triage
        facts = triage.facts.facts if triage.facts is not None else {}
        summaries = data.summaries
        rows = summaries.values() if ids is None else [summaries[k] for k in ids if k in summaries]
        quiet = self.window.session.demo.preparation is not None
        inbox.judge_shipments(
            rows, facts, triage.settings, removed=removed, whole=ids is None, announce=not quiet
        )

    def _close(self) -> None:
        self._closed = True

    def _minute(self, came: frozenset[str] | None) -> None:
        """The list's minute: the shipments whose silence ran out since the last (`came`),
        or every one in transit when the list cannot say (None), judged again."""
        service, inbox = self.window.session.shipments, self._inbox
        data = service.coordinator.data if service is not None else None
        if data is not None and inbox is not None and not self._closed:
            triage = self.shipments.triage
            facts = triage.facts.facts if triage.facts is not None else {}
            summaries = data.summaries
            rows = (
                summaries.values()
                if came is None
                else [summaries[k] for k in came if k in summaries]
            )
            inbox.judge_moving(rows, facts, triage.settings)

    def _changed(self, change: AlertsChange) -> None:
        self.window.set_badge(self.pane_key, change.unread)
        if not change.added:
            return
        every = self.window.settings.value(NOTIFY_ALL, False, type=bool) is True
        noted = [a for a in change.added if every or a.kind is AlertKind.EXCEPTION]
        exceptions = sum(1 for a in change.added if a.kind is AlertKind.EXCEPTION)
        if exceptions:
            # As before the inbox: one line for the exceptions of one refresh.
            text = (
                "A shipment has a new exception."
                if exceptions == 1
                else (f"{exceptions} new exceptions.")
            )
        else:
            text = (
                change.added[0].text
                if len(change.added) == 1
                else (f"{len(change.added)} new alerts.")
            )
        if noted:
            self.window.statusBar().showMessage(text, MESSAGE_MS)
            if self.tray is not None:
                icon = QSystemTrayIcon.MessageIcon.Warning
                self.tray.showMessage("FreightDesk", text, icon, 8000)

    # --- opening ---------------------------------------------------------------------------

    def open_alert(self, alert: Alert) -> None:
        window = self.window
        if alert.opens is Opens.SHIPMENT:
            window.show_pane("shipments")
            self.shipments.open_shipment(alert.target)
        elif alert.opens is Opens.BOOKING:
            window.show_pane("bookings")
            self._open_booking(alert.target)
        elif alert.opens is Opens.WEBHOOK:
            window.show_pane("webhooks")
            from freightdesk.ui.panes.webhooks.pane import WebhooksPane

            pane = window.pane("webhooks")
            if isinstance(pane, WebhooksPane) and alert.target.isdigit():
                pane.table.select_when_listed(int(alert.target))

    def _open_booking(self, booking_id: str) -> None:
        from freightdesk.ui.panes.bookings.pane import BookingsPane

        service, pane = self.window.session.bookings, self.window.pane("bookings")
        if service is None or not isinstance(pane, BookingsPane):
            return

        def failed(error: BaseException) -> None:
            self.window.statusBar().showMessage(f"The booking could not be opened: {error}")

        spawn(service.get(booking_id), on_done=pane.show_booking, on_error=failed, owner=pane)
