"""A watchdog of the GUI thread: a stall of its event loop leaves a trace in the log.

A timer on the GUI thread beats every `BEAT_INTERVAL` seconds; a plain daemon thread looks
at the last beat every `CHECK_INTERVAL` seconds. When the loop is late by more than
`STALL_THRESHOLD`, the GUI thread's Python stack is logged at once (a hang that never ends
is still in the log), then, past `ALL_THREADS_AFTER`, the stacks of every thread, and when
the loop turns again, how long the stall lasted. One stall, at most three lines.

A stall's own length leaves out the time the thread stood in the kernel's run queue, ready
but given no CPU (Linux's per-thread schedstat): on a machine busier than its cores, that
wait is the machine's, not the app's, and tests judge the app by what is left. A thread
blocked on a socket or a lock is not in the run queue, so such a hang counts in full.

`StallDetector` is the plain-Python part (fed beats and checks, with a clock of its own);
`Watchdog` runs it in a thread; `GuiWatchdog` beats from a Qt timer. Tests use
`Watchdog.collecting()` to see the stalls of a stretch of code.

Turned off by the setting `WATCHDOG_SETTING` (Help menu) or `FREIGHTDESK_WATCHDOG=0`.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from types import FrameType

from PySide6.QtCore import QObject, QSettings, QTimer
from PySide6.QtGui import QAction

log = logging.getLogger(__name__)

BEAT_INTERVAL = 0.05
CHECK_INTERVAL = 0.05
STALL_THRESHOLD = 0.25
ALL_THREADS_AFTER = 5.0

WATCHDOG_SETTING = "diagnostics/watchdog"
WATCHDOG_ENVIRONMENT = "FREIGHTDESK_WATCHDOG"

Clock = Callable[[], float]
Frames = Callable[[], Mapping[int, FrameType]]
RunQueueWait = Callable[[], float]


@dataclass(frozen=True)
class Stall:
    """A stall of the watched thread: how long it lasted (seconds), how much of that it
    waited for a CPU while ready to run, and its Python stack as first seen during it."""

    duration: float
    stack: str
    waiting_for_cpu: float = 0.0

    @property
    def own(self) -> float:
        """The stall without the run queue's wait: what the thread itself held."""
        return max(0.0, self.duration - self.waiting_for_cpu)


