"""The columns of the shipments table: title, how to show a row, how to sort it.

A column sorts by a plain value per row (a casefolded string, a timestamp, a number), None
when the row has none: the table sorts 100,000 rows by such values several times faster than
by tuples, and puts the rows without a value last (ascending) or first (descending).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from freightdesk.models.code_words import event_text, mode_short
from freightdesk.models.enums import ShipmentStateType
from freightdesk.service.carrier_names import CARRIER_NAMES, carrier_text
from freightdesk.service.clock import place_time, user_time
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.formatting import state_text

# One type per column (str for text, float for times, int for counts); None when empty.
SortValue = str | float | int


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    text: Callable[[SummaryRow], str]
    sort_value: Callable[[SummaryRow], SortValue | None]
    width: int = 120
    visible_by_default: bool = True
    # Sorted highest first at the header's first click (the model's InitialSortOrderRole):
    # what a dispatcher asks of counts and of attention; other columns go A to Z, oldest first.
    descending_first: bool = False
    # The cell's tooltip where it says more than the cell (None: the cell's text).
    tooltip: Callable[[SummaryRow], str] | None = None


def _text_value(value: str | None) -> str | None:
    # Empty values sort last in ascending order, whatever the column.
    return value.casefold() if value else None


def _time_value(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def primary_text(row: SummaryRow) -> str:
    return row.primary_identifier or (row.identifiers[0][1] if row.identifiers else "")


def state_label(row: SummaryRow) -> str:
    return _state_label(row.current_state) if row.current_state else ""


@lru_cache(maxsize=64)
def _state_label(state: str) -> str:
    try:
        return state_text(ShipmentStateType(state))
    except ValueError:
        return state.title()


def carrier_forms(row: SummaryRow) -> list[str]:
    """The carrier as a wide column shows it, then narrower: 'Prairie Wind Transport (PWTR)',
    'Prairie Wind Transport', 'Prairie Wind'; an unknown code as the code."""
    code = row.carrier
    forms = [carrier_text(code), CARRIER_NAMES.name(code) or "", CARRIER_NAMES.short(code)]
    return list(dict.fromkeys(f for f in forms if f))


def latest_event_text(row: SummaryRow) -> str:
    if row.latest_event_type is None:
        return ""
    return row.latest_event_description or event_text(row.latest_event_type)


def edge_gap(after: Sequence[int], room: int) -> int:
    """How much wider the last fitted column gets so that no column shows in part at the
    list's right edge: `room` is what is left of the viewport beyond the fitted columns,
    `after` the widths of the columns shown after them. 0 when they end at the edge, or a
    column after them ends there (or the last one ends before it)."""
    for width in after:
        if room <= 0:
            return 0
        if room < width:
            return room  # it would show in part ("N…" at the edge)
        room -= width
    return 0


COLUMNS: tuple[Column, ...] = (
    # The key columns are narrow enough to fit at 1366 px (see list_layout.py); long
    # references and places are cut in the middle, whole in their tooltips.
    Column(
        "primaryIdentifier", "Shipment", primary_text, lambda r: _text_value(primary_text(r)), 120
    ),
    Column("mode", "Mode", lambda r: mode_short(r.mode), lambda r: _text_value(r.mode), 58),
    Column("state", "State", state_label, lambda r: _text_value(state_label(r)), 85),
    Column(
        "origin", "Origin", lambda r: r.origin_name or "", lambda r: _text_value(r.origin_name), 115
    ),
    Column(
        "destination",
        "Destination",
        lambda r: r.destination_name or "",
        lambda r: _text_value(r.destination_name),
        115,
    ),
    Column(
        "nextEta",
        # The estimate calculated last, of whichever stop (the Overview's Latest ETA, beside
        # its Next stop ETA); a time at a place: in the zone of that stop (service/clock.py).
        "Latest ETA",
        lambda r: place_time(r.next_eta, r.next_eta_zone),
        lambda r: _time_value(r.next_eta),
        120,
    ),
    Column(
        "latestEvent",
        "Latest event",
        latest_event_text,
        lambda r: _text_value(latest_event_text(r)),
        190,
    ),
    Column(
        "latestEventTime",
        "Event time",
        # A time at a place: in the zone of the stop the event happened at.
        lambda r: place_time(r.latest_event_time, r.latest_event_zone),
        lambda r: _time_value(r.latest_event_time),
        140,
    ),
    Column(
        "exceptions",
        "Exceptions",
        lambda r: str(r.open_exception_count) if r.open_exception_count else "",
        # Most exceptions first is descending, the arrow down as for every column (it was
        # ascending, the arrow up over the most first); the header's first click gives it.
        lambda r: r.open_exception_count,
        80,
        descending_first=True,
    ),
    Column(
        "carrier",
        "Carrier",
        # The carrier's short name in a narrow column ('Prairie Wind'), its whole name and
        # code in the tooltip; sorted by name. An unknown code shows as the code.
        lambda r: CARRIER_NAMES.short(r.carrier),
        lambda r: _text_value(CARRIER_NAMES.name(r.carrier) or r.carrier),
        70,
        tooltip=lambda r: carrier_text(r.carrier),
    ),
    Column(
        "lastModified",
        "Last updated",
        lambda r: user_time(r.last_modified),
        lambda r: _time_value(r.last_modified),
        140,
    ),
    Column(
        "created",
        "Created",
        lambda r: user_time(r.created),
        lambda r: _time_value(r.created),
        140,
        visible_by_default=False,
    ),
    # Shown and sorted by the model, from the triage of each row (service/triage.py); last
    # here, so that layouts kept before it existed keep their columns, and shown after State
    # (`list_layout.place_key_columns`).
    Column("attention", "Attention", lambda r: "", lambda r: None, 130, descending_first=True),
)

COLUMN_INDEX = {column.key: index for index, column in enumerate(COLUMNS)}
