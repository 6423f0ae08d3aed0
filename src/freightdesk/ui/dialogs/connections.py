"""Connections: add, edit, remove and test profiles, and switch to one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from freightdesk.service.messages import explain
from freightdesk.service.profiles import (
    LOCAL_PROFILE_ID,
    Profile,
    ProfileError,
    ProfileKind,
    ProfileStore,
    profile_problems,
)
from freightdesk.service.session import probe
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import ask_discard
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors

NEW_ID = ""


class ConnectionsDialog(QDialog):
    profileActivated = Signal(str)

    def __init__(self, store: ProfileStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connections")
        self.setMinimumSize(760, 440)
        self.store = store
        self._dirty = False
        self._loading = False
        self._current_id: str | None = None
        self._pending_question: QMessageBox | None = None

        self.list = QListWidget(self)
        self.list.setMinimumWidth(200)
        self.add_button = QPushButton("&Add", self)
        self.remove_button = QPushButton("&Remove", self)
        left = QVBoxLayout()
        left.addWidget(self.list)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        left.addLayout(buttons)

        self.kind_note = QLabel(self)
        self.kind_note.setWordWrap(True)
        self.name = QLineEdit(self)
        self.base_url = QLineEdit(self)
        self.base_url.setPlaceholderText("https://freight.example.com")
        self.client_id = QLineEdit(self)
        self.secret = QLineEdit(self)
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.credentials_in = QComboBox(self)
        self.credentials_in.addItem("HTTP Basic", "basic")
        self.credentials_in.addItem("Request body", "body")
        self.poll_interval = QSpinBox(self)
        self.poll_interval.setRange(5, 3600)
        self.poll_interval.setSuffix(" s")
        general = ErrorLabel(self)
        self.errors = FieldErrors(general)
        form = QFormLayout()
        form.addRow(self.kind_note)
        self.errors.add_row(form, "&Name", "name", self.name)
        self.errors.add_row(form, "Service &address", "base_url", self.base_url)
        self.errors.add_row(form, "Client &id", "client_id", self.client_id)
        self.errors.add_row(form, "Client &secret", "secret", self.secret)
        self.errors.add_row(form, "Send credentials in", "credentials_in", self.credentials_in)
        self.errors.add_row(form, "&Refresh every", "poll_interval", self.poll_interval)
        form.addRow(general)
        self.test_button = QPushButton("&Test connection", self)
        self.test_result = QLabel(self)
        self.test_result.setWordWrap(True)
        self.test_result.setObjectName("testResult")
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addLayout(test_row)
        right.addStretch(1)

        body = QHBoxLayout()
        body.addLayout(left)
        body.addLayout(right, 1)
        self.buttons = QDialogButtonBox(self)
        self.save_button = self.buttons.addButton("Sa&ve", QDialogButtonBox.ButtonRole.ApplyRole)
        self.use_button = self.buttons.addButton(
            "&Use this connection", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        layout = QVBoxLayout(self)
        layout.addLayout(body)
        layout.addWidget(self.buttons)

        self.list.currentItemChanged.connect(self._on_selection)
        self.add_button.clicked.connect(self.add_profile)
        self.remove_button.clicked.connect(self.remove_profile)
        self.save_button.clicked.connect(self.save)
        self.use_button.clicked.connect(self.use_selected)
        self.test_button.clicked.connect(self.test_connection)
        self.buttons.rejected.connect(self.reject)
        for edit in (self.name, self.base_url, self.client_id, self.secret):
            edit.textEdited.connect(self._mark_dirty)
        self.credentials_in.currentIndexChanged.connect(self._mark_dirty)
        self.poll_interval.valueChanged.connect(self._mark_dirty)
        save_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self)
        save_shortcut.activated.connect(self.save)
        self._reload(store.active_id)

    # --- list ------------------------------------------------------------------------------

    def _reload(self, select_id: str | None) -> None:
        self._loading = True
        self.list.clear()
        for profile in self.store.profiles:
            label = profile.name + ("  (in use)" if profile.id == self.store.active_id else "")
            item = QListWidgetItem(label, self.list)
            item.setData(Qt.ItemDataRole.UserRole, profile.id)
        self._loading = False
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == select_id:
                self.list.setCurrentRow(row)
                return
        self.list.setCurrentRow(0)

    def _on_selection(
        self, current: QListWidgetItem | None, previous: QListWidgetItem | None
    ) -> None:
        if self._loading or current is None:
            return
        new_id = str(current.data(Qt.ItemDataRole.UserRole))
        if self._dirty and new_id != self._current_id:
            self._ask_about_changes(lambda: self._show_profile(new_id))
            if previous is not None:
                self._loading = True
                self.list.setCurrentItem(previous)
                self._loading = False
            return
        self._show_profile(new_id)

    def _show_profile(self, profile_id: str) -> None:
        if profile_id == NEW_ID:
            profile = Profile(id=NEW_ID, name="", kind=ProfileKind.REMOTE)
        else:
            profile = self.store.get(profile_id)
        self._current_id = profile_id
        self._loading = True
        local = profile.kind is ProfileKind.LOCAL
        self.kind_note.setText(
            "The Local sandbox runs FreightDesk's own service on this computer with demo data. "
            "It needs no account and no network."
            if local
            else "A freight visibility service: your company's account or a shared team server."
        )
        self.name.setText(profile.name)
        self.base_url.setText(profile.base_url)
        self.client_id.setText(profile.client_id)
        self.secret.clear()
        has_secret = bool(profile.client_id) and self.store.secret(profile) is not None
        self.secret.setPlaceholderText(
            "stored in the system keyring"
            if has_secret
            else "shown once when the app was registered"
        )
        self.credentials_in.setCurrentIndex(
            max(0, self.credentials_in.findData(profile.credentials_in))
        )
        self.poll_interval.setValue(int(profile.poll_interval))
        for widget in (self.name, self.base_url, self.client_id, self.secret, self.credentials_in):
            widget.setEnabled(not local)
        self.remove_button.setEnabled(not local and profile_id != NEW_ID)
        self.test_button.setEnabled(not local)
        self.test_result.clear()
        self.errors.clear()
        self._loading = False
        self._dirty = False
        self.save_button.setEnabled(False)

    def _mark_dirty(self) -> None:
        if not self._loading:
            self._dirty = True
            self.save_button.setEnabled(True)

    def _form_profile(self) -> Profile:
        base = (
            Profile(id=NEW_ID, name="", kind=ProfileKind.REMOTE)
            if self._current_id in (None, NEW_ID)
            else self.store.get(self._current_id or LOCAL_PROFILE_ID)
        )
        return replace(
            base,
            name=self.name.text(),
            base_url=self.base_url.text(),
            client_id=self.client_id.text(),
            credentials_in=str(self.credentials_in.currentData()),
            poll_interval=float(self.poll_interval.value()),
        )

    # --- actions ---------------------------------------------------------------------------

    def add_profile(self) -> None:
        if self._dirty:
            self._ask_about_changes(self.add_profile)
            return
        self._loading = True
        item = QListWidgetItem("New connection", self.list)
        item.setData(Qt.ItemDataRole.UserRole, NEW_ID)
        self.list.setCurrentItem(item)
        self._loading = False
        self._show_profile(NEW_ID)
        self.name.setFocus()

    def save(self) -> bool:
        profile = self._form_profile()
        secret = self.secret.text() or None
        # Every problem at once, beside its field (not one more for each Save).
        problems = profile_problems(profile, self.store.profiles)
        if profile.kind is ProfileKind.REMOTE and profile.id == NEW_ID and not secret:
            problems["secret"] = "Enter the client secret"
        if problems:
            self.errors.show(problems)
            return False
        try:
            saved = self.store.save(profile, secret=secret)
        except ProfileError as exc:
            self.errors.show({exc.field: str(exc)})
            return False
        self._dirty = False
        self._reload(saved.id)
        return True

    def remove_profile(self) -> None:
        if self._current_id in (None, NEW_ID, LOCAL_PROFILE_ID):
            return
        profile = self.store.get(self._current_id or "")
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove connection",
            f"Remove the connection {profile.name!r} and forget its secret?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("confirmRemove")

        def answered(result: int) -> None:
            if result == QMessageBox.StandardButton.Yes:
                self.store.remove(profile.id)
                self._dirty = False
                self._reload(self.store.active_id)

        box.finished.connect(answered)
        box.open()

    def use_selected(self) -> None:
        if self._dirty and not self.save():
            return
        if self._current_id in (None, NEW_ID):
            return
        self.profileActivated.emit(self._current_id)
        self.accept()

    def test_connection(self) -> None:
        profile = self._form_profile()
        secret = self.secret.text() or (self.store.secret(profile) if profile.client_id else None)
        if not secret:
            self.errors.show({"secret": "Enter the client secret to test the connection"})
            return
        self.test_button.setEnabled(False)
        self.test_result.setStyleSheet("")
        self.test_result.setText("Testing…")

        def done(message: str) -> None:
            self.test_button.setEnabled(True)
            self.test_result.setStyleSheet("color: #2e9d5b;")
            self.test_result.setText(message)

        def failed(error: BaseException) -> None:
            self.test_button.setEnabled(True)
            self.test_result.setStyleSheet("color: #d0453a;")
            self.test_result.setText(explain(error))

        spawn(
            probe(profile, secret),
            on_done=done,
            on_error=failed,
            name="test-connection",
            owner=self,
        )

    def _ask_about_changes(self, then: Callable[[], None]) -> None:
        if self._pending_question is not None:
            return

        def go_on() -> None:
            self._pending_question = None
            self._dirty = False
            then()

        box = ask_discard(
            self, "Discard your changes to this connection?", go_on, on_save=self.save
        )
        box.finished.connect(self._question_answered)
        self._pending_question = box

    def _question_answered(self) -> None:
        self._pending_question = None

    def reject(self) -> None:
        if self._dirty:
            self._ask_about_changes(super().reject)
            return
        super().reject()
