"""Saved views of the Shipments pane: saved, managed (rename, reorder, delete, default) and the
default applied when a new pane opens on the same settings."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.name_dialog import NameDialog
from freightdesk.ui.panes.shipments.manage_views import ManageViewsDialog
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.panes.shipments.view_names import (
    moved,
    name_problem,
    offered_name,
    ordered,
    rename_problem,
)
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import activated
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import answer, click_answer, connected, message_box
from tests.ui.test_shipments_pane import _pane

__all__ = ["connected"]
CTRL = Qt.KeyboardModifier.ControlModifier


def test_name_rules() -> None:
    assert ordered(["b", "a", "c"], ["c", "gone"]) == ["c", "a", "b"]
    assert rename_problem("  ", "a", ["a"]) == "A view needs a name."
    assert rename_problem("b", "a", ["a", "b"]) is not None
    assert rename_problem(" a ", "a", ["a", "b"]) is None
    assert moved(["a", "b", "c"], 2, -1) == ["a", "c", "b"]
    assert moved(["a", "b", "c"], 0, -1) == ["a", "b", "c"]
    assert name_problem(" ") == "A view needs a name." and name_problem("a") is None
    assert offered_name(["In transit", " ", "CHI"], []) == "In transit · CHI"
    assert offered_name(["", ""], ["My view", "My view 2"]) == "My view 3"


async def _name_dialog(qtbot: QtBot, pane: ShipmentsPane) -> NameDialog:
    """Save view… clicked as a user does; the name dialog it opens, its field focused."""
    await activated(pane)
    await _from_loop(lambda: qtbot.mouseClick(pane.save_view_button, Qt.MouseButton.LeftButton))
    await wait_until(lambda: pane.name_dialog is not None)
    dialog = pane.name_dialog
    assert dialog is not None
    await wait_until(lambda: QApplication.activeWindow() is dialog and dialog.name.hasFocus())
    return dialog


async def _type(qtbot: QtBot, dialog: NameDialog, text: str) -> None:
    """The name typed over what the field holds (it is selected when the dialog opens)."""
    await _from_loop(lambda: qtbot.keyClick(dialog.name, Qt.Key.Key_A, CTRL))
    await _from_loop(lambda: qtbot.keyClick(dialog.name, Qt.Key.Key_Backspace))
    await _from_loop(lambda: qtbot.keyClicks(dialog.name, text))


async def _key(qtbot: QtBot, dialog: NameDialog, key: Qt.Key) -> None:
    await _from_loop(lambda: qtbot.keyClick(dialog.name, key))


def _entries(pane: ShipmentsPane) -> list[str]:
    return [pane.views.itemText(i) for i in range(pane.views.count())]


async def test_save_view_by_name_and_return(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    """Save view… asks for the name without blocking the window: a name is offered from the
    filters; an empty name is said beside the field; Escape saves nothing; Return saves, the
    view is in the views box, and it is there again in a pane opened later on the settings
    read from disk. A name already taken is replaced only once the user says so."""
    session, _tenant = connected
    pane = await _pane(qtbot, connected, settings)
    await _from_loop(lambda: qtbot.keyClicks(pane.search, "CHI"))

    dialog = await _name_dialog(qtbot, pane)
    assert dialog.name.text() == "CHI"  # what the filters narrow to, offered
    await _type(qtbot, dialog, "  ")
    await _key(qtbot, dialog, Qt.Key.Key_Return)
    assert dialog.isVisible()
    assert dialog.problem.isVisible() and dialog.problem.text() == "A view needs a name."
    await _type(qtbot, dialog, "Chicago desk")
    assert not dialog.problem.isVisible()  # the message goes once the name is changed
    await _key(qtbot, dialog, Qt.Key.Key_Return)
    await wait_until(lambda: pane.name_dialog is None)
    assert _entries(pane) == ["Views…", "Chicago desk", "Manage views…"]
    assert pane.views.currentText() == "Chicago desk"

    # Escape: nothing saved, whatever was typed.
    pane.search.clear()
    await _from_loop(lambda: qtbot.keyClicks(pane.search, "DAL"))
    dialog = await _name_dialog(qtbot, pane)
    await _type(qtbot, dialog, "Dallas")
    await _key(qtbot, dialog, Qt.Key.Key_Escape)
    await wait_until(lambda: pane.name_dialog is None)
    assert _entries(pane) == ["Views…", "Chicago desk", "Manage views…"]

    # The same name again: asked first; "Keep it" keeps the view and the dialog, Escape ends.
    dialog = await _name_dialog(qtbot, pane)
    await _type(qtbot, dialog, "Chicago desk")
    await _key(qtbot, dialog, Qt.Key.Key_Return)
    await wait_until(lambda: message_box("replaceName") is not None)
    box = message_box("replaceName")
    assert box is not None and "“Chicago desk”" in box.text()
    await click_answer(qtbot, "replaceName", QMessageBox.StandardButton.Cancel, "&Keep it")
    await wait_until(lambda: message_box("replaceName") is None)
    assert dialog.isVisible() and dialog.name.text() == "Chicago desk"
    await _key(qtbot, dialog, Qt.Key.Key_Escape)
    await wait_until(lambda: pane.name_dialog is None)

    settings.sync()
    again = ShipmentsPane(session, QSettings(settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    again.show()
    assert _entries(again) == ["Views…", "Chicago desk", "Manage views…"]
    again.views.setCurrentIndex(1)
    again.views.activated.emit(1)
    assert again.search.text() == "CHI"  # the view as saved: neither DAL typed after it


async def test_replacing_a_view_is_asked_first(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    pane = await _pane(qtbot, connected, settings)
    _save(qtbot, pane, "Chicago desk", "CHI")
    pane.search.clear()
    await _from_loop(lambda: qtbot.keyClicks(pane.search, "DAL"))
    dialog = await _name_dialog(qtbot, pane)
    await _type(qtbot, dialog, "Chicago desk")
    await _key(qtbot, dialog, Qt.Key.Key_Return)
    await click_answer(qtbot, "replaceName", QMessageBox.StandardButton.Save, "&Replace")
    await wait_until(lambda: pane.name_dialog is None)
    assert _entries(pane) == ["Views…", "Chicago desk", "Manage views…"]
    pane.search.clear()
    pane.apply_view("Chicago desk")
    assert pane.search.text() == "DAL"


def _save(qtbot: QtBot, pane: ShipmentsPane, name: str, search: str) -> None:
    pane.search.clear()
    qtbot.keyClicks(pane.search, search)
    pane.store_view(name)


async def test_manage_views_and_default_on_open(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    session, _tenant = connected
    pane = await _pane(qtbot, connected, settings)
    _save(qtbot, pane, "Chicago", "CHI")
    _save(qtbot, pane, "Dallas", "DAL")
    entries = [pane.views.itemText(i) for i in range(pane.views.count())]
    assert entries == ["Views…", "Chicago", "Dallas", "Manage views…"]

    pane.views.setCurrentIndex(pane.views.count() - 1)
    pane.views.activated.emit(pane.views.count() - 1)
    dialog = pane.manage_dialog
    assert isinstance(dialog, ManageViewsDialog) and dialog.isVisible()

    dialog.list.setCurrentRow(0)
    dialog.name.clear()
    qtbot.keyClicks(dialog.name, "Dallas")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.problem.text() == "There is already a view named “Dallas”."
    assert dialog.name.text() == "Dallas"
    dialog.name.clear()
    qtbot.keyClicks(dialog.name, "Windy city")
    qtbot.mouseClick(dialog.rename_button, Qt.MouseButton.LeftButton)
    assert dialog.problem.text() == ""
    assert dialog.names == ["Windy city", "Dallas"]

    dialog.list.setCurrentRow(1)
    qtbot.mouseClick(dialog.up_button, Qt.MouseButton.LeftButton)
    assert dialog.names == ["Dallas", "Windy city"]

    dialog.list.setCurrentRow(0)
    qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: message_box("deleteView") is not None)
    box = message_box("deleteView")
    assert box is not None and "Dallas" in box.text()
    answer("deleteView", QMessageBox.StandardButton.Yes)
    assert dialog.names == ["Windy city"]

    qtbot.mouseClick(dialog.default_button, Qt.MouseButton.LeftButton)
    assert dialog.list.item(0).text() == "Windy city (default)"
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.manage_dialog is None)
    entries = [pane.views.itemText(i) for i in range(pane.views.count())]
    assert entries == ["Views…", "Windy city", "Manage views…"]

    again = ShipmentsPane(session, settings)
    qtbot.addWidget(again)
    again.show()
    assert again.search.text() == "CHI"
    assert again.views.currentText() == "Windy city"


async def test_views_saved_before_ordering_still_load(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    settings.setValue("shipments/views", '{"Zulu": {"search": "Z"}, "Alpha": {"search": "A"}}')
    pane = await _pane(qtbot, connected, settings)
    entries = [pane.views.itemText(i) for i in range(pane.views.count())]
    assert entries == ["Views…", "Alpha", "Zulu", "Manage views…"]
    assert pane.search.text() == ""
