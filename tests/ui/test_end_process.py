"""The app's process ends (`launch.end_process`) as the interpreter would end it, its exit
handlers run, but before Qt's teardown of every object it made."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

# A process that ends as the app's does, with Qt loaded, a QApplication made and exit
# handlers registered before and after the app's start (argv: "end" ends it with
# end_process, "exit" with sys.exit, as without it). Prints what ran at its end.
ENDING = textwrap.dedent(
    """
    import atexit, sys, threading, time
    atexit.register(print, "handler registered before Qt ran", flush=True)
    from PySide6.QtWidgets import QApplication
    from freightdesk.ui import launch

    launch.end_before_qt_teardown()  # as launch.run does once Qt is loaded
    app = QApplication([])
    app.destroyed.connect(lambda: print("Qt torn down", flush=True))
    # As a library loaded later registers one (and a thread it waits for).
    atexit.register(print, "handler registered later ran", flush=True)
    threading.Thread(target=lambda: (time.sleep(0.5), print("thread ended", flush=True))).start()
    print("written before the end", end="")  # no newline: still buffered
    if sys.argv[1] == "end":
        launch.end_process(3)
    sys.exit(3)
    """
)


def _end(how: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ENDING, how],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )


def test_the_end_runs_the_later_exit_handlers_but_not_qts_teardown() -> None:
    ended = _end("end")

    assert ended.returncode == 3, ended.stderr[-3000:]
    lines = ended.stdout.split("\n")
    # The interpreter's order: threads waited for, then the exit handlers, last first.
    assert lines == ["written before the endthread ended", "handler registered later ran", ""]
    assert "Qt torn down" not in ended.stdout


def test_without_it_qt_tears_everything_down() -> None:
    # What the test above would see were Qt's teardown not skipped.
    ended = _end("exit")

    assert ended.returncode == 3, ended.stderr[-3000:]
    assert "Qt torn down" in ended.stdout
    assert "handler registered before Qt ran" in ended.stdout
