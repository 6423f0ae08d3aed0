"""Quitting: Ctrl+Q to nothing of the app left, beside a bare PySide6 window quit the same way.

The app is the `freightdesk` command (cli.main, its end included) on a fresh home whose Local
sandbox database exists (the demo's tenant made, as on every day after the first; the first
day's demo seeding is not part of it), on an Xvfb display of its own (the xcb platform, as on
a Linux desktop without a window manager). Once it is connected to the local service it
started and its start's work is done (the maps warmed up: QtWebEngine's helpers run, the
shipment map's page loaded in its hidden tab), it shows the Bookings pane and prints its
window's X id (a run notes when it is not its first paint's: a window made again, a flicker
on a real screen, or another main window). A second later this process gives that window the
keyboard focus and presses Ctrl+Q as a keyboard does: XTEST key events (Control down, Q down,
Q up, Control up, as `xdotool key ctrl+q` sends them) through the X server to the app's own
event loop, from a connection to the display opened beforehand. A
quit is timed from just before the first key event to the moment neither the app nor any
process it was running at the key (its local service, QtWebEngine's helpers) runs (a zombie
counts as ended), polled in /proc every 5 ms.

The baseline is a bare PySide6 window: a QMainWindow with a Quit action on Ctrl+Q
(QApplication.quit), `app.exec()` and the interpreter's usual end, quit the same way, from the
key to its process gone. The runs alternate, so both see the same machine.

    python -m bench.bench_quit [--runs 5]

Needs Xvfb and the X libraries libX11 and libXtst (apt-get install xvfb libxtst6); without
them it says so and measures nothing.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from tests.fresh_home import seeded_home, user_env
from tests.processes import alive

from bench.report import Figure, load_average, publish

# The target from the quit's work (6d89857): Ctrl+Q to nothing left within 2.5 s.
TARGET_SECONDS = 2.5
# The app and its service start (connected, the pane shown) at a load of 10 and more.
READY_SECONDS = 180
GONE_SECONDS = 60
# What a user spends looking at the window before quitting: the pane's first answers are in.
SETTLE_SECONDS = 1.0

# The `freightdesk` command, which prints its window's X id (and the one it had at the first
# paint) once connected and its start's work done (the maps warmed up: the shipment map's page
# loaded in its hidden tab), the Bookings pane shown.
APP = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from freightdesk.cli import main
    from freightdesk.service.connection import ConnectionState
    from freightdesk.ui import launch
    from freightdesk.ui.main_window import MainWindow
    from freightdesk.ui.panes.shipments.pane import ShipmentsPane

    first = []

    def ready_once_started():
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
        first[:] = first or [int(window.winId())]
        shipments = window.pane("shipments")
        if (
            not window.is_attached()
            or window.session.status.state is not ConnectionState.ONLINE
            or not isinstance(shipments, ShipmentsPane)
            or shipments.detail.map is None
            or not shipments.detail.map.is_ready
        ):
            QTimer.singleShot(100, ready_once_started)
            return
        window.show_pane("bookings")
        print("ready", int(window.winId()), first[0], flush=True)

    run = launch.run
    launch.run = lambda argv=None: run(argv, on_first_paint=ready_once_started)
    sys.exit(main([]))
    """
)

