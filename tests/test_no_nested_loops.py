"""No UI test runs a nested event loop inside its asyncio task.

Async UI tests run as a task on qasync's loop, which is Qt's. A nested event loop there
(`qtbot.waitUntil`, `qtbot.waitSignal`, `qtbot.waitExposed`, `qtbot.wait`, the synchronous
`activate`, a modal `exec()`) makes qasync step other tasks inside the test's task; asyncio
refuses those steps, the tasks never run again, and a teardown awaiting them hangs (two CI runs
hung this way). A session closed without a bound hangs the same way when a task never ends.
docs/developing.md (Tests) names the awaited replacements. A plain function of the tests that
runs such a loop counts where a coroutine calls it (found through the module's own functions
and its imports from `tests`).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
QTBOT_LOOPS = {
    "wait",
    "waitActive",
    "waitCallback",
    "waitExposed",
    "waitSignal",
    "waitSignals",
    "waitUntil",
    "assertNotEmitted",
}
# This test shows that close_session names a task stalled by a nested loop: it makes one.
ALLOWED = {"ui/test_session_closing.py"}


def _direct(call: ast.Call) -> str:
    """The nested loop (or unbounded close) this call runs itself, or ''."""
    func = call.func
    if isinstance(func, ast.Attribute):
        owner = ast.unparse(func.value)
        if owner == "qtbot" and func.attr in QTBOT_LOOPS:
            return f"qtbot.{func.attr}"
        if func.attr in ("exec", "exec_") and not call.args:
            return f"{owner}.{func.attr}()"
        # QTest's waits and processEvents step qasync's callbacks inside the caller's task too.
        if owner == "QTest" and func.attr in ("qWait", "qWaitFor"):
            return f"QTest.{func.attr}"
        if func.attr == "processEvents":
            return f"{owner}.processEvents"
    return ""


class _Module:
    """One test module: its plain functions that run a nested loop, and where names come from."""

    def __init__(self, path: Path, root: Path) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.blocking: dict[str, str] = {}
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef):
                found = next(
                    (
                        what
                        for c in ast.walk(node)
                        if isinstance(c, ast.Call)
                        if (what := _direct(c))
                    ),
                    "",
                )
                if found:
                    self.blocking[node.name] = found
        self.imported: dict[str, Path] = {}
        for node in self.tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests."):
                source = root.parent.joinpath(*node.module.split(".")).with_suffix(".py")  # type: ignore[union-attr]
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = source


def _nested_loops(path: Path, root: Path = TESTS) -> list[str]:
    modules: dict[Path, _Module] = {}

    def module(source: Path) -> _Module | None:
        if source not in modules and source.exists():
            modules[source] = _Module(source, root)
        return modules.get(source)

    own = module(path)
    assert own is not None
    found: list[tuple[int, str]] = []
    for function in ast.walk(own.tree):
        if not isinstance(function, ast.AsyncFunctionDef) or function.name == "close_session":
            continue
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            call = node.func
            what = _direct(node)
            if isinstance(call, ast.Attribute):
                owner = ast.unparse(call.value)
                if call.attr == "close" and owner.endswith("session") and not node.args:
                    what = f"{owner}.close() without a bound (use close_session)"
            elif isinstance(call, ast.Name):
                if call.id == "activate":
                    what = "activate() (use activated)"
                elif call.id in own.blocking:
                    what = f"{call.id}(), which runs {own.blocking[call.id]}"
                elif call.id in own.imported:
                    other = module(own.imported[call.id])
                    if other is not None and call.id in other.blocking:
                        what = f"{call.id}(), which runs {other.blocking[call.id]}"
            if what:
                where = f"{path.relative_to(root)}:{node.lineno} in {function.name}"
                found.append((node.lineno, f"{where}: {what}"))
    return [line for _number, line in sorted(found)]


def test_no_nested_event_loop_inside_an_async_ui_test() -> None:
    found = [
        line
        for folder in ("ui", "e2e")
        for path in sorted((TESTS / folder).rglob("*.py"))
        if str(path.relative_to(TESTS)) not in ALLOWED
        for line in _nested_loops(path)
    ]
    assert not found, "nested event loops inside async UI tests:\n" + "\n".join(found)


def test_the_check_finds_a_nested_loop(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "helpers.py").write_text(
        "def shown(qtbot, window):\n    qtbot.waitExposed(window)\n", encoding="utf-8"
    )
    sample = tests / "sample.py"
    sample.write_text(
        "from tests.helpers import shown\n"
        "def opened(qtbot):\n"
        "    qtbot.waitUntil(lambda: True)\n"
        "async def test_x(qtbot, session, window):\n"
        "    qtbot.waitUntil(lambda: True)\n"
        "    with qtbot.waitSignal(window.done):\n"
        "        pass\n"
        "    activate(qtbot, window)\n"
        "    await session.close()\n"
        "    opened(qtbot)\n"
        "    shown(qtbot, window)\n"
        "    QApplication.processEvents()\n"
        "def test_sync(qtbot):\n"
        "    qtbot.waitUntil(lambda: True)\n",
        encoding="utf-8",
    )
    assert [line.split(": ", 1)[1] for line in _nested_loops(sample, tests)] == [
        "qtbot.waitUntil",
        "qtbot.waitSignal",
        "activate() (use activated)",
        "session.close() without a bound (use close_session)",
        "opened(), which runs qtbot.waitUntil",
        "shown(), which runs qtbot.waitExposed",
        "QApplication.processEvents",
    ]
