"""What the map pages draw, built from the service layer's data as JSON-ready dicts.

Plain Python (no Qt), so it is tested and measured on its own. Texts shown in popups are
formatted here, the same way the timeline formats them (local time of the stop, zone named).
Longitudes are made continuous along the route so that a trans-Pacific shipment is drawn
across the antimeridian, not around the world.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from freightdesk.models.code_words import event_text
from freightdesk.models.stop_locations import GeofenceType, GeofenceUnits, StopLocation
from freightdesk.models.tracking import (
    ExceptionStatus,
    LatestPosition,
    RouteStop,
    ShipmentException,
    SpeedUnit,
    StopType,
    TrackedShipmentEvent,
    TrackedShipmentPosition,
    TrackingHistory,
    place_name,
)
from freightdesk.service.clock import place_time
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.tracks import FloatArray, simplified

Json = dict[str, Any]

STOP_KINDS = {
    StopType.PICKUP: ("pickup", "Pickup"),
    StopType.DELIVERY: ("delivery", "Delivery"),
    StopType.WAYPOINT: ("waypoint", "Waypoint"),
    StopType.TERMINAL: ("terminal", "Terminal"),
    StopType.PORT_OF_LOADING: ("port", "Port of loading"),
    StopType.PORT_OF_DISCHARGE: ("port", "Port of discharge"),
    StopType.TRANSSHIPMENT: ("port", "Transshipment"),
}
_KMH = {
    SpeedUnit.KILOMETERS_PER_HOUR: 1.0,
    SpeedUnit.MILES_PER_HOUR: 1.609344,
    SpeedUnit.KNOTS: 1.852,
}
_PLAIN_STOP = ("stop", "Stop")
# Event types that mark progress a dispatcher looks for first (shown in green).
_MILESTONES = ("PICK", "DELIVER", "LOAD", "PROOF_OF_DELIVERY", "GATE_")
# A travel-time geofence is drawn as a circle reached at this average speed.
TIME_FENCE_KMH = 40.0
_METRES = {
    GeofenceUnits.METERS: 1.0,
    GeofenceUnits.KILOMETERS: 1000.0,
    GeofenceUnits.FEET: 0.3048,
    GeofenceUnits.MILES: 1609.344,
}
_SECONDS = {GeofenceUnits.SECONDS: 1.0, GeofenceUnits.MINUTES: 60.0, GeofenceUnits.HOURS: 3600.0}


def _near(longitude: float, reference: float) -> float:
    """`longitude` moved by whole turns to within 180° of `reference`."""
    return longitude + 360.0 * round((reference - longitude) / 360.0)


def speed_kmh(position: TrackedShipmentPosition) -> float | None:
    speed, unit = position.speed, position.speed_unit
    if speed is None:
        return None
    if unit is None or unit is SpeedUnit.KILOMETERS_PER_HOUR:  # what the service answers
        return speed
    return speed * _KMH[unit]


def speed_text(kmh: float | None) -> str:
    return f"{kmh:.0f} km/h" if kmh is not None else ""


def ordered_positions(
    positions: Sequence[TrackedShipmentPosition],
) -> list[TrackedShipmentPosition]:
    """In time order (the service answers them so; a sorted list is checked in one pass)."""
    times = [p.date_time for p in positions]
    if times == sorted(times):
        return list(positions)
    return sorted(positions, key=lambda p: p.date_time)


def route_points(
    positions: Sequence[TrackedShipmentPosition], reference: float | None = None
) -> tuple[list[list[Any]], FloatArray]:
    """The simplified track as `[lat, lon, epoch seconds, km/h or None]` points, and the
    continuous longitudes of every position (for placing events on the track).

    `reference` is the longitude the first position should be near (a stop's, or the last
    point already drawn). Works on arrays: a track can hold 100,000 positions."""
    count = len(positions)
    if not count:
        return [], np.zeros(0)
    latitudes = np.fromiter((p.latitude for p in positions), np.float64, count)
    longitudes = np.unwrap(
        np.fromiter((p.longitude for p in positions), np.float64, count), period=360.0
    )
    if reference is not None:
        longitudes += _near(float(longitudes[0]), reference) - float(longitudes[0])
    kept = simplified(latitudes, longitudes)
    lat_text = np.round(latitudes[kept], 6).tolist()
    lon_text = np.round(longitudes[kept], 6).tolist()
    points = []
    for index, lat, lon in zip(kept.tolist(), lat_text, lon_text, strict=True):
        position = positions[index]
        kmh = speed_kmh(position)
        points.append(
            [
                lat,
                lon,
                int(position.date_time.timestamp()),
                round(kmh, 1) if kmh is not None else None,
            ]
        )
    return points, longitudes


@dataclass(frozen=True)
class PlacedStop:
    stop: RouteStop
    number: int
    latitude: float | None
    longitude: float | None
    zone: str | None


def place_stops(stops: Sequence[RouteStop]) -> list[PlacedStop]:
    placed = []
    previous: float | None = None
    for number, stop in enumerate(stops, start=1):
        coordinates = stop.location.coordinates if stop.location else None
        window = stop.appointment_window
        zone = window.local_time_zone_identifier if window else None
        if coordinates is None:
            placed.append(PlacedStop(stop, number, None, None, zone))
            continue
        longitude = coordinates.longitude
        if previous is not None:
            longitude = _near(longitude, previous)
        previous = longitude
        placed.append(PlacedStop(stop, number, coordinates.latitude, longitude, zone))
    return placed


def _place_text(stop: RouteStop) -> str:
    address = stop.location.address if stop.location else None
    if address is None:
        return ""
    parts = [*address.address_lines, address.city, address.state, address.postal_code]
    text = ", ".join(p for p in parts if p)
    return f"{text} ({address.country})" if address.country and text else text


def _appointment_text(stop: RouteStop) -> str:
    window = stop.appointment_window
    if window is None or window.start_date_time is None:
        return ""
    zone = window.local_time_zone_identifier
    text = place_time(window.start_date_time, zone)
    if window.end_date_time is not None:
        text += " to " + place_time(window.end_date_time, zone)
    return text


def fence_of(location: StopLocation, latitude: float, longitude: float) -> Json | None:
    """A stop location's geofence as the page draws it: a box (bbox), a circle of the given
    distance, or for a travel-time fence a dashed circle reached at 40 km/h."""
    fence = location.geofence
    if fence is None:
        return None
    center = location.coordinates
    lat = center.latitude if center else latitude
    lon = _near(center.longitude, longitude) if center else longitude
    bbox = fence.geometry.bbox if fence.geometry else None
    if bbox and len(bbox) in (4, 6):
        half = len(bbox) // 2
        west, south, east, north = bbox[0], bbox[1], bbox[half], bbox[half + 1]
        shift = _near(west, lon) - west
        return {
            "shape": "rect",
            "south": south,
            "west": west + shift,
            "north": north,
            "east": east + shift,
            "label": "the area drawn on the map",
        }
    if fence.value is None or fence.value <= 0:
        return None
    kind = (fence.type or "").upper()
    units = (fence.units or "").upper()
    if kind == GeofenceType.DISTANCE and units in _METRES:
        radius = fence.value * _METRES[GeofenceUnits(units)]
        return {
            "shape": "circle",
            "lat": lat,
            "lon": lon,
            "radius": radius,
            "approximate": False,
            "label": f"within {fence.value:g} {units.lower()}",
        }
    if kind == GeofenceType.TIME and units in _SECONDS:
        seconds = fence.value * _SECONDS[GeofenceUnits(units)]
        return {
            "shape": "circle",
            "lat": lat,
            "lon": lon,
            "radius": seconds / 3600.0 * TIME_FENCE_KMH * 1000.0,
            "approximate": True,
            "label": (
                f"{fence.value:g} {units.lower()} away (drawn as the distance covered at "
                f"{TIME_FENCE_KMH:.0f} km/h)"
            ),
        }
    return None


def _category(event: TrackedShipmentEvent) -> str:
    kind = event.type.upper()
    if "EXCEPTION" in kind:
        return "exception"
    if event.date_time is None and event.estimate_date_time is not None:
        return "estimate"
    if any(word in kind for word in _MILESTONES):
        return "milestone"
    return "event"


def _type_text(kind: str) -> str:
    return kind.replace("_", " ").capitalize()


def _event_time(event: TrackedShipmentEvent) -> datetime | None:
    return event.date_time or event.estimate_date_time or event.planned_date_time


def _event_time_text(event: TrackedShipmentEvent, zone: str | None) -> str:
    if event.date_time is not None:
        return place_time(event.date_time, zone)
    if event.estimate_date_time is not None:
        return "expected " + place_time(event.estimate_date_time, zone)
    if event.planned_date_time is not None:
        return "planned " + place_time(event.planned_date_time, zone)
    return ""


class _Track:
    """Positions in time order with continuous longitudes, for placing events without a stop
    at the position reported nearest in time."""

    def __init__(self, positions: Sequence[TrackedShipmentPosition], longitudes: FloatArray):
        self.positions = positions
        self.longitudes = longitudes
        self._times: list[datetime] | None = None

    def at(self, when: datetime | None) -> tuple[float, float] | None:
        if when is None or not self.positions:
            return None
        if self._times is None:
            self._times = [p.date_time for p in self.positions]
        times = self._times
        index = bisect.bisect_left(times, when)
        candidates = [i for i in (index - 1, index) if 0 <= i < len(times)]
        best = min(candidates, key=lambda i: abs(times[i] - when))
        return self.positions[best].latitude, float(self.longitudes[best])


def _event_items(
    events: Iterable[TrackedShipmentEvent],
    exceptions: Iterable[ShipmentException],
    stops: dict[str, PlacedStop],
    track: _Track,
) -> list[Json]:
    items: list[Json] = []
    for event in events:
        if event.id is None:
            continue
        placed = stops.get(str(event.stop_id)) if event.stop_id else None
        zone = placed.zone if placed else None
        where = ""
        spot: tuple[float, float] | None = None
        at_stop = placed is not None and placed.latitude is not None
        if placed is not None and placed.latitude is not None and placed.longitude is not None:
            spot = (placed.latitude, placed.longitude)
            where = f"At stop {placed.number}: {placed.stop.name or ''}".rstrip(": ")
        else:
            spot = track.at(_event_time(event))
            where = "Placed at the position reported nearest in time" if spot else ""
        if spot is None:
            continue
        label = event.description or event_text(
            event.type, place_name(placed.stop) if placed else None
        )
        items.append(
            {
                "key": f"event:{event.id}",
                "category": _category(event),
                "label": label,
                "type": _type_text(event.type),
                "time": _event_time_text(event, zone),
                "description": event.description if event.description != label else "",
                "where": where,
                "atStop": at_stop,
                "lat": spot[0],
                "lon": spot[1],
            }
        )
    for exception in exceptions:
        if exception.id is None or exception.status is not ExceptionStatus.OPEN:
            continue
        placed = stops.get(str(exception.stop_id)) if exception.stop_id else None
        if placed is not None and placed.latitude is not None and placed.longitude is not None:
            spot = (placed.latitude, placed.longitude)
        else:
            spot = track.at(exception.created_date_time)
        if spot is None:
            continue
        items.append(
            {
                "key": f"exception:{exception.id}",
                "category": "exception",
                "label": _type_text(exception.type) + " (open exception)",
                "type": f"{exception.severity.value.title()} severity",
                "time": place_time(exception.created_date_time, placed.zone if placed else None),
                "description": exception.description or "",
                "where": f"At stop {placed.number}" if placed else "",
                "atStop": placed is not None and placed.latitude is not None,
                "lat": spot[0],
                "lon": spot[1],
            }
        )
    # Markers on one spot (and around a stop's marker) fan out around it.
    groups: dict[tuple[float, float], list[Json]] = defaultdict(list)
    for item in items:
        groups[(round(item["lat"], 5), round(item["lon"], 5))].append(item)
    for group in groups.values():
        for slot, item in enumerate(group):
            item["slot"], item["slots"] = slot, len(group)
    return items


def next_eta(history: TrackingHistory, stops: dict[str, PlacedStop]) -> Json | None:
    """The earliest estimate of something that has not happened yet."""
    pending = [
        e for e in history.events if e.date_time is None and e.estimate_date_time is not None
    ]
    if not pending:
        return None
    event = min(pending, key=lambda e: e.estimate_date_time or datetime.max)
    placed = stops.get(str(event.stop_id)) if event.stop_id else None
    name = (placed.stop.name if placed else None) or ""
    return {
        "label": f"ETA {name}".strip() if name else "Next ETA",
        "time": place_time(event.estimate_date_time, placed.zone if placed else None),
    }


def _current(position: TrackedShipmentPosition, longitude: float, zone: str | None) -> Json:
    kmh = speed_kmh(position)
    return {
        "lat": position.latitude,
        "lon": longitude,
        "heading": position.heading,
        "epoch": position.date_time.timestamp(),
        "time": place_time(position.date_time, zone),
        "speedText": speed_text(kmh),
    }


@dataclass
class ShipmentPicture:
    """The payload for the page, and what a later update needs to extend the route."""

    payload: Json
    position_count: int
    last_position: TrackedShipmentPosition | None
    last_longitude: float | None


def shipment_picture(
    history: TrackingHistory, fences: dict[str, Json] | None = None
) -> ShipmentPicture:
    """Everything the shipment map draws. `fences` are geofences by stop id."""
    shipment = history.shipment
    stops = shipment.route_info.stops if shipment.route_info else []
    placed = place_stops(stops)
    by_id = {str(p.stop.id): p for p in placed if p.stop.id is not None}
    first_stop = next((p.longitude for p in placed if p.longitude is not None), None)
    positions = ordered_positions(history.positions)
    points, longitudes = route_points(positions, first_stop)
    track = _Track(positions, longitudes)
    last_zone = next((p.zone for p in reversed(placed) if p.zone), None)
    stop_items = []
    for stop in placed:
        kind, label = STOP_KINDS.get(stop.stop.type, _PLAIN_STOP) if stop.stop.type else _PLAIN_STOP
        item: Json = {
            "id": str(stop.stop.id) if stop.stop.id else f"n{stop.number}",
            "number": stop.number,
            "kind": kind,
            "typeLabel": label,
            "name": stop.stop.name or "",
            "place": _place_text(stop.stop),
            "appointment": _appointment_text(stop.stop),
            "lat": stop.latitude,
            "lon": stop.longitude,
        }
        fence = (fences or {}).get(item["id"])
        if fence is not None:
            item["fence"] = fence
        stop_items.append(item)
    payload: Json = {
        "id": str(shipment.id),
        "route": points,
        "stops": stop_items,
        "events": _event_items(history.events, history.exceptions, by_id, track),
        "current": _current(positions[-1], float(longitudes[-1]), last_zone) if positions else None,
        "eta": next_eta(history, by_id),
    }
    return ShipmentPicture(
        payload,
        len(positions),
        positions[-1] if positions else None,
        float(longitudes[-1]) if len(longitudes) else None,
    )


def appended_points(
    before: ShipmentPicture, positions: Sequence[TrackedShipmentPosition]
) -> list[list[Any]] | None:
    """The points to add when `positions` only extend what `before` drew, else None (then the
    whole route is drawn again, e.g. when the service thinned a long track differently)."""
    count = before.position_count
    last = before.last_position
    if last is None or before.last_longitude is None or len(positions) <= count:
        return None
    anchor = positions[count - 1]
    if (anchor.date_time, anchor.latitude, anchor.longitude) != (
        last.date_time,
        last.latitude,
        last.longitude,
    ):
        return None
    points, _ = route_points(positions[count - 1 :], before.last_longitude)
    return points[1:]  # the anchor is drawn already


# --- the fleet -------------------------------------------------------------------------------


def fleet_status(summary: SummaryRow) -> str:
    if summary.open_exception_count:
        return "exception"
    return {
        "IN_TRANSIT": "transit",
        "AT_STOP": "stop",
        "SCHEDULED": "scheduled",
        "COMPLETED": "completed",
    }.get(summary.current_state or "", "scheduled")


def fleet_items(
    summaries: Iterable[SummaryRow],
    positions: dict[str, LatestPosition],
    *,
    include_completed: bool = False,
) -> list[Json]:
    """One marker per shipment in `summaries` that has a position (active ones only, unless
    completed shipments are wanted too)."""
    items = []
    for summary in summaries:
        if summary.current_state == "COMPLETED" and not include_completed:
            continue
        position = positions.get(summary.id)
        if position is None:
            continue
        kmh = (
            position.speed * _KMH.get(position.speed_unit or SpeedUnit.KILOMETERS_PER_HOUR, 1.0)
            if position.speed is not None
            else None
        )
        route = " → ".join(p for p in (summary.origin_name, summary.destination_name) if p)
        items.append(
            {
                "id": summary.id,
                "lat": position.latitude,
                "lon": position.longitude,
                "heading": position.heading,
                "status": fleet_status(summary),
                "exceptions": summary.open_exception_count,
                "label": summary.primary_identifier or summary.id,
                "route": route,
                "epoch": position.date_time.timestamp(),
                "speedText": speed_text(kmh),
            }
        )
    return items
