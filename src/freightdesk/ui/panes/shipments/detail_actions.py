"""What the detail's user does with the shipment shown: copy its share link, edit it (as the
service has it now), make a new one, open a related one, edit its attributes (the Overview's);
and the header's one-line message, where these answer."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QPushButton, QSizePolicy, QTableWidget, QWidget

from freightdesk.models.tracking import TrackedShipment, TrackingHistory
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.overview import OverviewTab
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.forms import ErrorLabel
from freightdesk.ui.widgets.notice import ERROR_COLOR, OK_COLOR


def explain(error: BaseException) -> str:
    # Imported when an error is shown: the messages load the HTTP client's error types.
    from freightdesk.service.messages import explain as explain_error

    return explain_error(error)


class HeaderMessage(ErrorLabel):
    """The header's one-line message (an error, or a confirmation in green): cut to the room
    beside the buttons, the whole text in its tooltip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def show_message(self, message: str | None, *, ok: bool = False) -> None:
        self.setStyleSheet(f"color: {OK_COLOR if ok else ERROR_COLOR};")
        self.setToolTip(message or "")
        super().show_message(message)


class DetailActions(QWidget):
    """The detail's actions (mixed into `ShipmentDetailView`, which makes their buttons)."""

    shipmentRequested: SignalInstance
    session: AppSession
    shipment_id: str | None
    history: TrackingHistory | None
    message: HeaderMessage
    edit_button: QPushButton
    overview: OverviewTab
    related: QTableWidget
    refresh: Callable[[], None]

    def copy_share_link(self) -> None:
        if self.history and self.history.shipment.shipment_share_link:
            QGuiApplication.clipboard().setText(self.history.shipment.shipment_share_link)
            self.message.show_message("Share link copied", ok=True)

    # The Overview edits the attributes; these are its, by the names the app used before.
    def _add_attribute_row(self) -> None:
        self.overview.add_attribute_row()

    def _remove_attribute_row(self) -> None:
        self.overview.remove_attribute_row()

    def save_attribute_edits(self) -> None:
        self.overview.save_attribute_edits()

    def edit_shipment(self) -> None:
        """Edit… starts from the shipment as the service has it now, not as last polled: a
        change made meanwhile (another user, an integration) is in the form, not undone."""
        service = self.session.shipments
        if self.history is None or service is None:
            return
        shipment_id = str(self.history.shipment.id)
        self.edit_button.setEnabled(False)
        self.message.show_message("Reading the shipment…", ok=True)

        def read(shipment: TrackedShipment) -> None:
            from freightdesk.ui.panes.shipments.form import ShipmentFormDialog

            self.edit_button.setEnabled(True)
            if self.shipment_id != shipment_id:
                return  # the user went on to another shipment meanwhile
            self.message.show_message(None)
            dialog = ShipmentFormDialog(self.session, shipment, self)
            dialog.saved.connect(lambda _s: self.refresh())
            dialog.open()

        def failed(error: BaseException) -> None:
            self.edit_button.setEnabled(True)
            self.message.show_message(f"Cannot edit now: {explain(error)}")

        spawn(
            service.current(shipment_id),
            on_done=read,
            on_error=failed,
            name="read-shipment-to-edit",
            owner=self,
        )

    def new_shipment(self) -> None:
        from freightdesk.ui.panes.shipments.form import ShipmentFormDialog

        dialog = ShipmentFormDialog(self.session, None, self)
        dialog.saved.connect(lambda shipment: self.shipmentRequested.emit(str(shipment.id)))
        dialog.open()

    def _open_related(self, row: int, _column: int) -> None:
        item = self.related.item(row, 0)
        if item is not None:
            self.shipmentRequested.emit(str(item.data(Qt.ItemDataRole.UserRole)))
