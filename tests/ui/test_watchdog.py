"""The GUI thread's watchdog: a stall of the event loop is logged once, with the stack of
what held it; a quiet loop logs nothing; the setting turns it off; it leaves no thread."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from types import FrameType

import pytest
from PySide6.QtCore import QSettings, QTimer
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.watchdog import (
    WATCHDOG_SETTING,
    GuiWatchdog,
    Stall,
    StallDetector,
    WatchdogSwitch,
    run_queue_wait,
)

LOGGER = "freightdesk.ui.watchdog"


def _records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == LOGGER]


def _watchdog_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "gui-watchdog"]


def hold_the_window_for_a_while() -> None:
    time.sleep(0.4)


def test_a_stall_in_a_slot_is_logged_once_with_the_stack_that_held_it(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    watchdog = GuiWatchdog()
    watchdog.start()
    try:
        with watchdog.collecting() as stalls:
            QTimer.singleShot(0, hold_the_window_for_a_while)
            qtbot.waitUntil(lambda: bool(stalls), timeout=5000)
    finally:
        watchdog.stop()
    assert len(stalls) == 1
    assert 0.25 < stalls[0].duration < 2.0
    assert "hold_the_window_for_a_while" in stalls[0].stack
    assert "time.sleep(0.4)" in stalls[0].stack
    started, ended = _records(caplog)  # once when seen, once when over: not every check
    assert started.levelno == logging.WARNING
    assert "has not answered" in started.getMessage()
    assert "hold_the_window_for_a_while" in started.getMessage()
    assert f"after a stall of {stalls[0].duration * 1000:.0f} ms" in ended.getMessage()
    assert not watchdog.watchdog.thread.is_alive()


def test_a_quiet_event_loop_logs_nothing(qtbot: QtBot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    watchdog = GuiWatchdog()
    watchdog.start()
    try:
        with watchdog.collecting() as stalls:
            for _ in range(10):  # busy but answering: 50 ms of work at a time
                QTimer.singleShot(0, lambda: time.sleep(0.05))
                qtbot.wait(100)
    finally:
        watchdog.stop()
    assert stalls == []
    assert _records(caplog) == []


def test_a_stall_not_yet_seen_to_end_is_collected_when_the_block_ends(qtbot: QtBot) -> None:
    """What the test helpers use to fail a test that held the window (here with no turn of
    the event loop between the stall and the end of the block)."""
    watchdog = GuiWatchdog()
    watchdog.start()
    try:
        with watchdog.collecting(over=0.5) as long_ones, watchdog.collecting() as all_of_them:
            hold_the_window_for_a_while()
    finally:
        watchdog.stop()
    assert long_ones == []
    assert [s.duration > 0.25 for s in all_of_them] == [True]


def test_the_setting_the_environment_and_the_help_menu_turn_it_off(
    qtbot: QtBot, settings: QSettings, paths: AppPaths, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    assert WatchdogSwitch(settings, environ={}).enabled
    assert not WatchdogSwitch(settings, environ={"FREIGHTDESK_WATCHDOG": "0"}).enabled
    settings.setValue(WATCHDOG_SETTING, False)
    switch = WatchdogSwitch(settings, environ={})
    try:
        switch.start()
        assert switch.running is None and _watchdog_threads() == []
        held: list[bool] = []

        def hold() -> None:
            hold_the_window_for_a_while()
            held.append(True)

        QTimer.singleShot(0, hold)
        qtbot.waitUntil(lambda: bool(held))
        # Over the hold: no watchdog thread was there to see it, nor after it to log its end.
        assert switch.running is None and _watchdog_threads() == []
        assert _records(caplog) == []

        window = MainWindow(None, settings, paths)
        qtbot.addWidget(window)
        switch.follow(window.watchdog_action)
        assert not window.watchdog_action.isChecked() and window.watchdog_action.isEnabled()
        window.watchdog_action.trigger()  # Help > Log when the window hangs: at once, remembered
        assert switch.running is not None
        thread = switch.running.watchdog.thread
        assert thread.is_alive() and _watchdog_threads() == [thread]
        assert WatchdogSwitch(settings, environ={}).enabled
        window.watchdog_action.trigger()
        assert not thread.is_alive() and _watchdog_threads() == []
        assert not WatchdogSwitch(settings, environ={}).enabled
    finally:
        switch.stop()  # whatever failed, no thread is left behind


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_long_hang_logs_every_thread_once(caplog: pytest.LogCaptureFixture) -> None:
    """The detector alone, on a clock of its own: a hang of 7 s checked every 50 ms."""
    caplog.set_level(logging.WARNING, logger=LOGGER)
    clock = _Clock()
    me = threading.get_ident()

    def frames() -> dict[int, FrameType]:
        import sys

        return {me: sys._getframe()}

    detector = StallDetector(me, clock=clock, frames=frames)
    ended: list[float] = []
    detector.listeners.append(lambda stall: ended.append(stall.duration))
    for _ in range(140):
        clock.now += 0.05
        detector.check()
    levels = [r.levelno for r in _records(caplog)]
    assert levels == [logging.WARNING, logging.ERROR]
    assert "every thread" in _records(caplog)[1].getMessage()
    assert "test_a_long_hang_logs_every_thread_once" in _records(caplog)[1].getMessage()
    assert ended == []
    detector.beat()
    detector.check()
    assert ended == [pytest.approx(6.95)]
    assert "after a stall of 6950 ms" in _records(caplog)[2].getMessage()


def test_a_stall_spent_waiting_for_a_cpu_is_not_the_apps() -> None:
    """On a machine busier than its cores, a stall's wall time is mostly the run queue's:
    what the watched thread held itself (`Stall.own`) leaves that wait out."""
    clock = _Clock()
    me = threading.get_ident()
    waited = [3.0]  # seconds in the run queue so far, as the kernel counts them
    detector = StallDetector(me, clock=clock, waited=lambda: waited[0])
    ended: list[Stall] = []
    detector.listeners.append(ended.append)
    clock.now += 0.05
    detector.check()
    for _ in range(12):  # a 0.6 s stall, 0.4 s of it ready to run but given no CPU
        clock.now += 0.05
        waited[0] += 0.4 / 12
        detector.check()
    detector.beat()
    detector.check()
    (stall,) = ended
    assert stall.duration == pytest.approx(0.6)
    assert stall.waiting_for_cpu == pytest.approx(0.4)
    assert stall.own == pytest.approx(0.2)


def test_the_kernel_counts_a_threads_wait_for_a_cpu() -> None:
    """`run_queue_wait` reads a real count: this thread, sharing one CPU with a busy
    process, waits for it while it spins."""
    native = threading.get_native_id()
    waited = run_queue_wait(native)
    cpu = min(os.sched_getaffinity(0))
    before_affinity = os.sched_getaffinity(0)
    spin = f"import os; os.sched_setaffinity(0, {{{cpu}}}); print('spinning', flush=True)"
    busy = subprocess.Popen(
        [sys.executable, "-c", f"{spin}\nwhile 1: pass"], stdout=subprocess.PIPE
    )
    try:
        os.sched_setaffinity(0, {cpu})
        assert busy.stdout is not None and busy.stdout.readline() == b"spinning\n"  # on that CPU
        start = waited()
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            pass
        assert waited() - start > 0.05
    finally:
        os.sched_setaffinity(0, before_affinity)
        busy.kill()
        busy.communicate()  # reaped, its pipe closed
