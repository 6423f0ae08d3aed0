"""Under the detail's Timeline: Export events… and Export track… (positions) of the shipment,
read from the service when asked (`service.history_export`), then written with the app's one
export (CSV or XLSX, times as instants with their offset)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from freightdesk.service.history_export import HistoryExport, HistoryTable
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.export import Rows, export_rows
from freightdesk.ui.widgets.notice import Notice


def _explain(error: BaseException) -> str:
    from freightdesk.service.messages import explain

    return explain(error)


class HistoryExportBar(QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history = HistoryExport(session.require_client)
        self.shipment_id: str | None = None
        self.dialog: QFileDialog | None = None
        self.events_button = QPushButton("Export events…", self)
        self.events_button.setObjectName("exportEvents")
        self.events_button.setToolTip("Every event of the shipment as the service has it now")
        self.track_button = QPushButton("Export track…", self)
        self.track_button.setObjectName("exportTrack")
        self.track_button.setToolTip("Every reported position: time, place, speed, heading")
        self.notice = Notice(self)
        self.notice.setObjectName("historyExportNotice")
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.events_button)
        buttons.addWidget(self.track_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.notice)
        self.events_button.clicked.connect(
            lambda: self._export(self.history.events, self.events_button, "events")
        )
        self.track_button.clicked.connect(
            lambda: self._export(self.history.positions, self.track_button, "positions")
        )
        self.show_shipment(None)

    def show_shipment(self, shipment_id: str | None) -> None:
        if shipment_id != self.shipment_id:
            self.notice.clear_message()
        self.shipment_id = shipment_id
        for button in (self.events_button, self.track_button):
            button.setEnabled(shipment_id is not None)

    def _export(
        self,
        read: Callable[[str], Coroutine[Any, Any, HistoryTable]],
        button: QPushButton,
        what: str,
    ) -> None:
        shipment_id = self.shipment_id
        if shipment_id is None:
            return
        button.setEnabled(False)
        self.notice.show_info(f"Reading the {what} from the service…")

        def read_done(table: HistoryTable) -> None:
            button.setEnabled(self.shipment_id is not None)
            if self.shipment_id != shipment_id:
                return  # another shipment is shown now: not this one's file
            if not table.rows:
                self.notice.show_info(f"This shipment has no {what} yet: nothing to export.")
                return
            self.notice.clear_message()
            rows = Rows(table.header, table.rows)
            self.dialog = export_rows(self, lambda: rows, self.notice, noun=table.name)

        def failed(error: BaseException) -> None:
            button.setEnabled(self.shipment_id is not None)
            self.notice.show_error(f"The {what} were not exported: {_explain(error)}")

        spawn(
            read(shipment_id), on_done=read_done, on_error=failed, name=f"read-{what}", owner=self
        )
