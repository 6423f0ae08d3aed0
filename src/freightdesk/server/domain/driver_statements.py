"""Fixed SQLAlchemy statements run on SQLite's DB-API cursor.

A search built from statements fixed once (per shape of request, with named bound
parameters) spends most of a narrow request in SQLAlchemy's execution and result machinery,
not in the database: on SQLite each statement's text is compiled once (per length of its list
parameters) and run on the driver's cursor, rows coming back as the driver gives them (text
date-times, JSON as text). Elsewhere the connection runs it (typed values).

Reads that need no transaction of their own (a search: each statement sees what is committed)
can run on a connection each thread keeps for its engine (`Statements.kept`): a session and
its pooled connection, checked out and rolled back per request, cost as much as a narrow
search's whole count in the database.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Engine, Select
from sqlalchemy.engine import Dialect


class Statements:
    """Runs a search's statements. On SQLite, on the driver's cursor with each statement's
    text compiled once (per length of its list parameters): SQLAlchemy's execution and result
    machinery cost several times a narrow search's own time in the database. Elsewhere, on
    the connection (typed values)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.dialect = connection.dialect
        self.raw = connection.dialect.name == "sqlite"
        self._driver: Any = connection.connection if self.raw else None

    @classmethod
    def kept(cls, engine: Engine, connect: Callable[[], Connection]) -> Statements:
        """On a SQLite file, on this thread's kept connection to it (`kept_reader`), none
        checked out of the pool; elsewhere on `connect()`'s connection."""
        driver = kept_reader(engine)
        if driver is None:
            return cls(connect())
        run = cls.__new__(cls)
        run.dialect, run.raw, run._driver = engine.dialect, True, driver
        return run

    def rows(self, statement: Select[*tuple[Any, ...]], values: dict[str, Any]) -> list[Any]:
        if not self.raw:
            return list(self.connection.execute(statement, values).all())
        compiled = driver_statement(statement, self.dialect, _lengths(statement, values))
        cursor = self._driver.cursor()
        try:
            cursor.execute(compiled.text, compiled.arguments(values))
            return list(cursor.fetchall())
        finally:
            # Read to the end and closed: no read transaction outlives the statement, so a
            # kept connection never holds back the WAL's checkpoint or an old snapshot.
            cursor.close()

    def scalars(self, statement: Select[*tuple[Any, ...]], values: dict[str, Any]) -> list[Any]:
        if not self.raw:
            return list(self.connection.scalars(statement, values).all())
        return [row[0] for row in self.rows(statement, values)]

    def scalar(self, statement: Select[*tuple[Any, ...]], values: dict[str, Any]) -> int:
        """A count (0 when the statement answers none)."""
        found = self.scalars(statement, values)
        return int(found[0] or 0) if found else 0


@dataclass(frozen=True)
class DriverStatement:
    """A statement as the driver runs it: its text and, per positional parameter, where its
    value comes from (a value of the request, an item of a list value, or a constant of the
    statement) and the bind processing its type asks for."""

    text: str
    parameters: tuple[tuple[str | None, int | None, Any, Callable[[Any], Any] | None], ...]

    def arguments(self, values: dict[str, Any]) -> tuple[Any, ...]:
        arguments = []
        for name, index, constant, process in self.parameters:
            if name is None:
                arguments.append(constant)
                continue
            value = values[name] if index is None else values[name][index]
            arguments.append(value if process is None else process(value))
        return tuple(arguments)


@lru_cache(maxsize=64)
def _expanding(statement: Select[*tuple[Any, ...]]) -> tuple[str, ...]:
    """The names of the statement's list parameters (`IN` with a list of values)."""
    return tuple(bind.key for bind in statement.compile().binds.values() if bind.expanding)


@contextmanager
def reading(engine: Engine) -> Iterator[Statements]:
    """Statements for reads of `engine`'s committed data: on the thread's kept connection to
    a SQLite file, else on a connection of the engine for the block."""
    if kept_reader(engine) is not None:
        yield Statements.kept(engine, engine.connect)
        return
    with engine.connect() as connection:
        yield Statements(connection)


