"""The Account groups pane against the real local service: list, add, rename, refuse, delete."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.account_groups.pane import COLUMNS, AccountGroupsPane
from freightdesk.ui.panes.carriers.pane import CarrierProfilesPane
from freightdesk.ui.panes.rates.form import RateRequestFormDialog
from freightdesk.ui.panes.vltl.pane import VltlPane
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import activated, close_session
from tests.ui.forms_keys import keys as keys_in
from tests.ui.plain_words import leaks
from tests.ui.test_capacity_support import type_text
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import answer, connected, message_box, proxied, shown_pane

__all__ = ["connected", "proxied"]

GROUPS = "/api/v4/capacityprovideraccountgroups"
PROFILES = "/services/carriers/v1/profiles"
LEFT = Qt.MouseButton.LeftButton
NO_MOD = Qt.KeyboardModifier.NoModifier


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
    # Into the field first, as a user: Return where the list has the focus renames a group.
    qtbot.mouseClick(pane.code, LEFT)
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


# --- renaming ------------------------------------------------------------------------------

WAIT = 60.0  # the service's answer on a loaded machine; a step that cannot happen fails sooner


async def _press(
    qtbot: QtBot, widget: QWidget, key: Qt.Key, modifier: Qt.KeyboardModifier = NO_MOD
) -> None:
    """`key` pressed in `widget`, which has the focus (a key goes where the focus is, and the
    table's own keys act only there)."""

    def act() -> None:
        widget.setFocus()
        qtbot.keyClick(widget, key, modifier)

    await _from_loop(act)


async def _row(qtbot: QtBot, pane: AccountGroupsPane, code: str, *, double: bool = False) -> None:
    """The group's row clicked (or double-clicked) as a user does."""
    row = next(i for i, g in enumerate(pane.model.items) if g.code == code)
    where = pane.table.visualRect(pane.model.index(row, 1)).center()
    viewport = pane.table.viewport()
    await _from_loop(lambda: qtbot.mouseClick(viewport, LEFT, pos=where))
    if double:  # as a mouse does: a click, then the double click
        await _from_loop(lambda: qtbot.mouseDClick(viewport, LEFT, pos=where))


def _listed(pane: AccountGroupsPane) -> list[tuple[str, str]]:
    """The rows as the table shows them: code and name."""
    model = pane.model
    return [(model.index(r, 0).data(), model.index(r, 1).data()) for r in range(model.rowCount())]


def _stored(tenant: TenantHandle) -> list[tuple[str, str]]:
    return [(g["code"], g["name"]) for g in tenant.http.get(GROUPS).json()["groups"]]


async def _shown_with(
    qtbot: QtBot, session: AppSession, tenant: TenantHandle, *groups: tuple[str, str]
) -> AccountGroupsPane:
    for code, name in groups:
        assert tenant.http.post(GROUPS, json={"code": code, "name": name}).status_code == 201
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.model.rowCount() == len(groups), WAIT)
    return pane


