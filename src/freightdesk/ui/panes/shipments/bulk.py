"""Bulk actions on the shipments selected in the list: export, copy identifiers, set or remove
an attribute, stop tracking.

An "Actions" button on the list's toolbar and the list's context menu offer the same actions,
enabled only while rows are selected and naming how many. The work itself is the service
layer's (`service/bulk.py`): a few shipments at a time, its progress shown with a Cancel that
stops before the next shipment. At the end the shipments that failed (or were not started)
are listed by identifier with the reason; when all went well a line under the list says so,
until the list it speaks of is replaced (Refresh, a search or filter: `ShipmentsPane.refresh`).
Menus open with `popup()` and questions with `open()`: no nested event loop while coroutines
run on the same loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QBoxLayout, QMenu, QProgressDialog, QPushButton

from freightdesk.ui.widgets.notice import Notice

if TYPE_CHECKING:
    from freightdesk.service.bulk import BulkResult, Operation
    from freightdesk.service.shipments import ShipmentsService
    from freightdesk.service.summary_rows import SummaryRow
    from freightdesk.ui.panes.shipments.pane import ShipmentsPane


def shipment_count(count: int) -> str:
    return "1 shipment" if count == 1 else f"{count:,} shipments"


def _label(row: SummaryRow) -> str:
    return row.primary_identifier or row.id


@dataclass(frozen=True)
class _Job:
    """One bulk action: what it is called in messages and what it does to a shipment."""

    done_words: str  # "Priority = High set on", "Stopped tracking"
    operation: Callable[[ShipmentsService], Operation]


class BulkActions(QObject):
    """The Shipments pane's bulk actions: its Actions button, the list's context menu, and
    the runs they start. `toolbar` gets the button; the notice goes under the pane's table."""

    def __init__(self, pane: ShipmentsPane, toolbar: QBoxLayout, body: QBoxLayout) -> None:
        super().__init__(pane)
        self.pane = pane
        self.table = pane.table
        self.button = QPushButton("Actions", pane)
        self.button.setObjectName("bulkActions")
        self.button.setToolTip("Export, copy, change or stop tracking the selected shipments")
        self.notice = Notice(pane)
        self.notice.setObjectName("bulkNotice")
        self.menu = QMenu(pane)
        self.menu.setObjectName("bulkMenu")
        self.count_action = self.menu.addAction("")
        self.count_action.setEnabled(False)  # a title: how many the actions are about
        self.menu.addSeparator()
        self.export_action = self.menu.addAction("&Export selected…", self.export_selected)
        self.copy_action = self.menu.addAction("&Copy identifiers", self.copy_identifiers)
        self.menu.addSeparator()
        self.set_action = self.menu.addAction("&Set attribute…", lambda: self.edit_attribute())
        self.remove_action = self.menu.addAction(
            "&Remove attribute…", lambda: self.edit_attribute(remove=True)
        )
        self.menu.addSeparator()
        self.stop_action = self.menu.addAction("S&top tracking…", self.confirm_stop)
        self.running: BulkRun | None = None
        toolbar.addWidget(self.button)
        body.insertWidget(body.indexOf(self.table) + 1, self.notice)  # under: see the pane

        self.button.clicked.connect(self._open_menu)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().selectionChanged.connect(self.update)
        pane.model.modelReset.connect(self.update)
        pane.model.layoutChanged.connect(self.update)
        pane.model.rowsRemoved.connect(self.update)
        self.update()

    # --- the selection -----------------------------------------------------------------------

    def selected_rows(self) -> list[SummaryRow]:
        """The selected shipments in the order the list shows them."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [s for r in rows if (s := self.pane.model.summary_at(r)) is not None]

    def selected_ids(self) -> list[str]:
        return [row.id for row in self.selected_rows()]

    def update(self) -> None:
        count = len(self.table.selectionModel().selectedRows())
        idle = self.running is None
        self.button.setText(f"Actions · {count:,} selected" if count else "Actions")
        self.button.setEnabled(bool(count) and idle)
        self.count_action.setText(f"{count:,} selected" if count else "No shipment selected")
        for action in (self.export_action, self.copy_action):
            action.setEnabled(bool(count))
        changes_allowed = bool(count) and idle and self.pane.is_attached()
        for action in (self.set_action, self.remove_action, self.stop_action):
            action.setEnabled(changes_allowed)

    def _open_menu(self) -> None:
        self.update()
        self.menu.popup(self.button.mapToGlobal(QPoint(0, self.button.height())))

    def _context_menu(self, position: QPoint) -> None:
        if not self.table.indexAt(position).isValid():
            return
        self.update()
        self.menu.popup(self.table.viewport().mapToGlobal(position))

    # --- actions -----------------------------------------------------------------------------

    def export_selected(self) -> None:
        from freightdesk.ui.panes.shipments.export import export_shipments

        pane = self.pane
        export_shipments(
            pane, pane.exported_columns, self.selected_rows, self.notice, noun="selected shipments"
        )

    def copy_identifiers(self) -> None:
        labels = [_label(row) for row in self.selected_rows()]
        QGuiApplication.clipboard().setText("\n".join(labels))
        self.notice.show_info(f"Copied the identifiers of {shipment_count(len(labels))}.")

    def edit_attribute(self, *, remove: bool = False) -> None:
        chosen = self.selected_rows()
        if not chosen:
            return
        from freightdesk.ui.panes.shipments.bulk_dialogs import AttributeDialog

        dialog = AttributeDialog(len(chosen), remove=remove, parent=self.pane)
        dialog.finished.connect(dialog.deleteLater)

        def accepted() -> None:
            from freightdesk.service.bulk import remove_attribute, set_attribute

            name, value = dialog.name.text().strip(), dialog.value.text()
            if remove:
                job = _Job(
                    f"Attribute {name} removed from",
                    lambda service: remove_attribute(service, name),
                )
            else:
                job = _Job(
                    f"{name} = {value} set on", lambda service: set_attribute(service, name, value)
                )
            self.start(job, chosen)

        dialog.accepted.connect(accepted)
        dialog.open()

    def confirm_stop(self) -> None:
        chosen = self.selected_rows()
        if not chosen:
            return

        def stop() -> None:
            from freightdesk.service.bulk import stop_tracking

            self.start(_Job("Stopped tracking", stop_tracking), chosen)

        from freightdesk.ui.widgets.form_dialog import ask

        ask(
            self.pane,
            "Stop tracking",
            f"Stop tracking {shipment_count(len(chosen))}?",
            stop,
            name="confirmStopTracking",
            informative="They are removed from the list and from the service; "
            "this cannot be undone.",
            answers=(f"&Stop tracking {shipment_count(len(chosen))}", "&Keep them"),
        )

    def start(self, job: _Job, chosen: list[SummaryRow]) -> None:
        service = self.pane.session.shipments if self.pane.is_attached() else None
        if service is None or self.running is not None:
            self.notice.show_error("Not connected to the service: nothing was changed.")
            return
        self.running = BulkRun(self, job, chosen, service)
        self.update()
        self.running.start()

    def finished(self, run: BulkRun, result: BulkResult) -> None:
        self.running = None
        self.update()
        # Rows in place; the selection kept where the shipments remain. Refreshed before the
        # notice: a refresh takes the line about the list before it away (`pane.refresh`).
        self.pane.refresh()
        labels = {row.id: _label(row) for row in run.chosen}
        total, done = len(result.items), len(result.succeeded)
        summary = f"{run.job.done_words} {done:,} of {shipment_count(total)}."
        if result.problems:
            self.notice.show_error(f"{summary} {len(result.problems):,} not done: see the list.")
            from freightdesk.ui.panes.shipments.bulk_dialogs import BulkResultDialog

            problems = [(labels[i.shipment_id], i.reason) for i in result.problems]
            dialog = BulkResultDialog(f"{summary} These were not done:", problems, self.pane)
            dialog.finished.connect(dialog.deleteLater)
            dialog.open()
        else:
            self.notice.show_info(f"{run.job.done_words} {shipment_count(total)}.")

    def failed(self, run: BulkRun, error: BaseException) -> None:
        from freightdesk.service.messages import explain

        self.running = None
        self.update()
        self.pane.refresh()  # before the notice, as in `finished`
        self.notice.show_error(f"The bulk action stopped: {explain(error)}")


class BulkRun(QObject):
    """One bulk action under way: its progress dialog (Cancel stops before the next
    shipment) and the service layer's run."""

    def __init__(
        self,
        actions: BulkActions,
        job: _Job,
        chosen: list[SummaryRow],
        service: ShipmentsService,
    ) -> None:
        from freightdesk.service.bulk import Cancel

        super().__init__(actions)
        self.actions = actions
        self.job = job
        self.chosen = chosen
        self.service = service
        self.cancel = Cancel()
        total = len(chosen)
        self.progress = QProgressDialog(
            f"Working on {shipment_count(total)}…", "Cancel", 0, total, actions.pane
        )
        self.progress.setObjectName("bulkProgress")
        self.progress.setWindowTitle("Bulk action")
        self.progress.setAutoClose(False)
        self.progress.setAutoReset(False)
        self.progress.setMinimumDuration(300)  # a quick run shows no dialog at all
        self.progress.setValue(0)
        self.progress.canceled.connect(self._cancel)

    def start(self) -> None:
        from freightdesk.service.bulk import run_bulk
        from freightdesk.ui.tasks import spawn

        spawn(
            run_bulk(
                [row.id for row in self.chosen],
                self.job.operation(self.service),
                progress=self._progressed,
                cancel=self.cancel,
            ),
            on_done=self._done,
            on_error=self._failed,
            name="bulk-action",
            owner=self,
        )

    def _cancel(self) -> None:
        self.cancel.set()
        self.progress.setLabelText("Cancelling: the shipments under way are finished first…")

    def _progressed(self, done: int, total: int) -> None:
        self.progress.setValue(done)
        if not self.cancel.is_set():
            self.progress.setLabelText(f"Done {done:,} of {shipment_count(total)}…")

    def _close(self) -> None:
        self.progress.canceled.disconnect(self._cancel)
        self.progress.close()
        self.progress.deleteLater()
        self.deleteLater()

    def _done(self, result: BulkResult) -> None:
        self._close()
        self.actions.finished(self, result)

    def _failed(self, error: BaseException) -> None:
        self._close()
        self.actions.failed(self, error)
