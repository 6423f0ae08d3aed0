"""The Carrier profiles pane against the real local service, driven with keys and clicks: a
carrier looked up by its SCAC (a bad SCAC said beside the field), its profile edited, the
service's refusal beside the field it names with what was typed kept, saved with exactly
what the form shows, its settings deleted after a confirmation; changes not saved are asked
about before another carrier opens."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLineEdit, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.carriers.pane import START_TEXT, CarrierProfilesPane
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys, refusal
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import answer, connected, message_box, shown_pane

__all__ = ["connected"]

# The SCAC's completer pops its list up as a letter matches; the offscreen platform can neither
# raise nor size such a popup, and says so (the list works all the same).
OFFSCREEN_POPUP = (
    r"^This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints)"
)
pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_POPUP)

PROFILES = "/services/carriers/v1/profiles"
GROUPS = "/api/v4/capacityprovideraccountgroups"
LEFT = Qt.MouseButton.LeftButton
WAIT = 60.0  # a loaded machine is slow; a step that cannot happen fails sooner by its check


def _click_row(qtbot: QtBot, pane: CarrierProfilesPane, scac: str) -> None:
    row = next(i for i, p in enumerate(pane.model.items) if p.scac == scac)
    rect = pane.table.visualRect(pane.model.index(row, 1))
    qtbot.mouseClick(pane.table.viewport(), LEFT, pos=rect.center())


async def _open(qtbot: QtBot, pane: CarrierProfilesPane, scac: str) -> None:
    """The carrier's row clicked; once its profile is in the form."""
    _click_row(qtbot, pane, scac)
    await wait_until(lambda: pane.profile is not None and pane.profile.scac == scac, WAIT)


async def _shown(qtbot: QtBot, session: AppSession, scac: str | None = None) -> CarrierProfilesPane:
    """The pane, once it lists the carriers; `scac`'s profile opened from the list."""
    pane = await shown_pane(qtbot, session, CarrierProfilesPane)
    await wait_until(lambda: pane.model.rowCount() > 0, WAIT)
    if scac is not None:
        await _open(qtbot, pane, scac)
    return pane


async def _saved(pane: CarrierProfilesPane) -> None:
    await wait_until(lambda: pane.profile is not None and pane.profile.configured, WAIT)


