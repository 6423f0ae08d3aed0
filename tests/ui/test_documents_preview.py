"""The Documents pane in the main window at the sizes people use, with a real PDF selected:
the preview settles (it once spun in a relayout loop at a 1440x900 window, the GUI thread
stuck), says it is loading until the page is drawn, and a drag hovering over the pane
changes no widget's size."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QMimeData, QObject, QPointF, QSettings, QSize, QTimer
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.setup import install_panes
from tests.server.test_documents import metadata, upload
from tests.support import TenantHandle, wait_until
from tests.ui.test_documents_pane import COPY, LEFT, NO_KEYS, drag_enter, file_drag, make_pdf
from tests.ui.test_panes_support import connected

__all__ = ["connected"]

# The relayouts of a view that has settled: none. A loop makes thousands a second.
LAYOUT_EVENTS = (QEvent.Type.Resize, QEvent.Type.LayoutRequest, QEvent.Type.Show, QEvent.Type.Hide)
TICK_MS = 50
# A 50 ms timer on a loop that answers fires within this, even on a machine at load 10.
LATE_MS = 400


class Relayouts(QObject):
    """Counts the layout events of the widgets it watches."""

    def __init__(self, widgets: list[QWidget]) -> None:
        super().__init__()
        self.count = 0
        self.widgets = widgets
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in LAYOUT_EVENTS:
            self.count += 1
        return False

    def remove(self) -> None:
        for widget in self.widgets:
            widget.removeEventFilter(self)


async def settled_for(seconds: float, widgets: list[QWidget]) -> tuple[int, float]:
    """Let the event loop run for `seconds`: the layout events of `widgets` meanwhile, and how
    late (ms) a 50 ms timer fired at worst. A spinning relayout answers with thousands. The
    loop runs by awaiting, not by processEvents: inside the test's task that would step
    qasync's other tasks, which asyncio refuses (docs/developing.md, Tests)."""
    relayouts = Relayouts(widgets)
    timer = QTimer()
    timer.setInterval(TICK_MS)
    last = time.monotonic()
    worst = 0.0

    def tick() -> None:
        nonlocal last, worst
        now = time.monotonic()
        worst = max(worst, (now - last) * 1000 - TICK_MS)
        last = now

    timer.timeout.connect(tick)
    timer.start()
    try:
        await asyncio.sleep(seconds)
        # A timer that never fired is the worst lateness of all.
        worst = max(worst, (time.monotonic() - last) * 1000 - TICK_MS)
    finally:
        timer.stop()
        relayouts.remove()
    return relayouts.count, worst


def preview_widgets(pane: DocumentsPane) -> list[QWidget]:
    view = pane.preview.pdf_view
    return [view, view.viewport(), view.verticalScrollBar(), view.horizontalScrollBar()]


@contextmanager
def documents_window(
    session: AppSession, settings: QSettings, paths: AppPaths, qtbot: QtBot, size: QSize
) -> Iterator[tuple[MainWindow, DocumentsPane]]:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    install_panes(window, session)
    window.resize(size)
    window.show()
    window.show_pane("documents")
    pane = window.current_pane()
    assert isinstance(pane, DocumentsPane)
    try:
        yield window, pane
    finally:
        window.close()


def add_pdf(tenant: TenantHandle, tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "BOL-4471.pdf", "Bill of lading 4471")
    answer = upload(tenant.http, metadata(name="BOL-4471.pdf"), pdf.read_bytes())
    assert answer.status_code in (200, 201), answer.text


