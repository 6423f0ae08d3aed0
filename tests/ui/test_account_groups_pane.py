"""The Account groups pane against the real local service: list, add, refuse, delete."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.account_groups.pane import COLUMNS, AccountGroupsPane
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import close_session
from tests.ui.test_capacity_support import type_text
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_panes_support import answer, connected, message_box, proxied, shown_pane

__all__ = ["connected", "proxied"]

GROUPS = "/api/v4/capacityprovideraccountgroups"


async def test_lists_adds_refuses_and_deletes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], qtmodeltester: object
) -> None:
    session, tenant = connected
    assert tenant.http.post(GROUPS, json={"code": "WEST", "name": "West"}).status_code == 201
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    qtmodeltester.check(pane.model)  # type: ignore[attr-defined]

    # Bad input is shown beside the field and nothing is sent.
    pane.name.setText("Dallas customers")
    pane.add_group()
    assert pane.errors.message_for("code") and pane.name.text() == "Dallas customers"

    # The service's refusal (a duplicate code) is shown beside the code; input kept.
    qtbot.keyClicks(pane.code, "WEST")
    qtbot.keyClick(pane.code, Qt.Key.Key_Return)
    await wait_until(lambda: bool(pane.errors.message_for("code")))
    assert "already exists" in pane.errors.message_for("code")
    assert pane.code.text() == "WEST"

    pane.code.setText("DAL")
    pane.add_group()
    await wait_until(lambda: "Added DAL" in pane.notice.text())
    assert [g.code for g in pane.model.items] == ["DAL", "WEST"]
    assert pane.code.text() == ""  # ready for the next one
    # The next one refused: the screen no longer says the last one was added.
    qtbot.keyClicks(pane.code, "WEST")
    qtbot.keyClicks(pane.name, "West again")
    qtbot.keyClick(pane.name, Qt.Key.Key_Return)
    await wait_until(lambda: bool(pane.errors.message_for("code")))
    assert not pane.notice.isVisible(), pane.notice.text()
    pane.code.clear()
    pane.name.clear()

    # Delete asks first (the question of every list pane); Cancel keeps it, Yes deletes.
    assert pane.selected() is not None and pane.selected().code == "DAL"  # type: ignore[union-attr]
    assert pane.delete_button.isEnabled()
    pane.table.setFocus()
    qtbot.keyClick(pane.table, Qt.Key.Key_Delete)
    box = message_box("confirmDelete")
    assert box is not None and box.text() == "Delete the account group DAL (Dallas customers)?"
    assert box.button(QMessageBox.StandardButton.Yes).text() == "&Delete"
    answer("confirmDelete", QMessageBox.StandardButton.Cancel)
    assert pane.model.rowCount() == 2
    pane.delete_button.click()
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: pane.model.rowCount() == 1)
    assert [g["code"] for g in tenant.http.get(GROUPS).json()["groups"]] == ["WEST"]
    assert pane.selected() is None and not pane.delete_button.isEnabled()
    assert pane.table.columnWidth(2) == COLUMNS[2].width  # the name takes the room, not the id
    pane.shutdown()


async def test_a_code_differing_only_in_case_is_refused_beside_the_code(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    assert tenant.http.post(GROUPS, json={"code": "WEST", "name": "West"}).status_code == 201
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    qtbot.keyClicks(pane.code, "west")
    qtbot.keyClicks(pane.name, "West coast")
    qtbot.keyClick(pane.name, Qt.Key.Key_Return)
    await wait_until(lambda: bool(pane.errors.message_for("code")))
    assert pane.errors.message_for("code") == (
        "The account group 'WEST' has this code: codes are unique whatever their case"
    )
    assert (pane.code.text(), pane.name.text()) == ("west", "West coast")  # kept to fix
    assert pane.code.hasFocus()
    assert [g["code"] for g in tenant.http.get(GROUPS).json()["groups"]] == ["WEST"]
    assert pane.model.rowCount() == 1
    pane.shutdown()


async def test_opens_with_the_cached_list_before_connecting(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    tenant.http.post(GROUPS, json={"code": "EAST", "name": "East"})
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.shutdown()
    await close_session(session)
    # A new window on the same profile shows the list at once, without the service.
    again = AccountGroupsPane(session)
    qtbot.addWidget(again)
    await wait_until(lambda: again.model.rowCount() == 1)
    assert again.model.items[0].code == "EAST"
    again.shutdown()


async def test_keys_reach_the_fields_and_a_new_group_is_selected(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    tenant.http.post(GROUPS, json={"code": "WEST", "name": "West"})
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.count_label.text() == "1 group")  # not "1 groups"
    # Alt+O and Alt+N land in the code and the name (before, in their holders: typing was lost).
    buddies = {label.text(): label.buddy() for label in pane.findChildren(QLabel) if label.buddy()}
    assert buddies["C&ode"] is pane.code and buddies["&Name"] is pane.name
    keys = mnemonics(pane)
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys

    type_text(pane.code, "DAL")
    type_text(pane.name, "Dallas")
    pane.add_group()
    await wait_until(lambda: pane.count_label.text() == "2 groups")
    await wait_until(lambda: pane.selected() is not None and pane.selected().code == "DAL")  # type: ignore[union-attr]
    assert pane.delete_button.isEnabled()
    pane.shutdown()


async def test_the_service_failing_keeps_what_was_typed(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, _tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.count_label.text() == "No account groups yet")
    type_text(pane.code, "DAL")
    type_text(pane.name, "Dallas")
    proxy.inject(Fault(status=503, path_prefix=GROUPS), times=5)
    pane.add_group()
    await wait_until(lambda: pane.errors.general.isVisible())
    assert pane.code.text() == "DAL" and pane.name.text() == "Dallas"
    assert pane.add_button.isEnabled()
    proxy.faults.clear()
    pane.add_group()
    await wait_until(lambda: pane.count_label.text() == "1 group")
    assert not pane.errors.general.isVisible()
    pane.shutdown()
