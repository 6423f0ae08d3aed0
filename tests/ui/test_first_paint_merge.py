"""A start's first screen from a kept top older than the cache (`first_screen.kept_top`):
whatever changed since, the rows it paints are exactly the top of the cached list in the
user's sort, as the table shows it once the whole list is read."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from freightdesk.service.cache import KEYS_SAVED, Cache
from freightdesk.service.first_screen import KEPT_SINCE_KEY, kept_top, remember_first_screen
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, cached_rows, row_json
from freightdesk.ui.first_paint import KEPT_ROWS, list_sort
from freightdesk.ui.panes.shipments.attention import TriageLink
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.panes.shipments.pane import FIRST_SCREEN_ROWS
from tests.ui.cached_list_rows import NOW, SORTS, sorted_model, spread_row

BASE = datetime(2026, 11, 1, tzinfo=UTC)


def _row(n: int, minutes: int, origin: str | None) -> SummaryRow:
    return SummaryRow(
        id=f"id-{n:05d}",
        identifiers=(("PRO", f"PRO{n:05d}"),),
        primary_identifier=f"PRO{n:05d}",
        mode="LTL",
        current_state="IN_TRANSIT",
        origin_name=origin,
        destination_name="Dallas, TX",
        next_eta=None,
        latest_event_type=None,
        latest_event_time=None,
        latest_event_description=None,
        open_exception_count=0,
        carrier="ODFL",
        created=BASE,
        last_modified=BASE + timedelta(minutes=minutes),
    )


def _top(rows: list[SummaryRow], column: str, order: Qt.SortOrder) -> list[str]:
    """The ids the table shows first once it holds the whole list."""
    model = ShipmentTableModel()
    model.sort(COLUMN_INDEX[column], order)
    model.set_summaries(rows)
    return [row.id for row in model.visible_summaries()]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    ("column", "order"),
    [("attention", Qt.SortOrder.DescendingOrder), ("origin", Qt.SortOrder.AscendingOrder)],
)
def test_the_kept_top_with_the_changes_since_is_the_top_of_the_cached_list(
    qapp: QApplication, tmp_path: Path, seed: int, column: str, order: Qt.SortOrder
) -> None:
    rng = random.Random(seed)
    cities: list[str | None] = [f"City {k:03d}" for k in range(400)] + [None] * 40
    rows = [_row(n, rng.randrange(5000), rng.choice(cities)) for n in range(1500)]
    cache = Cache(tmp_path / f"cache-{seed}.sqlite3")
    cache.put_many(SUMMARIES, ((r.id, row_json(r)) for r in rows))
    model = ShipmentTableModel()
    model.sort(COLUMN_INDEX[column], order)
    shown = _top(rows, column, order)
    # Kept as the running app keeps it: the top, and the time the table held every change.
    remember_first_screen(cache, model.sort_name(), len(rows), shown[:KEPT_ROWS])
    cache.set_meta(KEPT_SINCE_KEY, repr(cache.saved_at(SUMMARIES)))

    # Then, before the next start: rows of the top deleted and changed, rows from below
    # moved up, new rows, in a few saves.
    top_ids = shown[: KEPT_ROWS // 2]
    cache.delete_many(SUMMARIES, rng.sample(top_ids, 10))
    by_id = {r.id: r for r in rows}
    moved = [by_id[i] for i in rng.sample(shown, 40)]
    cache.put_many(
        SUMMARIES,
        (
            (
                r.id,
                row_json(
                    r._replace(
                        last_modified=BASE + timedelta(minutes=rng.randrange(6000)),
                        origin_name=rng.choice(cities),
                    )
                ),
            )
            for r in moved
        ),
    )
    new = [_row(n, rng.randrange(6000), rng.choice(cities)) for n in range(1500, 1530)]
    cache.put_many(SUMMARIES, ((r.id, row_json(r)) for r in new))

    cached = cached_rows(cache)
    expected = _top(cached, column, order)
    kept = kept_top(cache, list_sort(model), FIRST_SCREEN_ROWS)
    assert kept is not None  # a tenth of the kept top changed: still told without reading
    assert kept.total == len(cached) == len(expected)
    assert len(kept.rows) >= FIRST_SCREEN_ROWS
    assert [r.id for r in kept.rows] == expected[: len(kept.rows)]
    # Each as the cache holds it now.
    now = {r.id: r for r in cached}
    assert all(now[r.id] == r for r in kept.rows)
    cache.close()


def _kept_then_changed(
    qapp: QApplication,
    tmp_path: Path,
    column: str,
    order: Qt.SortOrder,
    seed: str,
    newest: bool = False,
) -> tuple[Cache, ShipmentTableModel, TriageLink, list[str]]:
    """A cache of 2,500 rows whose top the running app kept in the user's sort, then 1,000
    of them changed (each field anew: rows moved into the top and out of it) and 20 deleted
    in a few saves, as syncs before a kill do; and the ids of the rows kept. `newest`: each
    changed row changed last (as a sync saves them), so that in the sorts by the last change
    every one of them sorts before the rows kept."""
    rng = random.Random(seed)
    rows = [spread_row(n, rng) for n in range(2500)]
    cache = Cache(tmp_path / "cache.sqlite3")
    cache.put_summaries(rows)
    model, triage = sorted_model(qapp, tmp_path, column, order)
    model.set_summaries(cached_rows(cache))
    kept = [r.id for r in model.visible_summaries()[:KEPT_ROWS]]
    remember_first_screen(cache, model.sort_name(), len(rows), kept)
    cache.set_meta(KEPT_SINCE_KEY, repr(cache.saved_at(SUMMARIES)))
    # A fifth of the kept top among them, as a sync changes the newest rows most.
    changed = rng.sample(kept, 40) + rng.sample(range(2500), 960)
    numbers = sorted({int(str(c).removeprefix("id-")) for c in changed})
    for start in range(0, len(numbers), 400):
        changes = [spread_row(n, rng) for n in numbers[start : start + 400]]
        if newest:
            later = [NOW + timedelta(seconds=rng.randrange(1, 10**5)) for _ in changes]
            changes = [r._replace(last_modified=t) for r, t in zip(changes, later, strict=True)]
        cache.put_summaries(changes)
    cache.delete_many(
        SUMMARIES, [*rng.sample(kept, 5), *(f"id-{n:05d}" for n in range(3, 2500, 166))]
    )
    return cache, model, triage, kept


# The sorts whose top a kept top tells (the mode and the state have a few values each: the
# rows tied with the last kept one are many, and the start reads the list whole).
TOLD = [(column, order) for column, order in SORTS if column not in ("mode", "state")]


# Every such sort with rows changed anew (with the cache's keys, and with keys behind the
# list: a cache changed by an older version); and the descending sorts with the changed rows
# changed last (more of them before the kept rows than a top holds, in the sorts by the
# last change; the ascending ones would lose most of the kept top: read whole).
CHANGES = [
    (column, order, change, keys)
    for column, order in TOLD
    for change, keys in [("anew", "keys"), ("anew", "keys behind"), ("newest", "keys")]
    if change == "anew" or order == Qt.SortOrder.DescendingOrder
]


@pytest.mark.parametrize(("column", "order", "change", "keys"), CHANGES)
def test_the_first_screen_after_a_thousand_changes_shows_no_stale_row(
    qapp: QApplication,
    tmp_path: Path,
    column: str,
    order: Qt.SortOrder,
    change: str,
    keys: str,
) -> None:
    """Whether the changed rows are picked by their cached keys or, the keys behind the
    list (changed by an older version), all read: each row shown is as the cache holds it
    now, a row moved out of the top is not shown, one moved into it is."""
    newest = change == "newest"
    cache, model, triage, kept = _kept_then_changed(qapp, tmp_path, column, order, column, newest)
    if keys == "keys behind":
        cache.set_meta(KEYS_SAVED, "0")
    top = kept_top(cache, list_sort(model, triage), FIRST_SCREEN_ROWS)
    assert top is not None
    now = {r.id: r for r in cached_rows(cache)}
    stale = [r.id for r in top.rows if now.get(r.id) != r]
    assert not stale
    model.set_summaries(list(now.values()))
    expected = model.visible_summaries()
    assert top.total == len(expected)
    assert FIRST_SCREEN_ROWS <= len(top.rows) <= KEPT_ROWS
    assert top.rows == expected[: len(top.rows)]
    # The top changed: else the test could not tell a stale one.
    assert {r.id for r in top.rows} - set(kept)
    cache.close()


@pytest.mark.parametrize(("column", "order"), TOLD[::3])
def test_the_merge_reads_no_changed_row_that_cannot_reach_the_first_screen(
    qapp: QApplication, tmp_path: Path, column: str, order: Qt.SortOrder
) -> None:
    """The changed rows sorted after the last kept row that did not change are told apart
    by their cached keys, their rows not read: made unreadable behind the cache's back
    (keys kept), they do not keep the first screen from being painted from the kept top."""
    cache, model, triage, kept = _kept_then_changed(qapp, tmp_path, column, order, "reads")
    model.set_summaries(cached_rows(cache))
    expected = [r.id for r in model.visible_summaries()]
    changed = cache.changed_since(SUMMARIES, float(cache.meta(KEPT_SINCE_KEY) or "nan"), 5000)
    assert changed is not None
    unchanged = [i for i in kept if i not in set(changed[1])]
    bound = expected.index(unchanged[-1])
    below = [i for i in expected[bound:] if i in set(changed[1])]
    assert len(below) > 500
    with sqlite3.connect(cache.path) as other:
        other.executemany(
            "UPDATE entries SET body = x'00' WHERE kind = ? AND key = ?",
            ((SUMMARIES, key) for key in below),
        )
    other.close()
    top = kept_top(cache, list_sort(model, triage), FIRST_SCREEN_ROWS)
    assert top is not None
    assert [r.id for r in top.rows] == expected[: len(top.rows)]
    assert len(top.rows) >= FIRST_SCREEN_ROWS
    cache.close()
