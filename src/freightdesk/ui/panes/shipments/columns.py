"""The columns of the shipments table: title, how to show a row, how to sort it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from freightdesk.models.tracking import ShipmentStateType
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.formatting import local_time_text, state_text

SortKey = tuple[int, object]


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    text: Callable[[SummaryRow], str]
    sort_key: Callable[[SummaryRow], SortKey]
    width: int = 120
    visible_by_default: bool = True


def _text_key(value: str | None) -> SortKey:
    # Empty values sort last in ascending order, whatever the column.
    return (1, "") if not value else (0, value.casefold())


def _time_key(value: datetime | None) -> SortKey:
    return (1, 0.0) if value is None else (0, value.timestamp())


def primary_text(row: SummaryRow) -> str:
    return row.primary_identifier or (row.identifiers[0][1] if row.identifiers else "")


def state_label(row: SummaryRow) -> str:
    if not row.current_state:
        return ""
    try:
        return state_text(ShipmentStateType(row.current_state))
    except ValueError:
        return row.current_state.title()


def latest_event_text(row: SummaryRow) -> str:
    if row.latest_event_type is None:
        return ""
    return row.latest_event_description or row.latest_event_type.replace("_", " ").title()


COLUMNS: tuple[Column, ...] = (
    Column(
        "primaryIdentifier", "Shipment", primary_text, lambda r: _text_key(primary_text(r)), 170
    ),
    Column("mode", "Mode", lambda r: r.mode or "", lambda r: _text_key(r.mode), 70),
    Column("state", "State", state_label, lambda r: _text_key(state_label(r)), 100),
    Column(
        "origin", "Origin", lambda r: r.origin_name or "", lambda r: _text_key(r.origin_name), 150
    ),
    Column(
        "destination",
        "Destination",
        lambda r: r.destination_name or "",
        lambda r: _text_key(r.destination_name),
        150,
    ),
    Column(
        "nextEta",
        "Next ETA",
        lambda r: local_time_text(r.next_eta),
        lambda r: _time_key(r.next_eta),
        140,
    ),
    Column(
        "latestEvent",
        "Latest event",
        latest_event_text,
        lambda r: _text_key(latest_event_text(r)),
        190,
    ),
    Column(
        "latestEventTime",
        "Event time",
        lambda r: local_time_text(r.latest_event_time),
        lambda r: _time_key(r.latest_event_time),
        140,
    ),
    Column(
        "exceptions",
        "Exceptions",
        lambda r: str(r.open_exception_count) if r.open_exception_count else "",
        lambda r: (0, -r.open_exception_count),
        80,
    ),
    Column("carrier", "Carrier", lambda r: r.carrier or "", lambda r: _text_key(r.carrier), 80),
    Column(
        "lastModified",
        "Last updated",
        lambda r: local_time_text(r.last_modified),
        lambda r: _time_key(r.last_modified),
        140,
    ),
    Column(
        "created",
        "Created",
        lambda r: local_time_text(r.created),
        lambda r: _time_key(r.created),
        140,
        visible_by_default=False,
    ),
)

COLUMN_INDEX = {column.key: index for index, column in enumerate(COLUMNS)}
