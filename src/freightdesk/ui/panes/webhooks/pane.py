"""The Webhooks pane: the tenant's push configurations; new, edit, delete, and where the
service offers them a test delivery, the delivery log and a new signing secret."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.webhooks import (
    MAX_CONFIGURATIONS_PER_TENANT,
    PingResult,
    PushConfiguration,
    SigningSecret,
)
from freightdesk.service.listing import Listing
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.service.webhooks import LIMIT_TEXT, WebhookExtensions
from freightdesk.ui.panes.webhooks.auth import TYPE_TEXT
from freightdesk.ui.panes.webhooks.deliveries import DeliveryLogDialog
from freightdesk.ui.panes.webhooks.form import WebhookFormDialog, kind_text
from freightdesk.ui.panes.webhooks.secret import SigningSecretDialog, rotated_text
from freightdesk.ui.panes.webhooks.summary import kind_tip, summary_html
from freightdesk.ui.panes.webhooks.words import delivery_error_reason, paused_text
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice


def _auth_text(configuration: PushConfiguration) -> str:
    methods = configuration.authentication_methods
    return ", ".join(TYPE_TEXT[m.type].split(" (")[0] for m in methods) or "None"


def _state_text(configuration: PushConfiguration) -> str:
    return "Active" if configuration.enabled else "Paused"


def _state_tooltip(configuration: PushConfiguration) -> str:
    return paused_text(configuration) or "Messages are delivered."


def _kind_short(configuration: PushConfiguration) -> str:
    return kind_text(configuration).split(" (")[0]


COLUMNS: list[Column[PushConfiguration]] = [
    Column("Name", lambda c: c.config_name, 190),
    Column("Kind", _kind_short, 210, tooltip=kind_text),
    Column("State", _state_text, 70, tooltip=_state_tooltip),
    Column("Method", lambda c: c.method.value, 65),
    Column("Authentication", _auth_text, 200, tooltip=_auth_text),
    Column("Version", lambda c: str(c.version) if c.version is not None else "", 60),
    Column("URL", lambda c: c.url, 300, tooltip=lambda c: c.url),
]


class WebhooksPane(ListExport, QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[PushConfiguration] = ListingModel(COLUMNS, self)
        self.dialog: QDialog | None = None
        self.extensions = WebhookExtensions()
        self.last_ping: PingResult | None = None
        self.question: QMessageBox | None = None

        intro = QLabel(
            "Push configurations send shipment changes to your systems as they happen.", self
        )
        intro.setWordWrap(True)
        self.count_label = QLabel(self)
        self.count_label.setObjectName("webhookCount")
        self.new_button = QPushButton("&New configuration…", self)
        # Not Alt+E: that opens the main window's Edit menu.
        self.edit_button = QPushButton("Ed&it…", self)
        self.edit_button.setToolTip("Change the selected configuration (Return or F2)")
        self.pause_button = QPushButton("Pa&use", self)
        self.pause_button.setObjectName("pauseButton")
        self.delete_button = QPushButton("&Delete…", self)
        self.delete_button.setToolTip("Delete the selected configuration (Delete)")
        self.test_button = QPushButton("Send a &test delivery", self)
        self.log_button = QPushButton("Delivery &log…", self)
        self.rotate_button = QPushButton("Rotate si&gning secret…", self)
        self.rotate_button.setObjectName("rotateSecretButton")
        self.refresh_button = QPushButton("&Refresh", self)
        top = QHBoxLayout()
        top.addWidget(intro, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.new_button)
        self.notice = Notice(self)
        self.limit = QLabel(LIMIT_TEXT, self)
        self.limit.setObjectName("limitNotice")
        self.limit.setWordWrap(True)
        self.limit.setStyleSheet("color: #b26a00;")
        self.limit.setVisible(False)
        self.table = ItemTable(self.model, lambda c: c.id, self, name="webhooksTable")
        self.empty = say_when_empty(
            self.table,
            "No push configurations yet: choose New configuration… to send shipment changes "
            "to your systems as they happen.",
            loading="Loading push configurations…",
        )
        actions = QHBoxLayout()
        actions.addWidget(self.count_label)
        actions.addStretch(1)
        for button in (
            self.test_button,
            self.log_button,
            self.rotate_button,
            self.pause_button,
            self.edit_button,
            self.delete_button,
        ):
            actions.addWidget(button)
        self.summary = QLabel(self)
        self.summary.setObjectName("webhookSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setMinimumHeight(150)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.limit)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)
        layout.addWidget(self.summary)

        self.page = ListPage(
            self, session, lambda s: s.webhooks, self.table, self.notice, name="webhooks"
        )
        self.page.shown.connect(self._count)
        self.new_button.clicked.connect(self.new_item)
        self.test_button.clicked.connect(self.test_selected)
        self.log_button.clicked.connect(self.show_log)
        self.rotate_button.clicked.connect(self.confirm_rotate)
        self.pause_button.clicked.connect(self.toggle_paused)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.on_open(self.edit_selected, "Edit", button=self.edit_button)
        self.table.on_delete(self.confirm_delete, "Delete", button=self.delete_button)
        self.table.selectedChanged.connect(self._selection_changed)
        self._unconnected = session.listen_connected(self._learn_extensions)
        self._selection_changed()

    # --- showing ---------------------------------------------------------------------------

    def _learn_extensions(self) -> None:
        service = self.session.webhooks
        if service is None:
            return

        def known(extensions: WebhookExtensions) -> None:
            self.extensions = extensions
            self._selection_changed()

        spawn(service.extensions(), on_done=known, name="webhook-extensions")

    def _count(self, data: Listing[PushConfiguration]) -> None:
        count = len(data.items)
        self.count_label.setText(
            f"{count} of at most {MAX_CONFIGURATIONS_PER_TENANT} push configurations"
        )
        at_limit = count >= MAX_CONFIGURATIONS_PER_TENANT
        self.limit.setVisible(at_limit)
        self.new_button.setEnabled(not at_limit)
        self.new_button.setToolTip(LIMIT_TEXT if at_limit else "")

    def _selection_changed(self, *_args: object) -> None:
        configuration = self.table.selected()
        chosen = configuration is not None
        self.pause_button.setEnabled(chosen)
        paused = configuration is not None and not configuration.enabled
        self.pause_button.setText("Res&ume" if paused else "Pa&use")
        self.pause_button.setToolTip(
            "Deliver messages again" if paused else "Stop delivering messages for now"
        )
        self.summary.setText(
            summary_html(configuration)
            if configuration is not None
            else "Select a configuration to see what it sends, where and how."
        )
        self.summary.setToolTip(
            kind_tip(configuration.webhook_configuration) if configuration is not None else ""
        )
        self.test_button.setEnabled(chosen and self.extensions.ping)
        self.log_button.setEnabled(chosen and self.extensions.delivery_log)
        self.rotate_button.setEnabled(chosen and self.extensions.rotate_secret)
        missing = "The connected service does not offer this."
        self.test_button.setToolTip("" if self.extensions.ping else missing)
        self.log_button.setToolTip("" if self.extensions.delivery_log else missing)
        self.rotate_button.setToolTip(
            "Make a new secret for the signatures of its messages"
            if self.extensions.rotate_secret
            else missing
        )

    # --- actions ---------------------------------------------------------------------------

    def new_item(self) -> None:
        service = self.session.webhooks
        if service is not None and service.at_limit:
            self.notice.show_error(LIMIT_TEXT)
            return
        self._open_form(None)

    def edit_selected(self) -> None:
        configuration = self.table.selected()
        if configuration is not None:
            self._open_form(configuration)

    def _open_form(self, configuration: PushConfiguration | None) -> None:
        dialog = WebhookFormDialog(self.session, configuration, self)
        dialog.saved.connect(self._saved)
        self.dialog = dialog
        dialog.open()

    def _saved(self, saved: PushConfiguration) -> None:
        self.notice.show_info(f"Saved {saved.config_name}.")
        if saved.signing_secret:
            dialog = SigningSecretDialog(saved.config_name, saved.signing_secret, self)
            self.dialog = dialog
            dialog.open()

    def confirm_delete(self) -> None:
        configuration = self.table.selected()
        if configuration is None:
            return
        self.page.ask_delete(
            "push configuration",
            configuration.config_name,
            lambda: self.delete(configuration.id),
            informative="Messages still waiting to be delivered to it are dropped. To stop "
            "deliveries for a while instead, pause it.",
        )

    def delete(self, webhook_id: int) -> None:
        service = self.session.webhooks
        if service is None:
            return
        self.page.run(service.delete(webhook_id), "delete-webhook")

    def test_selected(self) -> None:
        configuration = self.table.selected()
        service = self.session.webhooks
        if configuration is None or service is None:
            return
        self.test_button.setEnabled(False)
        self.notice.show_info(f"Sending a test delivery to {configuration.url}…")

        def done(result: PingResult) -> None:
            self.last_ping = result
            self._selection_changed()
            if result.delivered:
                self.notice.show_info(
                    f"Test delivery accepted: HTTP {result.status_code} in "
                    f"{result.latency_ms:.0f} ms."
                )
            else:
                reason = delivery_error_reason(result.error, result.error_detail) or (
                    f"the receiver answered HTTP {result.status_code}"
                    if result.status_code is not None
                    else "the receiver did not answer"
                )
                self.notice.show_error(f"Test delivery failed: {reason}")

        spawn(service.ping(configuration.id), on_done=done, on_error=self._failed, name="ping")

    def toggle_paused(self) -> None:
        configuration = self.table.selected()
        service = self.session.webhooks
        if configuration is None or service is None:
            return
        resume = not configuration.enabled
        self.pause_button.setEnabled(False)

        def done(saved: PushConfiguration) -> None:
            self._selection_changed()
            self.notice.show_info(
                f"{saved.config_name} delivers messages again."
                if resume
                else f"{saved.config_name} is paused; messages are not delivered."
            )

        spawn(
            service.set_enabled(configuration, resume),
            on_done=done,
            on_error=self._failed,
            name="pause-webhook",
        )

    def _failed(self, error: BaseException) -> None:
        """A test delivery, a pause or a rotation that did not happen: its button back, the
        reason said."""
        self._selection_changed()
        self.notice.show_error(explain(error))

    def confirm_rotate(self) -> None:
        configuration = self.table.selected()
        if configuration is None:
            return
        self.question = ask(
            self,
            "Rotate signing secret",
            f"Make a new signing secret for {configuration.config_name}?",
            lambda: self.rotate(configuration),
            name="confirmRotate",
            informative="The current secret stops verifying messages after 24 hours: until "
            "then each message carries two signatures, one with the new secret and one with "
            "the current one, so the receiver can switch without losing messages. The new "
            "secret is shown only once.",
            answers=("&Rotate", "&Keep it"),
        )

    def rotate(self, configuration: PushConfiguration) -> None:
        service = self.session.webhooks
        if service is None:
            return
        self.rotate_button.setEnabled(False)

        def done(rotated: SigningSecret) -> None:
            self._selection_changed()
            until = rotated.previous_secret_expires_date_time
            self.notice.show_info(f"New signing secret made for {configuration.config_name}.")
            dialog = SigningSecretDialog(
                configuration.config_name,
                rotated.signing_secret,
                self,
                text=rotated_text(configuration.config_name, until),
            )
            self.dialog = dialog
            dialog.open()

        spawn(
            service.rotate_signing_secret(configuration.id),
            on_done=done,
            on_error=self._failed,
            name="rotate-signing-secret",
        )

    def show_log(self) -> None:
        configuration = self.table.selected()
        service = self.session.webhooks
        if configuration is None or service is None:
            return
        dialog = DeliveryLogDialog(service, configuration, self)
        self.dialog = dialog
        dialog.open()
        dialog.load()

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.table.setFocus()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
        self._unconnected()