def run_queue_wait(native_id: int) -> RunQueueWait:
    """The seconds thread `native_id` of this process has spent ready to run but waiting
    for a CPU, as a function (0.0 where the kernel does not keep it)."""
    path = f"/proc/self/task/{native_id}/schedstat"

    def read() -> float:
        try:
            with open(path, encoding="ascii") as stat:
                return int(stat.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    return read


def _no_wait() -> float:
    return 0.0


def watchdog_enabled(settings: QSettings, environ: Mapping[str, str] = os.environ) -> bool:
    """On unless `FREIGHTDESK_WATCHDOG=0` or the setting says otherwise."""
    if environ.get(WATCHDOG_ENVIRONMENT, "").strip().lower() in ("0", "false", "no", "off"):
        return False
    value = settings.value(WATCHDOG_SETTING, True)
    return str(value).lower() not in ("false", "0", "no", "off")


def thread_stack(frame: FrameType) -> str:
    return "".join(traceback.format_stack(frame))


def all_stacks(frames: Mapping[int, FrameType]) -> str:
    names = {t.ident: t.name for t in threading.enumerate()}
    return "\n".join(
        f"Thread {names.get(ident, '?')} ({ident}):\n{thread_stack(frame)}"
        for ident, frame in frames.items()
    )


class StallDetector:
    """Decides, from beats and checks, when a stall starts, grows past the point of logging
    every thread, and ends. Thread-safe: beats come from the watched thread, checks from
    the watchdog's (and from `flush`)."""

    def __init__(
        self,
        thread_id: int,
        *,
        beat_interval: float = BEAT_INTERVAL,
        threshold: float = STALL_THRESHOLD,
        all_threads_after: float = ALL_THREADS_AFTER,
        clock: Clock = time.monotonic,
        frames: Frames = sys._current_frames,
        waited: RunQueueWait = _no_wait,
    ) -> None:
        self.thread_id = thread_id
        self.beat_interval = beat_interval
        self.threshold = threshold
        self.all_threads_after = all_threads_after
        self._clock = clock
        self._frames = frames
        self._waited = waited
        # The run queue's wait as checks saw it, to find its count at a stall's last beat.
        self._waits: deque[tuple[float, float]] = deque([(clock(), waited())], 16)
        self._wait_before = 0.0
        self._lock = threading.Lock()
        self._last_beat = clock()
        self._stalled_since: float | None = None  # the last beat before the stall
        self._stack = ""
        self._sampled_beat: float | None = None  # the beat the stack was sampled after
        self._all_logged = False
        self.listeners: list[Callable[[Stall], None]] = []

    def beat(self) -> None:
        self._last_beat = self._clock()  # one assignment: atomic under the GIL

    def late_by(self, now: float, last_beat: float) -> float:
        return max(0.0, now - last_beat - self.beat_interval)

    def check(self) -> None:
        with self._lock:
            now = self._clock()
            last_beat = self._last_beat
            if self._stalled_since is not None and last_beat != self._stalled_since:
                self._ended(self.late_by(last_beat, self._stalled_since))
            late = self.late_by(now, last_beat)
            if self._stalled_since is None:
                self._waits.append((now, self._waited()))
            if late > self.threshold / 2 and self._sampled_beat != last_beat:
                # Sampled early, so a stall only just over the threshold, seen late by a
                # busy machine's scheduler, is still caught in the act.
                self._sampled_beat = last_beat
                frame = self._frames().get(self.thread_id)
                self._stack = thread_stack(frame) if frame is not None else "(no Python frame)"
            if late <= self.threshold:
                return
            if self._stalled_since is None:
                self._stalled_since = last_beat
                self._wait_before = self._wait_at(last_beat)
                log.warning(
                    "The GUI thread has not answered for %.0f ms; it is at:\n%s",
                    late * 1000,
                    self._stack,
                )
            elif not self._all_logged and late > self.all_threads_after:
                self._all_logged = True
                log.error(
                    "The GUI thread has not answered for %.1f s; every thread:\n%s",
                    late,
                    all_stacks(self._frames()),
                )

    def _wait_at(self, instant: float) -> float:
        """The run queue's wait as last seen at or before `instant`."""
        seen = [wait for at, wait in self._waits if at <= instant]
        return seen[-1] if seen else self._waits[0][1]

    def _ended(self, duration: float) -> None:
        waiting = min(duration, max(0.0, self._waited() - self._wait_before))
        log.warning(
            "The GUI thread answered again after a stall of %.0f ms (%.0f ms of it waiting "
            "for a CPU)",
            duration * 1000,
            waiting * 1000,
        )
        stall = Stall(duration, self._stack, waiting)
        self._stalled_since = None
        self._all_logged = False
        for listener in list(self.listeners):
            listener(stall)


class Watchdog:
    """Runs a `StallDetector` in a daemon thread until `stop()` (which joins it)."""

    def __init__(self, detector: StallDetector, check_interval: float = CHECK_INTERVAL) -> None:
        self.detector = detector
        self.check_interval = check_interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gui-watchdog", daemon=True)

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def start(self) -> None:
        self.detector.beat()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.check_interval):
            try:
                self.detector.check()
            except Exception:  # the watchdog must outlive anything it looks at
                log.exception("the GUI watchdog's check failed")

    def flush(self) -> None:
        """Called on the watched thread: it answers now, so a stall not yet seen (or not
        yet seen to end) is seen and ends here."""
        self.detector.check()
        self.detector.beat()
        self.detector.check()

    @contextmanager
    def collecting(self, over: float = 0.0) -> Iterator[list[Stall]]:
        """The stalls whose own length (`Stall.own`) is over `over` seconds that end inside
        the block (entered and left on the watched thread), in a list filled as they end."""
        stalls: list[Stall] = []

        def keep(stall: Stall) -> None:
            if stall.own > over:
                stalls.append(stall)

        self.flush()
        self.detector.listeners.append(keep)
        try:
            yield stalls
        finally:
            self.flush()
            self.detector.listeners.remove(keep)


class GuiWatchdog(QObject):
    """The watchdog of the thread this is made on (the GUI thread): a Qt timer beats, a
    `Watchdog` thread checks."""

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        threshold: float = STALL_THRESHOLD,
        all_threads_after: float = ALL_THREADS_AFTER,
    ) -> None:
        super().__init__(parent)
        detector = StallDetector(
            threading.get_ident(),
            threshold=threshold,
            all_threads_after=all_threads_after,
            waited=run_queue_wait(threading.get_native_id()),
        )
        self.watchdog = Watchdog(detector)
        self._timer = QTimer(self)
        self._timer.setInterval(round(BEAT_INTERVAL * 1000))
        self._timer.timeout.connect(detector.beat)

    def start(self) -> None:
        self._timer.start()
        self.watchdog.start()

    def stop(self) -> None:
        self._timer.stop()
        self.watchdog.stop()

    def collecting(self, over: float = 0.0) -> AbstractContextManager[list[Stall]]:
        return self.watchdog.collecting(over)


class WatchdogSwitch(QObject):
    """The app's watchdog as its setting says: `start()` starts it unless it is turned off,
    `set_enabled` (the Help menu's toggle) remembers the choice and applies it at once,
    `stop()` (at quit) stops it."""

    def __init__(
        self,
        settings: QSettings,
        parent: QObject | None = None,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.enabled = watchdog_enabled(settings, environ)
        self.running: GuiWatchdog | None = None

    def start(self) -> None:
        if self.enabled and self.running is None:
            self.running = GuiWatchdog(self)
            self.running.start()

    def stop(self) -> None:
        if self.running is not None:
            self.running.stop()
            self.running.deleteLater()
            self.running = None

    def follow(self, toggle: QAction) -> None:
        """Be turned on and off by `toggle` (a checkable action), checked as it is now."""
        toggle.setChecked(self.enabled)
        toggle.setEnabled(True)
        toggle.toggled.connect(self.set_enabled)

    def set_enabled(self, enabled: bool) -> None:
        self.enabled = enabled
        self.settings.setValue(WATCHDOG_SETTING, enabled)
        if enabled:
            self.start()
        else:
            self.stop()
