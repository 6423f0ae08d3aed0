"""Per cached shipment, the few values its list is sorted and triaged by at the first paint,
which the cache keeps in columns of their own beside the rows (`Cache.summary_top`).

A start that has no kept top for the list's sort (`first_screen.kept_top`: a cache another
process wrote, one kept by an older version, or too many changes since) used to decode every
cached row to find the top: most of half a second at 100,000. These columns are read in one
scan inside SQLite, which sorts them and hands over only the top's keys; only those rows are
decoded before the first paint.

The values are the list's own sort values (`ui/panes/shipments/columns.py`): times as POSIX
timestamps, texts casefolded, the exceptions negated. The mode and the state are kept as
they are (few distinct values): the query names each one's sort value. The Attention sort
depends on the moment and the triage settings: `attention_sql` says it in SQL for a list
triaged without facts (as the first paint's is), from the same inputs `triage.flags_of`
reads. The first paint compares the values of the rows it shows with the table's own
(`first_screen.indexed_top`), so a rule changed on one side only is never painted wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from freightdesk.models.enums import ShipmentStateType
from freightdesk.service.summary_rows import SummaryRow

# The state in which the triage flags a shipment gone silent (`triage.MOVING`): named here
# rather than imported, as the triage keeps its facts in the cache these keys are part of.
MOVING = ShipmentStateType.IN_TRANSIT.value

TABLE = """
CREATE TABLE IF NOT EXISTS summary_keys (
    key TEXT PRIMARY KEY,
    primary_text TEXT,
    mode TEXT,
    state TEXT,
    origin TEXT,
    destination TEXT,
    eta REAL,
    event_time REAL,
    exceptions INTEGER NOT NULL,
    carrier TEXT,
    modified REAL NOT NULL,
    created REAL NOT NULL
) WITHOUT ROWID;
"""
# The list's default sort (Attention, the worst first, then the newest change): each worst
# kind's rows in the order of their last change (`attention_sql`). The silent ones are found
# among those in transit only (a quarter of the list, not all but the exceptions). A whole
# list's keys are written without them and they are built after (`Cache._write_keys`):
# sorting once costs a third of updating them row by row.
INDEXES = {
    "summary_keys_exceptions": "(modified DESC, key) WHERE exceptions > 0",
    "summary_keys_in_transit": (
        f"(modified DESC, key, mode, event_time) WHERE exceptions <= 0 AND state = '{MOVING}'"
    ),
    "summary_keys_modified": "(modified DESC, key)",
}
FIELDS = (
    "key",
    "primary_text",
    "mode",
    "state",
    "origin",
    "destination",
    "eta",
    "event_time",
    "exceptions",
    "carrier",
    "modified",
    "created",
)
INSERT = (
    f"INSERT OR REPLACE INTO summary_keys ({', '.join(FIELDS)}) "
    f"VALUES ({', '.join('?' * len(FIELDS))})"
)

# The list's columns (by their key) whose sort value is one of these columns as it is.
PLAIN = {
    "primaryIdentifier": "primary_text",
    "origin": "origin",
    "destination": "destination",
    "nextEta": "eta",
    "latestEventTime": "event_time",
    "exceptions": "exceptions",
    "carrier": "carrier",
    "lastModified": "modified",
    "created": "created",
}
# Columns kept as they are, whose sort value the query maps from each distinct value.
MAPPED = {"mode": "mode", "state": "state"}

Row = tuple[object, ...]


def _text(value: str | None) -> str | None:
    return value.casefold() if value else None


def _time(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def keys_of(row: SummaryRow) -> Row:
    """The values kept for `row`, in the order of `FIELDS`."""
    primary = row.primary_identifier or (row.identifiers[0][1] if row.identifiers else "")
    return (
        row.id,
        _text(primary),
        row.mode,
        row.current_state,
        _text(row.origin_name),
        _text(row.destination_name),
        _time(row.next_eta),
        _time(row.latest_event_time),
        row.open_exception_count,
        _text(row.carrier),
        row.last_modified.timestamp(),
        row.created.timestamp(),
    )


def keys_of_bodies(bodies: Iterable[tuple[str, bytes]]) -> tuple[list[Row], list[str]]:
    """The values kept for cached rows (`row_json`), and the keys of those that cannot be
    read (none kept for them: a start skips them, as reading the whole list does)."""
    from pydantic_core import from_json

    from_fields = SummaryRow.from_fields
    kept: list[Row] = []
    unread: list[str] = []
    for key, body in bodies:
        try:
            kept.append(keys_of(from_fields(from_json(body))))
        except (KeyError, TypeError, ValueError, AttributeError):
            unread.append(key)
    return kept, unread


def mapped_sql(field: str, values: Mapping[str, object]) -> tuple[str, list[object]]:
    """The sort value of a kept-as-is column: each of its distinct values mapped (the rest,
    and NULL, to NULL)."""
    if not values:
        return "NULL", []
    whens = " ".join("WHEN ? THEN ?" for _ in values)
    params: list[object] = []
    for value, sort_value in values.items():
        params += [value, sort_value]
    return f"(CASE {field} {whens} ELSE NULL END)", params


def attention_sql(
    now: datetime, silence: Mapping[str, timedelta], other_silence: timedelta
) -> tuple[str, list[object], list[tuple[str, list[object]]]]:
    """The Attention column's sort value (`attention.column_value`) of a row triaged without
    facts at `now` (`triage.flags_of`) with the triage settings' `silence` per mode (and
    `other_silence` for any other: `TriageSettings.silence_for`): the worst kind's bit length
    (4: open exceptions; 3: in transit and silent for its mode's hours; else 0), times 1e10,
    plus the last change. Then the rows of each worst kind, the worst first: in each, the
    order is the last change's (the newest first, ties by key), which the table's indexes
    give (`TABLE`)."""
    # Silent when the last event is at or before `now` less the mode's silence; the cut-off
    # as a timestamp compares as the times do (microseconds stay apart at this magnitude).
    modes = " ".join("WHEN ? THEN ?" for _ in silence)
    cutoffs: list[object] = []
    for mode, span in silence.items():
        cutoffs += [mode, (now - span).timestamp()]
    cutoffs.append((now - other_silence).timestamp())
    # The state as a literal, as `INDEXES` names it: SQLite uses a partial index only for a
    # query whose own terms say its condition.
    silent = (
        f"state = '{MOVING}' AND (event_time IS NULL OR event_time <= (CASE mode {modes} ELSE ? "
        "END))"
    )
    worst = f"(CASE WHEN exceptions > 0 THEN 4 WHEN {silent} THEN 3 ELSE 0 END)"
    silent_params = cutoffs
    kinds = [
        ("exceptions > 0", []),
        (f"exceptions <= 0 AND {silent}", silent_params),
        (f"exceptions <= 0 AND NOT coalesce({silent}, 0)", silent_params),
    ]
    return f"({worst} * 1e10 + modified)", silent_params, kinds
