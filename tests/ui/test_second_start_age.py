"""A second start on a home with a cached list: the status bar says how old the rows on
screen are from the first paint on ("updated 12 min ago · Connecting"), through the
session's attaching and connecting, not "never updated" until a fetch answers."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

from pytestqt.qtbot import QtBot

from freightdesk.service.connection import ConnectionState
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession
from freightdesk.service.summary_rows import SUMMARIES
from freightdesk.ui.first_paint import app_settings, open_window
from tests.ui.cached_list_rows import some_row
from tests.ui.test_first_paint_indexed import _home


def test_the_cached_rows_age_shows_from_the_first_paint(qtbot: QtBot, tmp_path: Path) -> None:
    rng = random.Random(3)
    paths = _home(tmp_path, [some_row(n, rng) for n in range(300)], older=False)
    # The list as the last run's sync left it, 12 minutes ago.
    with sqlite3.connect(paths.cache_file("team")) as db:
        saved = time.time() - 12 * 60 - 5
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (repr(saved), f"saved:{SUMMARIES}"))
    db.close()
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    window, pane = open_window(paths, app_settings(paths), profiles)
    qtbot.addWidget(window)
    pane.keep_first_screen = lambda: None
    indicator = window.indicator
    assert pane.model.total == 300
    assert indicator.state_label.text() == "Connecting · Team server"
    assert indicator.age_label.text() == "updated 12 min ago"

    # The session attached (it knows no fetch yet): the age stays said while it connects.
    session = AppSession(paths, profiles, simulate=False)
    assert session.status.state is ConnectionState.CONNECTING
    assert session.status.last_success is None
    window.attach(session)
    assert indicator.state_label.text() == "Connecting · Team server"
    assert indicator.age_label.text() == "updated 12 min ago"
