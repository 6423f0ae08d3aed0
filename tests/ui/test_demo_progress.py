"""A first run: the Local sandbox answers at once and the status bar follows its demo data
filling in, while the shipment list shows shipments as they are stored: the status bar's count
is the list's, and its activity bar shows once through the load, filling, not blinking."""

from __future__ import annotations

import re
import time

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtWidgets import QStyle
from pytestqt.qtbot import QtBot

from freightdesk.service.local_service import ServiceState
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.conftest import close_session

PREPARING = re.compile(r"Preparing demo data: (\d+) of (\d+) shipments loaded")
# Seconds from the service saying the first shipments are stored to their rows on screen: the
# list fetches when the progress grows (read twice a second); generous, the machine is shared.
ROWS_AFTER_STORED = 10.0


@pytest.mark.timeout(600)
async def test_the_status_bar_says_the_demo_is_being_prepared_as_shipments_appear(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    # The list on screen, as the app shows it first.
    pane = ShipmentsPane(session, settings, window)
    window.add_pane("shipments", "Shipments", pane, QStyle.StandardPixmap.SP_FileIcon)
    window.show()
    assert window.current_pane() is pane
    # Each time the activity bar was shown or hidden, and what the demo label said then.
    bar = window.indicator.activity
    toggles: list[tuple[str, str]] = []

    class Toggles(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
            if event.type() in (QEvent.Type.Show, QEvent.Type.Hide):
                said = window.demo_progress.text() if window.demo_progress.isVisible() else ""
                toggles.append((event.type().name, said))
            return False

    watcher = Toggles(window)
    bar.installEventFilter(watcher)

    def fetched() -> int:
        data = session.shipments.coordinator.data if session.shipments else None
        return len(data.summaries) if data is not None else 0

    # At each list the pane put in: its count, the status bar's, and the list fetched.
    lists: list[tuple[str, str, int, int]] = []
    pane.model.filterApplied.connect(
        lambda _result: lists.append(
            (
                pane.count_label.text(),
                window.demo_progress.text() if window.demo_progress.isVisible() else "",
                pane.model.total,
                fetched(),
            )
        )
    )
    shown: list[str] = []  # every text the status bar's demo label had, in order
    counts: list[int] = []  # shipments in the list at each change
    stored_at: list[float] = []  # when the status bar first said some shipments were stored
    on_screen: list[tuple[float, str]] = []  # when the pane first had rows, and the bar's text

    def service_alive() -> None:
        service = session.local_service
        assert service is None or service.state is not ServiceState.FAILED, "service failed"

    def label_text() -> str:
        service_alive()
        text = window.demo_progress.text() if window.demo_progress.isVisible() else ""
        if text and (not shown or shown[-1] != text):
            shown.append(text)
        if not stored_at and (m := PREPARING.fullmatch(text)) and int(m.group(1)) > 0:
            stored_at.append(time.monotonic())
        if not on_screen and pane.model.rowCount() > 0:
            on_screen.append((time.monotonic(), text))
        return text

    try:
        await session.connect()
        assert session.shipments is not None
        coordinator = session.shipments.coordinator
        usual = session.profile.poll_interval
        # As the Shipments pane does: listening makes the list poll.
        unsubscribe = coordinator.listen(
            lambda _change: counts.append(
                len(coordinator.data.summaries if coordinator.data else ())
            )
        )
        await wait_until(lambda: PREPARING.fullmatch(label_text()) is not None, seconds=120)
        assert coordinator.interval == 1.0  # the list polls every second meanwhile
        await wait_until(lambda: not label_text(), seconds=300)
        # The list's last fetch comes as the preparation ends: every shipment, none left out
        # (a shipment the list's incremental sync skipped would never come: this fails then).
        said = [m for text in shown if (m := PREPARING.fullmatch(text))]
        expected = int(said[-1].group(2)) if said else 0
        await wait_until(lambda: bool(counts) and counts[-1] == expected, seconds=60)
        # The activity bar goes once the load is over.
        await wait_until(lambda: not bar.isVisibleTo(window), seconds=30)
        unsubscribe()
    finally:
        await close_session(session)
    progress = [m for text in shown if (m := PREPARING.fullmatch(text))]
    assert progress, shown
    total = int(progress[-1].group(2))
    assert total >= 300
    readies = [int(m.group(1)) for m in progress]
    assert readies == sorted(readies) and readies[-1] <= total
    # Shipments appeared on the list in steps while the demo was written, and all came.
    assert counts[-1] == total
    assert any(0 < count < total for count in counts), counts
    assert coordinator.interval == usual
    # Said from the moment the service told the app that it was making the demo.
    assert shown[0].startswith("Preparing demo data"), shown
    # The first rows were on screen while the rest was still being prepared, soon after the
    # service had stored them (not only once it was all there).
    assert stored_at and on_screen, (shown, counts)
    appeared, saying = on_screen[0]
    first = PREPARING.fullmatch(saying)
    # (Before the service counted the demo's shipments: "Preparing demo data: 50 shipments
    # loaded".)
    assert saying.startswith("Preparing demo data"), (saying, shown)
    assert first is None or int(first.group(1)) < total, (saying, shown)
    assert appeared - stored_at[0] < ROWS_AFTER_STORED, (appeared - stored_at[0], shown)
    # One count: the status bar's is the list's, at each list put in while the demo is
    # written (but one fetched meanwhile, about to be put in).
    during = [entry for entry in lists if PREPARING.fullmatch(entry[1])]
    assert during, lists
    for count_text, said, in_list, fetched in during:
        m = PREPARING.fullmatch(said)
        assert m is not None
        if in_list == fetched:
            assert int(m.group(1)) == in_list, (said, count_text)
            assert count_text == f"{in_list:,} shipments", (said, count_text)
    # The activity bar stayed through the demo's preparation (it went after: waited for).
    assert "Hide" not in [kind for kind, said in toggles if said.startswith("Preparing")], toggles
