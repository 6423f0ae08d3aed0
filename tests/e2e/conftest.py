"""End-to-end tests drive the real app: the same Qt setup as the UI tests, on the same loop
(qasync's, which is Qt's, so timers, clicks and keys work as in the app)."""

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

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
