"""Bulk actions on the selected shipments, as a dispatcher uses them against the real local
service: rows picked with clicks (Ctrl, Shift) or Ctrl+A, the Actions menu (or the list's
context menu) naming how many, then copy, set an attribute, export or stop tracking; at the end
what went wrong is listed by shipment, and the list keeps the selection."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractItemModel, QSettings, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QTableWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.widgets.notice import Notice
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.test_export_panes import (
    TIME,
    _from_loop,
    _read,
    save_over,
    type_into_export_dialog,
)
from tests.ui.test_panes_support import click_answer, connected, proxied
from tests.ui.test_shipments_list import _pane, shipments_window, window
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "proxied", "window"]

# Menus and dialogs pop up on the offscreen platform, which cannot raise or grab for them.
pytestmark = pytest.mark.qt_log_ignore(
    r"^This plugin does not support (raise\(\)|grabbing the keyboard)$"
)

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


async def _listed(
    connected: tuple[AppSession, TenantHandle], window: QWidget, count: int
) -> tuple[ShipmentsPane, list[str], TenantHandle]:
    """`count` shipments made on the service, the app connected, the list sorted by shipment
    (so that row n is shipment n); returns the pane, the shipments' PROs and the tenant."""
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    pros = [f"BK{n:02d}{tag}" for n in range(count)]
    for pro in pros:
        _put(tenant, _ltl(pro))
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == count, seconds=30)
    pane.table.sortByColumn(COLUMN_INDEX["primaryIdentifier"], Qt.SortOrder.AscendingOrder)
    await wait_until(lambda: _shown(pane) == pros, seconds=30)
    return pane, pros, tenant


def _shown(pane: ShipmentsPane) -> list[str]:
    return [r.primary_identifier or "" for r in pane.model.visible_summaries()]


def _click_row(
    qtbot: QtBot, pane: ShipmentsPane, row: int, modifier: Qt.KeyboardModifier | None = None
) -> None:
    cell = pane.table.visualRect(pane.model.index(row, COLUMN_INDEX["primaryIdentifier"]))
    qtbot.mouseClick(
        pane.table.viewport(),
        Qt.MouseButton.LeftButton,
        modifier or Qt.KeyboardModifier.NoModifier,
        cell.center(),
    )


def _selected(pane: ShipmentsPane) -> list[str]:
    rows = sorted({i.row() for i in pane.table.selectionModel().selectedRows()})
    return [s.primary_identifier or "" for r in rows if (s := pane.model.summary_at(r))]


def _menu() -> QMenu:
    menus = [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QMenu) and w.objectName() == "bulkMenu" and w.isVisible()
    ]
    assert len(menus) == 1
    return menus[0]


async def _choose(qtbot: QtBot, pane: ShipmentsPane, text: str) -> None:
    """Open the Actions menu with a click and click `text` in it."""
    button = pane.findChild(QPushButton, "bulkActions")
    assert button is not None and button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: any(_open_menus()))
    menu = _menu()
    action = next(a for a in menu.actions() if a.text().replace("&", "") == text)
    assert action.isEnabled(), f"{text} is disabled"
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    await wait_until(lambda: not menu.isVisible())


def _open_menus() -> list[QWidget]:
    return [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QMenu) and w.objectName() == "bulkMenu" and w.isVisible()
    ]


def _dialog(name: str) -> QWidget | None:
    return next(
        (
            w
            for w in QApplication.topLevelWidgets()
            if w.objectName() == name and w.isVisible() and isinstance(w, QDialog)
        ),
        None,
    )


async def _set_attribute_dialog(
    qtbot: QtBot, pane: ShipmentsPane
) -> tuple[QWidget, QLineEdit, QLineEdit]:
    """Actions > Set attribute…: the dialog, its name and its value field."""
    await _choose(qtbot, pane, "Set attribute…")
    await wait_until(lambda: _dialog("bulkSetAttribute") is not None)
    dialog = _dialog("bulkSetAttribute")
    assert dialog is not None
    name = dialog.findChild(QLineEdit, "attributeName")
    value = dialog.findChild(QLineEdit, "attributeValue")
    assert name is not None and value is not None
    return dialog, name, value


