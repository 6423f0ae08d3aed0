"""A lean, immutable row per shipment for the list the app keeps in memory.

The list can hold 100,000 shipments. Validating that many pydantic models from the cache
takes seconds; these rows are built straight from the cached JSON (written from validated
models) in a fraction of that, and their flat fields let the table filter and sort quickly.

A row is a named tuple: building one is a single tuple allocation (a frozen dataclass sets
each of its 15 fields through `object.__setattr__`, three times slower), and it holds no
per-instance dict.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic_core import from_json

if TYPE_CHECKING:
    from freightdesk.models.shipment_search import ShipmentSummary

_fromisoformat = datetime.fromisoformat


class SummaryRow(NamedTuple):
    id: str
    identifiers: tuple[tuple[str, str], ...]
    primary_identifier: str | None
    mode: str | None
    current_state: str | None
    origin_name: str | None
    destination_name: str | None
    next_eta: datetime | None
    latest_event_type: str | None
    latest_event_time: datetime | None
    latest_event_description: str | None
    open_exception_count: int
    carrier: str | None
    created: datetime
    last_modified: datetime

    @classmethod
    def from_summary(cls, summary: ShipmentSummary) -> SummaryRow:
        latest = summary.latest_event
        return cls(
            id=str(summary.id),
            identifiers=tuple((i.type, i.value) for i in summary.identifiers),
            primary_identifier=summary.primary_identifier,
            mode=summary.mode.value if summary.mode else None,
            current_state=summary.current_state.value if summary.current_state else None,
            origin_name=summary.origin_name,
            destination_name=summary.destination_name,
            next_eta=summary.next_eta,
            latest_event_type=latest.type if latest else None,
            latest_event_time=latest.date_time if latest else None,
            latest_event_description=latest.description if latest else None,
            open_exception_count=summary.open_exception_count,
            carrier=summary.carrier,
            created=summary.created_date_time,
            last_modified=summary.last_modified_date_time,
        )

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> SummaryRow:
        """From the wire JSON of a ShipmentSummary that was validated when it was cached."""
        latest = data.get("latestEvent") or {}
        eta = data.get("nextEta")
        event_time = latest.get("dateTime")
        # Positional, through tuple.__new__: the keyword constructor costs twice as much.
        return tuple.__new__(
            cls,
            (
                data["id"],
                tuple([(i["type"], i["value"]) for i in data.get("identifiers", ())]),
                data.get("primaryIdentifier"),
                data.get("mode"),
                data.get("currentState"),
                data.get("originName"),
                data.get("destinationName"),
                _fromisoformat(eta) if eta else None,
                latest.get("type"),
                _fromisoformat(event_time) if event_time else None,
                latest.get("description"),
                int(data.get("openExceptionCount", 0)),
                data.get("carrier"),
                _fromisoformat(data["createdDateTime"]),
                _fromisoformat(data["lastModifiedDateTime"]),
            ),
        )


def rows_from_cache(bodies: Iterable[bytes]) -> list[SummaryRow]:
    """Cached summaries (wire JSON) as rows; an unreadable entry is skipped, not fatal.

    pydantic-core's JSON parser is the fastest at hand, and with `cache_strings` the values
    that repeat over the list (modes, states, places, carriers) come back as shared string
    objects: less memory, and the table's counts compare them by identity."""
    rows: list[SummaryRow] = []
    append = rows.append
    from_wire = SummaryRow.from_wire
    for body in bodies:
        try:
            append(from_wire(from_json(body, cache_strings="all")))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return rows


def wire_json(summary: ShipmentSummary) -> bytes:
    return summary.model_dump_json(by_alias=True, exclude_none=True).encode()
