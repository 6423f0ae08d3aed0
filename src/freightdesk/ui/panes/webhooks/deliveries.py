"""The delivery log of one push configuration: each message with its attempts; redeliver."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.webhooks import Delivery, DeliveryList, DeliveryStatus, PushConfiguration
from freightdesk.service.clock import user_time
from freightdesk.service.messages import explain
from freightdesk.service.webhooks import WebhooksService
from freightdesk.ui.panes.webhooks.words import delivery_error_text
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.notice import Notice

PING = "webhook.ping"
COLUMNS = ["Created", "Event", "Status", "Attempts", "Last answer", "Error"]


PAGE_SIZE = 50


def seconds_text(value: datetime | None) -> str:
    """To the second: messages of one minute (a test, then its retry) differ."""
    return user_time(value, seconds=True)


def last_answer(delivery: Delivery) -> str:
    if not delivery.attempts:
        return ""
    attempt = delivery.attempts[0]  # newest first
    when = seconds_text(attempt.attempted_date_time)
    if attempt.status_code is None:
        return f"no answer (gave up after {attempt.latency_ms:.0f} ms), {when}"
    return f"HTTP {attempt.status_code} in {attempt.latency_ms:.0f} ms, {when}"


class DeliveryLogDialog(QDialog):
    def __init__(
        self,
        service: WebhooksService,
        configuration: PushConfiguration,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("deliveryLog")
        self.service = service
        self.configuration = configuration
        self.deliveries: list[Delivery] = []
        self.setWindowTitle(f"Delivery log: {configuration.config_name}")
        self.resize(920, 480)
        self.status = QComboBox(self)
        self.status.setObjectName("statusFilter")
        self.status.addItem("All messages", None)
        for status in DeliveryStatus:
            self.status.addItem(status.value.title(), status.value)
        self.refresh_button = QPushButton("&Refresh", self)
        self.redeliver_button = QPushButton("Re&deliver", self)
        self.redeliver_button.setToolTip("Queue the selected message again")
        self.more_button = QPushButton("Show &more", self)
        self.more_button.setObjectName("showMore")
        self.more_button.setVisible(False)
        self.close_button = QPushButton("&Close", self)
        self.notice = Notice(self)
        self.summary = QLabel(self)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setObjectName("deliveries")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        top = QHBoxLayout()
        status_label = QLabel("&Show", self)
        status_label.setBuddy(self.status)
        top.addWidget(status_label)
        top.addWidget(self.status)
        top.addStretch(1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.redeliver_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.more_button)
        bottom.addWidget(self.close_button)
        layout.addLayout(bottom)
        self.status.currentIndexChanged.connect(lambda _i: self.load())
        self.refresh_button.clicked.connect(lambda: self.load())
        self.more_button.clicked.connect(lambda: self.load(more=True))
        self.redeliver_button.clicked.connect(self.redeliver)
        self.close_button.clicked.connect(self.accept)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self._selection_changed()

    def load(self, *, more: bool = False) -> None:
        """The newest page of messages, or with `more` the next older page after those shown."""
        status = self.status.currentData()
        self.refresh_button.setEnabled(False)
        self.more_button.setEnabled(False)
        offset = len(self.deliveries) if more else 0

        def done(result: DeliveryList) -> None:
            self.refresh_button.setEnabled(True)
            self.more_button.setEnabled(True)
            self.show_deliveries(result, append=more)

        def failed(error: BaseException) -> None:
            self.refresh_button.setEnabled(True)
            self.more_button.setEnabled(True)
            self.notice.show_error(explain(error))

        spawn(
            self.service.deliveries(
                self.configuration.id,
                status=DeliveryStatus(status) if status else None,
                offset=offset,
                page_size=PAGE_SIZE,
            ),
            on_done=done,
            on_error=failed,
            name="delivery-log",
        )

    def show_deliveries(self, result: DeliveryList, *, append: bool = False) -> None:
        known = {d.message_id for d in self.deliveries} if append else set()
        fresh = [d for d in result.deliveries if d.message_id not in known]
        self.deliveries = [*self.deliveries, *fresh] if append else list(result.deliveries)
        self.table.setRowCount(len(self.deliveries))
        for row, delivery in enumerate(self.deliveries):
            last = delivery.attempts[0] if delivery.attempts else None  # newest first
            cells = [
                seconds_text(delivery.created_date_time),
                "Test delivery" if delivery.event_type == PING else delivery.event_type,
                delivery.status.value.title(),
                str(delivery.attempt_count),
                last_answer(delivery),
                delivery_error_text(last.error, last.error_detail) if last else "",
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 5 and text:
                    item.setToolTip(text)
                if delivery.status is DeliveryStatus.FAILED:
                    item.setForeground(Qt.GlobalColor.red)
                self.table.setItem(row, column, item)
        shown = len(self.deliveries)
        self.summary.setText(
            "No messages yet"
            if result.total_items == 0
            else f"{shown} of {result.total_items} messages, newest first (kept 7 days)"
        )
        self.more_button.setVisible(shown < result.total_items)
        self._selection_changed()

    def selected(self) -> Delivery | None:
        row = self.table.currentRow()
        if not self.table.selectedItems() or not 0 <= row < len(self.deliveries):
            return None
        return self.deliveries[row]

    def _selection_changed(self) -> None:
        delivery = self.selected()
        self.redeliver_button.setEnabled(delivery is not None and delivery.event_type != PING)

    def redeliver(self) -> None:
        delivery = self.selected()
        if delivery is None:
            return

        def done(_result: object) -> None:
            self.notice.show_info("Queued again; it is delivered with a fresh retry schedule.")
            self.load()

        spawn(
            self.service.redeliver(self.configuration.id, delivery.message_id),
            on_done=done,
            on_error=lambda error: self.notice.show_error(explain(error)),
            name="redeliver",
        )
