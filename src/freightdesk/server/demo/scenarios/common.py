"""What every mode's scenario shares: the lane, stops, clocks and incident bookkeeping."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.durations import duration_text
from freightdesk.models.tracking import ExceptionSeverity as Severity
from freightdesk.models.tracking import StopType
from freightdesk.server.demo.geography import Place
from freightdesk.server.demo.itineraries import (
    EventPlan,
    IncidentPlan,
    LegPlan,
    ShipmentPlan,
    StopPlan,
    new_id,
)
from freightdesk.server.demo.lanes import Site
from freightdesk.server.demo.tracks import (
    EU_RULES,
    LINEHAUL_EU,
    LINEHAUL_US,
    US_RULES,
    Drive,
    DrivingRules,
    Fix,
    Path,
)
from freightdesk.server.domain.carrier_directory import Carrier, Region

H = timedelta(hours=1)
MIN = timedelta(minutes=1)
GS1_PREFIX = "0614141"  # the demo shipper's GS1 company prefix, for VICS bill of lading numbers


@dataclass(frozen=True)
class Lane:
    """What the demo chose for one shipment before simulating it."""

    mode: Mode
    region: Region
    carrier: Carrier
    stops: tuple[Site, ...]
    commodity: str
    pieces: int
    package: str
    weight_kg: float
    # Mode-specific choices: door-to-door forwarder, rail car instead of container, ...
    options: dict[str, str] = field(default_factory=dict)


def site_stop(
    rng: random.Random,
    kind: StopType,
    site: Site,
    planned_arrival: datetime,
    planned_departure: datetime,
    arrival: datetime,
    departure: datetime,
    window: tuple[datetime, datetime] | None = None,
) -> StopPlan:
    return StopPlan(
        id=new_id(rng),
        type=kind,
        place=site.place,
        hours=site.hours,
        planned_arrival=planned_arrival,
        planned_departure=planned_departure,
        arrival=arrival,
        departure=max(departure, arrival),
        appointment=window,
    )


def random_minutes(rng: random.Random, low: float, high: float) -> timedelta:
    """A random span in whole minutes (carriers report to the minute)."""
    return timedelta(minutes=round(rng.uniform(low, high)))


def random_hours(rng: random.Random, low: float, high: float) -> timedelta:
    return random_minutes(rng, low * 60, high * 60)


def rules_for(region: Region) -> DrivingRules:
    return US_RULES if region is Region.NORTH_AMERICA else EU_RULES


def linehaul_for(region: Region) -> DrivingRules:
    return LINEHAUL_US if region is Region.NORTH_AMERICA else LINEHAUL_EU


def place_label(place: Place) -> str:
    if place.kind == "CITY":
        return place.name
    return f"{place.name}, {place.city}"


def next_local(moment: datetime, place: Place, hour: int, minute: int = 0) -> datetime:
    """The first local `hour:minute` at the place at or after `moment`."""
    zone = ZoneInfo(place.time_zone)
    local = moment.astimezone(zone)
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate < local:
        candidate += timedelta(days=1)
    return candidate.astimezone(moment.tzinfo)


def next_business_local(moment: datetime, place: Place, hour: int, minute: int = 0) -> datetime:
    candidate = next_local(moment, place, hour, minute)
    while candidate.astimezone(ZoneInfo(place.time_zone)).weekday() >= 5:
        candidate += timedelta(days=1)
    return candidate


def scan(at: datetime, place: Place) -> Fix:
    return Fix(at, place.latitude, place.longitude, 0.0, 0.0)


def truck_leg(
    rng: random.Random,
    mode: Mode,
    origin: int,
    destination: int,
    path: Path,
    moved: Drive,
    lane: Lane,
) -> LegPlan:
    return LegPlan(
        id=new_id(rng),
        mode=mode,
        origin=origin,
        destination=destination,
        path=path,
        fixes=moved.fixes,
        vehicle="TRUCK_TRACTOR_TRAILER",
        co2_kg_per_km=0.86 if mode is Mode.TL else 0.3,
        load_factor=round(min(1.0, lane.weight_kg / 20000 + 0.35), 2),
    )


def late_incidents(
    stops: list[StopPlan], incidents: list[IncidentPlan], severity: Severity, first: int = 1
) -> None:
    """A delivery that arrives after its appointment window: a DELAY the dispatcher learns of
    when the vehicle is three hours out, resolved when it arrives."""
    for index, stop in enumerate(stops[first:], start=first):
        if stop.appointment is None:
            continue
        late = stop.arrival - stop.appointment[1]
        if late > timedelta(minutes=30):
            hours = late.total_seconds() / 3600
            incidents.append(
                IncidentPlan(
                    "DELAY",
                    Severity.HIGH if hours > 8 else severity,
                    f"Running {duration_text(late)} behind the appointment at {stop.place.name}",
                    max(stop.arrival - 3 * H, stops[index - 1].departure),
                    stop.arrival,
                    index,
                )
            )


def with_incident_events(plan: ShipmentPlan) -> None:
    """Every incident also shows in the event history when it begins."""
    for incident in plan.incidents:
        plan.events.append(
            EventPlan("EXCEPTION", incident.start, incident.description, stop=incident.stop)
        )
    plan.events.sort(key=lambda event: event.at)