# 1600x1000-like: 1590x990 was fine and 1600x1000 not, so the size between.
SIZES = [QSize(1366, 768), QSize(1440, 900), QSize(1596, 996), QSize(1920, 1080)]
# Heights around each size, a few pixels apart: a loop needs the preview at one aspect
# ratio (the page fitted to the width about as tall as the view), which fonts and styles
# move by some pixels from one machine to the next.
NEARBY = range(-48, 49, 4)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s.width()}x{s.height()}")
async def test_the_pdf_preview_settles_at_every_window_size(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    tmp_path: Path,
    size: QSize,
) -> None:
    session, tenant = connected
    add_pdf(tenant, tmp_path)
    with documents_window(session, settings, paths, qtbot, size) as (window, pane):
        # Selected at once; the PDF shown still says it is loading (QtPdf draws the page
        # in a thread, blank till then); once the page is drawn, the page alone.
        loading_when_shown: list[bool] = []
        pane.preview.loaded.connect(
            lambda kind: (
                kind == "pdf" and loading_when_shown.append(pane.preview.loading.isVisible())
            )
        )
        await session.connect()
        await wait_until(lambda: pane.model.rowCount() == 1)
        await wait_until(lambda: pane.preview.painted)
        assert loading_when_shown == [True]
        assert not pane.preview.loading.isVisible()
        assert pane.preview.pdf.pageCount() == 1
        assert pane.preview.stack.currentWidget() is pane.preview.pdf_view
        watched = preview_widgets(pane)
        await settled_for(0.2, watched)
        relayouts, late = await settled_for(1.0, watched)
        assert relayouts == 0, f"the preview relaid itself {relayouts} times in a second"
        assert late < LATE_MS, f"the event loop stalled for {late:.0f} ms"
        for step in NEARBY:
            window.resize(size.width(), size.height() + step)
            await settled_for(0.03, watched)
            relayouts, late = await settled_for(0.05, watched)
            assert relayouts == 0, f"at {size.height() + step} high the preview keeps relaying"
        pane.shutdown()


async def test_a_drag_hovering_changes_no_size_and_a_folder_is_refused_with_a_word(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
    tmp_path: Path,
) -> None:
    session, tenant = connected
    add_pdf(tenant, tmp_path)
    scan = make_pdf(tmp_path / "scan.pdf", "Delivery receipt")
    folder = tmp_path / "receipts"
    folder.mkdir()
    with documents_window(session, settings, paths, qtbot, QSize(1600, 1000)) as (_w, pane):
        await session.connect()
        await wait_until(lambda: pane.preview.painted)
        target = pane.table.viewport()
        before = {w: w.size() for w in pane.findChildren(QWidget) if w.isVisible()}

        # Files hovering: a bar over the pane says what a drop does; nothing moves.
        mime = file_drag([scan])
        assert drag_enter(target, mime).isAccepted()
        hover = pane.drop_feedback.bar
        assert hover.isVisible() and "Release to upload this file" in hover.text()
        relayouts, _late = await settled_for(0.3, preview_widgets(pane))
        assert relayouts == 0
        after = {w: w.size() for w in before if w.isVisible()}
        assert after == {w: s for w, s in before.items() if w in after}
        QApplication.sendEvent(target, QEvent(QEvent.Type.DragLeave))
        assert not hover.isVisible()

        # A folder: let in, said while it hovers, and refused with the same word.
        mime = file_drag([folder])
        assert drag_enter(target, mime).isAccepted()
        assert "receipts is a folder" in hover.text()
        drop = QDropEvent(QPointF(target.rect().center()), COPY, mime, LEFT, NO_KEYS)
        QApplication.sendEvent(target, drop)
        assert not drop.isAccepted()  # the source is told nothing was taken
        assert not hover.isVisible()
        assert pane.notice.isVisible() and "receipts is a folder" in pane.notice.text()
        assert pane.dialog is None  # no upload dialog

        # Plain text (a selection dragged from a mail): refused with a word too.
        text = QMimeData()
        text.setText("BOL 4471, signed")
        assert drag_enter(target, text).isAccepted()
        drop = QDropEvent(QPointF(target.rect().center()), COPY, text, LEFT, NO_KEYS)
        QApplication.sendEvent(target, drop)
        assert not drop.isAccepted()
        assert "Text cannot be uploaded" in pane.notice.text()
        assert pane.dialog is None
        pane.shutdown()
