"""The on-disk cache of one profile: the app opens instantly from it and keeps showing it
(marked stale, with its age) when the service cannot be reached.

A plain SQLite file holding the wire JSON of each cached item by kind and key. Calls are
synchronous and short; the service layer runs the large ones (loading 100,000 summaries) in
a worker thread so the event loop never waits on the disk.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

# pydantic is imported when models are first stored or read: the app reads its cached
# shipment list (plain rows) before pydantic is loaded.
if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")

_SCHEMA = """
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
"""

# 2: shipment summaries kept as compact rows (service/summary_rows.py), not wire JSON.
CACHE_FORMAT = "2"


class Cache:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        if self.meta("format") not in (None, CACHE_FORMAT):
            # An older layout is only a cache: drop it rather than misread it.
            self.clear()
        self.set_meta("format", CACHE_FORMAT)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _changing(self, kind: str) -> Iterator[sqlite3.Connection]:
        """One transaction that changes the entries of `kind` and records when (`saved_at`:
        every change, deletions too, so `summary_rows.first_screen` can tell a list changed
        without counting it)."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
                self._db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (f"saved:{kind}", repr(time.time())),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def put_many(self, kind: str, items: Iterable[tuple[str, bytes]]) -> None:
        with self._changing(kind) as db:
            db.executemany(
                "INSERT OR REPLACE INTO entries (kind, key, body) VALUES (?, ?, ?)",
                ((kind, key, body) for key, body in items),
            )

    def put_models(self, kind: str, items: Iterable[tuple[str, BaseModel]]) -> None:
        self.put_many(
            kind,
            (
                (key, model.model_dump_json(by_alias=True, exclude_none=True).encode())
                for key, model in items
            ),
        )

    def replace_kind(self, kind: str, items: Iterable[tuple[str, bytes]]) -> None:
        """Replace everything of `kind` at once (a full refresh)."""
        with self._changing(kind) as db:
            db.execute("DELETE FROM entries WHERE kind = ?", (kind,))
            db.executemany(
                "INSERT INTO entries (kind, key, body) VALUES (?, ?, ?)",
                ((kind, key, body) for key, body in items),
            )

    def delete_many(self, kind: str, keys: Sequence[str]) -> None:
        with self._changing(kind) as db:
            db.executemany(
                "DELETE FROM entries WHERE kind = ? AND key = ?", ((kind, k) for k in keys)
            )

    def get(self, kind: str, key: str) -> bytes | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM entries WHERE kind = ? AND key = ?", (kind, key)
            ).fetchone()
        return bytes(row[0]) if row else None

    def get_many(self, kind: str, keys: Sequence[str]) -> dict[str, bytes]:
        """The entries of `keys` that are cached (at most a few hundred keys)."""
        marks = ",".join("?" * len(keys))
        with self._lock:
            rows = self._db.execute(
                f"SELECT key, body FROM entries WHERE kind = ? AND key IN ({marks})",
                (kind, *keys),
            ).fetchall()
        return {key: bytes(body) for key, body in rows}

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
        with self._lock:
            row = self._db.execute(
                "SELECT count(*) FROM entries WHERE kind = ?", (kind,)
            ).fetchone()
        return int(row[0])

    def saved_at(self, kind: str) -> float | None:
        """Wall-clock time the data of `kind` was last saved (for "updated 5 min ago")."""
        value = self.meta(f"saved:{kind}")
        return float(value) if value is not None else None

    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM entries")
            self._db.execute("DELETE FROM meta")
