"""End-to-end tests drive the real app: the same Qt setup as the UI tests, on the same loop
(qasync's, which is Qt's, so timers, clicks and keys work as in the app)."""

import os
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from tests.e2e.x11 import SCREEN, required
from tests.processes import Processes, processes
from tests.ui.conftest import (  # noqa: F401  (fixtures and the loop hook, for this folder too)
    gui_thread_gc,
    no_modifier_keys_left_held,
    paths,
    pytest_asyncio_loop_factories,
    qapp_cls,
)


@pytest.fixture(autouse=True)
def closing_the_window_ends_only_the_app(qapp: QApplication) -> Iterator[None]:
    """As in the app (ui/launch.py): closing the last window does not quit Qt's loop, which
    here is the loop the test runs on; the app ends through its own shutdown."""
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)


@pytest.fixture
def started() -> Iterator[Processes]:
    """Processes the test starts, all ended at its end."""
    with processes() as owner:
        yield owner


@pytest.fixture
def display(started: Processes, request: pytest.FixtureRequest) -> str:
    """An Xvfb of its own, on a display number it picks itself (-displayfd); its screen is
    SCREEN unless the test asks for another (indirect parametrization: "1366x768x24")."""
    screen = getattr(request, "param", SCREEN)
    xvfb = required("Xvfb")
    read_end, write_end = os.pipe()
    started.fds.append(read_end)
    try:
        started.start(
            [xvfb, "-displayfd", str(write_end), "-screen", "0", screen, "-nolisten", "tcp"],
            pass_fds=(write_end,),
        )
    finally:
        os.close(write_end)
    with os.fdopen(os.dup(read_end)) as answer:
        number = answer.readline().strip()
    assert number.isdigit(), f"Xvfb did not say its display ({number!r})"
    return f":{number}"
