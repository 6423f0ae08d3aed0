"""The on-disk cache of one profile: the app opens instantly from it and keeps showing it
(marked stale, with its age) when the service cannot be reached.

A plain SQLite file holding the wire JSON of each cached item by kind and key. Calls are
synchronous and short; the service layer runs the large ones (loading 100,000 summaries) in
a worker thread so the event loop never waits on the disk.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from freightdesk.service import summary_keys
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, row_json

# pydantic is imported when models are first stored or read: the app reads its cached
# shipment list (plain rows) before pydantic is loaded.
if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")
# The keys of shipment rows (`summary_keys`), and the keys of rows that cannot be read.
Indexed = tuple[list[summary_keys.Row], list[str]]

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS entries (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS changes (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS changes_at ON changes (kind, at);
"""
    + summary_keys.TABLE
)

# Every table a cache of this version has: one missing is left by an older version.
_TABLES = frozenset(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", _SCHEMA))

# 2: shipment summaries kept as compact rows (service/summary_rows.py), not wire JSON.
CACHE_FORMAT = "2"
# Since when (wall-clock time) the change log holds every change of every kind.
LOG_SINCE = "log:since"
# The time of the last change of the shipment list (its `saved:` time) up to which the
# `summary_keys` table holds every row's keys. Kept the same as that time by every change
# this version makes; a change by an older version (which keeps no keys) leaves it behind,
# and the keys are not used until they are built again (`index_summaries`).
KEYS_SAVED = f"keys:{SUMMARIES}"
# A whole list's keys are read and written this many rows a transaction (a replace, a
# rebuild): the GUI thread's cache calls wait for one chunk, not for 100,000 rows.
KEYS_CHUNK = 2000


def _first(row: tuple[object, ...]) -> str:
    return str(row[0])


def _statement(
    sql: str, rows: Sequence[Sequence[object]] | None = None
) -> Callable[[sqlite3.Connection], object]:
    """`sql` to run later on a connection, once for each of `rows` if given."""
    if rows is None:
        return lambda db: db.execute(sql)
    return lambda db: db.executemany(sql, rows)


def _counted(db: sqlite3.Connection, kind: str) -> int:
    """The number of entries of `kind` as kept in the meta table (counted once when a cache
    made before it was kept is first changed)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (f"count:{kind}",)).fetchone()
    if row is not None:
        return int(row[0])
    return int(db.execute("SELECT count(*) FROM entries WHERE kind = ?", (kind,)).fetchone()[0])


def _keys_current(db: sqlite3.Connection) -> bool:
    """Whether `summary_keys` holds every row of the shipment list as it is (a cache never
    changed holds none, and its keys none)."""
    values = dict(
        db.execute(
            "SELECT key, value FROM meta WHERE key IN (?, ?)",
            (f"saved:{SUMMARIES}", KEYS_SAVED),
        ).fetchall()
    )
    return values.get(KEYS_SAVED) == values.get(f"saved:{SUMMARIES}")


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def _get_many(db: sqlite3.Connection, kind: str, keys: Sequence[str]) -> dict[str, bytes]:
    marks = ",".join("?" * len(keys))
    rows = db.execute(
        f"SELECT key, body FROM entries WHERE kind = ? AND key IN ({marks})", (kind, *keys)
    ).fetchall()
    return {key: bytes(body) for key, body in rows}


def _changed_since(
    db: sqlite3.Connection, kind: str, after: float, limit: int
) -> tuple[float | None, list[str]] | None:
    values = dict(
        db.execute(
            "SELECT key, value FROM meta WHERE key IN (?, ?, ?)",
            (LOG_SINCE, f"replaced:{kind}", f"saved:{kind}"),
        ).fetchall()
    )
    keys = [
        str(row[0])
        for row in db.execute(
            "SELECT key FROM changes WHERE kind = ? AND at > ? LIMIT ?", (kind, after, limit + 1)
        )
    ]
    since = max(float(values.get(LOG_SINCE, "inf")), float(values.get(f"replaced:{kind}", 0)))
    if since > after or len(keys) > limit:
        return None
    saved = values.get(f"saved:{kind}")
    return (float(saved) if saved is not None else None), keys


# Keys a statement names at most (SQLite's oldest limit of parameters is 999).
_KEYS_AT_ONCE = 500


class Reading:
    """The cache as of one moment (`Cache.reading`): its calls read in one transaction, so
    they agree with each other whatever another thread or process writes meanwhile (the
    first paint reads the kept top, the changes since and the rows that way)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def meta(self, key: str) -> str | None:
        return _meta(self._db, key)

    def count(self, kind: str) -> int:
        """As `Cache.count` (a cache of this version keeps it: not counted)."""
        return _counted(self._db, kind)

    def changed_since(
        self, kind: str, after: float, limit: int
    ) -> tuple[float | None, list[str]] | None:
        """As `Cache.changed_since`."""
        return _changed_since(self._db, kind, after, limit)

    def get_many(self, kind: str, keys: Sequence[str]) -> dict[str, bytes]:
        """The entries of `keys` that are cached (any number of keys)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), _KEYS_AT_ONCE):
            found.update(_get_many(self._db, kind, keys[start : start + _KEYS_AT_ONCE]))
        return found

    def changed_ahead(
        self,
        after: float,
        value: str,
        params: Sequence[object],
        last: str,
        descending: bool,
        limit: int,
    ) -> tuple[object, list[tuple[str, object]]] | None:
        """Of the shipments changed after the time `after` (`changed_since`), the first
        `limit` that sort before the shipment `last` by the SQL expression `value` of the
        `summary_keys` columns (as `Cache.summary_top` sorts), each with its value, and
        `last`'s value: the changed rows are looked up by the log's index, only their keys
        read (a deleted or unreadable row has none). None when the keys do not hold the list
        as it is (`KEYS_SAVED`) or `last` has none."""
        if not _keys_current(self._db):
            return None
        found = self._db.execute(
            f"SELECT {value} FROM summary_keys WHERE key = ?", (*params, last)
        ).fetchone()
        if found is None:
            return None
        bound = found[0]
        # As the table sorts: rows without a value last ascending, first descending.
        if descending:
            before = "(value IS NULL AND ? IS NOT NULL) OR value > ?"
        else:
            before = "value IS NOT NULL AND (? IS NULL OR value < ?)"
        direction = "DESC" if descending else "ASC"
        rows = self._db.execute(
            f"SELECT s.key, {value} AS value FROM changes AS c "
            "JOIN summary_keys AS s ON s.key = c.key "
            f"WHERE c.kind = ? AND c.at > ? AND ({before}) "
            f"ORDER BY value IS NULL {direction}, value {direction}, s.key LIMIT ?",
            (*params, SUMMARIES, after, bound, bound, limit),
        ).fetchall()
        return bound, [(str(key), v) for key, v in rows]


class Cache:
    # Opened by `to_read`: what a read would keep for next time (a count) is left unkept.
    _reads_only = False

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Keeping 100,000 rows' keys updates their indexes all over: a page cache of 32 MB
        # (allocated as used) halves the time it takes.
        self._db.execute("PRAGMA cache_size=-32000")
        self._db.executescript(_SCHEMA)
        with self._lock:
            # Built here only while there is nothing to index (a new cache, or one whose
            # keys an older version dropped); else by the next build of the keys, which a
            # cache left without them (an app ended while writing them) needs anyway.
            if self._db.execute("SELECT 1 FROM summary_keys LIMIT 1").fetchone() is None:
                self._index_keys(self._db)
        if self.meta("format") not in (None, CACHE_FORMAT):
            # An older layout is only a cache: drop it rather than misread it.
            self.clear()
        self.set_meta("format", CACHE_FORMAT)
        # The change log (`changed_since`) covers what changes from now on, so in a cache
        # made before it kept one, everything after its last change (nothing changed it
        # since); no earlier question is answered.
        with self._lock:
            saved = self._db.execute(
                "SELECT max(CAST(value AS REAL)) FROM meta WHERE key LIKE 'saved:%'"
            ).fetchone()[0]
            self._db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                (LOG_SINCE, repr(float(saved or 0.0))),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @classmethod
    def to_read(cls, path: Path) -> Cache:
        """The cache at `path` opened only to read it, as the app's first paint does: the
        writable open writes (the cache's format), so its close waits for the disk to
        checkpoint the write-ahead log (15 to 40 ms, more on a busy disk). Opened writable
        when it is not of this version (that open empties a cache of an older format and
        adds the tables an older version did not make) or cannot be opened to read."""
        reader = cls.__new__(cls)  # not __init__: it writes
        reader._reads_only = True
        reader.path = path
        reader._lock = threading.Lock()
        try:
            uri = f"{path.resolve().as_uri()}?mode=ro"
            reader._db = sqlite3.connect(
                uri, uri=True, check_same_thread=False, isolation_level=None
            )
        except sqlite3.Error:
            return cls(path)
        try:
            if reader._is_current():
                return reader
        except sqlite3.Error:
            pass
        reader.close()
        return cls(path)

    def _is_current(self) -> bool:
        with self._lock:
            found = self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            tables = {str(row[0]) for row in found}
        return tables >= _TABLES and self.meta("format") == CACHE_FORMAT

    @contextmanager
    def _changing(self, kind: str) -> Iterator[tuple[sqlite3.Connection, float]]:
        """One transaction that changes the entries of `kind` and records when (`saved_at`:
        every change, deletions too, so `first_screen.first_screen` can tell a list changed
        without counting it); the time is given to the change, which logs its keys with it
        (`changed_since`). The shipment list's keys follow the change if they held every row
        before it."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                now = time.time()
                keys_follow = kind == SUMMARIES and _keys_current(self._db)
                yield self._db, now
                self._db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (f"saved:{kind}", repr(now)),
                )
                if keys_follow:
                    self._db.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        (KEYS_SAVED, repr(now)),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _log(self, db: sqlite3.Connection, kind: str, keys: Iterable[str], at: float) -> None:
        db.executemany(
            "INSERT OR REPLACE INTO changes (kind, key, at) VALUES (?, ?, ?)",
            ((kind, key, at) for key in keys),
        )

    def _set_count(self, db: sqlite3.Connection, kind: str, count: int) -> None:
        db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"count:{kind}", str(count))
        )

    @staticmethod
    def _index_keys(db: sqlite3.Connection) -> None:
        for name, definition in summary_keys.INDEXES.items():
            db.execute(f"CREATE INDEX IF NOT EXISTS {name} ON summary_keys {definition}")

    @staticmethod
    def _unindex_keys(db: sqlite3.Connection) -> None:
        """Every index of `summary_keys` dropped, an older version's too (`_index_keys`
        builds this version's)."""
        names = db.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'summary_keys' "
            "AND sql IS NOT NULL"
        ).fetchall()
        for (name,) in names:
            db.execute(f'DROP INDEX "{name}"')

    @staticmethod
    def _put_keys(db: sqlite3.Connection, kept: list[summary_keys.Row], unread: list[str]) -> None:
        # Rows that cannot be read keep no keys (a start skips them, as the list read does).
        db.executemany(summary_keys.INSERT, kept)
        db.executemany("DELETE FROM summary_keys WHERE key = ?", ((k,) for k in unread))

    def put_many(self, kind: str, items: Iterable[tuple[str, bytes]]) -> None:
        bodies = dict(items)
        # Read before the transaction: other threads use the cache meanwhile.
        indexed = summary_keys.keys_of_bodies(bodies.items()) if kind == SUMMARIES else None
        self._put(kind, bodies, indexed)

    def put_summaries(self, rows: Iterable[SummaryRow]) -> None:
        """Shipment rows, kept as `row_json`, their keys made from them (not read back)."""
        rows = list(rows)
        bodies = {row.id: row_json(row) for row in rows}
        self._put(SUMMARIES, bodies, ([summary_keys.keys_of(row) for row in rows], []))

    def _put(self, kind: str, bodies: dict[str, bytes], indexed: Indexed | None) -> None:
        keys = list(bodies)
        with self._changing(kind) as (db, now):
            if indexed is not None:
                self._put_keys(db, *indexed)
            count = _counted(db, kind)
            # Which keys are new: the length is kept (`count`), so a start can tell it
            # without reading the list.
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                (present,) = db.execute(
                    f"SELECT count(*) FROM entries WHERE kind = ? AND key IN ({marks})",
                    (kind, *chunk),
                ).fetchone()
                count += len(chunk) - int(present)
            db.executemany(
                "INSERT OR REPLACE INTO entries (kind, key, body) VALUES (?, ?, ?)",
                ((kind, key, body) for key, body in bodies.items()),
            )
            self._log(db, kind, keys, now)
            self._set_count(db, kind, count)

    def put_models(self, kind: str, items: Iterable[tuple[str, BaseModel]]) -> None:
        self.put_many(
            kind,
            (
                (key, model.model_dump_json(by_alias=True, exclude_none=True).encode())
                for key, model in items
            ),
        )

    def replace_kind(self, kind: str, items: Iterable[tuple[str, bytes]]) -> None:
        """Replace everything of `kind` at once (a full refresh): the change log of `kind`
        starts again from here (`changed_since` answers nothing about earlier times)."""
        indexed = None
        if kind == SUMMARIES:
            items = list(items)
            indexed = summary_keys.keys_of_bodies(items)
        self._replace(kind, items, indexed)

    def replace_summaries(self, rows: Iterable[SummaryRow]) -> None:
        """`replace_kind` of the shipment rows, their keys made from them."""
        rows = list(rows)
        items = [(row.id, row_json(row)) for row in rows]
        self._replace(SUMMARIES, items, ([summary_keys.keys_of(row) for row in rows], []))

    def _replace(
        self, kind: str, items: Iterable[tuple[str, bytes]], indexed: Indexed | None
    ) -> None:
        with self._changing(kind) as (db, now):
            if indexed is not None:
                # Written after, a chunk at a time (`_write_keys`): not used until then.
                self._unindex_keys(db)
                db.execute("DELETE FROM summary_keys")
                db.execute("DELETE FROM meta WHERE key = ?", (KEYS_SAVED,))
            db.execute("DELETE FROM entries WHERE kind = ?", (kind,))
            # In the table's order: each page is filled once (a tenth smaller and faster).
            cursor = db.executemany(
                "INSERT INTO entries (kind, key, body) VALUES (?, ?, ?)",
                ((kind, key, body) for key, body in sorted(items, key=_first)),
            )
            self._set_count(db, kind, max(cursor.rowcount, 0))
            db.execute("DELETE FROM changes WHERE kind = ?", (kind,))
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (f"replaced:{kind}", repr(now)),
            )
        if indexed is not None:
            self._write_keys(indexed[0], repr(now))

    def delete_many(self, kind: str, keys: Sequence[str]) -> None:
        with self._changing(kind) as (db, now):
            count = _counted(db, kind)
            cursor = db.executemany(
                "DELETE FROM entries WHERE kind = ? AND key = ?", ((kind, k) for k in keys)
            )
            if kind == SUMMARIES:
                db.executemany("DELETE FROM summary_keys WHERE key = ?", ((k,) for k in keys))
            self._log(db, kind, keys, now)
            self._set_count(db, kind, count - max(cursor.rowcount, 0))

    def get(self, kind: str, key: str) -> bytes | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM entries WHERE kind = ? AND key = ?", (kind, key)
            ).fetchone()
        return bytes(row[0]) if row else None

    def get_many(self, kind: str, keys: Sequence[str]) -> dict[str, bytes]:
        """The entries of `keys` that are cached (at most a few hundred keys)."""
        with self._lock:
            return _get_many(self._db, kind, keys)

    def load(self, kind: str) -> list[bytes]:
        with self._lock:
            rows = self._db.execute("SELECT body FROM entries WHERE kind = ?", (kind,)).fetchall()
        return [bytes(r[0]) for r in rows]

    def load_models(self, kind: str, model: type[M]) -> list[M]:
        """Every cached item of `kind`, parsed in one pass (fast for 100,000 items)."""
        bodies = self.load(kind)
        if not bodies:
            return []
        from pydantic import TypeAdapter

        adapter: TypeAdapter[list[M]] = TypeAdapter(list[model])  # type: ignore[valid-type]
        return adapter.validate_json(b"[" + b",".join(bodies) + b"]")

    def count(self, kind: str) -> int:
        """The number of entries of `kind`: kept as they change, so not read from them (a
        cache made before it was kept is counted once, here or at its next change)."""
        with self._lock:
            if self._db.execute("SELECT 1 FROM meta WHERE key = ?", (f"count:{kind}",)).fetchone():
                return _counted(self._db, kind)
            count = _counted(self._db, kind)
            if not self._reads_only:
                self._set_count(self._db, kind, count)
            return count

    def saved_at(self, kind: str) -> float | None:
        """Wall-clock time the data of `kind` was last saved (for "updated 5 min ago")."""
        value = self.meta(f"saved:{kind}")
        return float(value) if value is not None else None

    def changed_since(
        self, kind: str, after: float, limit: int
    ) -> tuple[float | None, list[str]] | None:
        """The time of the last change of `kind` (`saved_at`) and the keys of `kind` changed
        (written or deleted) after the time `after`, read together; None when the log cannot
        tell (it began, or `kind` was replaced whole, after `after`) or more than `limit`
        keys changed. A few keys are read through the log's index of times."""
        with self.reading() as read:
            return read.changed_since(kind, after, limit)

    @contextmanager
    def reading(self) -> Iterator[Reading]:
        """The cache as of now, for several reads that must agree (`Reading`); other calls
        on this cache wait until it is done."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield Reading(self._db)
            finally:
                self._db.execute("COMMIT")

    def summary_top(
        self,
        value: str,
        params: Sequence[object],
        descending: bool,
        limit: int,
        runs: Sequence[tuple[str, Sequence[object]]] = (),
    ) -> tuple[float, list[tuple[str, object]]] | None:
        """The keys of the first `limit` shipments of the list sorted by the SQL expression
        `value` of the `summary_keys` columns (as the table sorts: rows without a value last,
        first when `descending`; ties by key, the order the list is read in), each with its
        value, and the time of the list's last change they are the top of; None when the
        keys do not hold the list as it is (see `KEYS_SAVED`). One scan inside SQLite; or,
        given `runs` (conditions with their parameters, splitting the rows into runs of the
        sort in its order, each in the order of the last change, the newest first: the
        default sort's), each run read through an index until the top is full."""
        direction = "DESC" if descending else "ASC"
        select = f"SELECT key, {value} AS value FROM summary_keys"
        if runs:
            queries = [
                (f"{select} WHERE {where} ORDER BY modified DESC, key LIMIT ?", (*params, *more))
                for where, more in runs
            ]
        else:
            order = f"ORDER BY value IS NULL {direction}, value {direction}, key LIMIT ?"
            queries = [(f"{select} {order}", tuple(params))]
        top: list[tuple[str, object]] = []
        with self._lock:
            self._db.execute("BEGIN")
            try:
                saved = self._db.execute(
                    "SELECT value FROM meta WHERE key = ?", (f"saved:{SUMMARIES}",)
                ).fetchone()
                if saved is None or not _keys_current(self._db):
                    return None
                for query, values in queries:
                    if len(top) >= limit:
                        break
                    found = self._db.execute(query, (*values, limit - len(top))).fetchall()
                    top += [(str(key), v) for key, v in found]
            finally:
                self._db.execute("COMMIT")
        return float(saved[0]), top

    def summary_values(self, field: str) -> list[str | None]:
        """The distinct values of a kept-as-is column of `summary_keys` (`MAPPED`)."""
        if field not in summary_keys.MAPPED.values():
            raise ValueError(field)
        with self._lock:
            rows = self._db.execute(f"SELECT DISTINCT {field} FROM summary_keys").fetchall()
        return [row[0] for row in rows]

    def index_summaries(self) -> bool:
        """Build the shipment list's keys (`summary_keys`) when they do not hold every row
        (a cache of an older version, or changed by one); True once they do, False when the
        list changed meanwhile (asked again later). The rows are read, and their keys
        written, a chunk at a time (`KEYS_CHUNK`), their keys made without holding the
        cache."""
        with self._lock:
            if _keys_current(self._db):
                return True
        saved = self.meta(f"saved:{SUMMARIES}")
        if saved is None:
            return False
        kept: list[summary_keys.Row] = []
        after = ""
        while True:
            with self._lock:
                self._db.execute("BEGIN")
                try:
                    if not self._saved_still(saved):
                        return False
                    items = self._db.execute(
                        "SELECT key, body FROM entries WHERE kind = ? AND key > ? "
                        "ORDER BY key LIMIT ?",
                        (SUMMARIES, after, KEYS_CHUNK),
                    ).fetchall()
                finally:
                    self._db.execute("COMMIT")
            if not items:
                break
            after = str(items[-1][0])
            kept += summary_keys.keys_of_bodies((str(k), bytes(b)) for k, b in items)[0]
        return self._write_keys(kept, saved)

    def _saved_still(self, saved: str) -> bool:
        row = self._db.execute(
            "SELECT value FROM meta WHERE key = ?", (f"saved:{SUMMARIES}",)
        ).fetchone()
        return row is not None and str(row[0]) == saved

    def _write_keys(self, kept: list[summary_keys.Row], saved: str) -> bool:
        """The keys of the whole shipment list as it was saved at `saved` (its `saved:`
        value), written over the table's a chunk at a time (`KEYS_CHUNK`), then indexed
        one index at a time (`summary_keys.INDEXES`: sorted once rather than updated row
        by row) and marked as holding the list (`KEYS_SAVED`); each step its own
        transaction, so that other threads' calls (the GUI's) wait for one step only (the
        longest, the index of all 100,000 rows: 0.1 s of CPU). False, and not marked, when
        the list changed meanwhile: they are built again later (`index_summaries`)."""
        # In the table's order: each chunk then fills its own pages, not all of them.
        kept = sorted(kept, key=_first)
        steps: list[Callable[[sqlite3.Connection], object]] = [
            self._unindex_keys,
            _statement("DELETE FROM summary_keys"),
            *(
                _statement(summary_keys.INSERT, kept[start : start + KEYS_CHUNK])
                for start in range(0, len(kept), KEYS_CHUNK)
            ),
            *(
                _statement(f"CREATE INDEX {name} ON summary_keys {definition}")
                for name, definition in summary_keys.INDEXES.items()
            ),
            _statement(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [(KEYS_SAVED, saved)]
            ),
        ]
        for step in steps:
            with self._lock:
                self._db.execute("BEGIN")
                try:
                    still = self._saved_still(saved)
                    if still:
                        step(self._db)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            if not still:
                return False
        return True

    def meta(self, key: str) -> str | None:
        with self._lock:
            return _meta(self._db, key)

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM entries")
            self._db.execute("DELETE FROM meta")
            self._db.execute("DELETE FROM changes")
            self._db.execute("DELETE FROM summary_keys")
            # The log holds nothing of what was there before.
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)", (LOG_SINCE, repr(time.time()))
            )
