"""A start with nothing kept for the list's sort (a cache another process wrote): the first
screen comes from the keys the cache keeps per row (`first_screen.indexed_top`), and it is
exactly the top of the cached list in the user's sort, as the table shows it once the whole
list is read; a cache kept by an older version (no keys) still opens, read whole."""

from __future__ import annotations

import logging
import random
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from freightdesk.service.cache import KEYS_SAVED, Cache
from freightdesk.service.first_screen import indexed_top
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, cached_rows, row_json
from freightdesk.ui.first_paint import KEPT_ROWS, app_settings, list_sort, open_window
from freightdesk.ui.panes.shipments.attention import TriageLink
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.panes.shipments.pane import FIRST_SCREEN_ROWS
from tests.ui.cached_list_rows import NOW, SORTS, some_row, sorted_model
from tests.ui.offline_home import offline_team_home


@pytest.mark.parametrize(("column", "order"), SORTS)
def test_the_first_screen_from_the_keys_is_the_top_of_the_cached_list(
    qapp: QApplication, tmp_path: Path, column: str, order: Qt.SortOrder
) -> None:
    rng = random.Random(f"{column} {order}")
    rows = [some_row(n, rng) for n in range(1200)]
    cache = Cache(tmp_path / "cache.sqlite3")
    # Written as a sync writes it: replaced whole, then changes and deletions.
    cache.replace_kind(SUMMARIES, ((r.id, row_json(r)) for r in rows[:1000]))
    cache.put_many(SUMMARIES, ((r.id, row_json(r)) for r in rows[1000:]))
    changed = [
        rows[i]._replace(last_modified=NOW, open_exception_count=3) for i in range(0, 1200, 97)
    ]
    cache.put_many(SUMMARIES, ((r.id, row_json(r)) for r in changed))
    cache.delete_many(SUMMARIES, [rows[i].id for i in range(5, 1200, 101)])

    model, triage = sorted_model(qapp, tmp_path, column, order)
    top = indexed_top(cache, list_sort(model, triage), FIRST_SCREEN_ROWS)
    assert top is not None
    # The table, once it holds the whole list read from the cache, shows these first.
    model.set_summaries(cached_rows(cache))
    expected = model.visible_summaries()
    assert top.total == len(expected) == 1200 - 12
    assert len(top.rows) == KEPT_ROWS
    assert top.rows == expected[:KEPT_ROWS]
    cache.close()


def test_keys_behind_the_list_are_not_used_until_built_again(
    qapp: QApplication, tmp_path: Path
) -> None:
    """A cache made or changed by an older version (no keys, or keys it did not keep up):
    read whole, then its keys built once (as the running app does) give the same top."""
    rng = random.Random(7)
    rows = [some_row(n, rng) for n in range(600)]
    path = tmp_path / "cache.sqlite3"
    cache = Cache(path)
    cache.replace_kind(SUMMARIES, ((r.id, row_json(r)) for r in rows))
    cache.close()
    # An older version changes it: it writes the rows and the time, and keeps no keys.
    with sqlite3.connect(path) as db:
        newest = rows[3]._replace(last_modified=NOW + timedelta(minutes=1))
        db.execute(
            "UPDATE entries SET body = ? WHERE kind = ? AND key = ?",
            (row_json(newest), SUMMARIES, newest.id),
        )
        db.execute("UPDATE meta SET value = '1e10' WHERE key = ?", (f"saved:{SUMMARIES}",))
    cache = Cache(path)
    model, triage = sorted_model(qapp, tmp_path, "lastModified", Qt.SortOrder.DescendingOrder)
    sort = list_sort(model, triage)
    assert indexed_top(cache, sort, FIRST_SCREEN_ROWS) is None  # the keys hold the row as it was
    assert cache.index_summaries()
    top = indexed_top(cache, sort, FIRST_SCREEN_ROWS)
    assert top is not None
    assert top.rows[0] == newest
    model.set_summaries(cached_rows(cache))
    assert top.rows == model.visible_summaries()[:KEPT_ROWS]
    cache.close()


def _home(tmp_path: Path, rows: list[SummaryRow], older: bool) -> AppPaths:
    """A dispatcher of a team server (unreachable now) whose cache another process wrote."""
    paths = offline_team_home(tmp_path / "home")
    cache = Cache(paths.cache_file("team"))
    cache.replace_kind(SUMMARIES, ((r.id, row_json(r)) for r in rows))
    cache.close()
    if older:
        # As an older version left it: no keys table, nothing kept.
        with sqlite3.connect(paths.cache_file("team")) as db:
            db.execute("DROP TABLE summary_keys")
            db.execute("DELETE FROM meta WHERE key = ?", (KEYS_SAVED,))
    return paths


@pytest.mark.parametrize("older", [False, True], ids=["keys", "older cache"])
def test_a_start_with_nothing_kept_paints_the_top_of_the_list_in_the_users_sort(
    qtbot: QtBot, tmp_path: Path, caplog: pytest.LogCaptureFixture, older: bool
) -> None:
    rng = random.Random(11)
    rows = [some_row(n, rng) for n in range(2000)]
    paths = _home(tmp_path, rows, older)
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    with caplog.at_level(logging.INFO, logger="freightdesk.ui.first_paint"):
        window, pane = open_window(paths, app_settings(paths), profiles)
    qtbot.addWidget(window)
    model = pane.model
    assert model.sort_name() == "attention desc"  # the default sort
    assert model.total == len(rows)
    shown = [model.summary_at(r) for r in range(FIRST_SCREEN_ROWS)]
    # Only the top read, from the keys (the rest once the session reads the list); an
    # older cache, without them, read whole.
    told = f"painting the top {KEPT_ROWS} of 2,000 cached shipments"
    assert (told in caplog.messages) is not older
    whole = ShipmentTableModel()
    TriageLink(whole, app_settings(paths), lambda: False, whole).now = pane.triage.now
    whole.set_summaries(rows)
    assert shown == whole.visible_summaries()[:FIRST_SCREEN_ROWS]
    # Exceptions first, then the silent ones in transit: what the user sees at the top.
    assert shown[0] is not None and shown[0].open_exception_count > 0
    pane.keep_first_screen = lambda: None


def test_the_first_paint_reads_the_cache_without_writing_to_it(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """A write before the first paint would have the cache's close wait for the disk."""
    rng = random.Random(5)
    rows = [some_row(n, rng) for n in range(300)]
    paths = _home(tmp_path, rows, older=False)
    path = paths.cache_file("team")
    # Open elsewhere too (as by the session of a second window): a write would stay in the
    # write-ahead log, not be checkpointed away at the first paint's close.
    with sqlite3.connect(path) as other:
        assert other.execute("SELECT count(*) FROM entries").fetchone() == (len(rows),)
        profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
        window, pane = open_window(paths, app_settings(paths), profiles)
        qtbot.addWidget(window)
        pane.keep_first_screen = lambda: None
        assert pane.model.total == len(rows)
        assert path.with_name(f"{path.name}-wal").stat().st_size == 0
    other.close()