# The baseline: a bare window whose Quit action (Ctrl+Q) ends the event loop.
BARE = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv)
    window = QMainWindow()
    window.menuBar().addMenu("&File").addAction("&Quit", QKeySequence("Ctrl+Q"), app.quit)
    window.resize(1300, 700)
    window.show()
    ready = f"ready {int(window.winId())} {int(window.winId())}"
    QTimer.singleShot(0, lambda: print(ready, flush=True))
    sys.exit(app.exec())
    """
)


@dataclass(frozen=True)
class Quit:
    seconds: float  # Ctrl+Q to every process gone
    ready: float  # its start to ready (information: the part's time)
    processes: list[str]  # "app" and what the processes it was running at the key are
    load: float  # the load average at the key
    remade: bool  # its X window was made again after the first paint (a flicker on screen)


@contextmanager
def xvfb() -> Iterator[str]:
    """An X display of our own (Xvfb picks a free number); ended after."""
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as announced:
            number = announced.readline().strip()
        if not number:
            raise SystemExit(f"Xvfb did not start (exit {server.wait()})")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait()


# X's names for the keys (X11/keysymdef.h) and its constants.
_CONTROL_L, _Q = 0xFFE3, 0x71
_REVERT_TO_PARENT, _CURRENT_TIME = 2, 0


class _XErrorEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("resourceid", ctypes.c_ulong),
        ("serial", ctypes.c_ulong),
        ("error_code", ctypes.c_ubyte),
    ]


_ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_XErrorEvent))


class Keyboard:
    """A connection to an X display that focuses windows and presses keys as a keyboard does
    (the XTEST extension, as xdotool; opened once, so that a key costs no process start)."""

    def __init__(self, display: str) -> None:
        self._x = ctypes.CDLL(_library("X11"))
        self._test = ctypes.CDLL(_library("Xtst"))
        self._x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self._x.XOpenDisplay.restype = ctypes.c_void_p
        self._x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self._x.XKeysymToKeycode.restype = ctypes.c_ubyte
        self._x.XSetInputFocus.argtypes = [
            ctypes.c_void_p,
            ctypes.c_ulong,
            ctypes.c_int,
            ctypes.c_ulong,
        ]
        self._x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self._test.XTestFakeKeyEvent.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_ulong,
        ]
        # Xlib's default handler ends the process at an X error (a window gone); noted instead.
        self.errors: list[int] = []
        self._on_error = _ERROR_HANDLER(lambda _display, event: self._noted(event))
        self._x.XSetErrorHandler(self._on_error)
        # Opening a display fails now and then on a busy machine (xdotool too: "Can't open
        # display"); before anything is timed, so tried again.
        for _ in range(50):
            if connection := self._x.XOpenDisplay(display.encode()):
                break
            time.sleep(0.1)
        else:
            raise SystemExit(f"cannot open the X display {display}")
        self._display = connection

    def _noted(self, event: ctypes._Pointer[_XErrorEvent]) -> int:
        self.errors.append(event.contents.error_code)
        return 0

    def focus(self, window: int) -> None:
        self._x.XSetInputFocus(self._display, window, _REVERT_TO_PARENT, _CURRENT_TIME)
        self._x.XSync(self._display, 0)
        if self.errors:
            raise SystemExit(f"X error {self.errors[-1]} giving window {window:#x} the focus")

    def ctrl_q(self) -> None:
        control = self._x.XKeysymToKeycode(self._display, _CONTROL_L)
        q = self._x.XKeysymToKeycode(self._display, _Q)
        for key, down in ((control, 1), (q, 1), (q, 0), (control, 0)):
            self._test.XTestFakeKeyEvent(self._display, key, down, 0)
        self._x.XSync(self._display, 0)

    def __enter__(self) -> Keyboard:
        return self

    def __exit__(self, *_: object) -> None:
        self._x.XCloseDisplay(self._display)


def _library(name: str) -> str:
    found = ctypes.util.find_library(name)
    if found is None:
        raise SystemExit(f"not measured: lib{name} not found (apt-get install xvfb libxtst6)")
    return found


def descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs, running now (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with suppress(OSError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if alive(child):
                found.append(child)
                todo.append(child)
    return found


def kind(pid: int) -> str:
    """What the process is to the app: its local service, a QtWebEngine helper, or other."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "ended"
    if b"freightdesk.cli" in words and b"serve" in words:
        return "local service"
    if Path(words[0].decode(errors="replace")).name == "QtWebEngineProcess":
        return "QtWebEngine helper"
    return Path(words[0].decode(errors="replace")).name