def _notice(pane: ShipmentsPane) -> Notice:
    notice = pane.findChild(Notice, "bulkNotice")
    assert notice is not None
    return notice


def _cells(model: QAbstractItemModel, column: int) -> list[str]:
    return [str(model.index(r, column).data()) for r in range(model.rowCount())]


async def test_copy_then_set_an_attribute_on_three_shift_clicked_rows(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    pane, pros, tenant = await _listed(connected, window, 5)
    button = pane.findChild(QPushButton, "bulkActions")
    assert button is not None
    assert not button.isEnabled() and button.text() == "Actions"  # nothing selected yet

    _click_row(qtbot, pane, 1)
    _click_row(qtbot, pane, 3, SHIFT)
    assert _selected(pane) == pros[1:4]
    assert button.text() == "Actions · 3 selected"

    await _choose(qtbot, pane, "Copy identifiers")
    assert QGuiApplication.clipboard().text() == "\n".join(pros[1:4])
    assert "3 shipments" in _notice(pane).text()

    dialog, name, value = await _set_attribute_dialog(qtbot, pane)
    # It opens with the focus in the name, so what is typed at once lands there (it was on
    # the Set button: the name typed was lost and Tab, Return pressed Cancel).
    dialog.activateWindow()  # as the window manager does
    await wait_until(lambda: QApplication.activeWindow() is dialog)
    assert QApplication.focusWidget() is name, QApplication.focusWidget()
    # Return with no name: the error stands beside the field, nothing is sent.
    qtbot.keyClick(name, Qt.Key.Key_Return)
    assert dialog.isVisible()
    errors = [e.text() for e in dialog.findChildren(QWidget, "fieldError") if not e.isHidden()]
    assert errors == ["Give the attribute a name."]
    qtbot.keyClicks(name, "Priority")
    qtbot.keyClick(name, Qt.Key.Key_Tab)
    qtbot.keyClicks(value, "High")
    qtbot.keyClick(value, Qt.Key.Key_Return)

    await wait_until(lambda: "set on 3 shipments" in _notice(pane).text(), seconds=30)
    assert _notice(pane).text() == "Priority = High set on 3 shipments."
    ids = pane.selected_ids()
    for shipment_id in ids:
        answer = tenant.http.get(f"/api/v4/shipments/{shipment_id}/attributes").json()
        assert answer == [{"attributeName": "Priority", "attributeValues": ["High"]}]
    # The list holds the selection; the open shipment's Overview shows the attribute.
    assert _selected(pane) == pros[1:4]
    attributes = pane.detail.overview.attributes
    await wait_until(lambda: "Priority" in _cells(attributes.model(), 0), seconds=30)
    assert _cells(attributes.model(), 1) == ["High"]


async def _set_priority_on_selection(qtbot: QtBot, pane: ShipmentsPane, count: int) -> None:
    """Actions > Set attribute… Priority = High, typed; its line under the list once done."""
    _dialog_shown, name, value = await _set_attribute_dialog(qtbot, pane)
    qtbot.keyClicks(name, "Priority")
    qtbot.keyClicks(value, "High")
    qtbot.keyClick(value, Qt.Key.Key_Return)
    said = f"Priority = High set on {count} shipments."
    await wait_until(lambda: _notice(pane).text() == said, seconds=30)


async def test_the_line_about_a_bulk_action_goes_with_the_list_it_speaks_of(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane, pros, _tenant = await _listed(connected, window, 4)
    _click_row(qtbot, pane, 0)
    _click_row(qtbot, pane, 1, SHIFT)
    await _set_priority_on_selection(qtbot, pane, 2)
    # The run's own refresh (its rows read again in place) leaves the line: it speaks of them.
    assert session.shipments is not None
    await session.shipments.coordinator.fetch_now()
    assert _notice(pane).isVisible()

    # Refresh: the list read again, the line about the last one gone (it stayed, describing
    # a moment no longer shown).
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    assert not _notice(pane).isVisible()

    # Again, then a search typed: another list, the line gone with the one it spoke of.
    await _set_priority_on_selection(qtbot, pane, 2)
    await _from_loop(lambda: qtbot.keyClicks(pane.search, pros[3]))
    await wait_until(lambda: _shown(pane) == [pros[3]])
    assert not _notice(pane).isVisible()


async def test_stop_tracking_all_lists_the_one_already_gone(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    pane, pros, tenant = await _listed(connected, window, 4)
    gone = pane.model.summary_at(2)
    assert gone is not None
    # Someone else stops one meanwhile; the app has not heard yet.
    assert tenant.http.delete(f"/api/v4/shipments/{gone.id}/tracking").status_code == 202

    ids = [r.id for r in pane.model.visible_summaries()]
    _click_row(qtbot, pane, 0)
    qtbot.keyClick(pane.table, Qt.Key.Key_A, CTRL)
    assert _selected(pane) == pros
    await _choose(qtbot, pane, "Stop tracking…")
    await click_answer(
        qtbot, "confirmStopTracking", QMessageBox.StandardButton.Yes, "&Stop tracking 4 shipments"
    )

    await wait_until(lambda: _dialog("bulkResult") is not None, seconds=30)
    result = _dialog("bulkResult")
    assert result is not None
    table = result.findChild(QTableWidget, "bulkFailures")
    assert table is not None
    assert _cells(table.model(), 0) == [pros[2]]
    assert "no longer exists" in _cells(table.model(), 1)[0]
    assert "Stopped tracking 3 of 4 shipments." in _notice(pane).text()
    for shipment_id in ids:
        assert tenant.http.get(f"/api/v4/shipments/{shipment_id}/tracking").status_code == 404
    # The stopped ones leave the list; the refresh takes the one gone before too.
    await wait_until(lambda: pane.model.rowCount() == 0, seconds=30)
    buttons = result.findChild(QDialogButtonBox)
    assert buttons is not None
    close = buttons.button(QDialogButtonBox.StandardButton.Close)
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    await wait_until(lambda: _dialog("bulkResult") is None)


async def test_export_selected_writes_the_ctrl_clicked_rows_from_the_context_menu(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle], tmp_path: Path
) -> None:
    pane, pros, _tenant = await _listed(connected, window, 4)
    _click_row(qtbot, pane, 0)
    _click_row(qtbot, pane, 2, CTRL)
    _click_row(qtbot, pane, 3, CTRL)
    assert _selected(pane) == [pros[0], pros[2], pros[3]]

    # The same actions from the list's context menu (what a right click on a row asks for).
    cell = pane.table.visualRect(pane.model.index(2, COLUMN_INDEX["primaryIdentifier"]))
    QApplication.sendEvent(
        pane.table.viewport(),
        QContextMenuEvent(
            QContextMenuEvent.Reason.Mouse,
            cell.center(),
            pane.table.viewport().mapToGlobal(cell.center()),
        ),
    )
    await wait_until(lambda: any(_open_menus()))
    menu = _menu()
    assert menu.actions()[0].text() == "3 selected"
    action = next(a for a in menu.actions() if a.text().replace("&", "") == "Export selected…")
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())

    # The user's own file of that name is replaced only once they say so.
    target = tmp_path / "chosen.csv"
    target.write_text("the user's own file\n", encoding="utf-8")
    name = await type_into_export_dialog(qtbot, target, there=True)
    await save_over(qtbot, name, target, "the user's own file\n")

    await wait_until(lambda: "Exported 3 selected shipments" in _notice(pane).text(), seconds=30)
    rows = _read(target)
    assert rows[0] == [c.title for c in pane.exported_columns()]
    shipment = rows[0].index("Shipment")
    assert [r[shipment] for r in rows[1:]] == [pros[0], pros[2], pros[3]]
    _assert_instants(rows, "Last updated")
    assert _selected(pane) == [pros[0], pros[2], pros[3]]


async def test_export_writes_the_whole_list_as_a_workbook(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle], tmp_path: Path
) -> None:
    """The Export… button, the name typed with the workbook's suffix: every row shown, in the
    list's order, whatever is selected."""
    pane, pros, _tenant = await _listed(connected, window, 3)
    _click_row(qtbot, pane, 1)
    qtbot.mouseClick(pane.export_button, Qt.MouseButton.LeftButton)
    target = tmp_path / "all.xlsx"
    name = await type_into_export_dialog(qtbot, target)
    await _from_loop(lambda: qtbot.keyClick(name, Qt.Key.Key_Return))

    await wait_until(lambda: f"Exported 3 shipments to {target}" == _notice(pane).text(), 30)
    rows = _read(target)
    assert rows[0] == [c.title for c in pane.exported_columns()]
    shipment = rows[0].index("Shipment")
    assert [r[shipment] for r in rows[1:]] == pros
    _assert_instants(rows, "Last updated")


