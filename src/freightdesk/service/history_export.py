"""A shipment's events or its track (positions) as a table to export, read from the service
when the user asks (getEventHistory with its route, getPositionHistory), not from the history
the detail last polled: an export is handed to someone else (a customer, a claim), so it is
the record as of now, whatever the screen showed while the service was away.

Times stay instants (the export writes them in ISO 8601 with their offset); the interface
gives these histories no paging, so an export is always the whole of one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from freightdesk.models.tracking import EventHistory, PositionHistory, TrackedShipment, place_name
from freightdesk.service.export import Cell

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

EVENT_HEADER = [
    "Event",
    "Description",
    "Stop",
    "Actual",
    "Planned",
    "Estimated",
    "Received",
    "Source",
]
POSITION_HEADER = ["Time", "Latitude", "Longitude", "Speed (km/h)", "Heading (°)", "Source"]


@dataclass(frozen=True)
class HistoryTable:
    """What to export: a name for the file (`PRO123 events`), the header and the rows."""

    name: str
    header: list[str]
    rows: list[list[Cell]]


def _name(shipment: TrackedShipment, what: str) -> str:
    primary = shipment.identifiers[0].value if shipment.identifiers else str(shipment.id)
    return f"{primary} {what}"


def event_table(history: EventHistory) -> HistoryTable:
    """One row per event, in the interface's order (ascending), its stop named."""
    route = history.shipment.route_info
    stops = route.stops if route else []
    names = {str(s.id): f"{n}. {place_name(s)}" for n, s in enumerate(stops, start=1)}
    rows: list[list[Cell]] = [
        [
            event.type,
            event.description or "",
            names.get(str(event.stop_id), "") if event.stop_id else "",
            event.date_time,
            event.planned_date_time,
            event.estimate_date_time,
            event.received_date_time,
            next((d.source for d in event.date_times if d.source), ""),
        ]
        for event in history.events
    ]
    return HistoryTable(_name(history.shipment, "events"), EVENT_HEADER, rows)


def position_table(history: PositionHistory) -> HistoryTable:
    """One row per reported position, oldest first."""
    rows: list[list[Cell]] = [
        [p.date_time, p.latitude, p.longitude, p.speed, p.heading, p.source or ""]
        for p in history.positions
    ]
    return HistoryTable(_name(history.shipment, "positions"), POSITION_HEADER, rows)


class HistoryExport:
    """Reads one shipment's events or positions for an export, over one connection."""

    def __init__(self, client: Callable[[], ApiClient]) -> None:
        self._client = client

    async def events(self, shipment_id: UUID | str) -> HistoryTable:
        # With the route: the rows name each event's stop.
        history = await self._client().tracking.event_history(shipment_id, include_route_info=True)
        return event_table(history)

    async def positions(self, shipment_id: UUID | str) -> HistoryTable:
        return position_table(await self._client().tracking.position_history(shipment_id))
