"""Sailings: a port pair's routings (`schedules.routings`) laid out week by week over the
published horizon, in the ports' local time, and written as the interface's routes."""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from freightdesk.models.schedules import (
    PointToPointRoute,
    PortCall,
    RouteLeg,
    ScheduleSort,
    Transshipment,
)
from freightdesk.server.domain.ports import PORTS, Port
from freightdesk.server.domain.schedules import (
    EPOCH,
    WEEK_HOURS,
    Routing,
    Service,
    carrier_names,
    routings,
)

__all__ = ["Sailing", "Window", "local_window", "route_view", "sailings", "sort_sailings"]

# The published horizon: departures from two weeks ago to a year ahead.
HORIZON_PAST = timedelta(days=14)
HORIZON_FUTURE = timedelta(days=365)
# Cargo is due at the port this long before the departure.
CUTOFF_HOURS = 24.0


@dataclass(frozen=True)
class Window:
    """Inclusive local dates at a port, as UTC hours after EPOCH [start, end)."""

    start: float
    end: float


def local_window(port: Port, first: date, last: date) -> Window:
    zone = ZoneInfo(port.time_zone)
    start = datetime.combine(first, time(0), tzinfo=zone)
    end = datetime.combine(last, time(0), tzinfo=zone) + timedelta(days=1)
    return Window(_hours(start), _hours(end))


def _hours(moment: datetime) -> float:
    return (moment - EPOCH).total_seconds() / 3600


def _moment(hours: float) -> datetime:
    return EPOCH + timedelta(hours=hours)


@dataclass(frozen=True)
class Sailing:
    """One routing on one week: enough to sort and page before building the answer."""

    routing: Routing
    week: int

    @property
    def depart(self) -> float:
        return self.routing.depart_hours + self.week * WEEK_HOURS

    @property
    def arrive(self) -> float:
        return self.routing.arrive_hours + self.week * WEEK_HOURS


def sailings(
    origin: str,
    destination: str,
    *,
    departure: Window | None,
    arrival: Window | None,
    carriers: Iterable[str] | None,
    transshipments_max: int | None,
    now: datetime,
) -> list[Sailing]:
    wanted = set(carriers) if carriers is not None else None
    horizon = Window(_hours(now - HORIZON_PAST), _hours(now + HORIZON_FUTURE))
    found: list[Sailing] = []
    for routing in routings(origin, destination):
        if wanted is not None and routing.carrier not in wanted:
            continue
        if transshipments_max is not None and routing.transshipments > transshipments_max:
            continue
        low, high = horizon.start, horizon.end
        if departure is not None:
            low, high = max(low, departure.start), min(high, departure.end)
        if arrival is not None:
            # Both windows are about the departure week: arrival = departure + transit.
            transit = routing.arrive_hours - routing.depart_hours
            low = max(low, arrival.start - transit)
            high = min(high, arrival.end - transit)
        first = math.ceil((low - routing.depart_hours) / WEEK_HOURS)
        last = math.floor((high - routing.depart_hours) / WEEK_HOURS)
        for week in range(first, last + 1):
            sailing = Sailing(routing, week)
            if low <= sailing.depart < high:
                found.append(sailing)
    return found


def sort_sailings(found: list[Sailing], order: ScheduleSort) -> None:
    def key(s: Sailing) -> tuple[float, float, str, int]:
        transit = s.arrive - s.depart
        if order is ScheduleSort.ARRIVAL_DATE_TIME:
            first = s.arrive
        elif order is ScheduleSort.TRANSIT_TIME:
            first = transit
        else:
            first = s.depart
        return (first, s.depart, s.routing.carrier, s.routing.transshipments)

    found.sort(key=key)


def _call(locode: str, hours: float) -> PortCall:
    port = PORTS[locode]
    when = _moment(hours).astimezone(ZoneInfo(port.time_zone)).replace(second=0, microsecond=0)
    return PortCall(locode=locode, port_name=port.name, country=port.country, date_time=when)


def _direction(origin: str, destination: str) -> str:
    delta = (PORTS[destination].longitude - PORTS[origin].longitude + 540) % 360 - 180
    return "E" if delta >= 0 else "W"


def _voyage(service: Service, voyage: int, origin: str, destination: str) -> str:
    started = _moment(service.start_hours + voyage * WEEK_HOURS)
    year, week, _ = started.isocalendar()
    return f"{year % 100:02d}{week:02d}{_direction(origin, destination)}"


def _days(hours: float) -> int:
    return max(1, round(hours / 24))


def route_view(sailing: Sailing) -> PointToPointRoute:
    routing, shift = sailing.routing, sailing.week * WEEK_HOURS
    legs: list[RouteLeg] = []
    for number, plan in enumerate(routing.legs, start=1):
        service = plan.service
        voyage = sailing.week + plan.voyage_offset
        start = service.ports[plan.origin_index]
        end = service.ports[plan.destination_index]
        legs.append(
            RouteLeg(
                sequence=number,
                service_code=service.code,
                service_name=service.name,
                vessel_name=service.vessels[voyage % len(service.vessels)],
                voyage_number=_voyage(service, voyage, start, end),
                departure=_call(start, plan.depart_hours + shift),
                arrival=_call(end, plan.arrive_hours + shift),
                transit_time_days=_days(plan.arrive_hours - plan.depart_hours),
            )
        )
    transshipments = [
        Transshipment(
            locode=before.arrival.locode,
            port_name=before.arrival.port_name,
            country=before.arrival.country,
            arrival_date_time=before.arrival.date_time,
            departure_date_time=after.departure.date_time,
        )
        for before, after in itertools.pairwise(legs)
    ]
    first, last = legs[0], legs[-1]
    key = "/".join(
        [routing.carrier, str(sailing.week)]
        + [f"{leg.service_code}:{leg.voyage_number}" for leg in legs]
        + [first.departure.locode, last.arrival.locode]
    )
    return PointToPointRoute(
        route_id=hashlib.sha256(key.encode()).hexdigest()[:20],
        carrier_code=routing.carrier,
        carrier_name=carrier_names()[routing.carrier],
        service_code=first.service_code,
        service_name=first.service_name,
        vessel_name=first.vessel_name,
        voyage_number=first.voyage_number,
        departure=first.departure,
        arrival=last.arrival,
        cargo_cutoff_date_time=first.departure.date_time - timedelta(hours=CUTOFF_HOURS),
        transit_time_days=_days(sailing.arrive - sailing.depart),
        transshipment_count=routing.transshipments,
        transshipments=transshipments,
        legs=legs,
    )
