"""The detail's Sharing tab: the companies (tenants) a shipment is shared with, Share with…,
Stop sharing… per company after a confirmation, and the public link for someone without an
account. A shipment another company shared with the user says who, and offers no sharing.

What it shows comes from the history the detail follows (its sharing context) through
`service.sharing`; sharing and stopping go through the same service.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.tracking import TrackingHistory
from freightdesk.service.clock import user_time
from freightdesk.service.public_view import (
    THIS_COMPUTER_ONLY,
    preview_problem,
    this_computer_only,
)
from freightdesk.service.session import AppSession
from freightdesk.service.sharing import (
    TENANT_FIELD,
    Party,
    Sharing,
    SharingService,
    check_tenant,
    problems_of_error,
)
from freightdesk.ui.panes.shipments.tables import fill, make_table, show_all_rows
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.empty_state import EmptyState
from freightdesk.ui.widgets.form_dialog import FormDialog, ask
from freightdesk.ui.widgets.forms import ErrorLabel
from freightdesk.ui.widgets.notice import ERROR_COLOR, OK_COLOR

if TYPE_CHECKING:
    from freightdesk.service.public_view import PublicView
    from freightdesk.ui.panes.shipments.public_preview import PublicPreviewDialog

COMPANY_UNKNOWN = "Not known yet: it is asked of the service when a shipment is shown"
NOT_TOLD = "This service does not tell: ask your administrator for your company id"
# A shipment shared with the user: whom its owner shares it with is not the user's to see.
NOT_YOURS = "Shared with you: whom else its owner shares it with is theirs to see"
NOT_SHARED = "Not shared with another company — Share with… lets a partner follow it"
STOP_COLUMN = 3
COMPANY_ID_WIDTH = 64
RECIPIENT_COLUMNS = ("Company", "Company id", "Shared since", "")
HEADER_PADDING = 16  # a header section's margins around its title
STOP_TEXT = "Stop…"  # short: "Stop sharing with <company>…" is its tooltip


def _explain(error: BaseException) -> str:
    from freightdesk.service.messages import explain

    return explain(error)


class ShareDialog(FormDialog):
    """Share with…: the company's id (its tenant uuid), checked before it is sent; the service's
    refusal beside the field (or in words under it), what was typed kept."""

    # (shipment id, tuple[Party, ...]): every company the shipment is shared with now.
    shared = Signal(str, object)

    def __init__(
        self, service: SharingService, shipment_id: str, name: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("shareDialog")
        self.setWindowTitle(f"Share {name}")
        self._service = service
        self._shipment_id = shipment_id
        note = QLabel(
            f"The company can then follow {name} in its own FreightDesk (carriers without the "
            "attributes). Ask them for their company id: their FreightDesk shows it in a "
            "shipment's Sharing tab.",
            self,
        )
        note.setWordWrap(True)
        self.tenant = QLineEdit(self)
        self.tenant.setObjectName("shareTenant")
        self.tenant.setPlaceholderText("company id, like 3f2b8c1e-5d4a-4e0b-9c7f-1a2b3c4d5e6f")
        self.tenant.textEdited.connect(self.mark_dirty)
        form = QFormLayout()
        self.errors.add_row(form, "&Company id", TENANT_FIELD, self.tenant)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("&Share")
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(480)
        self.buttons.accepted.connect(self.send)
        self.buttons.rejected.connect(self.reject)
        self.tenant.setFocus()

    def send(self) -> None:
        tenant_uuid, problems = check_tenant(self.tenant.text())
        if tenant_uuid is None:
            self.errors.show(problems)
            return
        self.errors.clear()
        self.buttons.setEnabled(False)

        def failed(error: BaseException) -> None:
            self.buttons.setEnabled(True)
            fields, general = problems_of_error(error)
            self.errors.show(fields, general)

        def done(recipients: tuple[Party, ...]) -> None:
            self.buttons.setEnabled(True)
            self.mark_clean()
            self.shared.emit(self._shipment_id, recipients)
            self.accept()

        spawn(
            self._service.share(self._shipment_id, tenant_uuid),
            on_done=done,
            on_error=failed,
            name="share-shipment",
            owner=self,
        )


class SharingTab(QWidget):
    changed = Signal()  # shared or stopped: the shipment's history is worth reading again

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.service = session.sharing
        self.history: TrackingHistory | None = None
        self.sharing: Sharing | None = None
        self.dialog: ShareDialog | None = None
        self._unlisten: Callable[[], None] = session.listen_connected(self._connected)

        self.company: Party | None = None
        self.company_id = QLineEdit(self)
        self.company_id.setObjectName("companyId")
        self.company_id.setReadOnly(True)
        self.company_id.setPlaceholderText(COMPANY_UNKNOWN)
        self.company_id.setToolTip(
            "Give this id to a partner company so that it can share its shipments with yours"
        )
        self.copy_company_id = QPushButton("Cop&y id", self)
        self.copy_company_id.setObjectName("copyCompanyId")
        self.copy_company_id.setEnabled(False)
        self._asked_company = False
        self.status = QLabel(self)
        self.status.setObjectName("sharingStatus")
        self.status.setWordWrap(True)
        self.recipients = make_table(
            ["Company", "Company id", "Shared since", ""], self, NOT_SHARED
        )
        self.recipients.setObjectName("sharingRecipients")
        # The detail is narrow: the company and its id are cut (whole in their tooltips) so
        # that the date and Stop sharing… stay in sight without scrolling sideways.
        self.recipients.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.recipients.setWordWrap(False)
        header = self.recipients.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        # At least its title whole ("Company id" was cut to "ompany i" at 64 px).
        title = header.fontMetrics().horizontalAdvance(RECIPIENT_COLUMNS[1]) + HEADER_PADDING
        header.resizeSection(1, max(COMPANY_ID_WIDTH, title))
        # The company takes the room the other columns leave, not the Stop… button: a wide
        # detail (below the list) shows the name whole.
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.share = QPushButton("Share with…", self)
        self.share.setObjectName("shareWith")
        self.message = ErrorLabel(self)
        self.message.setObjectName("sharingMessage")
        self.link = QLineEdit(self)
        self.link.setObjectName("publicLink")
        self.link.setReadOnly(True)
        self.copy_link = QPushButton("Copy link", self)
        self.copy_link.setObjectName("copyPublicLink")
        # A link naming this computer (the Local sandbox's) opens nothing for a partner: said
        # beside it, before it is copied and sent.
        self.link_scope = QLabel(THIS_COMPUTER_ONLY, self)
        self.link_scope.setObjectName("publicLinkScope")
        self.link_scope.setWordWrap(True)
        self.link_scope.setStyleSheet("font-weight: bold;")
        self.link_scope.hide()
        self.preview = QPushButton("&Preview as the recipient sees it", self)
        self.preview.setObjectName("previewPublic")
        self.preview.setToolTip(
            "Open the public link as whoever has it sees it: read without your credentials"
        )
        self.preview_dialog: PublicPreviewDialog | None = None

        buttons = QHBoxLayout()
        buttons.addWidget(self.share)
        buttons.addWidget(self.message, 1)
        link_row = QHBoxLayout()
        link_row.addWidget(self.link, 1)
        link_row.addWidget(self.copy_link)
        # On a row of its own: beside the link it left the narrow detail too little of it.
        # The link's reach beside it: no line of its own, which the tab's least height (the
        # list's rows above it at 1366x768) would pay for.
        preview_row = QHBoxLayout()
        preview_row.addWidget(self.preview, 0, Qt.AlignmentFlag.AlignTop)
        preview_row.addWidget(self.link_scope, 1)
        # The label above the id: a whole UUID and its label do not fit the narrow detail side
        # by side (the id was cut).
        company_row = QHBoxLayout()
        company_label = QLabel("Your company id, for a partner to share with:", self)
        company_label.setBuddy(self.company_id)
        company_row.addWidget(company_label, 1)
        company_row.addWidget(self.copy_company_id)
        layout = QVBoxLayout(self)
        layout.addLayout(company_row)
        layout.addWidget(self.company_id)
        layout.addWidget(self.status)
        # As tall as its rows: the page scrolls where it is low (the tabs ask for no page's
        # height), and an empty table's slack pushed the public link out of sight at 1440x900.
        show_all_rows(self.recipients)
        layout.addWidget(self.recipients)
        layout.addLayout(buttons)
        layout.addSpacing(8)
        public = QLabel(
            "Public link: anyone who has it sees where the shipment is, its stops and events "
            "(not its attributes, costs or related shipments), without an account.",
            self,
        )
        public.setWordWrap(True)
        layout.addWidget(public)
        layout.addLayout(link_row)
        layout.addLayout(preview_row)
        layout.addStretch(1)

        self.share.clicked.connect(self.open_share)
        self.copy_link.clicked.connect(self.copy_public_link)
        self.preview.clicked.connect(self.open_preview)
        self.copy_company_id.clicked.connect(self.copy_own_id)
        self._show(None)

    # --- showing -----------------------------------------------------------------------------

    def show_history(self, history: TrackingHistory) -> None:
        """Show the sharing of `history`'s shipment (who shared it is asked once)."""
        self.history = history
        if not self._asked_company:
            self._ask_company()
        shipment_id = str(history.shipment.id)

        def done(sharing: Sharing) -> None:
            if self.history is not None and str(self.history.shipment.id) == shipment_id:
                self._show(sharing)

        def failed(error: BaseException) -> None:
            if self.history is not None and str(self.history.shipment.id) == shipment_id:
                self._say(_explain(error))

        spawn(
            self.service.sharing(history.shipment, history.sharing_context),
            on_done=done,
            on_error=failed,
            name="shipment-sharing",
            owner=self,
        )

    def _show(self, sharing: Sharing | None) -> None:
        self.sharing = sharing
        owned = sharing is not None and sharing.owned
        recipients = sharing.recipients if sharing is not None else ()
        fill(
            self.recipients,
            [[p.name, p.uuid, user_time(p.since), ""] for p in recipients],
        )
        for row, party in enumerate(recipients):
            for column in (0, 1):
                item = self.recipients.item(row, column)
                if item is not None:
                    item.setToolTip(f"{party.name}\n{party.uuid}")
            stop = QPushButton(STOP_TEXT, self.recipients)
            stop.setToolTip(f"Stop sharing with {party.name}…")
            stop.setAccessibleName(f"Stop sharing with {party.name}")
            stop.setObjectName("stopSharing")
            stop.clicked.connect(lambda _c=False, p=party: self.confirm_stop(p))
            self.recipients.setCellWidget(row, STOP_COLUMN, stop)
        self.share.setEnabled(owned)
        empty = self.recipients.findChild(EmptyState)
        if empty is not None:
            empty.setText(NOT_YOURS if sharing is not None and not owned else NOT_SHARED)
        if sharing is None:
            self.status.setText("")
        elif sharing.shared_by is not None:
            since = user_time(sharing.shared_by.since)
            self.status.setText(
                f"Shared with you by {sharing.shared_by.name}"
                + (f" since {since}" if since else "")
                + f". Only {sharing.shared_by.name} can share it with others."
            )
        elif recipients:
            count = len(recipients)
            self.status.setText(
                f"Shared with {count} compan{'ies' if count != 1 else 'y'}: "
                "they follow it in their own FreightDesk."
            )
        else:
            self.status.setText("Only your company follows this shipment.")
        link = sharing.link if sharing is not None else None
        self.link.setText(link or "")
        self.link.setPlaceholderText("" if link else "The service gave no public link")
        self.copy_link.setEnabled(bool(link))
        self.preview.setEnabled(bool(link))
        self.link_scope.setVisible(bool(link) and this_computer_only(link or ""))

    def _say(self, message: str | None, *, ok: bool = False) -> None:
        self.message.setStyleSheet(f"color: {OK_COLOR if ok else ERROR_COLOR};")
        self.message.show_message(message)

    def stop(self) -> None:
        """Another shipment comes: nothing of this one is shown or answered."""
        self.history = None
        self._say(None)
        self._show(None)
        if self.preview_dialog is not None:
            self.preview_dialog.close()  # it was of the shipment left

    def shutdown(self) -> None:
        self._unlisten()

    def _connected(self) -> None:
        # Another connection may be another tenant: who shared what is asked again.
        self.service = self.session.sharing
        self._show_company(None)
        self._asked_company = False

    # --- actions -----------------------------------------------------------------------------

    def _name(self) -> str:
        if self.history is None:
            return ""
        shipment = self.history.shipment
        return shipment.identifiers[0].value if shipment.identifiers else str(shipment.id)

    def open_share(self) -> None:
        if self.history is None:
            return
        self._say(None)
        dialog = ShareDialog(self.service, str(self.history.shipment.id), self._name(), self)
        dialog.shared.connect(self._shared)
        self.dialog = dialog
        dialog.open()

    def _shared(self, shipment_id: str, recipients: tuple[Party, ...]) -> None:
        if self.history is None or str(self.history.shipment.id) != shipment_id:
            return  # the user went on to another shipment while the form was open
        link = self.sharing.link if self.sharing is not None else None
        self._show(Sharing(recipients, link=link))
        self._say("Shared", ok=True)
        self.changed.emit()

    def confirm_stop(self, party: Party) -> None:
        if self.history is None:
            return
        shipment_id = str(self.history.shipment.id)
        # Keep sharing is the default: Return must not cut a partner off.
        ask(
            self,
            "Stop sharing",
            f"Stop sharing {self._name()} with {party.name}?",
            lambda: self._stop_sharing(shipment_id, party),
            name="confirmStopSharing",
            informative="They no longer see it, nor hear of its changes.",
            answers=("&Stop sharing", "&Keep sharing"),
        )

    def _stop_sharing(self, shipment_id: str, party: Party) -> None:
        def done(stopped: bool) -> None:
            if self.history is None or str(self.history.shipment.id) != shipment_id:
                return
            if self.sharing is not None:
                left = tuple(p for p in self.sharing.recipients if p.uuid != party.uuid)
                self._show(Sharing(left, link=self.sharing.link))
            self._say(
                f"No longer shared with {party.name}"
                if stopped
                else f"It was no longer shared with {party.name} already",
                ok=True,
            )
            self.changed.emit()

        spawn(
            self.service.unshare(shipment_id, party.uuid),
            on_done=done,
            on_error=lambda error: self._say(_explain(error)),
            name="unshare-shipment",
            owner=self,
        )

    def copy_public_link(self) -> None:
        if self.link.text():
            QGuiApplication.clipboard().setText(self.link.text())
            self._say("Public link copied", ok=True)

    def open_preview(self) -> None:
        """Read the public link through the service layer and show what it shows; why it
        shows nothing, in words, under the list."""
        link = self.link.text()
        if not link:
            return
        self._say(None)
        self.preview.setEnabled(False)

        def done(view: PublicView) -> None:
            self.preview.setEnabled(bool(self.link.text()))
            if self.link.text() != link:
                return  # another shipment meanwhile: its own preview is asked for anew
            # Imported here: the dialog words stops as the detail does, and the detail
            # imports this module.
            from freightdesk.ui.panes.shipments.public_preview import PublicPreviewDialog

            if self.preview_dialog is not None:
                self.preview_dialog.close()
            self.preview_dialog = PublicPreviewDialog(view, self)
            self.preview_dialog.open()

        def failed(error: BaseException) -> None:
            self.preview.setEnabled(bool(self.link.text()))
            if self.link.text() == link:
                self._say(preview_problem(error))

        spawn(
            self.service.preview(link),
            on_done=done,
            on_error=failed,
            name="public-preview",
            owner=self,
        )

    # --- the user's own company -----------------------------------------------------------

    def _ask_company(self) -> None:
        self._asked_company = True

        def failed(error: BaseException) -> None:
            self._asked_company = False  # asked again with the next shipment shown
            self.company_id.setPlaceholderText(_explain(error))

        spawn(
            self.service.own_company(),
            on_done=self._show_company_or_say,
            on_error=failed,
            name="own-company",
            owner=self,
        )

    def _show_company_or_say(self, company: Party | None) -> None:
        self._show_company(company)
        if company is None:
            self.company_id.setPlaceholderText(NOT_TOLD)

    def _show_company(self, company: Party | None) -> None:
        self.company = company
        self.company_id.setText(company.uuid if company else "")
        self.company_id.setPlaceholderText(COMPANY_UNKNOWN)
        self.company_id.setToolTip(
            (f"{company.name}. " if company else "")
            + "Give this id to a partner company so that it can share its shipments with yours"
        )
        self.copy_company_id.setEnabled(company is not None)

    def copy_own_id(self) -> None:
        if self.company is not None:
            QGuiApplication.clipboard().setText(self.company.uuid)
            self._say(f"Your company id ({self.company.name}) copied", ok=True)
