"""Run by tests/ui/test_bulk_result_fit.py in a process of its own whose offscreen screen is a
laptop's or a desktop's (FREIGHTDESK_TEST_SCREEN): the bulk actions' result dialog fits the
screen, each reason whole in its row, the last one reached with the keyboard. Not collected
with the suite (its name): the suite's own offscreen screen is 800x800."""

from __future__ import annotations

import os

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.ui.panes.shipments.bulk_dialogs import BulkResultDialog
from freightdesk.ui.widgets.screen_fit import ROOM_AROUND
from tests.support import wait_until
from tests.ui.conftest import activated
from tests.ui.test_export_panes import _from_loop

SCREEN = os.environ.get("FREIGHTDESK_TEST_SCREEN", "")
REASONS = (
    "Not done: cancelled before it was started.",
    "The shipment no longer exists (someone stopped tracking it meanwhile): nothing to change.",
    "The service refused it: attributeValues[0] must be at most 100 characters long and may "
    "not contain control characters; shorten the value and try again.",
)


def _rows_fit(table: QTableWidget) -> bool:
    """Each row as tall as its cells need at the columns' widths shown: no reason cut, and
    no row lines taller than its text."""
    least = table.verticalHeader().minimumSectionSize()  # a row of one line
    return all(
        table.sizeHintForRow(r) <= table.rowHeight(r) <= max(least, table.sizeHintForRow(r))
        for r in range(table.rowCount())
    )


async def test_the_bulk_result_fits_with_each_reason_whole(qtbot: QtBot) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    window.showMaximized()
    available = QApplication.primaryScreen().availableGeometry()
    assert f"{available.width()}x{available.height()}" == SCREEN, available
    problems = [(f"PRO-{4100 + i}", REASONS[i % len(REASONS)]) for i in range(40)]
    dialog = BulkResultDialog("Priority = High set on 12 of 52 shipments.", problems, window)
    await activated(dialog)
    assert dialog.width() <= available.width() and dialog.height() <= (
        available.height() - ROOM_AROUND
    ), dialog.size()
    (buttons,) = dialog.findChildren(QDialogButtonBox)
    bottom = buttons.mapTo(dialog, QPoint(0, buttons.height())).y()
    assert bottom <= dialog.height(), (bottom, dialog.size())
    table = dialog.findChild(QTableWidget, "bulkFailures")
    assert table is not None
    await wait_until(lambda: _rows_fit(table))
    # Most of the list in sight, not two rows of a tall one.
    assert table.rowAt(table.viewport().height() - 1) >= 10, table.viewport().height()

    # Down the list with the keyboard to the last one: whole in sight.
    await _from_loop(
        lambda: (
            table.setFocus(),
            qtbot.keyClick(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier),
        )
    )
    await wait_until(lambda: table.currentRow() == len(problems) - 1)
    last = table.visualRect(table.model().index(len(problems) - 1, 1))
    assert last.top() >= 0 and last.bottom() < table.viewport().height(), last

    # A wider dialog: the reasons take fewer lines, the rows follow.
    await _from_loop(lambda: dialog.resize(dialog.width() + 300, dialog.height()))
    await wait_until(lambda: _rows_fit(table))
    await _from_loop(lambda: qtbot.keyClick(table, Qt.Key.Key_Escape))
    await wait_until(lambda: not dialog.isVisible())
