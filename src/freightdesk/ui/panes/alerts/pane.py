"""The Alerts inbox: newest first, unread in bold, filtered by kind; Enter or a double-click
opens the alert's shipment, booking or webhook."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.service.alerts import KIND_NAMES, Alert, AlertKind, AlertsChange, AlertsInbox
from freightdesk.service.clock import user_time
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.item_table import ROW_HEIGHT

# A desktop note for every alert, not only for new exceptions (the app's behaviour before).
NOTIFY_ALL = "alerts/notify_all"
KEY_ROLE = Qt.ItemDataRole.UserRole
EMPTY_TEXT = (
    "No alerts. New exceptions, shipments turning late, at risk or silent, bookings the "
    "carrier answered and failed webhook deliveries are listed here as they happen."
)


class AlertTree(QTreeWidget):
    """Enter opens the current alert, as a double-click does."""

    def __init__(self, open_current: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._open_current = open_current

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentItem():
            self._open_current()
            return
        super().keyPressEvent(event)


class AlertsPane(QWidget):
    def __init__(
        self,
        inbox: Callable[[], AlertsInbox | None],
        open_alert: Callable[[Alert], None],
        settings: QSettings,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._inbox = inbox
        self._open_alert = open_alert
        self.kind = QComboBox()
        self.kind.setAccessibleName("Kind of alert")
        self.kind.addItem("All kinds", None)
        for kind, name in KIND_NAMES.items():
            self.kind.addItem(name, kind.value)
        self.kind.currentIndexChanged.connect(self.refill)
        self.mark_all = QPushButton("Mark all read")
        self.mark_all.clicked.connect(self._mark_all_read)
        self.notify_all = QCheckBox("Desktop note for every alert")
        self.notify_all.setToolTip("Off: a desktop note only for new exceptions")
        self.notify_all.setChecked(settings.value(NOTIFY_ALL, False, type=bool) is True)
        self.notify_all.toggled.connect(lambda on: settings.setValue(NOTIFY_ALL, on))
        self.count = QLabel()
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Show"))
        bar.addWidget(self.kind)
        bar.addWidget(self.count, 1)
        bar.addWidget(self.notify_all)
        bar.addWidget(self.mark_all)
        self.tree = AlertTree(self.open_current, self)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setHeaderLabels(["Time", "Kind", "What happened"])
        self.tree.setColumnWidth(0, 150)
        self.tree.setColumnWidth(1, 170)
        self.tree.itemDoubleClicked.connect(lambda item, _column: self._open_item(item))
        self.empty = say_when_empty(self.tree, EMPTY_TEXT)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.tree)
        self._unlisten: Callable[[], None] | None = None
        self._listening: AlertsInbox | None = None
        self.follow()

    def follow(self) -> None:
        """Follow the session's inbox (a new one after switching connections)."""
        inbox = self._inbox()
        if inbox is not self._listening:
            if self._unlisten is not None:
                self._unlisten()
            self._listening = inbox
            self._unlisten = inbox.listen(self._changed) if inbox is not None else None
        self.refill()

    def _changed(self, _change: AlertsChange) -> None:
        self.refill()

    def refill(self) -> None:
        inbox = self._listening
        alerts = inbox.alerts if inbox is not None else []
        wanted = self.kind.currentData()
        shown = [a for a in alerts if wanted is None or a.kind.value == wanted]
        current = self.tree.currentItem()
        chosen = current.data(0, KEY_ROLE) if current is not None else None
        self.tree.clear()
        bold = QFont(self.tree.font())
        bold.setBold(True)
        items = []
        for alert in shown:
            item = QTreeWidgetItem(
                [user_time(alert.at), KIND_NAMES[AlertKind(alert.kind)], alert.text]
            )
            item.setData(0, KEY_ROLE, alert.key)
            # As tall as the app's other lists: the font's own height crammed bold rows together.
            item.setSizeHint(0, QSize(0, ROW_HEIGHT))
            item.setToolTip(2, alert.text)
            if not alert.read:
                for column in range(3):
                    item.setFont(column, bold)
            items.append(item)
        self.tree.addTopLevelItems(items)
        for item in items:
            if item.data(0, KEY_ROLE) == chosen:
                self.tree.setCurrentItem(item)
        unread = inbox.unread if inbox is not None else 0
        self.count.setText(f"{unread} unread" if unread else "All read")
        self.mark_all.setEnabled(unread > 0)

    def open_current(self) -> None:
        item = self.tree.currentItem()
        if item is not None:
            self._open_item(item)

    def _open_item(self, item: QTreeWidgetItem) -> None:
        inbox = self._listening
        alert = inbox.get(str(item.data(0, KEY_ROLE))) if inbox is not None else None
        if alert is None or inbox is None:
            return
        inbox.mark_read([alert.key])
        self._open_alert(alert)

    def times_changed(self) -> None:
        """The user's zone changed (the one clock): the alerts' times are written again."""
        self.refill()

    def refresh(self) -> None:
        """F5: the webhooks' delivery logs looked at now (the rest arrives by itself)."""
        if self._listening is not None:
            self._listening.look_again()

    def _mark_all_read(self) -> None:
        if self._listening is not None:
            self._listening.mark_all_read()

    def shutdown(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
