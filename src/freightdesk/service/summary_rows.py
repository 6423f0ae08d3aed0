"""A lean, immutable row per shipment for the list the app keeps in memory.

The list can hold 100,000 shipments. Validating that many pydantic models from the cache
takes seconds; these rows are built from validated models once, and the cache keeps each row
as a JSON array of its fields (`row_json`), which reads back several times faster than the
wire JSON of a summary (no keys to parse, nothing to look up). Their flat fields let the
table filter and sort quickly.

A row is a named tuple: building one is a single tuple allocation (a frozen dataclass sets
each of its 17 fields through `object.__setattr__`, three times slower), and it holds no
per-instance dict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from freightdesk.models.shipment_search import ShipmentSummary

# The cache's kind for these rows.
SUMMARIES = "shipment_summary"

_fromisoformat = datetime.fromisoformat
# A row has this many fields; one cached before `next_eta_zone` has two fewer, one cached
# before `latest_event_zone` one fewer.
_FIELDS = 17


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
    # The IANA zone of the stop next_eta is for; None without one, and in rows cached before
    # it existed (they read in the user's zone until the next refresh). Last, so that those
    # rows' arrays still read.
    next_eta_zone: str | None = None
    # The IANA zone of the latest event's stop, kept as next_eta_zone is.
    latest_event_zone: str | None = None

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
            next_eta_zone=summary.next_eta_time_zone,
            latest_event_zone=latest.time_zone if latest else None,
        )

    @classmethod
    def from_fields(cls, values: list[Any]) -> SummaryRow:
        """From the JSON array `row_json` made (times as ISO 8601 strings); an array cached
        before the zones were kept has one or two fields fewer."""
        if len(values) < _FIELDS:
            values = [*values, *(None,) * (_FIELDS - len(values))]
        (
            id_,
            identifiers,
            primary,
            mode,
            state,
            origin,
            destination,
            eta,
            event_type,
            event_time,
            event_description,
            exceptions,
            carrier,
            created,
            modified,
            zone,
            event_zone,
        ) = values
        # Positional, through tuple.__new__: the keyword constructor costs twice as much.
        return tuple.__new__(
            cls,
            (
                id_,
                tuple([(kind, value) for kind, value in identifiers]),
                primary,
                mode,
                state,
                origin,
                destination,
                _fromisoformat(eta) if eta else None,
                event_type,
                _fromisoformat(event_time) if event_time else None,
                event_description,
                int(exceptions),
                carrier,
                _fromisoformat(created),
                _fromisoformat(modified),
                zone,
                event_zone,
            ),
        )


def row_json(row: SummaryRow) -> bytes:
    """A row as the cache keeps it: a JSON array of its fields, in order."""
    from pydantic_core import to_json

    return to_json(row)


def rows_from_cache(
    bodies: Iterable[bytes], parse: Callable[[bytes], Any] | None = None
) -> list[SummaryRow]:
    """Cached rows (`row_json`) as rows; an unreadable entry is skipped, not fatal.

    pydantic-core's JSON parser is the fastest at hand for a whole list, and with
    `cache_strings` the values that repeat over the list (modes, states, places, carriers)
    come back as shared string objects, which saves memory. A few rows (`parse=json.loads`)
    are read without importing it."""
    if parse is None:
        from pydantic_core import from_json

        def parse(body: bytes) -> Any:
            return from_json(body, cache_strings="all")

    rows: list[SummaryRow] = []
    append = rows.append
    from_fields = SummaryRow.from_fields
    for body in bodies:
        try:
            append(from_fields(parse(body)))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return rows


class Stored(Protocol):
    """Where rows are kept (`service/cache.Cache`, which keeps them as `row_json`): named by
    what is read of it, so that these rows import nothing of the cache that stores them."""

    def load(self, kind: str) -> list[bytes]: ...


def cached_rows(cache: Stored) -> list[SummaryRow]:
    """The shipment list the cache holds, as rows."""
    return rows_from_cache(cache.load(SUMMARIES))
