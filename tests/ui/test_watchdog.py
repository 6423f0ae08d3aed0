"""The GUI thread's watchdog: a stall of the event loop is logged once, with the stack of
what held it; a quiet loop logs nothing; the setting turns it off; it leaves no thread."""

from __future__ import annotations

import logging
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
    StallDetector,
    WatchdogSwitch,
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
        QTimer.singleShot(0, hold_the_window_for_a_while)
        qtbot.wait(600)
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
