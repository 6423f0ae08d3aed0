"""The profile cache on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from freightdesk.models.account_groups import AccountGroup
from freightdesk.service.cache import Cache


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