async def test_look_up_refuse_save_what_is_shown_and_delete(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await _shown(qtbot, session)
    # Nothing open yet: the form's place says how to start.
    assert pane.stack.currentWidget() is pane.start and pane.start.text() == START_TEXT
    assert not pane.save_button.isEnabled() and not pane.delete_button.isEnabled()
    assert "GLKT" in [p.scac for p in pane.model.items]

    # A SCAC that is not one is said beside the field; nothing is asked.
    qtbot.keyClicks(pane.scac, "G1")
    qtbot.keyClick(pane.scac, Qt.Key.Key_Return)
    assert "'G1' is not a SCAC" in pane.look_up_errors.message_for("scac")
    assert pane.profile is None

    # A carrier looked up by its name, as a dispatcher knows it: its SCAC's profile.
    await keys(qtbot, pane.scac, "blue mesa")
    qtbot.keyClick(pane.scac, Qt.Key.Key_Return)
    await wait_until(lambda: pane.profile is not None and pane.profile.scac == "BMFL", WAIT)

    # Any SCAC has a profile: a carrier the tenant never set opens with its defaults.
    await keys(qtbot, pane.scac, "zphr")
    qtbot.mouseClick(pane.look_up_button, LEFT)
    await wait_until(lambda: pane.profile is not None and pane.profile.scac == "ZPHR", WAIT)
    assert pane.look_up_errors.message_for("scac") == ""
    assert pane.title.text() == "ZPHR: Carrier ZPHR"
    # In a dispatcher's words: their company, not the service's "tenant".
    assert pane.state.text().startswith("Defaults: your company has not configured this")
    assert not pane.delete_button.isEnabled()  # nothing of the company's to delete
    assert pane.delete_button.toolTip() == (
        "Your company has no settings for this carrier to delete."
    )

    form = pane.form
    # The distance unit in words, its code sent (the "distanceUnit" below).
    units = form.distance_unit
    assert [units.itemText(i) for i in range(units.count())] == ["Miles", "Kilometers"]
    assert units.currentText() == "Miles"
    await keys(qtbot, form.name, "Zephyr Freight")
    form.behaviour.setFocus()
    form.behaviour.setCurrentIndex(form.behaviour.findData("REVIEW"))
    form.behaviour.activated.emit(form.behaviour.currentIndex())
    qtbot.mouseClick(form.modes[next(iter(form.modes))], LEFT, pos=QPoint(4, 4))  # TL off
    await keys(qtbot, form.account_groups, "NOPE")
    await keys(qtbot, form.alternate_scacs, "ZPHX")
    form.max_line_items.setFocus()
    form.max_line_items.selectAll()
    qtbot.keyClicks(form.max_line_items, "12")
    form.tabs.setCurrentIndex(1)
    await keys(qtbot, form.contacts["origin"]["contactName"], "Dock desk")
    await keys(qtbot, form.contacts["origin"]["phoneNumber"], "555-0100")
    assert pane.unsaved_changes() == "your changes to ZPHR's carrier profile, not saved"

    # The service refuses a group the tenant does not have: beside the field, input kept.
    group = await refusal(qtbot, {}, pane.save_button, form.errors, "accountGroupCodes")
    assert "NOPE" in group
    assert form.tabs.currentIndex() == 0 and form.name.text() == "Zephyr Freight"
    assert tenant.http.get(f"{PROFILES}/ZPHR").json()["configured"] is False

    assert tenant.http.post(GROUPS, json={"code": "WEST", "name": "West"}).status_code == 201
    await keys(qtbot, form.account_groups, "WEST")
    shown = form.wire()
    await click(qtbot, pane.save_button)
    await _saved(pane)
    assert "Saved your settings for ZPHR" in pane.notice.text()
    assert pane.unsaved_changes() is None
    # What the service keeps is exactly what the form showed, and the form shows it back.
    stored = tenant.http.get(f"{PROFILES}/ZPHR").json()
    assert shown == {
        "name": "Zephyr Freight",
        "behaviour": "REVIEW",
        "responseDelaySeconds": 2.0,
        "quoteDelaySeconds": stored["quoteDelaySeconds"],
        "accountGroupCodes": ["WEST"],
        "modes": ["LTL", "VLTL"],
        "distanceUnit": "MI",
        "currency": "USD",
        "systemOfMeasurement": "IMPERIAL",
        "maxLineItems": 12,
        "supportsEnhancedHandlingUnits": True,
        "acceptsTermsOverrides": True,
        "alternateScacs": ["ZPHX"],
        "defaultContacts": {"origin": {"contactName": "Dock desk", "phoneNumber": "555-0100"}},
    }
    assert {key: stored[key] for key in shown} == shown
    assert form.wire() == shown
    listed = {p.scac: p for p in pane.model.items}
    assert listed["ZPHR"].configured and listed["ZPHR"].name == "Zephyr Freight"
    assert pane.table.selected() is listed["ZPHR"]

    # Delete asks first; Cancel keeps the settings, Delete forgets them.
    qtbot.mouseClick(pane.delete_button, LEFT)
    box = message_box("confirmDelete")
    assert box is not None and box.text() == "Delete your settings for ZPHR (Zephyr Freight)?"
    answer("confirmDelete", QMessageBox.StandardButton.Cancel)
    assert tenant.http.get(f"{PROFILES}/ZPHR").json()["configured"] is True
    qtbot.mouseClick(pane.delete_button, LEFT)
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: pane.profile is not None and not pane.profile.configured, WAIT)
    assert "Deleted your settings for ZPHR" in pane.notice.text()
    assert form.name.text() == "Carrier ZPHR"  # its defaults again
    assert "ZPHR" not in [p.scac for p in pane.model.items]  # not a built-in carrier
    assert tenant.http.get(f"{PROFILES}/ZPHR").json()["configured"] is False
    pane.shutdown()


