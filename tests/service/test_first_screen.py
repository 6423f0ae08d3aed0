"""The start's first screen read from a real cache file (`service/first_screen.py`), without
Qt: sorted by plain sort values as the table's are (tests/ui/test_first_paint_*.py check it
against the table itself), the kept top with the changes since merged in, the top the
cache's keys tell, the top kept while the app runs."""

from __future__ import annotations

import logging
import random
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from freightdesk.service.cache import KEYS_SAVED, Cache
from freightdesk.service.first_screen import (
    KEPT_SINCE_KEY,
    FirstScreen,
    Kept,
    ListSort,
    SortValue,
    TopToKeep,
    indexed_top,
    keep_top,
    keep_top_in_thread,
    kept_rows,
    kept_top,
    read_first_screen,
    remember_first_screen,
)
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, cached_rows
from freightdesk.service.triage import FACTS, Facts, facts_json

BASE = datetime(2026, 11, 1, tzinfo=UTC)
SCREEN = 40
KEPT = kept_rows(SCREEN)
ORIGINS = [f"City {k:03d}" for k in range(300)] + [None] * 20
MODES = ["TL", "LTL", "AIR", None]


def _row(n: int, rng: random.Random, minutes: int | None = None) -> SummaryRow:
    return SummaryRow(
        id=f"id-{n:05d}",
        identifiers=(("PRO", f"PRO{n:05d}"),),
        primary_identifier=f"PRO{n:05d}",
        mode=rng.choice(MODES),
        current_state="IN_TRANSIT",
        origin_name=rng.choice(ORIGINS),
        destination_name="Dallas, TX",
        next_eta=None,
        latest_event_type=None,
        latest_event_time=None,
        latest_event_description=None,
        open_exception_count=rng.choice([0, rng.randrange(1, 10**6)]),
        carrier="ODFL",
        created=BASE,
        last_modified=BASE + timedelta(minutes=rng.randrange(5000) if minutes is None else minutes),
    )


def _sort(key: str, descending: bool, value: Callable[[SummaryRow], SortValue | None]) -> ListSort:
    def values(rows: Sequence[SummaryRow], _facts: Mapping[str, Facts]) -> list[SortValue | None]:
        return [value(row) for row in rows]

    return ListSort(f"{key} {'desc' if descending else 'asc'}", key, descending, values)


def _modified(row: SummaryRow) -> float:
    return row.last_modified.timestamp()


def _origin(row: SummaryRow) -> str | None:
    return row.origin_name.casefold() if row.origin_name else None


def _mode(row: SummaryRow) -> str | None:
    return {"TL": "a tl", "LTL": "b ltl", "AIR": "c air"}.get(row.mode or "")


SORTS = [
    _sort("lastModified", True, _modified),
    _sort("lastModified", False, _modified),
    _sort("origin", False, _origin),
    _sort("origin", True, _origin),
    _sort("exceptions", True, lambda row: row.open_exception_count),
]


def _table_top(rows: list[SummaryRow], sort: ListSort) -> list[SummaryRow]:
    """The rows as the table sorts them: by value, ties in the cache's order (by id), rows
    without a value last ascending, first descending."""
    rows = sorted(rows, key=lambda r: r.id)
    pairs = list(zip(rows, sort.values(rows, {}), strict=True))
    present = [(r, v) for r, v in pairs if v is not None]
    absent = [r for r, v in pairs if v is None]
    present.sort(key=lambda pair: pair[1], reverse=sort.descending)
    ordered = [r for r, _ in present]
    return absent + ordered if sort.descending else ordered + absent


def _cache(
    tmp_path: Path, count: int, seed: object, replaced: bool = False
) -> tuple[Cache, list[SummaryRow], random.Random]:
    """A cache holding `count` rows, saved as changes (or as a whole list, `replaced`), the
    rows, and the random source that made them (for the changes after)."""
    rng = random.Random(str(seed))
    rows = [_row(n, rng) for n in range(count)]
    cache = Cache(tmp_path / "cache.sqlite3")
    if replaced:
        cache.replace_summaries(rows)
    else:
        cache.put_summaries(rows)
    return cache, rows, rng


