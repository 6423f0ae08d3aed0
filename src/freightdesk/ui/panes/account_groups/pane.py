"""Capacity provider account groups: the tenant's list, add one (code and name), rename one,
delete.

One form beside the list adds and renames: Rename (Return, F2 or a double click on a row) fills
it with the selected group; Save sends it, Cancel or Escape goes back to adding. A new group
typed in meanwhile is kept aside and comes back; changes not saved are asked about first."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
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

from freightdesk.models.account_groups import AccountGroup
from freightdesk.service.account_groups import AccountGroupsService, check_group, check_rename
from freightdesk.service.listing import Listing
from freightdesk.service.messages import refusal
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.form_dialog import ask_discard
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.shortcuts import add_key
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED

COLUMNS: list[Column[AccountGroup]] = [
    Column("Code", lambda g: g.code, 180),
    Column("Name", lambda g: g.name, 320),
    Column("Id", lambda g: str(g.id), 90),
]

NEW_TITLE = "New account group"
HINT = (
    "The code is unique in your company; shipments and rate requests name the group by "
    "its code, as their account group."
)
RENAME_HINT = (
    "The code is unique in your company. Carrier profiles that name this group follow a new "
    "code; shipments and rate requests name the group by its new code from now on."
)


def _keep_room(error: ErrorLabel) -> None:
    """The form stays still as a message comes: `error` keeps a line's room when it says
    nothing. Otherwise the Add button jumped about 30 px as the messages came, and a click
    meant for it landed where it had been. As a message goes while its field is edited, its
    room stays by the shared `ErrorLabel.edited` until the next send."""
    policy = error.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    error.setSizePolicy(policy)
    error.setMinimumHeight(error.fontMetrics().lineSpacing())


class AccountGroupsPane(ListExport, QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[AccountGroup] = ListingModel(COLUMNS, self)
        self.renaming: AccountGroup | None = None  # the group the form renames, if any
        self._draft = ("", "")  # a new group typed in before Rename, given back after
        self.question: QMessageBox | None = None

        intro = QLabel(
            "Account groups name a customer (or a customer's location) in shipment lifecycle "
            "calls and rate requests: one group per customer is typical.",
            self,
        )
        intro.setWordWrap(True)
        # The name takes the room left; the id is short.
        self.table = ItemTable(
            self.model, lambda g: g.id, self, name="accountGroupsTable", stretch=1
        )
        self.empty = say_when_empty(
            self.table,
            "No account groups yet: add one with the form on the right (a code and a name).",
            loading="Loading account groups…",
        )
        self.notice = Notice(self)
        self.count_label = QLabel(self)
        self.rename_button = QPushButton("Rena&me…", self)
        self.rename_button.setToolTip(
            "Change the selected group's code or name (Return, F2 or a double click)"
        )
        self.delete_button = QPushButton("&Delete group…", self)
        self.refresh_button = QPushButton("&Refresh", self)

        self.code = QLineEdit(self)
        self.code.setObjectName("code")
        self.code.setPlaceholderText("e.g. ACME-DAL")
        self.name = QLineEdit(self)
        self.name.setObjectName("name")
        self.name.setPlaceholderText("e.g. ACME Dallas")
        self.add_button = QPushButton("&Add group", self)
        self.add_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop renaming and add groups again (Escape)")
        self.cancel_button.setVisible(False)
        general = ErrorLabel(self)
        self.errors = FieldErrors(general)
        self.form_box = QGroupBox(NEW_TITLE, self)
        self.form_box.setObjectName("accountGroupForm")
        self.form_box.setMinimumWidth(360)
        self.form_box.setMaximumWidth(440)
        form = QFormLayout(self.form_box)
        self.field_errors = [
            self.errors.add_row(form, "C&ode", "code", self.code),
            self.errors.add_row(form, "&Name", "name", self.name),
        ]
        for error in self.field_errors:
            _keep_room(error)
        form.addRow(general)
        form_buttons = QHBoxLayout()
        form_buttons.addWidget(self.add_button)
        form_buttons.addWidget(self.cancel_button)  # the two share the field's width
        form.addRow("", form_buttons)
        self.hint = QLabel(HINT, self.form_box)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #6b7280;")
        form.addRow(self.hint)
        # Escape anywhere in the form while renaming, as in a dialog; free otherwise.
        self.cancel_action = add_key(
            self.form_box, Qt.Key.Key_Escape, self.cancel_rename, "Cancel the rename", within=True
        )
        self.cancel_action.setEnabled(False)

        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label)
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.rename_button)
        buttons.addWidget(self.delete_button)
        left = QVBoxLayout()
        left.addWidget(intro)
        left.addWidget(self.notice)
        left.addWidget(self.table, 1)
        left.addLayout(buttons)
        right = QVBoxLayout()
        right.addWidget(self.form_box)
        right.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(left, 1)
        layout.addLayout(right)

        self.page = ListPage(
            self,
            session,
            lambda s: s.account_groups,
            self.table,
            self.notice,
            name="account-groups",
        )
        self.page.shown.connect(self._count)
        self.add_button.clicked.connect(self.submit)
        self.code.returnPressed.connect(self.submit)
        self.name.returnPressed.connect(self.submit)
        self.cancel_button.clicked.connect(self.cancel_rename)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.on_open(self.rename_selected, "Rename the group", button=self.rename_button)
        self.table.on_delete(self.confirm_delete, "Delete group", button=self.delete_button)

    # --- showing ---------------------------------------------------------------------------

    def _count(self, data: Listing[AccountGroup]) -> None:
        count = len(data.items)
        self.count_label.setText(
            "No account groups yet" if not count else f"{count} group{'s' if count != 1 else ''}"
        )

    def selected(self) -> AccountGroup | None:
        return self.table.selected()

    # --- actions ---------------------------------------------------------------------------

    def submit(self) -> None:
        """Return or the form's button: add the new group, or save the rename."""
        if self.renaming is None:
            self.add_group()
        else:
            self.save_rename()

    def add_group(self) -> None:
        group, problems = check_group(self.code.text(), self.name.text())

        def done(created: AccountGroup) -> None:
            self.table.select_when_listed(created.id)
            self.page.show_data()
            self.code.clear()
            self.name.clear()
            self.code.setFocus()
            self.notice.show_info(f"Added {created.code} ({created.name}).")

        send = None if group is None else lambda service: service.create(group)
        self._send(send, problems, done, "add-account-group")

    def rename_selected(self) -> None:
        """Fill the form with the selected group to rename it; changes to another group
        being renamed are asked about first."""
        group = self.selected()
        if group is None:
            return
        if self.renaming is not None and self.renaming.id == group.id:
            self.code.setFocus()
            return
        self._unless_changed_then(lambda: self._start_rename(group))

    def cancel_rename(self) -> None:
        """Cancel or Escape: back to adding groups, after asking when something was changed."""
        if self.renaming is not None:
            self._unless_changed_then(self._leave_rename)

    def save_rename(self) -> None:
        old = self.renaming
        if old is None:
            return
        update, problems = check_rename(old.id, self.code.text(), self.name.text())

        def done(renamed: AccountGroup) -> None:
            self._leave_rename()
            # The service has placed it where its new code sorts; the selection follows it.
            self.table.select_when_listed(renamed.id)
            self.page.show_data()
            self.table.setFocus()
            what = f"{renamed.code} ({renamed.name})"
            self.notice.show_info(
                f"Renamed {old.code} to {what}." if renamed.code != old.code else f"Saved {what}."
            )

        send = None if update is None else lambda service: service.update(update)
        self._send(send, problems, done, "rename-account-group")

    def _send(
        self,
        send: Callable[[AccountGroupsService], Coroutine[Any, Any, AccountGroup]] | None,
        problems: dict[str, str],
        done: Callable[[AccountGroup], None],
        name: str,
    ) -> None:
        """What the form holds sent by `send` (None: `problems` said beside their fields),
        `done` run with the answer; a refusal is said beside its field, what was typed kept."""
        # A new try retires the last one's "Added …": beside a refusal it reads as if this one
        # went through. A list error stays (it is about the list, not this group).
        if not self.notice.is_error:
            self.notice.clear_message()
        for error in self.field_errors:  # what this send finds takes the room it needs
            error.setMinimumHeight(error.fontMetrics().lineSpacing())
        if send is None:
            self.errors.show(problems)
            return
        service = self.session.account_groups
        if service is None or self.session.client is None:
            self.errors.show({}, general=NOT_CONNECTED)
            return
        self.errors.clear()
        self._busy(True)

        def answered(group: AccountGroup) -> None:
            self._busy(False)
            done(group)

        def failed(error: BaseException) -> None:
            self._busy(False)
            self.errors.show(*refusal(error))

        spawn(send(service), on_done=answered, on_error=failed, name=name, owner=self)

    def _start_rename(self, group: AccountGroup) -> None:
        if self.renaming is None:
            self._draft = (self.code.text(), self.name.text())
        self.renaming = group
        if not self.notice.is_error:
            self.notice.clear_message()
        self.errors.clear()
        self.code.setText(group.code)
        self.name.setText(group.name)
        self._show_mode()
        self.code.setFocus()
        self.code.selectAll()

    def _leave_rename(self) -> None:
        self.renaming = None
        self.errors.clear()
        self.code.setText(self._draft[0])
        self.name.setText(self._draft[1])
        self._draft = ("", "")
        self._show_mode()
        self.table.setFocus()

    def _show_mode(self) -> None:
        group = self.renaming
        self.form_box.setTitle(NEW_TITLE if group is None else f"Rename {group.code}")
        self.add_button.setText("&Add group" if group is None else "&Save")
        self.cancel_button.setVisible(group is not None)
        self.cancel_action.setEnabled(group is not None)
        self.hint.setText(HINT if group is None else RENAME_HINT)

    def _busy(self, busy: bool) -> None:
        self.add_button.setEnabled(not busy)
        self.cancel_button.setEnabled(not busy)

    def _rename_changed(self) -> bool:
        group = self.renaming
        return group is not None and (self.code.text(), self.name.text()) != (
            group.code,
            group.name,
        )

    def _unless_changed_then(self, go_on: Callable[[], None]) -> None:
        """`go_on` now, or once the user agrees to drop the changes to the group renamed."""
        if not self._rename_changed():
            go_on()
            return
        assert self.renaming is not None
        text = f"Discard your changes to the account group {self.renaming.code}?"
        self.question = ask_discard(self, text, go_on)

    def confirm_delete(self) -> None:
        group = self.selected()
        if group is None:
            return
        self.page.ask_delete(
            "account group",
            f"{group.code} ({group.name})",
            lambda: self.delete(group),
            informative="Shipments and rate requests that name this code will no longer "
            "find the group.",
        )

    def delete(self, group: AccountGroup) -> None:
        service = self.session.account_groups
        if service is None:
            return
        if self.renaming is not None and self.renaming.id == group.id:
            self._leave_rename()  # nothing left to rename
        self.page.run(service.delete(group.id), "delete-account-group")

    # --- pane actions ----------------------------------------------------------------------

    def unsaved_changes(self) -> str | None:
        """A rename not saved, or a new group typed in and not added yet (asked about when
        the window closes)."""
        if self.renaming is not None and self._rename_changed():
            return f"your changes to the account group {self.renaming.code}, not saved"
        typed = self._draft if self.renaming is not None else (self.code.text(), self.name.text())
        code, name = typed[0].strip(), typed[1].strip()
        if not code and not name:
            return None
        return f"the new group {code or name!r}, not added yet"

    def focus_search(self) -> None:
        self.table.setFocus()

    def new_item(self) -> None:
        def to_new() -> None:
            if self.renaming is not None:
                self._leave_rename()  # the new group typed before comes back
            self.code.setFocus()
            self.code.selectAll()

        self._unless_changed_then(to_new)

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