async def test_picking_another_carrier_asks_before_changes_are_lost(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    # The known carriers are offered as the SCAC is typed.
    completions = pane.completions
    assert completions.rowCount() == pane.model.rowCount()
    assert completions.item(0).text().startswith(pane.model.items[0].scac)

    await _open(qtbot, pane, "GLKT")
    assert pane.form.name.text() == "Great Lakes Trucking"
    # Each Alt+letter reaches one field or button, none the window's menus'.
    letters = mnemonics(pane)
    assert not MENU_LETTERS & set(letters) and len(letters) == len(set(letters)), letters
    assert pane.form.behaviour.currentData() == "REVIEW"
    await keys(qtbot, pane.form.name, "Great Lakes (test)")
    # A long delay is said in days, hours and minutes beside the seconds.
    assert pane.form.response_delay_hint.text() == ""  # 2 s
    pane.form.response_delay.setFocus()
    pane.form.response_delay.selectAll()
    qtbot.keyClicks(pane.form.response_delay, "900")
    assert pane.form.response_delay_hint.text() == "= 15 min"

    _click_row(qtbot, pane, "KSTL")
    box = message_box("unsavedChanges")
    assert box is not None and box.text() == "Discard your changes to GLKT's profile?"
    # Until the user agrees, the list shows the carrier the form holds.
    selected = pane.table.selected()
    assert selected is not None and selected.scac == "GLKT"
    answer("unsavedChanges", QMessageBox.StandardButton.Cancel)
    assert pane.form.name.text() == "Great Lakes (test)"

    _click_row(qtbot, pane, "KSTL")
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    await wait_until(lambda: pane.profile is not None and pane.profile.scac == "KSTL", WAIT)
    assert pane.form.max_line_items.value() == 5
    assert not pane.form.enhanced_units.isChecked()
    assert pane.unsaved_changes() is None
    pane.shutdown()


async def test_a_bad_alternate_scac_is_named_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await _shown(qtbot, session, "GLKT")
    form = pane.form
    typed = {form.alternate_scacs: "GLKX, G1, TOOLONG"}
    message = await refusal(qtbot, typed, pane.save_button, form.errors, "alternateScacs")
    # The entry that is wrong, in words a dispatcher reads (not a pattern), the rest kept.
    assert message == "'G1' and 'TOOLONG' are not SCACs. A SCAC is 2 to 4 letters, e.g. GLKT"
    assert form.alternate_scacs.text() == "GLKX, G1, TOOLONG"
    assert tenant.http.get(f"{PROFILES}/GLKT").json()["configured"] is False
    # Fixed, it saves.
    await keys(qtbot, form.alternate_scacs, "GLKX, GLKY")
    await click(qtbot, pane.save_button)
    await _saved(pane)
    assert tenant.http.get(f"{PROFILES}/GLKT").json()["alternateScacs"] == ["GLKX", "GLKY"]
    pane.shutdown()


async def test_return_in_a_field_saves_and_another_carrier_drops_the_confirmation(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await _shown(qtbot, session, "GLKT")
    await keys(qtbot, pane.form.name, "Great Lakes (night desk)")
    qtbot.keyClick(pane.form.name, Qt.Key.Key_Return)  # as in the app's other forms
    await _saved(pane)
    assert tenant.http.get(f"{PROFILES}/GLKT").json()["name"] == "Great Lakes (night desk)"
    assert "Saved your settings for GLKT" in pane.notice.text()
    # Another carrier opened: the confirmation about GLKT goes.
    await _open(qtbot, pane, "KSTL")
    assert not pane.notice.isVisible(), pane.notice.text()
    pane.shutdown()


async def click_through_popup(qtbot: QtBot, edit: QLineEdit, button: QPushButton) -> None:
    """A click on `button` while `edit`'s completion list is open: the press goes to the open
    popup, as the window system gives it the mouse."""
    popup = edit.completer().popup()
    assert popup is not None
    await wait_until(popup.isVisible)
    spot = popup.mapFromGlobal(button.mapToGlobal(button.rect().center()))
    await _from_loop(lambda: qtbot.mouseClick(popup, LEFT, pos=spot))
    assert not popup.isVisible()


async def test_a_click_on_look_up_while_the_carriers_list_is_open_looks_up(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The first click on Look up is not spent closing the SCAC's completion list."""
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    pane.activateWindow()
    pane.scac.setFocus()
    await keys(qtbot, pane.scac, "glkt")
    await click_through_popup(qtbot, pane.scac, pane.look_up_button)
    await wait_until(lambda: pane.profile is not None and pane.profile.scac == "GLKT", WAIT)
    pane.shutdown()