def _behind_its_back(path: Path, sql: str, params: Sequence[object] = ()) -> None:
    """`sql` run on the cache file by another connection (an older version, a bad disk)."""
    with sqlite3.connect(path) as db:
        db.execute(sql, params)
    db.close()


def _kept(cache: Cache, rows: list[SummaryRow], sort: ListSort) -> list[str]:
    """The top kept as the running app keeps it: the ids, and the time they hold up to."""
    ids = [r.id for r in _table_top(rows, sort)[:KEPT]]
    remember_first_screen(cache, sort.name, len(rows), ids)
    cache.set_meta(KEPT_SINCE_KEY, repr(cache.saved_at(SUMMARIES)))
    return ids


def _changed(cache: Cache, rng: random.Random, kept: list[str], count: int) -> None:
    """Rows of the top deleted and changed, rows from below moved up, new rows."""
    cache.delete_many(SUMMARIES, rng.sample(kept[: KEPT // 2], 5))
    numbers = rng.sample(range(count), 200)
    cache.put_summaries(_row(n, rng) for n in numbers)
    cache.put_summaries(_row(n, rng) for n in range(count, count + 20))


@pytest.mark.parametrize("keys", ["keys", "keys behind"])
@pytest.mark.parametrize("sort", SORTS, ids=[s.name for s in SORTS])
def test_the_kept_top_with_the_changes_since_is_the_top_of_the_cached_list(
    tmp_path: Path, sort: ListSort, keys: str
) -> None:
    """The changed rows picked by the cache's keys, or all read (the keys behind the list: a
    cache changed by an older version)."""
    cache, rows, rng = _cache(tmp_path, 1500, sort.name)
    kept = _kept(cache, rows, sort)
    _changed(cache, rng, kept, len(rows))
    if keys == "keys behind":
        cache.set_meta(KEYS_SAVED, "0")

    top = kept_top(cache, sort, SCREEN)
    assert top is not None  # a tenth of the top changed: told without reading the list
    now = cached_rows(cache)
    assert top.total == len(now)
    assert SCREEN <= len(top.rows) <= KEPT
    assert top.rows == _table_top(now, sort)[: len(top.rows)]
    assert {r.id for r in top.rows} - set(kept)  # the top changed: a stale one would show
    cache.close()


def test_a_kept_top_nothing_changed_since_is_read_as_it_was_kept(tmp_path: Path) -> None:
    cache, rows, _rng = _cache(tmp_path, 800, 3)
    sort = SORTS[0]
    kept = _kept(cache, rows, sort)
    top = kept_top(cache, sort, SCREEN)
    assert top is not None
    assert [r.id for r in top.rows] == kept
    assert (top.total, top.since) == (800, cache.saved_at(SUMMARIES))
    # Kept for another sort only: not this one's top.
    assert kept_top(cache, SORTS[1], SCREEN) is None
    cache.close()


@pytest.mark.parametrize("descending", [False, True])
def test_the_top_the_keys_tell_is_the_top_of_the_cached_list(
    tmp_path: Path, descending: bool
) -> None:
    """The mode's sort: the keys keep the mode as it is, mapped by the table's own values."""
    cache, _rows, rng = _cache(tmp_path, 900, 5, replaced=True)
    cache.put_summaries(_row(n, rng) for n in range(0, 900, 7))
    cache.delete_many(SUMMARIES, [f"id-{n:05d}" for n in range(3, 900, 50)])
    for sort in [_sort("mode", descending, _mode), _sort("origin", descending, _origin)]:
        top = indexed_top(cache, sort, SCREEN)
        assert top is not None
        now = cached_rows(cache)
        assert top.total == len(now) == 900 - 18
        assert top.rows == _table_top(now, sort)[:KEPT]
    cache.close()


def test_keys_that_sort_otherwise_than_the_table_are_not_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache, _rows, _rng = _cache(tmp_path, 600, 9, replaced=True)
    # The table's origin sort, as if its rule had changed: not the keys' casefolded text.
    other = _sort("origin", False, lambda row: row.origin_name)
    with caplog.at_level(logging.WARNING, logger="freightdesk.service.first_screen"):
        assert indexed_top(cache, other, SCREEN) is None
    assert "the cached keys sort origin otherwise than the list: read whole" in caplog.messages
    cache.close()


@pytest.mark.parametrize("count", [KEPT, 300])
def test_a_start_reads_the_whole_list_without_a_kept_top_or_keys_skipping_unreadable_rows(
    tmp_path: Path, count: int
) -> None:
    """A list no longer than a kept top is read whole; a longer one too once its keys are
    behind it (a cache changed by an older version)."""
    cache, rows, _rng = _cache(tmp_path, count, 13, replaced=True)
    path = cache.path
    if count > KEPT:
        cache.set_meta(KEYS_SAVED, "0")
    cache.close()
    _behind_its_back(path, "UPDATE entries SET body = x'00' WHERE key IN ('id-00007', 'id-00100')")
    screen = read_first_screen(path, SORTS[0], SCREEN)
    assert screen.total == len(screen.rows) == count - 2
    assert {r.id for r in screen.rows} == {r.id for r in rows} - {"id-00007", "id-00100"}
    assert screen.since is not None


def test_an_unreadable_row_of_the_kept_top_has_the_list_read_whole(tmp_path: Path) -> None:
    cache, rows, rng = _cache(tmp_path, 1000, 17)
    path = cache.path
    sort = SORTS[2]
    kept = _kept(cache, rows, sort)
    _changed(cache, rng, kept, len(rows))
    changed = cache.changed_since(SUMMARIES, float(cache.meta(KEPT_SINCE_KEY) or "nan"), 500)
    assert changed is not None
    unchanged = [i for i in kept if i not in set(changed[1])]
    broken = unchanged[len(unchanged) // 2]
    cache.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE entries SET body = x'00' WHERE key = ?", (broken,))
        (count,) = db.execute(
            "SELECT count(*) FROM entries WHERE kind = ?", (SUMMARIES,)
        ).fetchone()
    db.close()
    screen = read_first_screen(path, sort, SCREEN)
    assert screen.total == len(screen.rows) == count - 1  # read whole, the broken row skipped
    assert broken not in {r.id for r in screen.rows}


def test_a_start_reads_the_cache_without_writing_while_another_connection_writes(
    tmp_path: Path,
) -> None:
    """A start that opened the cache to write would wait for the writer's lock (5 s), then
    paint nothing; a write of its own would have the cache's close wait for the disk."""
    cache, rows, _rng = _cache(tmp_path, 700, 19)
    path = cache.path
    kept = _kept(cache, rows, SORTS[0])
    cache.close()
    writer = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('busy', 'yes')")
        wal = path.with_name(f"{path.name}-wal")
        written = wal.stat().st_size
        screen = read_first_screen(path, SORTS[0], SCREEN)
        assert [r.id for r in screen.rows] == kept
        assert screen.total == 700
        assert wal.stat().st_size == written
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_no_cache_or_one_that_cannot_be_read_is_an_empty_first_screen(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert read_first_screen(tmp_path / "none.sqlite3", SORTS[0], SCREEN) == FirstScreen(
        [], 0, None
    )
    path = tmp_path / "broken.sqlite3"
    path.write_bytes(b"not a database" * 100)
    with caplog.at_level(logging.ERROR, logger="freightdesk.service.first_screen"):
        assert read_first_screen(path, SORTS[0], SCREEN) == FirstScreen([], 0, None)
    assert caplog.messages


def _to_keep(cache: Cache, rows: list[SummaryRow], since: float | None) -> TopToKeep:
    sort = SORTS[0]
    ids = tuple(r.id for r in _table_top(rows, sort)[:KEPT])
    return TopToKeep(cache, sort.name, len(rows), ids, {r.id: r for r in rows}, since)


def test_the_top_is_kept_only_when_the_table_holds_every_change(tmp_path: Path) -> None:
    cache, rows, rng = _cache(tmp_path, 500, 23)
    saved = cache.saved_at(SUMMARIES)
    kept = keep_top(_to_keep(cache, rows, None))
    assert kept == Kept(False, saved)
    assert kept_top(cache, SORTS[0], SCREEN) is not None

    # A change saved, not yet in the table: nothing kept, looked at again later.
    newer = _row(3, rng, minutes=9000)
    cache.put_summaries([newer])
    assert keep_top(_to_keep(cache, rows, saved)) == Kept(True, None)
    # Once the table has it (only the changes since `saved` compared).
    rows[3] = newer
    kept = keep_top(_to_keep(cache, rows, saved))
    assert kept == Kept(False, cache.saved_at(SUMMARIES))
    top = kept_top(cache, SORTS[0], SCREEN)
    assert top is not None and top.rows[0] == newer

    # A row deleted from the cache, still in the table.
    cache.delete_many(SUMMARIES, ["id-00009"])
    assert keep_top(_to_keep(cache, rows, kept.since)).behind
    cache.close()
    # A cache closed meanwhile (another profile): nothing kept, nothing to look at again.
    assert keep_top(_to_keep(cache, rows, None), index=True) == Kept(False, None)


def test_the_top_is_kept_in_a_thread_of_its_own_with_the_keys_built(tmp_path: Path) -> None:
    cache, rows, _rng = _cache(tmp_path, 400, 29)
    path = cache.path
    cache.close()
    # An older version's change: the keys are behind the list.
    _behind_its_back(path, "UPDATE meta SET value = '1e10' WHERE key = ?", [f"saved:{SUMMARIES}"])
    cache = Cache(path)
    assert indexed_top(cache, SORTS[0], SCREEN) is None
    done: list[Kept] = []
    keep_top_in_thread(_to_keep(cache, rows, None), done.append).join(timeout=30)
    assert done == [Kept(False, 1e10)]
    assert indexed_top(cache, SORTS[0], SCREEN) is not None
    cache.close()


def _facts(row: SummaryRow) -> Facts:
    return Facts(((BASE, BASE + timedelta(hours=1)),), BASE, row.last_modified)


@pytest.mark.parametrize("changed", [False, True], ids=["as kept", "changed since"])
def test_the_first_screen_brings_the_kept_triage_facts_of_its_rows_only(
    tmp_path: Path, changed: bool
) -> None:
    """Read with the rows (the table triages them by these from the first paint); a fact
    that cannot be read is left out, as the session's reading of them leaves it out."""
    cache, rows, rng = _cache(tmp_path, 1000, 29)
    sort = SORTS[0]
    kept = _kept(cache, rows, sort)
    if changed:
        _changed(cache, rng, kept, len(rows))
    facts = {r.id: _facts(r) for r in rows[::2]}
    cache.put_many(FACTS, [(key, facts_json(key, f)) for key, f in facts.items()])
    broken = next(i for i in kept if i in facts)
    cache.put_many(FACTS, [(broken, b"[1, 2")])
    path = cache.path
    cache.close()
    screen = read_first_screen(path, sort, SCREEN)
    assert screen.total < 1020 and len(screen.rows) >= SCREEN  # the top, not the whole list
    shown = {r.id for r in screen.rows}
    assert screen.facts == {k: f for k, f in facts.items() if k in shown and k != broken}
    assert len(screen.facts) > SCREEN // 4


def test_a_short_list_read_whole_brings_every_kept_fact(tmp_path: Path) -> None:
    cache, rows, _rng = _cache(tmp_path, KEPT, 31, replaced=True)
    facts = {r.id: _facts(r) for r in rows[::3]}
    cache.put_many(FACTS, [(key, facts_json(key, f)) for key, f in facts.items()])
    path = cache.path
    cache.close()
    screen = read_first_screen(path, SORTS[0], SCREEN)
    assert screen.total == len(screen.rows) == KEPT
    assert screen.facts == facts
