"""The Alerts' minute follows the Shipments list's: it judges again only the shipments whose
silence ran out since the last minute (the list's moments), not every shipment in transit,
which held the window still 0.2 to 0.8 s a minute with 100,000 shipments (at a load of 12);
every one in transit only when the list's moments were not known meanwhile (a new list,
new settings)."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QSettings, QTimer
from pytestqt.qtbot import QtBot

from freightdesk.service.alerts import Alert, AlertKind, AlertsInbox
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.service.shipments import ShipmentList
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import MOVING, Attention, Facts, TriageSettings, flags_of
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.alerts_wiring import AlertsWiring
from freightdesk.ui.panes.shipments.attention import RETRIAGE_MS, store_numbers
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.test_shipments_retriage import BUSY_MS, BusyProbe, _rows, big_pane


def _wire(
    qtbot: QtBot,
    session: AppSession,
    settings: QSettings,
    paths: AppPaths,
    pane: ShipmentsPane,
    rows: list[SummaryRow],
    moment: list[datetime],
) -> tuple[AlertsInbox, list[QTimer]]:
    """The Alerts wired to `pane` in a window, as the app does, over the list `rows` (the
    session never connects), every shipment in transit with its facts read; the list and
    the inbox at the test's `moment`. The inbox has noted the list. The inbox, and the
    window's timers that fire each minute."""
    cache = session.open_cache(session.profiles.active)
    inbox = session.alerts = AlertsInbox(cache, clock=lambda: moment[0])
    assert session.shipments is not None
    session.shipments.coordinator.apply(ShipmentList({r.id: r for r in rows}))
    link = pane.triage
    link.clock = lambda: moment[0]
    link.know({r.id: Facts(read_at=r.last_modified) for r in rows if r.current_state == MOVING})
    link.attach(session, cache)
    assert link.facts is not None
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    AlertsWiring(window, pane, "alerts")
    inbox.judge_shipments(rows, link.facts.facts, link.settings, whole=True)
    assert inbox.baselined
    timers = [
        timer
        for widget in (pane, window)
        for timer in widget.findChildren(QTimer)
        if timer.interval() == RETRIAGE_MS and timer.isActive()
    ]
    return inbox, timers


def a_minute_passes(timers: Iterable[QTimer]) -> None:
    """What a minute does: each of the window's minute timers fires."""
    for timer in timers:
        timer.timeout.emit()


def _silent_in(alerts: Iterable[Alert]) -> list[str]:
    return sorted(a.target for a in alerts if a.kind is AlertKind.NO_SIGNAL)


def _silent(inbox: AlertsInbox) -> list[str]:
    return _silent_in(inbox.alerts)


def _truck(key: str, mode: str, heard: datetime, state: str = MOVING) -> SummaryRow:
    row = _rows(1)[0]
    return row._replace(
        id=key,
        mode=mode,
        current_state=state,
        latest_event_time=heard,
        open_exception_count=0,
        last_modified=heard,
    )


async def test_a_truck_going_silent_between_two_minutes_is_announced_once(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    start = datetime.now(UTC)
    moment = [start]
    # Heard from 3 h 59 m 30 s ago: silent within the next minute. A ship, quiet for hours
    # (48 allowed), and a truck that arrived.
    rows = [
        _truck("soon", "TL", start - timedelta(hours=4) + timedelta(seconds=30)),
        _truck("ship", "OCEAN", start - timedelta(hours=5)),
        _truck("arrived", "TL", start - timedelta(hours=9), state="COMPLETED"),
    ]
    pane = ShipmentsPane(None, settings)
    qtbot.addWidget(pane)
    pane.show()
    pane.model.set_summaries(rows)
    inbox, timers = _wire(qtbot, session, settings, paths, pane, rows, moment)
    try:
        a_minute_passes(timers)
        await wait_until(lambda: not pane.model.retriaging)
        assert _silent(inbox) == []
        moment[0] += timedelta(minutes=1)
        a_minute_passes(timers)
        assert _silent(inbox) == ["soon"]
        for later in (timedelta(minutes=1), timedelta(hours=5), timedelta(days=1)):
            moment[0] = start + later
            a_minute_passes(timers)
            assert _silent(inbox) == ["soon"]
        # Ships now go silent after 4 hours (the settings' dialog): the ship is, at once,
        # with no moment of its own: the next minute judges every shipment in transit.
        store_numbers(settings, 60, {"OCEAN": 4})
        pane.triage.reload_settings()
        await wait_until(lambda: not pane.model.retriaging)
        assert _silent(inbox) == ["soon"]
        moment[0] += timedelta(minutes=1)
        a_minute_passes(timers)
        assert _silent(inbox) == ["ship", "soon"]
        a_minute_passes(timers)
        assert _silent(inbox) == ["ship", "soon"]
    finally:
        pane.shutdown()


def _pass_of_flags_ms(
    rows: list[SummaryRow], facts: Mapping[str, Facts], at: datetime, settings: TriageSettings
) -> float:
    """One pass of `flags_of` over the list's shipments in transit, in this thread's CPU time
    (the median of 3): the least the Alerts' minute did when it judged them all."""
    taken = []
    for _ in range(3):
        began = time.thread_time()
        for row in rows:
            if row.current_state == MOVING:
                flags_of(row, facts.get(row.id), at, settings)
        taken.append(time.thread_time() - began)
    return sorted(taken)[1] * 1000


async def test_a_minute_of_a_list_of_100000_judges_only_the_trucks_gone_silent(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    pane, rows = big_pane(qtbot, settings)
    link = pane.triage
    moment = [datetime.now(UTC)]
    try:
        inbox, timers = _wire(qtbot, session, settings, paths, pane, rows, moment)
        assert link.facts is not None
        pass_ms = _pass_of_flags_ms(rows, link.facts.facts, moment[0], link.settings)
        # The list triaged at a new moment (as once a list is indexed), and the minute after
        # it, which knows no moments yet: every shipment in transit judged.
        moment[0] += timedelta(minutes=5)
        link.again()
        await wait_until(lambda: not pane.model.retriaging, seconds=60)
        a_minute_passes(timers)
        await wait_until(lambda: not pane.model.retriaging, seconds=60)
        silent = pane.model.last_result.attention_counts[Attention.NO_SIGNAL]
        announced: list[str] = []  # the inbox keeps only its last 1,000
        inbox.listen(lambda change: announced.extend(_silent_in(change.added)))
        # Minutes after that: about 200 trucks go silent in each, the rest are not judged.
        took = []
        for _ in range(4):
            moment[0] += timedelta(minutes=1)
            gc.collect()  # the test's own garbage: not the minute's work
            probe = BusyProbe()
            began = time.thread_time()
            a_minute_passes(timers)
            took.append((time.thread_time() - began) * 1000)
            await wait_until(lambda: not pane.model.retriaging, seconds=60)
            busiest = probe.stop()
            assert busiest < BUSY_MS, f"the GUI thread worked {busiest:.0f} ms at once"
            # Each truck gone silent in the list is announced.
            went = pane.model.last_result.attention_counts[Attention.NO_SIGNAL] - silent
            assert went > 0
            assert len(announced) == went
            silent += went
            announced.clear()
        # A minute's work is announcing those 200 (50 to 80 µs each, mostly keeping them in
        # the cache: every other minute costs more), not judging 25,000 again.
        minute_ms = sum(took) / len(took)
        assert minute_ms < pass_ms, (
            f"a minute took the GUI thread {minute_ms:.1f} ms ({took}), a pass of flags_of "
            f"over the shipments in transit {pass_ms:.1f} ms"
        )
    finally:
        pane.shutdown()