def _lengths(statement: Select[*tuple[Any, ...]], values: dict[str, Any]) -> tuple[int, ...]:
    return tuple(len(values[name]) for name in _expanding(statement))


@lru_cache(maxsize=1024)
def driver_statement(
    statement: Select[*tuple[Any, ...]], dialect: Dialect, lengths: tuple[int, ...]
) -> DriverStatement:
    compiled = statement.compile(dialect=dialect)
    expanding = _expanding(statement)
    placeholders: dict[str, Any] = {
        bind.key: None for bind in compiled.binds.values() if bind.required
    }
    placeholders.update(
        (name, [None] * length) for name, length in zip(expanding, lengths, strict=True)
    )
    state = compiled.construct_expanded_state(placeholders)
    items = {
        item: (name, index)
        for name, expanded in state.parameter_expansion.items()
        for index, item in enumerate(expanded)
    }
    parameters: list[tuple[str | None, int | None, Any, Callable[[Any], Any] | None]] = []
    # The state names the processors of list items only; the compiled statement, the rest.
    processors: dict[str, Any] = {**compiled._bind_processors, **state.processors}
    for key in state.positiontup or ():
        process = processors.get(key)
        if key in items:
            parameters.append((*items[key], None, process))
        elif compiled.binds[key].required:
            parameters.append((key, None, None, process))
        else:
            # A literal of the statement (`tenant_id + 0`, a limit, a JSON path).
            constant = state.parameters[key]
            parameters.append(
                (None, None, constant if process is None else process(constant), None)
            )
    return DriverStatement(state.statement, tuple(parameters))


class _Reader:
    """One thread's kept connection, for the engine's pool it was opened under; closed when
    the thread's locals go or the engine's pool is replaced (`Engine.dispose`)."""

    def __init__(self, connection: sqlite3.Connection, pool: object) -> None:
        self.connection = connection
        self.pool = pool

    def __del__(self) -> None:
        self.connection.close()


class _KeptReaders:
    """A connection per thread to one SQLite file, for reads only. Each is used by the thread
    that opened it alone (SQLite's rule for a connection), and replaced by it once the engine
    is disposed of; opened without the driver's same-thread check only so that it can be
    closed when its thread is gone."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._local = threading.local()

    def connection(self, pool: object) -> sqlite3.Connection:
        reader: _Reader | None = getattr(self._local, "reader", None)
        if reader is None or reader.pool is not pool:
            # Autocommit: each statement is its own read of what is committed, as on the
            # engine's connections (the driver begins a transaction only before a write).
            connection = sqlite3.connect(
                self._path, timeout=30, isolation_level=None, check_same_thread=False
            )
            # Reads only, whatever runs on it.
            connection.execute("PRAGMA query_only=ON")
            self._local.reader = reader = _Reader(connection, pool)
        return reader.connection


_KEPT: weakref.WeakKeyDictionary[Engine, _KeptReaders | None] = weakref.WeakKeyDictionary()
_KEPT_LOCK = threading.Lock()


def kept_reader(engine: Engine) -> sqlite3.Connection | None:
    """This thread's kept read connection to `engine`'s SQLite file (None for any other
    database, an in-memory one, or a URL with options: those read through the engine)."""
    try:
        kept = _KEPT[engine]
    except KeyError:
        with _KEPT_LOCK:
            kept = _KEPT[engine] if engine in _KEPT else _new_kept(engine)
            _KEPT[engine] = kept
    # Disposing of the engine replaces its pool: the connections kept before are let go (no
    # listener on the engine's events: one would send every Connection of the engine through
    # SQLAlchemy's event dispatch, some 15 us a request on every route).
    return None if kept is None else kept.connection(engine.pool)


def _new_kept(engine: Engine) -> _KeptReaders | None:
    url = engine.url
    if engine.dialect.name != "sqlite" or engine.dialect.driver != "pysqlite" or url.query:
        return None
    if not url.database or url.database == ":memory:":
        return None
    return _KeptReaders(url.database)
