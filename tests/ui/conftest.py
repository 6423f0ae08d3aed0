"""Qt tests: offscreen, with qasync as the asyncio loop so async tests drive the real app."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

import asyncio
import inspect
import io
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6 import QtWebEngineWidgets  # noqa: F401  (before the QApplication)
from PySide6.QtCore import QCoreApplication, QSettings, SignalInstance
from PySide6.QtWidgets import QApplication

from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession


@pytest.fixture(scope="session")
def qapp_cls() -> type[QApplication]:
    return QApplication


UI_TESTS = Path(__file__).parent
QT_TEST_DIRS = (UI_TESTS, UI_TESTS.parent / "e2e")


class _TestLoop(qasync.QEventLoop):  # type: ignore[misc]  # qasync is untyped
    """qasync's loop, whose callbacks run only while it runs.

    qasync runs a callback (a task's step) from a Qt timer, so any Qt event processing runs
    the callbacks due: also pytest-qt's processEvents after each test phase and a sync
    fixture's waits (qtbot.waitExposed), which come between pytest-asyncio's runs of the
    loop, while no loop is running. A step run then fails at its first
    `asyncio.get_running_loop()`: `asyncio.wait_for(event.wait(), …)` raised before awaiting
    the coroutine made for it ("coroutine 'Event.wait' was never awaited", seen at the next
    collection), and the task ended with "no running event loop" (a poll stopped unseen).
    A callback due while the loop is stopped is held, and queued again when it next runs.
    The hold overrides qasync's private `_add_callback`, through which 0.28 schedules every
    callback; test_qt_loop_between_runs.py fails, naming it, if a qasync release changes that."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self._held: list[asyncio.Handle] = []

    def _add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        # The timer runs a stand-in; `handle` stays the one returned, so cancelling it works.
        super()._add_callback(asyncio.Handle(self._run_or_hold, (handle,), self), delay)
        return handle

    def _run_or_hold(self, handle: asyncio.Handle) -> None:
        if handle.cancelled():
            return
        if self.is_running():
            handle._run()
        else:
            self._held.append(handle)

    def run_forever(self) -> None:
        held, self._held = self._held, []
        for handle in held:
            self._add_callback(handle)
        super().run_forever()


def _qasync_loop() -> qasync.QEventLoop:
    app = QApplication.instance() or QApplication([])
    loop = _TestLoop(app)
    loop.set_exception_handler(_keep_lost_steps)
    return loop


# By loop: the task steps asyncio refused (see _keep_lost_steps), for close_session.
_LOST_STEPS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, list[tuple[asyncio.Handle, str]]
] = weakref.WeakKeyDictionary()