def _assert_instants(rows: list[list[object]], title: str) -> None:
    """The `title` column holds each row's time as the instant with its offset (ISO 8601),
    not as the screen shows it ("11-28 06:30")."""
    column = rows[0].index(title)
    for row in rows[1:]:
        cell = row[column]
        assert isinstance(cell, str) and TIME.match(cell), cell
        assert datetime.fromisoformat(cell).utcoffset() is not None, cell


@pytest.fixture
def slow_window(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy], settings: QSettings
) -> Iterator[QWidget]:
    """`window`, its app reaching the service through a proxy the test can slow down."""
    yield from shipments_window(qtbot, proxied[0], settings)


async def test_cancel_in_the_middle_of_a_run_leaves_each_shipment_done_or_not_started(
    qtbot: QtBot, slow_window: QWidget, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    count = 40
    pane, pros, tenant = await _listed((session, tenant), slow_window, count)
    ids = {r.primary_identifier: r.id for r in pane.model.visible_summaries()}
    # Each save takes half a second on the way (the service itself is untouched): 40
    # shipments, 4 at a time, need at least 5 s, so the user has time to press Cancel
    # however loaded the machine is.
    proxy.inject(Fault(delay=0.5, method="PUT", path_prefix="/api/v4/shipments"), times=count)

    _click_row(qtbot, pane, 0)
    qtbot.keyClick(pane.table, Qt.Key.Key_A, CTRL)
    assert len(_selected(pane)) == count
    _dialog_shown, name, value = await _set_attribute_dialog(qtbot, pane)
    qtbot.keyClicks(name, "Priority")
    qtbot.keyClicks(value, "High")
    qtbot.keyClick(value, Qt.Key.Key_Return)

    # The progress shows once the run takes a while; Cancel after the first shipments.
    await wait_until(lambda: _progress() is not None, seconds=30)
    progress = _progress()
    assert progress is not None
    await wait_until(lambda: progress.value() >= 1, seconds=30)
    cancel = progress.findChild(QPushButton)
    assert cancel is not None and cancel.text().replace("&", "") == "Cancel"
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    assert "Cancelling" in progress.labelText()

    await wait_until(lambda: _dialog("bulkResult") is not None, seconds=30)
    result = _dialog("bulkResult")
    assert result is not None
    table = result.findChild(QTableWidget, "bulkFailures")
    assert table is not None
    not_started = _cells(table.model(), 0)
    assert set(_cells(table.model(), 1)) == {"Not done: cancelled before it was started."}
    done = [pro for pro in pros if pro not in not_started]
    # Some were done, most were not started (the run had at least 4.5 s left), and the list
    # names the ones not started in the list's order.
    assert 1 <= len(done) < count // 2
    assert not_started == [pro for pro in pros if pro not in done]
    summary = result.findChild(QLabel, "bulkSummary")
    assert summary is not None
    assert summary.text() == (
        f"Priority = High set on {len(done)} of {count} shipments. These were not done:"
    )
    assert _notice(pane).text() == (
        f"Priority = High set on {len(done)} of {count} shipments. "
        f"{len(not_started)} not done: see the list."
    )
    # Nothing half-done: the service holds the attribute on exactly the shipments done.
    for pro in pros:
        answer = tenant.http.get(f"/api/v4/shipments/{ids[pro]}/attributes").json()
        expected = [{"attributeName": "Priority", "attributeValues": ["High"]}]
        assert answer == (expected if pro in done else []), pro
    buttons = result.findChild(QDialogButtonBox)
    assert buttons is not None
    qtbot.mouseClick(
        buttons.button(QDialogButtonBox.StandardButton.Close), Qt.MouseButton.LeftButton
    )
    await wait_until(lambda: _dialog("bulkResult") is None)
    proxy.clear()


def _progress() -> QProgressDialog | None:
    return next(
        (
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, QProgressDialog) and w.objectName() == "bulkProgress" and w.isVisible()
        ),
        None,
    )
