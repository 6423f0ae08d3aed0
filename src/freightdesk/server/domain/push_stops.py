"""Which stop of a shipment's route a carrier's report is about: the truckload event's
`stopNumber`, the final stop for an ETA, and the stop a parcel's problem is at.

A parcel push names no stop. An exception it opens is placed where its `location` is, when
that is one of the route's stops (its coordinates within `REACH_KM` of the stop's, else its
address in the stop's postal code, or city and state); otherwise where the parcel was
going: a missed delivery at the delivery stop, any other problem at the stop the parcel is at
or heading to. A cancellation concerns the whole shipment: at a stop only by its location.
The push's event is at the stop too where the parcel was there (its location, a delivery
attempt), not where it was only heading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.addresses import country_code, region_key, subdivision_code
from freightdesk.models.common import Address
from freightdesk.models.push import ParcelEventType, ParcelLocation
from freightdesk.models.tracking import (
    ETA_EVENT_TYPE,
    RouteStop,
    ShipmentStateType,
    StopType,
)
from freightdesk.server.domain.places import haversine_km
from freightdesk.server.tables.tracking import Shipment, ShipmentEvent, ShipmentState

__all__ = [
    "NOWHERE",
    "REACH_KM",
    "Placement",
    "final_stop_id",
    "numbered_stop_id",
    "parcel_placement",
    "route_stops",
]

# A report this close to a stop's coordinates was made at the stop (a driver's scanner at the
# door, the stop's geocoded point); farther, it is somewhere on the way.
REACH_KM = 1.0
# Problems placed where the parcel was going when the report says nothing of where it was.
_AT_DELIVERY = frozenset({ParcelEventType.DELIVERY_MISSED})
_NOWHERE = frozenset({ParcelEventType.CANCELED})
# States of a shipment that has not left its first stop.
_NOT_MOVED = frozenset({None, ShipmentStateType.SCHEDULED.value})


@dataclass(frozen=True)
class Placement:
    """The stops (ids) of one report: the one it names, part of its identity (a replay names
    it again); the one its event is at; the one an exception it opens is at."""

    named: str | None = None
    event: str | None = None
    problem: str | None = None

    @classmethod
    def named_stop(cls, stop_id: str | None) -> Placement:
        """A report at the stop it names (a truckload event's stopNumber)."""
        return cls(stop_id, stop_id, stop_id)


NOWHERE = Placement()


def route_stops(shipment: Shipment) -> list[dict[str, Any]]:
    """The stops of the shipment's route as stored (wire data), in route order."""
    route = shipment.data.get("routeInfo") or {}
    stops = route.get("stops") or []
    return [stop for stop in stops if isinstance(stop, dict)]


def numbered_stop_id(shipment: Shipment, stop_number: int | None) -> str | None:
    """The id of the shipment's stop with this number (1 is the first stop of its route)."""
    stops = route_stops(shipment)
    if stop_number is None or stop_number > len(stops):
        return None
    found = stops[stop_number - 1].get("id")
    return str(found) if found else None


def final_stop_id(shipment: Shipment) -> str | None:
    stops = route_stops(shipment)
    found = stops[-1].get("id") if stops else None
    return str(found) if found else None


def parcel_placement(
    session: Session, shipment: Shipment, kind: ParcelEventType, location: ParcelLocation | None
) -> Placement:
    """Where a parcel push that opens an exception is (see the module): it names no stop."""
    stops = [RouteStop.model_validate(stop) for stop in route_stops(shipment)]
    ids = [str(stop.id) for stop in stops if stop.id is not None]
    if len(ids) != len(stops) or not stops:
        return NOWHERE
    if kind in _NOWHERE:
        going = None
    elif kind in _AT_DELIVERY:
        going = _delivery_stop(stops)
    else:
        going = _heading_to(session, shipment, ids)
    found = _located(stops, location, going) if location is not None else None
    if found is not None:
        return Placement(event=found, problem=found)
    # A delivery attempt is made at the door; any other report's stop is only ahead.
    return Placement(event=going if kind in _AT_DELIVERY else None, problem=going)


def _delivery_stop(stops: list[RouteStop]) -> str:
    """The last stop typed DELIVERY, else the final stop."""
    deliveries = [stop for stop in stops if stop.type is StopType.DELIVERY]
    return str((deliveries or stops)[-1].id)


def _heading_to(session: Session, shipment: Shipment, ids: list[str]) -> str:
    """The stop the shipment is at, else the one after the last stop it was seen at (as the
    Overview reads a history: an event that happened there, or a state there). One that
    moved without a stop said has left its first stop."""
    order = {stop_id: number for number, stop_id in enumerate(ids)}
    states = session.execute(
        select(ShipmentState.type, ShipmentState.stop_id, ShipmentState.end_at).where(
            ShipmentState.shipment_pk == shipment.pk, ShipmentState.stop_id.is_not(None)
        )
    ).all()
    for type_, stop_id, end_at in states:
        if type_ == ShipmentStateType.AT_STOP.value and end_at is None and stop_id in order:
            return str(stop_id)
    seen = [str(stop_id) for _, stop_id, _ in states]
    events = session.scalars(
        select(ShipmentEvent.data).where(
            ShipmentEvent.shipment_pk == shipment.pk,
            ShipmentEvent.date_time.is_not(None),
            ShipmentEvent.type != ETA_EVENT_TYPE,
        )
    )
    seen += [str(data["stopId"]) for data in events if data.get("stopId")]
    reached = max((order[stop_id] for stop_id in seen if stop_id in order), default=-1)
    if reached < 0 and shipment.current_state in _NOT_MOVED:
        return ids[0]
    return ids[min(max(reached, 0) + 1, len(ids) - 1)]


def _located(stops: list[RouteStop], location: ParcelLocation, going: str | None) -> str | None:
    """The stop the location is at: the nearest by coordinates within reach, else the one
    whose address it shares most of (of equals, the one the parcel was going to)."""
    point = location.geo_coordinates
    if point is not None:
        near = [
            (haversine_km(point.latitude, point.longitude, at.latitude, at.longitude), str(stop.id))
            for stop in stops
            if stop.location is not None and (at := stop.location.coordinates) is not None
        ]
        if near and min(near)[0] <= REACH_KM:
            return min(near)[1]
    if location.address is None:
        return None
    likeness = {
        str(stop.id): _likeness(location.address, stop.location.address)
        for stop in stops
        if stop.location is not None and stop.location.address is not None
    }
    best = max(likeness.values(), default=0)
    if best == 0:
        return None
    equals = [stop_id for stop_id, score in likeness.items() if score == best]
    return going if going in equals else equals[0]


def _likeness(reported: Address, stop: Address) -> int:
    """0: another place; 1: the same postal code (else city and state); 2: the same street
    address too."""
    country = country_code(reported.country)
    if country is None or country != country_code(stop.country):
        return 0
    ours, theirs = _postal_key(country, reported), _postal_key(country, stop)
    if ours and theirs:
        if ours != theirs:
            return 0
    elif not _key(reported.city) or _key(reported.city) != _key(stop.city):
        return 0
    else:
        states = {_state_key(country, address.state) for address in (reported, stop)}
        if len(states - {""}) > 1:  # a state on each side, not the same
            return 0
    lines = [
        _key(address.address_lines[0]) for address in (reported, stop) if address.address_lines
    ]
    return 2 if len(lines) == 2 and lines[0] and lines[0] == lines[1] else 1


def _key(text: str | None) -> str:
    return region_key(text) if text else ""


def _state_key(country: str, state: str | None) -> str:
    if not state:
        return ""
    return subdivision_code(country, state) or _key(state)


def _postal_key(country: str, address: Address) -> str:
    key = _key(address.postal_code)
    # A ZIP+4 is in its five-digit ZIP code.
    return key[:5] if country == "US" else key
