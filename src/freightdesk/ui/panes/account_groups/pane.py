"""Capacity provider account groups: the tenant's list, add one (code and name), delete."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.account_groups import AccountGroup
from freightdesk.service.account_groups import check_group
from freightdesk.service.listing import Listing
from freightdesk.service.messages import refusal
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice
from freightdesk.ui.widgets.tabbed_form import NOT_CONNECTED

COLUMNS: list[Column[AccountGroup]] = [
    Column("Code", lambda g: g.code, 180),
    Column("Name", lambda g: g.name, 320),
    Column("Id", lambda g: str(g.id), 90),
]


class AccountGroupsPane(ListExport, QWidget):
    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[AccountGroup] = ListingModel(COLUMNS, self)

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
        )
        self.notice = Notice(self)
        self.count_label = QLabel(self)
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
        general = ErrorLabel(self)
        self.errors = FieldErrors(general)
        add_box = QGroupBox("New account group", self)
        add_box.setMinimumWidth(360)
        add_box.setMaximumWidth(440)
        form = QFormLayout(add_box)
        self.errors.add_row(form, "C&ode", "code", self.code)
        self.errors.add_row(form, "&Name", "name", self.name)
        form.addRow(general)
        form.addRow("", self.add_button)
        hint = QLabel(
            "The code is unique in your tenant; shipments name the group with an identifier "
            "of type CAPACITY_PROVIDER_ACCOUNT_GROUP.",
            add_box,
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #6b7280;")
        form.addRow(hint)

        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label)
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.delete_button)
        left = QVBoxLayout()
        left.addWidget(intro)
        left.addWidget(self.notice)
        left.addWidget(self.table, 1)
        left.addLayout(buttons)
        right = QVBoxLayout()
        right.addWidget(add_box)
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
        self.add_button.clicked.connect(self.add_group)
        self.code.returnPressed.connect(self.add_group)
        self.name.returnPressed.connect(self.add_group)
        self.refresh_button.clicked.connect(self.refresh)
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

    def add_group(self) -> None:
        # A new try retires the last one's "Added …": beside a refusal it reads as if this one
        # went through. A list error stays (it is about the list, not this group).
        if not self.notice.is_error:
            self.notice.clear_message()
        group, problems = check_group(self.code.text(), self.name.text())
        if group is None:
            self.errors.show(problems)
            return
        service = self.session.account_groups
        if service is None or self.session.client is None:
            self.errors.show({}, general=NOT_CONNECTED)
            return
        self.errors.clear()
        self.add_button.setEnabled(False)

        def done(created: AccountGroup) -> None:
            self.table.select_when_listed(created.id)
            self.page.show_data()
            self.add_button.setEnabled(True)
            self.code.clear()
            self.name.clear()
            self.code.setFocus()
            self.notice.show_info(f"Added {created.code} ({created.name}).")

        def failed(error: BaseException) -> None:
            self.add_button.setEnabled(True)
            self.errors.show(*refusal(error))

        spawn(
            service.create(group),
            on_done=done,
            on_error=failed,
            name="add-account-group",
            owner=self,
        )

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
        self.page.run(service.delete(group.id), "delete-account-group")

    # --- pane actions ----------------------------------------------------------------------

    def unsaved_changes(self) -> str | None:
        """A new group typed in and not added yet (asked about when the window closes)."""
        code, name = self.code.text().strip(), self.name.text().strip()
        if not code and not name:
            return None
        return f"the new group {code or name!r}, not added yet"

    def focus_search(self) -> None:
        self.table.setFocus()

    def new_item(self) -> None:
        self.code.setFocus()
        self.code.selectAll()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