def ready_window(process: subprocess.Popen[bytes], log: Path) -> tuple[int, int]:
    """The X id of the window the process prints once ready, and the one it had first."""
    assert process.stdout is not None
    deadline = time.monotonic() + READY_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not selector.select(left):
                continue
            line = process.stdout.readline().decode(errors="replace")
            if not line:
                break  # it ended
            if line.startswith("ready "):
                _, window, first = line.split()
                return int(window), int(first)
    raise SystemExit(
        f"not ready within {READY_SECONDS} s (exit {process.poll()}): "
        f"{log.read_text(errors='replace')[-2000:]}"
    )


def quit_by_key(command: Sequence[str], env: dict[str, str], keyboard: Keyboard, log: Path) -> Quit:
    """Start `command`, wait until it is ready, press Ctrl+Q on its window; the time until
    it and every process it was running are gone."""
    started = time.perf_counter()
    with log.open("wb") as errors:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, env=env
        )
    watched = [process.pid]
    try:
        window, first = ready_window(process, log)
        ready = time.perf_counter() - started
        time.sleep(SETTLE_SECONDS)
        keyboard.focus(window)
        watched += descendants(process.pid)
        names = ["app", *(kind(pid) for pid in watched[1:])]
        load = load_average()
        pressed = time.perf_counter()
        keyboard.ctrl_q()
        while any(alive(pid) for pid in watched):
            if time.perf_counter() - pressed > GONE_SECONDS:
                raise SystemExit(f"still running {GONE_SECONDS} s after Ctrl+Q: {watched}")
            time.sleep(0.005)
        seconds = time.perf_counter() - pressed
        if process.wait() != 0:
            raise SystemExit(f"exit {process.returncode}: {log.read_text()[-2000:]}")
        return Quit(seconds, ready, names, load, remade=window != first)
    finally:
        for pid in [*watched, *descendants(process.pid)]:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()
        assert process.stdout is not None
        process.stdout.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="quits of each (5)")
    args = parser.parse_args(argv)
    if shutil.which("Xvfb") is None:
        print("not measured: Xvfb not found (apt-get install xvfb libxtst6)")
        return 3

    app: list[Quit] = []
    bare: list[Quit] = []
    with (
        tempfile.TemporaryDirectory(prefix="freightdesk-bench-quit-") as folder,
        xvfb() as display,
        Keyboard(display) as keyboard,
    ):
        root = Path(folder)
        template = root / "template"
        seeded_home(template)
        for run in range(args.runs):
            home = root / f"home-{run}"
            shutil.copytree(template, home)
            env = user_env(home, root / f"user-{run}", display)
            app.append(quit_by_key([sys.executable, "-c", APP], env, keyboard, root / "app.log"))
            bare.append(quit_by_key([sys.executable, "-c", BARE], env, keyboard, root / "bare.log"))
            print(
                f"run {run + 1}: app {app[-1].seconds:.2f} s (load {app[-1].load:.1f}; ready "
                f"{app[-1].ready:.1f} s after its start), "
                f"bare {bare[-1].seconds:.2f} s; the app's processes: "
                f"{', '.join(app[-1].processes)}"
                + ("; its window's X id is not its first paint's" if app[-1].remade else ""),
                flush=True,
            )

    processes = max((q.processes for q in app), key=len)
    if "local service" not in processes:
        raise SystemExit(f"no local service among the app's processes: {processes}")
    helpers = processes.count("QtWebEngine helper")
    others = [p for p in processes[1:] if p not in ("local service", "QtWebEngine helper")]
    loads = [q.load for q in [*app, *bare]]
    figures = [
        Figure(
            "quit",
            f"Ctrl+Q (XTEST keys, Xvfb) to the app, its local service and {helpers} QtWebEngine "
            f"helpers{''.join(f', {p}' for p in others)} gone; fresh home, sandbox without "
            f"shipments; median of {args.runs}",
            statistics.median(q.seconds for q in app),
            "s",
            baseline=statistics.median(q.seconds for q in bare),
            baseline_what="bare PySide6 window, same key",
            limit=TARGET_SECONDS,
            load=max(loads),
            note=(
                "each: "
                + ", ".join(f"{q.seconds:.2f}" for q in app)
                + f" s; load at the keys {min(loads):.1f}-{max(loads):.1f}"
            ),
        )
    ]
    publish(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
