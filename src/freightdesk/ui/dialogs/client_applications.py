"""File > Client applications: a tenant admin lists, creates, rotates and deletes the tenant's
OAuth client applications. A secret is shown once, when it is made, with a Copy button. The
selected application is read again from the service, so what the dialog shows of it (and
acts on) is the service's record, not a list row read minutes ago."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.auth import ClientApplication, ClientApplicationWithSecret
from freightdesk.service.client_applications import (
    LOCAL_ADMIN_USER,
    ClientApplications,
    check_credentials,
    check_name,
    problems_of_error,
)
from freightdesk.service.clock import user_time
from freightdesk.service.errors import NotFound
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import FormDialog, ask
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.listing import Column, ListingModel

T = TypeVar("T")

NOT_SIGNED_IN = (
    "Sign in as an administrator of your company account (a Customer Admin) to see its "
    "client applications."
)


def _columns(in_use: str) -> list[Column[ClientApplication]]:
    return [
        Column(
            "Name",
            lambda a: a.name + (" (this connection)" if a.id == in_use else ""),
            200,
        ),
        Column("Client id", lambda a: a.id, 170),
        Column("Machine user", lambda a: a.machine_user or "", 200, most=420),
        Column(
            "Created",
            lambda a: user_time(a.created_date_time),
            130,
            value=lambda a: a.created_date_time,
        ),
    ]


def _left(button: QPushButton) -> QHBoxLayout:
    """`button` at its own width, on the left of a form's row."""
    row = QHBoxLayout()
    row.addWidget(button)
    row.addStretch(1)
    return row


