"""Saved views of the Shipments pane: saved, managed (rename, reorder, delete, default) and the
default applied when a new pane opens on the same settings."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.manage_views import ManageViewsDialog
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.panes.shipments.view_names import moved, ordered, rename_problem
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import answer, connected, message_box
from tests.ui.test_shipments_pane import _pane

__all__ = ["connected"]


def test_name_rules() -> None:
    assert ordered(["b", "a", "c"], ["c", "gone"]) == ["c", "a", "b"]
    assert rename_problem("  ", "a", ["a"]) == "A view needs a name."
    assert rename_problem("b", "a", ["a", "b"]) is not None
    assert rename_problem(" a ", "a", ["a", "b"]) is None
    assert moved(["a", "b", "c"], 2, -1) == ["a", "c", "b"]
    assert moved(["a", "b", "c"], 0, -1) == ["a", "b", "c"]


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
