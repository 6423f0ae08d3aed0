"""Exporting a long Shipments list to an Excel workbook, as a dispatcher does (Export…, the
path typed into the save dialog, Return): the window keeps answering while 20,000 rows are
written (the workbook is written in a child process: openpyxl in a thread of the app held
the GIL and froze the window for a second at a time); Cancel leaves no file, no partial file
and no child process; the finished workbook opens with every row."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QProgressDialog, QPushButton
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.service.summary_rows import SUMMARIES, row_json
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.service.test_export import children, children_besides
from tests.support import wait_until
from tests.ui.conftest import activated
from tests.ui.test_export_panes import (
    SAVE_DIALOG_WARNINGS,
    _from_loop,
    _read,
    type_into_export_dialog,
)
from tests.ui.test_shipment_model import row

pytestmark = pytest.mark.qt_log_ignore(SAVE_DIALOG_WARNINGS)
ROWS = 20_000
WRITE_SECONDS = 120.0  # 20,000 rows take 6 to 20 s on the shared 2-core machine
STALL_SECONDS = 0.5  # as the walk test: a stall a user notices


class GapProbe:
    """The GUI thread's longest gap between the ticks of a 5 ms timer on it: the longest time
    the window could not answer. (The app's watchdog cannot see a stall that holds the GIL: its
    own thread waits for the GIL too.) The app's own garbage collections count: the list's
    rows are left out of them once in (ui/garbage.py), so they no longer take 0.3 to 0.6 s."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self._last)
        self._last = now

    def __enter__(self) -> GapProbe:
        self._last = time.perf_counter()
        self._timer.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._timer.stop()


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _progress() -> QProgressDialog | None:
    for widget in QApplication.topLevelWidgets():
        if (
            isinstance(widget, QProgressDialog)
            and widget.objectName() == "exportProgress"
            and widget.isVisible()
        ):
            return widget
    return None


async def _export(qtbot: QtBot, pane: ShipmentsPane, path: Path) -> None:
    """Export… clicked, `path` typed into the save dialog and Return pressed."""
    await activated(pane)
    await _from_loop(lambda: qtbot.mouseClick(pane.export_button, Qt.MouseButton.LeftButton))
    name = await type_into_export_dialog(qtbot, path)
    await _from_loop(lambda: qtbot.keyClick(name, Qt.Key.Key_Return))


async def test_a_long_export_keeps_the_window_answering_and_cancels_clean(
    qtbot: QtBot, session: AppSession, settings: QSettings, tmp_path: Path
) -> None:
    rows = [row(n) for n in range(ROWS)]
    cache = session.open_cache(session.profiles.active)
    cache.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in rows])
    pane = ShipmentsPane(session, settings)
    qtbot.addWidget(pane)
    pane.resize(1300, 700)
    pane.show()
    await pane.cached_list_shown()
    assert pane.model.rowCount() == ROWS
    notice = pane.bulk.notice
    before = children()

    # Cancel while the workbook's writer (a child process) is at work.
    folder = tmp_path / "exports"
    folder.mkdir()
    path = folder / "shipments.xlsx"
    with GapProbe() as probe:
        await _export(qtbot, pane, path)
        await wait_until(lambda: _progress() is not None, WRITE_SECONDS)
        await wait_until(lambda: bool(children_besides(before)), WRITE_SECONDS)
        progress = _progress()
        assert progress is not None
        cancel = progress.findChild(QPushButton)
        assert isinstance(cancel, QPushButton) and cancel.text() == "Cancel"
        await _from_loop(lambda: qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton))
        await wait_until(lambda: "cancelled" in notice.text(), WRITE_SECONDS)
    assert notice.text() == "Export of shipments cancelled: no file was written."
    assert _files(folder) == []  # neither the file nor a partial one
    assert not children_besides(before)  # the writer killed and reaped: no orphan, no zombie
    assert probe.longest < STALL_SECONDS, f"the window stalled {probe.longest:.3f} s"

    # The whole export: every row, the header as the list's columns.
    with GapProbe() as probe:
        await _export(qtbot, pane, path)
        await wait_until(lambda: notice.text().startswith("Exported "), WRITE_SECONDS)
    assert notice.text() == f"Exported {ROWS:,} shipments to {path}"
    assert probe.longest < STALL_SECONDS, f"the window stalled {probe.longest:.3f} s"
    read = _read(path)
    assert read[0] == [c.title for c in pane.exported_columns()]
    assert len(read) == 1 + ROWS
    shown = {pane.model.summary_at(r).primary_identifier for r in (0, ROWS - 1)}  # type: ignore[union-attr]
    assert shown <= {r[0] for r in read[1:]}
    assert _files(folder) == [path.name]
    assert not children_besides(before)
    pane.shutdown()
