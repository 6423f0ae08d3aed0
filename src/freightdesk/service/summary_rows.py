"""A lean, immutable row per shipment for the list the app keeps in memory.

The list can hold 100,000 shipments. Validating that many pydantic models from the cache
takes seconds; these rows are built straight from the cached JSON (written from validated
models) in a fraction of that, and their flat fields let the table filter and sort quickly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from freightdesk.models.shipment_search import ShipmentSummary


@dataclass(frozen=True, slots=True)
class SummaryRow:
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
        return cls(
            id=data["id"],
            identifiers=tuple((i["type"], i["value"]) for i in data.get("identifiers", ())),
            primary_identifier=data.get("primaryIdentifier"),
            mode=data.get("mode"),
            current_state=data.get("currentState"),
            origin_name=data.get("originName"),
            destination_name=data.get("destinationName"),
            next_eta=_time(data.get("nextEta")),
            latest_event_type=latest.get("type"),
            latest_event_time=_time(latest.get("dateTime")),
            latest_event_description=latest.get("description"),
            open_exception_count=int(data.get("openExceptionCount", 0)),
            carrier=data.get("carrier"),
            created=datetime.fromisoformat(data["createdDateTime"]),
            last_modified=datetime.fromisoformat(data["lastModifiedDateTime"]),
        )


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def rows_from_cache(bodies: list[bytes]) -> list[SummaryRow]:
    """Cached summaries (wire JSON) as rows; an unreadable entry is skipped, not fatal."""
    if not bodies:
        return []
    try:
        items = json.loads(b"[" + b",".join(bodies) + b"]")
    except ValueError:
        items = []
        for body in bodies:
            try:
                items.append(json.loads(body))
            except ValueError:
                continue
    rows = []
    for item in items:
        try:
            rows.append(SummaryRow.from_wire(item))
        except (KeyError, TypeError, ValueError):
            continue
    return rows


def wire_json(summary: ShipmentSummary) -> bytes:
    return summary.model_dump_json(by_alias=True, exclude_none=True).encode()
