"""The delivery log of one push configuration: each message with its attempts; redeliver."""

from __future__ import annotations

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
from freightdesk.service.messages import explain
from freightdesk.service.webhooks import WebhooksService
from freightdesk.ui.formatting import local_time_text
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.notice import Notice

PING = "webhook.ping"
COLUMNS = ["Created", "Event", "Status", "Attempts", "Last answer", "Error"]


def last_answer(delivery: Delivery) -> str:
    if not delivery.attempts:
        return ""
    attempt = delivery.attempts[0]  # newest first
    status = f"HTTP {attempt.status_code}" if attempt.status_code is not None else "no answer"
    return (
        f"{status} in {attempt.latency_ms:.0f} ms, {local_time_text(attempt.attempted_date_time)}"
    )


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
        bottom.addWidget(self.close_button)
        layout.addLayout(bottom)
        self.status.currentIndexChanged.connect(lambda _i: self.load())
        self.refresh_button.clicked.connect(self.load)
        self.redeliver_button.clicked.connect(self.redeliver)
        self.close_button.clicked.connect(self.accept)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self._selection_changed()

    def load(self) -> None:
        status = self.status.currentData()
        self.refresh_button.setEnabled(False)

        def done(result: DeliveryList) -> None:
            self.refresh_button.setEnabled(True)
            self.show_deliveries(result)

        def failed(error: BaseException) -> None:
            self.refresh_button.setEnabled(True)
            self.notice.show_error(explain(error))

        spawn(
            self.service.deliveries(
                self.configuration.id, status=DeliveryStatus(status) if status else None
            ),
            on_done=done,
            on_error=failed,
            name="delivery-log",
        )

    def show_deliveries(self, result: DeliveryList) -> None:
        self.deliveries = list(result.deliveries)
        self.table.setRowCount(len(self.deliveries))
        for row, delivery in enumerate(self.deliveries):
            error = delivery.attempts[0].error if delivery.attempts else None
            cells = [
                local_time_text(delivery.created_date_time),
                "Test delivery" if delivery.event_type == PING else delivery.event_type,
                delivery.status.value.title(),
                str(delivery.attempt_count),
                last_answer(delivery),
                error or "",
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
            else f"{shown} of {result.total_items} messages (kept 7 days)"
        )
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
