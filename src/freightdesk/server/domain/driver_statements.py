"""Fixed SQLAlchemy statements run on SQLite's DB-API cursor.

A search built from statements fixed once (per shape of request, with named bound
parameters) spends most of a narrow request in SQLAlchemy's execution and result machinery,
not in the database: on SQLite each statement's text is compiled once (per length of its list
parameters) and run on the driver's cursor, rows coming back as the driver gives them (text
date-times, JSON as text). Elsewhere the connection runs it (typed values).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Select
from sqlalchemy.engine import Dialect


class Statements:
    """Runs a search's statements. On SQLite, on the driver's cursor with each statement's
    text compiled once (per length of its list parameters): SQLAlchemy's execution and result
    machinery cost several times a narrow search's own time in the database. Elsewhere, on
    the connection (typed values)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.raw = connection.dialect.name == "sqlite"

    def rows(self, statement: Select[*tuple[Any, ...]], values: dict[str, Any]) -> list[Any]:
        if not self.raw:
            return list(self.connection.execute(statement, values).all())
        compiled = driver_statement(statement, self.connection.dialect, _lengths(statement, values))
        cursor = self.connection.connection.cursor()
        try:
            cursor.execute(compiled.text, compiled.arguments(values))
            return list(cursor.fetchall())
        finally:
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