async def test_f2_renames_the_selected_group_and_the_list_is_in_order_at_once(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await _shown_with(
        qtbot, session, tenant, ("BRAVO", "Bravo"), ("DELTA", "Delta"), ("WEST", "West")
    )
    assert pane.form_box.title() == "New account group" and not pane.cancel_button.isVisible()
    assert not pane.rename_button.isEnabled()  # nothing selected yet
    # A new group half typed stays aside while another is renamed.
    await _from_loop(lambda: qtbot.keyClicks(pane.code, "NEW-1"))

    await _row(qtbot, pane, "WEST")
    assert pane.rename_button.isEnabled()
    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    assert pane.form_box.title() == "Rename WEST"
    assert (pane.code.text(), pane.name.text()) == ("WEST", "West")
    assert pane.code.hasFocus() and pane.code.selectedText() == "WEST"  # typing replaces it
    assert pane.add_button.text() == "&Save" and pane.cancel_button.isVisible()
    keys = mnemonics(pane)
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys

    await _from_loop(lambda: qtbot.keyClicks(pane.code, "ALPHA"))
    await _from_loop(lambda: (pane.name.selectAll(), qtbot.keyClicks(pane.name, "Alpha West")))
    await _press(qtbot, pane.name, Qt.Key.Key_Return)
    # Where its new code sorts, at once (the list's next reload is a minute away).
    await wait_until(lambda: pane.notice.text() == "Renamed WEST to ALPHA (Alpha West).", WAIT)
    assert _listed(pane) == [("ALPHA", "Alpha West"), ("BRAVO", "Bravo"), ("DELTA", "Delta")]
    assert _stored(tenant) == _listed(pane)
    assert pane.selected() is not None and pane.selected().code == "ALPHA"  # type: ignore[union-attr]
    # The form adds again, with what was typed before.
    assert pane.form_box.title() == "New account group" and not pane.cancel_button.isVisible()
    assert (pane.code.text(), pane.name.text()) == ("NEW-1", "")
    assert pane.add_button.text() == "&Add group"

    # A double click renames too; a new name alone is saved under the same code.
    await _row(qtbot, pane, "DELTA", double=True)
    assert pane.form_box.title() == "Rename DELTA" and pane.code.text() == "DELTA"
    await keys_in(qtbot, pane.name, "Delta Dallas")
    await _from_loop(lambda: qtbot.mouseClick(pane.add_button, LEFT))
    await wait_until(lambda: pane.notice.text() == "Saved DELTA (Delta Dallas).", WAIT)
    assert ("DELTA", "Delta Dallas") in _listed(pane)
    assert _stored(tenant) == _listed(pane)
    pane.shutdown()


async def test_a_refused_rename_is_said_beside_the_field_and_what_was_typed_stays(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await _shown_with(qtbot, session, tenant, ("EAST", "East"), ("WEST", "West"))
    await _row(qtbot, pane, "WEST")
    await _press(qtbot, pane.table, Qt.Key.Key_Return)
    assert pane.form_box.title() == "Rename WEST"

    # Another group's code in another case: the service's 409, beside the code.
    await keys_in(qtbot, pane.code, "east")
    await keys_in(qtbot, pane.name, "West coast")
    await _press(qtbot, pane.name, Qt.Key.Key_Return)
    await wait_until(lambda: bool(pane.errors.message_for("code")), WAIT)
    assert pane.errors.message_for("code") == (
        "The account group 'EAST' has this code: codes are unique whatever their case"
    )
    assert (pane.code.text(), pane.name.text()) == ("east", "West coast")
    assert pane.code.hasFocus() and pane.form_box.title() == "Rename WEST"
    assert pane.add_button.isEnabled() and not pane.notice.isVisible()
    assert _stored(tenant) == [("EAST", "East"), ("WEST", "West")] == _listed(pane)

    # A blank name, and a pasted control character, beside the name; nothing is sent.
    await keys_in(qtbot, pane.code, "PACIFIC")
    await keys_in(qtbot, pane.name, "   ")
    await _press(qtbot, pane.name, Qt.Key.Key_Return)
    assert pane.errors.message_for("name") == "Enter the group's name"
    assert not pane.errors.message_for("code") and pane.code.text() == "PACIFIC"
    QApplication.clipboard().setText("Pacific\tcoast")
    await keys_in(qtbot, pane.name, "")
    await _press(qtbot, pane.name, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    await _press(qtbot, pane.name, Qt.Key.Key_Return)
    assert "control characters" in pane.errors.message_for("name")
    assert pane.name.text() == "Pacific\tcoast"
    assert _stored(tenant) == [("EAST", "East"), ("WEST", "West")]

    await keys_in(qtbot, pane.name, "Pacific coast")
    await _press(qtbot, pane.name, Qt.Key.Key_Return)
    await wait_until(lambda: ("PACIFIC", "Pacific coast") in _listed(pane), WAIT)
    assert not pane.errors.message_for("name") and not pane.errors.message_for("code")
    assert _listed(pane) == [("EAST", "East"), ("PACIFIC", "Pacific coast")] == _stored(tenant)
    pane.shutdown()


async def test_leaving_a_rename_asks_before_changes_are_lost(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await _shown_with(qtbot, session, tenant, ("EAST", "East"), ("WEST", "West"))
    await _from_loop(lambda: qtbot.keyClicks(pane.name, "Half typed"))
    await _row(qtbot, pane, "WEST")
    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    # Unchanged: Escape goes straight back, the new group's text with it.
    await _press(qtbot, pane.code, Qt.Key.Key_Escape)
    assert pane.form_box.title() == "New account group" and pane.name.text() == "Half typed"
    assert message_box("unsavedChanges") is None

    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    await _from_loop(lambda: qtbot.keyClicks(pane.code, "PACIFIC"))
    assert pane.unsaved_changes() == "your changes to the account group WEST, not saved"
    await _press(qtbot, pane.code, Qt.Key.Key_Escape)
    box = message_box("unsavedChanges")
    assert box is not None and box.text() == "Discard your changes to the account group WEST?"
    answer("unsavedChanges", QMessageBox.StandardButton.Cancel)
    await activated(pane)  # the question's window had it
    assert pane.form_box.title() == "Rename WEST" and pane.code.text() == "PACIFIC"

    # Another group picked while changes are pending: asked too; Discard opens it.
    await _row(qtbot, pane, "EAST")
    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    await activated(pane)
    assert pane.form_box.title() == "Rename EAST" and pane.code.text() == "EAST"
    await _from_loop(lambda: qtbot.mouseClick(pane.cancel_button, LEFT))
    assert pane.form_box.title() == "New account group"
    assert (pane.code.text(), pane.name.text()) == ("", "Half typed")
    assert pane.unsaved_changes() == "the new group 'Half typed', not added yet"
    assert _stored(tenant) == [("EAST", "East"), ("WEST", "West")]
    pane.shutdown()


async def test_the_rate_form_and_carrier_profiles_see_the_new_code(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await _shown_with(qtbot, session, tenant, ("WEST", "West"))
    profile = {"name": "Zephyr Freight", "accountGroupCodes": ["WEST"]}
    assert tenant.http.put(f"{PROFILES}/ZPHR", json=profile).status_code == 200
    await _row(qtbot, pane, "WEST")
    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    await keys_in(qtbot, pane.code, "PACIFIC")
    await keys_in(qtbot, pane.name, "Pacific coast")
    await _press(qtbot, pane.code, Qt.Key.Key_Return)
    await wait_until(lambda: _listed(pane) == [("PACIFIC", "Pacific coast")], WAIT)

    form = RateRequestFormDialog(session)
    qtbot.addWidget(form)
    await wait_until(lambda: form.groups.count() == 1 and form.groups.item(0).text() != "", WAIT)
    assert form.groups.item(0).text() == "PACIFIC — Pacific coast"
    carriers = await shown_pane(qtbot, session, CarrierProfilesPane)
    await wait_until(lambda: any(p.scac == "ZPHR" for p in carriers.model.items), WAIT)
    carriers.open_carrier("ZPHR")
    await wait_until(lambda: carriers.profile is not None, WAIT)
    assert carriers.form.account_groups.text() == "PACIFIC"
    for opened in (pane, carriers):
        opened.shutdown()


async def test_a_rename_the_service_fails_keeps_what_was_typed(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    pane = await _shown_with(qtbot, session, tenant, ("WEST", "West"))
    await _row(qtbot, pane, "WEST")
    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    await keys_in(qtbot, pane.code, "PACIFIC")
    proxy.inject(Fault(status=503, path_prefix=GROUPS), times=5)
    await _press(qtbot, pane.code, Qt.Key.Key_Return)
    await wait_until(lambda: pane.errors.general.isVisible(), WAIT)
    assert (pane.code.text(), pane.name.text()) == ("PACIFIC", "West")
    assert pane.form_box.title() == "Rename WEST" and pane.add_button.isEnabled()
    assert _listed(pane) == [("WEST", "West")]
    proxy.faults.clear()
    await _from_loop(lambda: qtbot.mouseClick(pane.add_button, LEFT))
    # The list shows the answer (the service's notification) a step before the form is reset
    # (the call's end).
    await wait_until(lambda: pane.form_box.title() == "New account group", WAIT)
    assert _listed(pane) == [("PACIFIC", "West")]
    assert not pane.errors.general.isVisible()
    pane.shutdown()


async def test_open_forms_follow_a_rename_and_keep_what_was_typed(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A rate request form and a carrier's profile open while a group is renamed name it by
    its new code at once (they sent the old one, refused or naming nothing, until reopened);
    what the user typed and ticked in them stays."""
    session, tenant = connected
    pane = await _shown_with(qtbot, session, tenant, ("EAST", "East"), ("WEST", "West"))
    profile = {"name": "Zephyr Freight", "accountGroupCodes": ["WEST", "EAST"]}
    assert tenant.http.put(f"{PROFILES}/ZPHR", json=profile).status_code == 200

    # The rate request form, open beside the pane: a name typed, WEST ticked.
    form = RateRequestFormDialog(session)
    qtbot.addWidget(form)
    await activated(form)
    await wait_until(lambda: form.groups.count() == 2, WAIT)
    await keys_in(qtbot, form.name, "Week 32")
    bar = form.tabs.tabBar()
    await _from_loop(lambda: qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(2).center()))
    # Into the list (its first group current), down to WEST, Space ticks it.
    await _press(qtbot, form.groups, Qt.Key.Key_Down)
    assert form.groups.currentRow() == 1
    await _press(qtbot, form.groups, Qt.Key.Key_Space)
    assert form._checked(form.groups) == ["WEST"]

    # The carrier's profile open in its pane, its name being changed.
    carriers = await shown_pane(qtbot, session, CarrierProfilesPane)
    await wait_until(lambda: any(p.scac == "ZPHR" for p in carriers.model.items), WAIT)
    carriers.open_carrier("ZPHR")
    await wait_until(lambda: carriers.profile is not None, WAIT)
    assert carriers.form.account_groups.text() == "WEST, EAST"
    await keys_in(qtbot, carriers.form.name, "Zephyr Freight West")

    # WEST renamed in the Account groups pane.
    await _west_renamed_pacific(qtbot, pane)

    await wait_until(lambda: form.groups.item(1).text() == "PACIFIC — West", WAIT)
    assert form._checked(form.groups) == ["PACIFIC"]
    assert form.wire()["capacityProviderAccountGroups"] == [{"code": "PACIFIC"}]
    assert form.name.text() == "Week 32" and form.dirty
    await wait_until(lambda: carriers.form.account_groups.text() == "PACIFIC, EAST", WAIT)
    assert carriers.form.name.text() == "Zephyr Freight West" and carriers.dirty
    # What the service holds is what the form now names.
    stored = tenant.http.get(f"{PROFILES}/ZPHR").json()["accountGroupCodes"]
    assert stored == carriers.form.wire()["accountGroupCodes"]
    form.mark_clean()
    form.close()
    for opened in (pane, carriers):
        opened.shutdown()


async def _west_renamed_pacific(qtbot: QtBot, pane: AccountGroupsPane) -> None:
    """WEST renamed PACIFIC in the Account groups pane as a user does: its row, F2, the new
    code, Return; back once the list shows it."""
    await activated(pane)
    await _row(qtbot, pane, "WEST")
    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    await keys_in(qtbot, pane.code, "PACIFIC")
    await _press(qtbot, pane.code, Qt.Key.Key_Return)
    await wait_until(lambda: _listed(pane) == [("EAST", "East"), ("PACIFIC", "West")], WAIT)


async def test_the_volume_ltl_form_keeps_its_group_chosen_under_its_new_code(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The volume LTL pane's account group, chosen and then renamed in the Account groups
    pane, stays chosen under its new code (the form went back to all carriers, or sent the
    old code, until the pane was reopened)."""
    session, tenant = connected
    pane = await _shown_with(qtbot, session, tenant, ("EAST", "East"), ("WEST", "West"))
    vltl = await shown_pane(qtbot, session, VltlPane)
    choice = vltl.form.group
    await wait_until(lambda: choice.findData("WEST") > 0, WAIT)
    # Chosen from the keyboard: the drop-down focused, Down until WEST.
    choice.setFocus()
    while choice.currentData() != "WEST":
        await _press(qtbot, choice, Qt.Key.Key_Down)
    assert choice.currentText() == "WEST — West"

    await _west_renamed_pacific(qtbot, pane)

    await wait_until(lambda: choice.currentText() == "PACIFIC — West", WAIT)
    problems: dict[str, str] = {}
    assert vltl.form.wire(problems)["capacityProviderAccountGroup"] == {"code": "PACIFIC"}
    for opened in (pane, vltl):
        opened.shutdown()


async def test_the_pane_says_no_interface_codes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user read CAPACITY_PROVIDER_ACCOUNT_GROUP under the form: what the pane shows,
    adding and renaming, is in words."""
    session, tenant = connected
    assert tenant.http.post(GROUPS, json={"code": "WEST", "name": "West"}).status_code == 201
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    assert leaks(pane) == []
    assert "by its code" in pane.hint.text()
    await _row(qtbot, pane, "WEST")
    await _press(qtbot, pane.table, Qt.Key.Key_F2)
    assert pane.form_box.title() == "Rename WEST"
    assert leaks(pane) == [] and "Carrier profiles" in pane.hint.text()
    pane.shutdown()


def _add_button_at(pane: AccountGroupsPane) -> int:
    """Where the Add button is once the layouts have taken in what changed."""
    for _ in range(3):  # the form's layout, its group box's, the pane's
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    return pane.add_button.mapTo(pane, QPoint(0, 0)).y()


async def test_the_add_button_stays_put_while_messages_come_and_go(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user's click on Add landed where the button had been: a message under a field
    went as they typed and the button moved up about 30 px."""
    session, tenant = connected
    pane = await _shown_with(qtbot, session, tenant, ("WEST", "West"))
    at = _add_button_at(pane)
    # Nothing typed: a message under each field, the button where it was.
    qtbot.mouseClick(pane.add_button, LEFT)
    assert pane.errors.message_for("code") and pane.errors.message_for("name")
    assert _add_button_at(pane) == at
    qtbot.keyClicks(pane.code, "WEST")
    assert not pane.errors.message_for("code")
    assert _add_button_at(pane) == at
    qtbot.keyClicks(pane.name, "West again")
    assert not pane.errors.message_for("name")
    assert _add_button_at(pane) == at
    # The service refuses the duplicate beside the code; typing a new code hides it, and the
    # button stays where the user's pointer is.
    qtbot.mouseClick(pane.add_button, LEFT)
    await wait_until(lambda: "already exists" in pane.errors.message_for("code"), WAIT)
    refused_at = _add_button_at(pane)
    qtbot.keyClicks(pane.code, "2")
    assert not pane.errors.message_for("code")
    assert _add_button_at(pane) == refused_at
    qtbot.mouseClick(pane.add_button, LEFT)
    await wait_until(lambda: "Added WEST2" in pane.notice.text(), WAIT)
    pane.shutdown()
