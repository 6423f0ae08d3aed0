"""The columns of the shipments table: title, how to show a summary, how to sort it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from freightdesk.models.shipment_search import ShipmentSummary
from freightdesk.ui.formatting import local_time_text, state_text

SortKey = tuple[int, object]


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    text: Callable[[ShipmentSummary], str]
    sort_key: Callable[[ShipmentSummary], SortKey]
    width: int = 120
    visible_by_default: bool = True


def _text_key(value: str | None) -> SortKey:
    # Empty values sort last in ascending order, whatever the column.
    return (1, "") if not value else (0, value.casefold())


def _time_key(value: datetime | None) -> SortKey:
    return (1, 0.0) if value is None else (0, value.timestamp())


def _primary(s: ShipmentSummary) -> str:
    return s.primary_identifier or (s.identifiers[0].value if s.identifiers else "")


def _latest_event(s: ShipmentSummary) -> str:
    if s.latest_event is None:
        return ""
    return s.latest_event.description or s.latest_event.type.replace("_", " ").title()


COLUMNS: tuple[Column, ...] = (
    Column("primaryIdentifier", "Shipment", _primary, lambda s: _text_key(_primary(s)), 170),
    Column(
        "mode",
        "Mode",
        lambda s: s.mode.value if s.mode else "",
        lambda s: _text_key(s.mode.value if s.mode else None),
        70,
    ),
    Column(
        "state",
        "State",
        lambda s: state_text(s.current_state),
        lambda s: _text_key(state_text(s.current_state)),
        100,
    ),
    Column(
        "origin", "Origin", lambda s: s.origin_name or "", lambda s: _text_key(s.origin_name), 150
    ),
    Column(
        "destination",
        "Destination",
        lambda s: s.destination_name or "",
        lambda s: _text_key(s.destination_name),
        150,
    ),
    Column(
        "nextEta",
        "Next ETA",
        lambda s: local_time_text(s.next_eta),
        lambda s: _time_key(s.next_eta),
        140,
    ),
    Column(
        "latestEvent", "Latest event", _latest_event, lambda s: _text_key(_latest_event(s)), 190
    ),
    Column(
        "latestEventTime",
        "Event time",
        lambda s: local_time_text(s.latest_event.date_time if s.latest_event else None),
        lambda s: _time_key(s.latest_event.date_time if s.latest_event else None),
        140,
    ),
    Column(
        "exceptions",
        "Exceptions",
        lambda s: str(s.open_exception_count) if s.open_exception_count else "",
        lambda s: (0, -s.open_exception_count),
        80,
    ),
    Column("carrier", "Carrier", lambda s: s.carrier or "", lambda s: _text_key(s.carrier), 80),
    Column(
        "lastModified",
        "Last updated",
        lambda s: local_time_text(s.last_modified_date_time),
        lambda s: _time_key(s.last_modified_date_time),
        140,
    ),
    Column(
        "created",
        "Created",
        lambda s: local_time_text(s.created_date_time),
        lambda s: _time_key(s.created_date_time),
        140,
        visible_by_default=False,
    ),
)

COLUMN_INDEX = {column.key: index for index, column in enumerate(COLUMNS)}
