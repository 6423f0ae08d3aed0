"""The profile cache on a real SQLite file."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from freightdesk.models.account_groups import AccountGroup
from freightdesk.service import triage
from freightdesk.service.cache import KEYS_SAVED, Cache
from freightdesk.service.first_screen import FIRST_SCREEN_KEY, first_screen, remember_first_screen
from freightdesk.service.summary_keys import INDEXES, MOVING, attention_sql
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, row_json, rows_from_cache
from freightdesk.service.triage import TriageSettings

BASE = datetime(2026, 11, 1, tzinfo=UTC)


def test_models_round_trip_and_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    cache = Cache(path)
    groups = [AccountGroup(id=i, code=f"C{i}", name=f"Group {i}") for i in range(3)]
    cache.put_models("groups", ((str(g.id), g) for g in groups))
    assert cache.saved_at("groups") is not None
    cache.close()
    reopened = Cache(path)
    assert sorted(reopened.load_models("groups", AccountGroup), key=lambda g: g.id) == groups
    reopened.delete_many("groups", ["1"])
    assert reopened.count("groups") == 2
    reopened.replace_kind("groups", [("9", b'{"id": 9, "code": "N", "name": "New"}')])
    assert [g.code for g in reopened.load_models("groups", AccountGroup)] == ["N"]
    reopened.close()


def test_a_cache_of_an_older_format_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    Cache(path).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO entries VALUES ('groups', '1', X'00')")
        db.execute("UPDATE meta SET value = '0' WHERE key = 'format'")
    cache = Cache(path)
    assert cache.count("groups") == 0
    cache.close()


def _row(n: int, **changes: object) -> SummaryRow:
    return SummaryRow(
        id=f"id-{n}",
        identifiers=(("PRO", f"PRO{n}"), ("BILL_OF_LADING", f"BOL{n}")),
        primary_identifier=f"PRO{n}",
        mode="LTL",
        current_state="IN_TRANSIT",
        origin_name="Chicago, IL",
        destination_name="Zürich",
        next_eta=BASE + timedelta(hours=n),
        latest_event_type="DEPARTED",
        latest_event_time=BASE.astimezone(timezone(timedelta(hours=-6))),
        latest_event_description="Left the dock",
        open_exception_count=n,
        carrier="ODFL",
        created=BASE,
        last_modified=BASE + timedelta(minutes=n),
    )._replace(**changes)


def test_shipment_rows_round_trip_and_a_damaged_entry_is_skipped(tmp_path: Path) -> None:
    rows = [
        _row(1),
        _row(2, next_eta=None, latest_event_type=None, latest_event_time=None, mode=None),
        _row(3, identifiers=(), primary_identifier=None, carrier=None, origin_name=None),
    ]
    cache = Cache(tmp_path / "cache.sqlite3")
    cache.put_many("rows", [(r.id, row_json(r)) for r in rows])
    cache.put_many("rows", [("bad-1", b"not json"), ("bad-2", b"[1, 2]"), ("bad-3", b"{}")])
    loaded = sorted(rows_from_cache(cache.load("rows")), key=lambda r: r.id)
    assert loaded == rows
    # Times keep their instant and their offset.
    assert loaded[0].latest_event_time is not None
    assert loaded[0].latest_event_time.utcoffset() == timedelta(hours=-6)
    cache.close()


def _cached_list(path: Path, count: int) -> Cache:
    cache = Cache(path)
    cache.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in map(_row, range(count))])
    return cache


def test_the_first_screen_kept_at_close_is_read_back_in_order_without_the_whole_list(
    tmp_path: Path,
) -> None:
    cache = _cached_list(tmp_path / "cache.sqlite3", 300)
    top = [f"id-{n}" for n in range(299, 259, -1)]  # the newest 40, as the table showed them
    remember_first_screen(cache, "lastModified desc", 300, top)
    cache.close()
    reopened = Cache(tmp_path / "cache.sqlite3")
    screen = first_screen(reopened, "lastModified desc")
    assert screen is not None
    rows, total = screen
    assert total == 300
    assert [r.id for r in rows] == top
    assert rows[0] == _row(299)  # whole rows, times with their offsets
    # Another sort: the kept screen is not its top.
    assert first_screen(reopened, "lastModified asc") is None
    reopened.close()


def test_a_first_screen_is_not_used_once_the_list_changed_after_it_was_kept(
    tmp_path: Path,
) -> None:
    cache = _cached_list(tmp_path / "cache.sqlite3", 50)
    top = [f"id-{n}" for n in range(49, 29, -1)]
    remember_first_screen(cache, "lastModified desc", 50, top)
    assert first_screen(cache, "lastModified desc") is not None
    # A shipment saved since (a sync after the screen was kept): it may belong on top.
    cache.put_many(SUMMARIES, [("id-50", row_json(_row(50)))])
    assert first_screen(cache, "lastModified desc") is None

    remember_first_screen(cache, "lastModified desc", 51, ["id-50", *top])
    assert first_screen(cache, "lastModified desc") is not None
    cache.delete_many(SUMMARIES, ["id-3"])  # removed: the count no longer matches
    assert first_screen(cache, "lastModified desc") is None

    # A kept row that is not in the list (the count alone would not tell).
    remember_first_screen(cache, "lastModified desc", 50, ["id-50", "id-3", *top])
    assert first_screen(cache, "lastModified desc") is None
    cache.set_meta(FIRST_SCREEN_KEY, "{not json")
    assert first_screen(cache, "lastModified desc") is None
    cache.close()


def test_the_cache_logs_which_keys_changed_since_a_time_and_keeps_its_length(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cache.sqlite3"
    cache = Cache(path)
    cache.put_many("k", [("a", b"1"), ("b", b"2"), ("c", b"3")])
    first = cache.saved_at("k")
    assert first is not None
    assert cache.changed_since("k", first, 10) == (first, [])

    cache.put_many("k", [("b", b"22"), ("d", b"4")])  # one changed, one new
    cache.delete_many("k", ["a", "nothing"])  # one gone, one never there
    saved = cache.saved_at("k")
    answer = cache.changed_since("k", first, 10)
    # (A key deleted is logged whether it was there or not: a reader finds it gone.)
    changed = ["a", "b", "d", "nothing"]
    assert answer is not None and answer[0] == saved and sorted(answer[1]) == changed
    assert cache.changed_since("k", first, 2) is None  # more than asked for: cannot tell
    assert cache.count("k") == 3  # b, c, d: kept as it changed, not counted
    cache.close()

    # Reopened, the log goes on; replaced whole, it says nothing about the times before.
    reopened = Cache(path)
    assert reopened.count("k") == 3
    answer = reopened.changed_since("k", first, 10)
    assert answer is not None and sorted(answer[1]) == changed
    reopened.replace_kind("k", [("x", b"9")])
    assert reopened.count("k") == 1
    assert reopened.changed_since("k", first, 10) is None
    replaced = reopened.saved_at("k")
    assert replaced is not None and reopened.changed_since("k", replaced, 10) == (replaced, [])
    reopened.close()


def test_a_cache_made_before_the_log_answers_only_after_its_last_change(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE entries (kind TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL,"
        " PRIMARY KEY (kind, key)) WITHOUT ROWID;"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('format', '2'), ('saved:k', '1000.5');"
        "INSERT INTO entries VALUES ('k', 'a', x'31'), ('k', 'b', x'32');"
    )
    db.commit()
    db.close()
    cache = Cache(path)
    assert cache.changed_since("k", 999.0, 10) is None  # changed then, unlogged
    assert cache.changed_since("k", 1000.5, 10) == (1000.5, [])
    assert cache.count("k") == 2
    cache.put_many("k", [("c", b"3")])
    answer = cache.changed_since("k", 1000.5, 10)
    assert answer is not None and answer[1] == ["c"] and cache.count("k") == 3
    cache.close()


def test_a_cache_opened_to_read_counts_an_uncounted_kind_without_writing(tmp_path: Path) -> None:
    """The first paint opens the cache read-only: a kind whose count was never kept is
    counted, not refused with "attempt to write a readonly database"."""
    path = tmp_path / "cache.sqlite3"
    cache = Cache(path)
    cache.put_many("k", [("a", b"1"), ("b", b"2")])
    cache.close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meta WHERE key = 'count:k'")
    db.commit()
    db.close()
    reader = Cache.to_read(path)
    try:
        assert reader.count("k") == 2
    finally:
        reader.close()
    writer = Cache(path)
    assert writer.count("k") == 2  # and the writable open keeps it
    writer.close()


def _top_by_change(cache: Cache) -> list[str] | None:
    top = cache.summary_top("modified", [], True, 5)
    return None if top is None else [key for key, _value in top[1]]


def test_the_shipment_lists_keys_follow_every_change_and_an_older_versions_stops_them(
    tmp_path: Path,
) -> None:
    """The keys a start finds the list's top by (`summary_top`): kept with every change, and
    not used once a change they did not follow (an older version's, which keeps none) until
    they are built again from the rows."""
    path = tmp_path / "cache.sqlite3"
    cache = Cache(path)
    cache.replace_summaries(map(_row, range(10)))  # the newest change: the highest number
    assert _top_by_change(cache) == ["id-9", "id-8", "id-7", "id-6", "id-5"]
    cache.delete_many(SUMMARIES, ["id-8"])
    cache.put_summaries([_row(3, last_modified=BASE + timedelta(days=1))])
    cache.put_many(SUMMARIES, [("id-11", row_json(_row(11))), ("id-bad", b"not a row")])
    assert _top_by_change(cache) == ["id-3", "id-11", "id-9", "id-7", "id-6"]
    cache.close()

    # An older version writes a row: the keys no longer hold the list, so none are told.
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE entries SET body = ? WHERE kind = ? AND key = 'id-5'",
            (row_json(_row(5, last_modified=BASE + timedelta(days=2))), SUMMARIES),
        )
        db.execute("UPDATE meta SET value = '2e9' WHERE key = ?", (f"saved:{SUMMARIES}",))
    cache = Cache(path)
    assert _top_by_change(cache) is None
    cache.put_summaries([_row(12)])  # a change of this version does not make them whole
    assert _top_by_change(cache) is None
    assert cache.index_summaries()
    assert _top_by_change(cache) == ["id-5", "id-3", "id-12", "id-11", "id-9"]
    cache.clear()  # (an older format, say): nothing kept, the keys with it
    cache.put_summaries([_row(1)])
    assert _top_by_change(cache) == ["id-1"]
    cache.close()


def test_the_keys_name_the_state_the_triage_watches_for_silence() -> None:
    """`summary_keys` names it without importing the triage (which imports the cache): the
    Attention sort's SQL must mean the state the triage means."""
    assert MOVING == triage.MOVING


def _plans(path: Path) -> list[str]:
    """How SQLite reads each run of the default sort (`attention_sql`) for its top."""
    settings = TriageSettings()
    value, params, runs = attention_sql(BASE, settings.silence, settings.silence_for(None))
    with sqlite3.connect(path) as db:
        return [
            " ".join(
                str(row[-1])
                for row in db.execute(
                    f"EXPLAIN QUERY PLAN SELECT key, {value} FROM summary_keys WHERE {where} "
                    "ORDER BY modified DESC, key LIMIT 5",
                    (*params, *more),
                )
            )
            for where, more in runs
        ]


def test_the_default_sorts_top_is_read_through_indexes_built_after_a_whole_list_is_written(
    tmp_path: Path,
) -> None:
    """A whole list's keys are written unindexed, then indexed once (`_write_keys`): each
    run of the default sort reads its top through an index, without sorting the table, after
    a replace, and after a build of keys an app ended in the middle of (none left)."""
    path = tmp_path / "cache.sqlite3"
    cache = Cache(path)
    cache.replace_summaries(map(_row, range(10)))
    indexed = [f"SCAN summary_keys USING INDEX {name}" for name in INDEXES]
    assert _plans(path) == indexed
    cache.close()
    with sqlite3.connect(path) as db:  # an app ended while it wrote the keys
        for name in INDEXES:
            db.execute(f"DROP INDEX {name}")
        db.execute("DELETE FROM meta WHERE key = ?", (KEYS_SAVED,))
    cache = Cache(path)
    assert _top_by_change(cache) is None
    assert cache.index_summaries()
    assert _top_by_change(cache) == ["id-9", "id-8", "id-7", "id-6", "id-5"]
    assert _plans(path) == indexed
    cache.close()