class ClientApplicationsDialog(FormDialog):
    def __init__(self, service: ClientApplications, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Client applications")
        # Wide enough for the client id and machine user (an integrator copies them) whole
        # beside the name; fits a 1366 px screen.
        self.setMinimumSize(1010, 560)
        self.service = service
        self.closing: asyncio.Task[None] | None = None
        self._secret_copied = True  # no secret on screen yet
        self._secret_of: str | None = None  # the client id whose secret is on screen

        note = QLabel(
            "Managing client applications needs the user name and password of an "
            "administrator of your company account (a Customer Admin). FreightDesk uses them "
            "only while this window is open and does not store them.",
            self,
        )
        note.setWordWrap(True)
        self.user = QLineEdit(self)
        self.password = QLineEdit(self)
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        if service.local:
            self.user.setText(LOCAL_ADMIN_USER)
            self.password.setPlaceholderText("the Local sandbox's admin password is demo")
        self.sign_in_button = QPushButton("&Sign in", self)
        sign_in = QFormLayout()
        self.errors.add_row(sign_in, "&User name", "user", self.user)
        self.errors.add_row(sign_in, "&Password", "password", self.password)
        sign_in.addRow("", _left(self.sign_in_button))

        self.model: ListingModel[ClientApplication] = ListingModel(_columns(service.in_use), self)
        self.table: ItemTable[ClientApplication] = ItemTable(
            self.model, lambda a: a.id, self, name="client-applications", stretch=0, fit=True
        )
        self.count_label = QLabel(NOT_SIGNED_IN, self)
        self.rotate_button = QPushButton("Ro&tate secret…", self)
        self.delete_button = QPushButton("&Delete…", self)
        actions = QHBoxLayout()
        actions.addWidget(self.count_label, 1)
        actions.addWidget(self.rotate_button)
        actions.addWidget(self.delete_button)
        self.details = QLabel(self)
        self.details.setObjectName("applicationDetails")
        self.details.setWordWrap(True)
        self._fresh_id: str | None = None  # the application whose record is being read or shown

        self.name = QLineEdit(self)
        self.name.setPlaceholderText("who or what will connect with it, e.g. TMS integration")
        self.create_button = QPushButton("C&reate", self)
        create_box = QGroupBox("New client application", self)
        create_form = QFormLayout(create_box)
        self.errors.add_row(create_form, "&Name", "name", self.name)
        create_form.addRow("", _left(self.create_button))

        self.secret_box = QGroupBox(self)
        self.secret_box.setObjectName("secretBox")
        self.secret = QLineEdit(self.secret_box)
        self.secret.setObjectName("secret")
        self.secret.setReadOnly(True)
        self.copy_button = QPushButton("C&opy", self.secret_box)
        self.secret_note = QLabel(self.secret_box)
        self.secret_note.setWordWrap(True)
        self.secret_note.setStyleSheet("font-weight: bold;")  # the one warning that matters
        secret_row = QHBoxLayout()
        secret_row.addWidget(self.secret, 1)
        secret_row.addWidget(self.copy_button)
        secret_layout = QVBoxLayout(self.secret_box)
        secret_layout.addLayout(secret_row)
        secret_layout.addWidget(self.secret_note)
        self.secret_box.setVisible(False)

        self.notice = QLabel(self)
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(sign_in)
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)
        layout.addWidget(self.details)
        layout.addWidget(create_box)
        layout.addWidget(self.secret_box)
        layout.addWidget(self.notice)
        layout.addWidget(self.general_error)
        layout.addWidget(buttons)

        self.sign_in_button.clicked.connect(self.sign_in)
        self.password.returnPressed.connect(self.sign_in)
        self.user.returnPressed.connect(self.sign_in)
        self.create_button.clicked.connect(self.create_application)
        self.name.returnPressed.connect(self.create_application)
        self.name.textEdited.connect(self.mark_dirty)
        self.copy_button.clicked.connect(self.copy_secret)
        self.table.on_delete(self.confirm_delete, "Delete client application")
        self.rotate_button.clicked.connect(self.confirm_rotate)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.table.selectedChanged.connect(self._enable)
        self.table.selectedChanged.connect(self._read_selected)
        buttons.rejected.connect(self.reject)
        for button in self.findChildren(QPushButton):
            # Return in a field acts for that field (sign in, create); a button clicked
            # earlier must not become the default and act too.
            button.setAutoDefault(False)
        self._busy = False
        self._enable()
        (self.password if self.user.text() else self.user).setFocus()

    # --- state -----------------------------------------------------------------------------

    def _enable(self) -> None:
        ready = self.service.signed_in and not self._busy
        chosen = ready and self.table.selected() is not None
        self.rotate_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)
        self.create_button.setEnabled(ready)
        self.name.setEnabled(self.service.signed_in)
        self.table.setEnabled(self.service.signed_in)
        self.sign_in_button.setEnabled(not self._busy)

    def _run(
        self,
        work: Coroutine[Any, Any, T],
        done: Callable[[T], None],
        name: str,
        *,
        keep_notice: bool = False,
    ) -> None:
        """Run `work` with the buttons off; its error goes beside the field it names."""
        self._busy = True
        self._enable()
        self.errors.clear()
        if not keep_notice:
            self.notice.clear()

        def finished(result: T) -> None:
            self._busy = False
            done(result)
            self._enable()

        def failed(error: BaseException) -> None:
            self._busy = False
            fields, general = problems_of_error(error)
            self.errors.show(fields, general=general)
            self._enable()

        spawn(work, on_done=finished, on_error=failed, name=name, owner=self)

    def _show_list(self, items: list[ClientApplication]) -> None:
        self.table.set_items(items)
        count = len(items)
        self.count_label.setText(
            f"{count} client application{'s' if count != 1 else ''} of your company account, "
            f"signed in as {self.service.user}"
            if count
            else f"No client applications yet (signed in as {self.service.user})"
        )

    def _read_selected(self) -> None:
        """Read the selected application as the service has it now; its row and the details
        line show that record (or, once it is gone, say so)."""
        app = self.table.selected()
        if app is None or not self.service.signed_in:
            self._fresh_id = None
            self.details.clear()
            return
        if app.id == self._fresh_id:
            return  # being read, or read: the row shown is the service's
        self._fresh_id = app.id
        self.details.setText(f"Reading {app.name} from the service…")

        def read(fresh: ClientApplication) -> None:
            if self._fresh_id != fresh.id:
                return  # another application was picked meanwhile
            self._show_list([fresh if a.id == fresh.id else a for a in self.model.items])
            machine = f", acting as {fresh.machine_user}" if fresh.machine_user else ""
            made = user_time(fresh.created_date_time) if fresh.created_date_time else ""
            self.details.setText(
                f"{fresh.name}: client id {fresh.id}{machine}"
                + (f"; made {made}" if made else "")
                + "."
            )

        def refused(error: BaseException) -> None:
            if self._fresh_id != app.id:
                return
            self._fresh_id = None  # picked again, it is asked again
            if isinstance(error, NotFound):
                self._show_list([a for a in self.model.items if a.id != app.id])
                self.details.setText(
                    f"{app.name} no longer exists: it was deleted elsewhere, so it is no "
                    "longer listed."
                )
                return
            fields, general = problems_of_error(error)
            self.errors.show(fields)
            self.details.setText(
                f"Could not read {app.name} from the service: "
                + (general or next(iter(fields.values()), "it refused"))
            )

        spawn(
            self.service.get(app.id),
            on_done=read,
            on_error=refused,
            name="read-client-application",
            owner=self,
        )

    def _show_secret(self, app: ClientApplicationWithSecret, made: str) -> None:
        self.secret_box.setTitle(f"Client secret of {app.name} ({made})")
        self.secret.setText(app.secret)
        self.secret_note.setText(
            f"Client id {app.id}. This is the only time the secret is shown: copy it now and "
            "keep it somewhere safe. You will not see it again."
        )
        self.copy_button.setText("C&opy")
        self.secret_box.setVisible(True)
        self._secret_of = app.id
        self._secret_copied = False
        self.copy_button.setFocus()

    def _hide_secret(self) -> None:
        self.secret.clear()
        self.secret_box.setVisible(False)
        self._secret_of = None
        self._secret_copied = True

    # --- actions ---------------------------------------------------------------------------

    def sign_in(self) -> None:
        problems = check_credentials(self.user.text(), self.password.text())
        if problems:
            self.errors.show(problems)
            return
        self._run(
            self.service.sign_in(self.user.text(), self.password.text()),
            self._signed_in,
            "client-applications-sign-in",
        )

    def _signed_in(self, items: list[ClientApplication]) -> None:
        self.password.clear()  # held by the service for this window only, not on screen
        self._show_list(items)
        self.name.setFocus()

    def create_application(self) -> None:
        request, problems = check_name(self.name.text())
        if request is None:
            self.errors.show(problems)
            return
        self._run(self.service.create(request), self._created, "create-client-application")

    def _created(self, app: ClientApplicationWithSecret) -> None:
        self.name.clear()
        self.mark_clean()
        self._show_list([*self.model.items, ClientApplication.model_validate(app.model_dump())])
        self.table.select_when_listed(app.id)
        self.notice.setText(f"Created {app.name}.")
        self._show_secret(app, "new application")

    def copy_secret(self) -> None:
        clipboard = QGuiApplication.clipboard()
        clipboard.setText(self.secret.text())
        self._secret_copied = True
        self.copy_button.setText("Copied")

    def _confirm(
        self,
        verb: str,
        question: str,
        consequence: str,
        act: Callable[[ClientApplication], None],
    ) -> None:
        """Ask once, naming the selected application; `act` on it if the user agrees."""
        app = self.table.selected()
        if app is None or not self.service.signed_in:
            return
        if app.id == self.service.in_use:
            consequence += "\n\nFreightDesk itself connects with this application: " + (
                "it keeps the new secret and goes on with it."
                if verb == "Rotate" and self.service.remembers
                else "it loses its connection, and needs another application's id and "
                "secret in File > Connections."
            )
        self.question = ask(
            self,
            f"{verb} client application",
            question.format(name=app.name),
            lambda: act(app),
            informative=consequence,
            name=f"confirm{verb}",
            answers=(f"&{verb}", "&Keep it"),
        )

    def confirm_rotate(self) -> None:
        self._confirm(
            "Rotate",
            "Make a new secret for the client application {name}?",
            "The current secret stops working at once, and so does every token issued with "
            "it: whatever connects with it needs the new secret.",
            lambda app: self._run(self.service.rotate(app.id), self._rotated, "rotate-secret"),
        )

    def _rotated(self, app: ClientApplicationWithSecret) -> None:
        kept = (
            " FreightDesk keeps the new secret for its own connection and goes on with it; "
            "so do its other windows on this connection."
            if app.id == self.service.in_use and self.service.remembers
            else ""
        )
        self.notice.setText(
            f"New secret made for {app.name}; the old secret and its tokens no longer work." + kept
        )
        self._show_secret(app, "new secret")

    def confirm_delete(self) -> None:
        self._confirm(
            "Delete",
            "Delete the client application {name}?",
            "Whatever connects with it can no longer get tokens, and the tokens it has stop "
            "working.",
            lambda app: self._run(
                self.service.delete(app.id), lambda _none: self._deleted(app), "delete-client"
            ),
        )

    def _deleted(self, app: ClientApplication) -> None:
        self._show_list([a for a in self.model.items if a.id != app.id])
        if self._secret_of == app.id:
            self._hide_secret()
        self.notice.setText(f"Deleted {app.name}.")

    # --- closing ---------------------------------------------------------------------------

    def reject(self) -> None:
        if not self._secret_copied:
            self.question = ask(
                self,
                "Secret not copied",
                "The secret on screen has not been copied and will not be shown again. "
                "Close anyway?",
                lambda: self._close_now(),
                yes=QMessageBox.StandardButton.Close,
                name="secretNotCopied",
            )
            return
        if self.dirty:
            self.discard_text = f"Discard the new application {self.name.text().strip()!r}?"
        super().reject()

    def _close_now(self) -> None:
        self._secret_copied = True
        self.mark_clean()
        self.reject()

    def done(self, result: int) -> None:
        # The admin's credentials go with the window.
        self.closing = spawn(self.service.aclose(), name="client-applications-close")
        super().done(result)
