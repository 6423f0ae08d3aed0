"""The list panes say units as a dispatcher writes them ("300 lb", "64 in", "12.5 mi"), never
the wire's codes ("300 LB"), and nothing else only a programmer would say
(`plain_words.leaks`): each pane shown in the main window on the whole demo, its list filled
as a user fills it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QTableView
from pytestqt.qtbot import QtBot

from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.yard.pane import YardPane
from tests.support import wait_until
from tests.ui.conftest import activated
from tests.ui.plain_words import leaks
from tests.ui.test_export_panes import (
    CASES,
    DATA_SECONDS,
    SAVE_DIALOG_WARNINGS,
    Case,
    _pane,
    demo,
    window,
)
from tests.ui.test_maps import WEBENGINE_STARTUP, webengine_survives_loop_exits

__all__ = ["demo", "webengine_survives_loop_exits", "window"]
pytestmark = pytest.mark.qt_log_ignore(SAVE_DIALOG_WARNINGS, *WEBENGINE_STARTUP)

# The panes whose lists hold units or codes: weights, sizes, distances, equipment.
PANES = ("rates", "packages", "webhooks", "schedules", "capacity", "vehicles", "rail", "yard")


@pytest.mark.parametrize("case", [c for c in CASES if c.key in PANES], ids=lambda c: c.key)
async def test_a_list_says_its_units_in_words(qtbot: QtBot, window: MainWindow, case: Case) -> None:
    pane = _pane(window, case)
    await activated(window)
    await window.session.connect()
    if case.criteria is not None:
        await case.criteria(pane)
    if not case.filled:
        button = getattr(pane, "search_button", None) or getattr(pane, "refresh_button", None)
        if isinstance(button, QPushButton) and button.isEnabled():
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    view = getattr(pane, case.table) if case.table else None
    if view is not None:
        assert isinstance(view, QTableView)
        await wait_until(lambda: view.model().rowCount() > 0, DATA_SECONDS)
        view.selectRow(0)  # its detail, where the pane has one
    else:
        assert isinstance(pane, YardPane)
        await wait_until(
            lambda: pane.answer is not None and bool(pane.answer.results), DATA_SECONDS
        )
    assert leaks(pane) == []