def _keep_lost_steps(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A nested event loop inside a task (qtbot.waitUntil, QTest's keys or a modal exec() in
    a coroutine) makes qasync run other tasks' steps inside that task; asyncio refuses them
    ("Cannot enter into task"), and those tasks would wait forever, as would a teardown that
    awaits them. The refused steps are kept: close_session runs them again and names them."""
    error, handle = context.get("exception"), context.get("handle")
    if (
        isinstance(error, RuntimeError)
        and "Cannot enter into task" in str(error)
        and isinstance(handle, asyncio.Handle)
    ):
        _LOST_STEPS.setdefault(loop, []).append((handle, str(error)))
    loop.default_exception_handler(context)


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], qasync.QEventLoop]] | None:
    """Async UI tests run on qasync's loop, which is Qt's event loop: widgets stay live."""
    parents = Path(str(item.path)).parents
    if any(directory in parents for directory in QT_TEST_DIRS):
        return {"qt": _qasync_loop}
    return None


@pytest.fixture(autouse=True)
def gui_thread_gc(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As in the app: cycles are collected on the GUI thread only (see ui/garbage.py).

    What outlives a test (modules, Qt, the session's services: about 300,000 objects) is
    frozen before the next one, so that the collection after each test walks that test's
    objects only: the pass over everything cost 0.2 s a test on a quiet machine, 0.8 to
    1.6 s at a load of 10. The earlier test's garbage is collected first (its fixtures'
    values are still referenced by pytest during its own teardown). After a test in which
    the app's code froze or unfroze (`garbage.freeze`, a collector's own `stop`), all of it
    is collected again, as at the app's end."""
    import gc

    from freightdesk.ui.garbage import GuiThreadGarbageCollector

    gc.collect()
    gc.freeze()
    moved: list[str] = []
    for name in ("freeze", "unfreeze"):
        monkeypatch.setattr(gc, name, _noting(getattr(gc, name), moved))
    collector = GuiThreadGarbageCollector()
    yield
    monkeypatch.undo()
    collector.stop(unfreeze=bool(moved))


def _noting(call: Callable[[], None], calls: list[str]) -> Callable[[], None]:
    def noted() -> None:
        calls.append(call.__name__)
        call()

    return noted


def release_modifier_keys() -> None:
    """Qt keeps the modifier keys of the last key event as held down: a test that clicked
    Ctrl+2 would leave Ctrl held for the next one (whose selectRow would toggle rows)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QWidget

    if QGuiApplication.keyboardModifiers() != Qt.KeyboardModifier.NoModifier:
        sink = QWidget()
        QTest.keyClick(sink, Qt.Key.Key_F20)
        sink.deleteLater()


@pytest.fixture(autouse=True)
def no_modifier_keys_left_held(qapp: QApplication) -> Iterator[None]:
    yield
    release_modifier_keys()


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths.under(tmp_path / "home")


@pytest.fixture
def settings(paths: AppPaths) -> Iterator[QSettings]:
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    qsettings = QSettings(str(paths.config_dir / "test.ini"), QSettings.Format.IniFormat)
    yield qsettings
    qsettings.sync()


@pytest.fixture
def profiles(paths: AppPaths) -> ProfileStore:
    return ProfileStore(paths.profiles_file, MemorySecretStore())


@pytest.fixture
def session(paths: AppPaths, profiles: ProfileStore) -> AppSession:
    return AppSession(paths, profiles, simulate=False)


CLOSE_SECONDS = 30.0  # a close on a loaded machine takes a second or two; 30 s is a hang


async def close_session(session: AppSession, seconds: float = CLOSE_SECONDS) -> None:
    """Close `session` in a fixture's teardown, failing with the stacks of the tasks still
    pending when it takes over `seconds`: a close that waits on a task which will never end
    would otherwise hang the run, silently (pytest-timeout is disarmed once a test failed).
    Tasks whose step asyncio refused are stepped again first (else the loop's own close
    would wait for them forever), and the test fails naming them."""
    loop = asyncio.get_running_loop()
    lost = _LOST_STEPS.pop(loop, [])
    for handle, _refusal in lost:
        loop.call_soon(handle._callback, *handle._args)
    await bounded(session.close(), seconds, what="session.close()")
    if lost:
        pytest.fail(
            "tasks stalled: their step ran inside another task's nested event loop "
            "(qtbot.waitUntil, QTest's keys or exec() in a coroutine), which asyncio refuses:\n"
            + "\n".join(refusal for _handle, refusal in lost),
            pytrace=False,
        )


async def bounded(work: Coroutine[Any, Any, None], seconds: float, *, what: str) -> None:
    """Await `work`; when it has not ended after `seconds`, fail with every pending task's
    stack, taken before anything is cancelled."""
    running = asyncio.ensure_future(work)
    done, _pending = await asyncio.wait({running}, timeout=seconds)
    if not done:
        stacks = pending_tasks()
        running.cancel()
        pytest.fail(f"{what} had not ended after {seconds:g} s; tasks pending:\n{stacks}")
    running.result()


def pending_tasks() -> str:
    """The running loop's unfinished tasks but the caller's, each with its stack."""
    out = io.StringIO()
    current = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is current:
            continue
        coroutine = task.get_coro()
        created = inspect.iscoroutine(coroutine) and (
            inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED
        )
        out.write(f"--- {task.get_name()}{' (never started)' if created else ''}\n")
        task.print_stack(file=out)
    return out.getvalue() or "(none)\n"


def activate(qtbot: object, window: object) -> None:
    """Show `window` and wait until it is the active window, so its shortcuts work."""
    from PySide6.QtWidgets import QWidget
    from pytestqt.qtbot import QtBot

    assert isinstance(qtbot, QtBot) and isinstance(window, QWidget)
    window.show()
    qtbot.waitExposed(window)
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


async def exposed(window: object, seconds: float = 10.0) -> None:
    """`qtbot.waitExposed` for a coroutine: until the shown `window` is on the screen."""
    from PySide6.QtWidgets import QWidget

    from tests.support import wait_until

    assert isinstance(window, QWidget)

    def on_screen() -> bool:
        handle = window.windowHandle()
        return handle is not None and handle.isExposed()

    await wait_until(on_screen, seconds)


async def activated(window: object, seconds: float = 10.0) -> None:
    """`activate` for a coroutine: waits on the loop instead of in a nested event loop (where
    qasync would run other tasks' steps inside the test's task, and asyncio refuse them: such
    a task never runs, and whatever awaits it waits forever)."""
    from PySide6.QtWidgets import QWidget

    from tests.support import wait_until

    assert isinstance(window, QWidget)
    window.show()
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()
    await wait_until(lambda: handle.isExposed() and QApplication.activeWindow() is window, seconds)


class Emissions:
    """What `emitted` caught: each emission's arguments, in order."""

    def __init__(self) -> None:
        self.args: list[tuple[Any, ...]] = []


@asynccontextmanager
async def emitted(
    signal: SignalInstance, seconds: float = 10.0, *, what: str = "the signal"
) -> AsyncIterator[Emissions]:
    """`qtbot.waitSignal` for a coroutine: after the block, `signal` is awaited on the loop
    (an emission during the block counts), never in a nested event loop."""
    from tests.support import wait_until

    caught = Emissions()

    def record(*args: Any) -> None:
        caught.args.append(args)

    signal.connect(record)
    try:
        yield caught
        try:
            await wait_until(lambda: bool(caught.args), seconds)
        except AssertionError:
            raise AssertionError(f"{what} was not emitted within {seconds:g} s") from None
    finally:
        with suppress(RuntimeError, TypeError):  # the sender is already gone
            signal.disconnect(record)
