"""A demo shipment as plain data: its stops, legs, milestones, incidents and costs.

A `ShipmentPlan` holds the whole truth of one shipment, past and future: when it was planned
to reach each stop and when it really does (the scenario simulated it to the end). What the
service is told depends on "now": `reveal` keeps what has happened by then (events, positions,
states, exceptions as they stood) and turns the rest into estimates.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.tracking import ExceptionSeverity, ShipmentStateType, StopType
from freightdesk.server.demo.geography import Place
from freightdesk.server.demo.tracks import Fix, Path
from freightdesk.server.domain.carrier_directory import Carrier, Region

Hours = tuple[tuple[str, str, str], ...]


def new_id(rng: random.Random) -> uuid.UUID:
    """A version-4 uuid drawn from `rng`, so ids repeat with the seed."""
    return uuid.UUID(int=rng.getrandbits(128), version=4)


def floor_hour(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def ceil_minutes(moment: datetime, minutes: int) -> datetime:
    """The next multiple of `minutes` past the hour at or after `moment`."""
    base = floor_hour(moment)
    step = timedelta(minutes=minutes)
    while base < moment:
        base += step
    return base


@dataclass
class StopPlan:
    id: uuid.UUID
    type: StopType
    place: Place
    hours: Hours | None
    planned_arrival: datetime
    planned_departure: datetime
    arrival: datetime
    departure: datetime
    appointment: tuple[datetime, datetime] | None = None
    # A saved stop location of the shipper (set by the seeder once the location exists).
    location_id: str | None = None


@dataclass
class LegPlan:
    id: uuid.UUID
    mode: Mode
    origin: int
    destination: int
    path: Path
    fixes: list[Fix]
    identifiers: list[tuple[str, str]] = field(default_factory=list)
    # What moves the leg (its emissions' vehicleInfo, the Overview's Equipment); None for a
    # parcel: the carrier's network carries it in whatever it has, nothing the shipper books.
    vehicle: str | None = "TRUCK_TRACTOR_TRAILER"
    co2_kg_per_km: float = 0.86
    load_factor: float = 0.85


@dataclass
class EventPlan:
    type: str
    at: datetime
    description: str
    planned: datetime | None = None
    stop: int | None = None
    leg: int | None = None
    ocean_code: str | None = None
    # (reason, previous vessel, previous voyage, vessel, voyage, previous departure, new departure)
    rollover: tuple[str, str, str, str, str, datetime, datetime] | None = None


@dataclass
class IncidentPlan:
    type: str
    severity: ExceptionSeverity
    description: str
    start: datetime
    end: datetime | None
    stop: int | None = None


class CostTier(StrEnum):
    PLANNED = "PLANNED"
    ACTUAL = "ACTUAL"


@dataclass
class CostPlan:
    type: str
    amount: float
    currency: str


@dataclass
class DocumentPlan:
    kind: str  # BILL_OF_LADING, PROOF_OF_DELIVERY, AIRWAY_BILL, ...
    at: datetime


@dataclass
class ShipmentPlan:
    number: int
    mode: Mode
    region: Region
    carrier: Carrier
    identifiers: list[tuple[str, str]]
    booked_at: datetime
    stops: list[StopPlan]
    legs: list[LegPlan]
    events: list[EventPlan]
    incidents: list[IncidentPlan] = field(default_factory=list)
    costs: list[CostPlan] = field(default_factory=list)
    attributes: list[tuple[str, list[str]]] = field(default_factory=list)
    documents: list[DocumentPlan] = field(default_factory=list)
    planned_modes: list[Mode] = field(default_factory=list)
    access_group: uuid.UUID | None = None
    # Cargo, for documents and emissions.
    commodity: str = "Household goods"
    pieces: int = 1
    package: str = "PALLET"
    weight_kg: float = 1000.0

    @property
    def origin(self) -> StopPlan:
        return self.stops[0]

    @property
    def destination(self) -> StopPlan:
        return self.stops[-1]

    @property
    def delivered_at(self) -> datetime:
        return self.stops[-1].departure


# --- opening hours and appointments ------------------------------------------------------------


def _clock(text: str) -> time:
    if text == "24:00":
        return time(23, 59)
    hour, minute = text.split(":")
    return time(int(hour), int(minute))


def open_windows(hours: Hours, day: date) -> list[tuple[time, time]]:
    """The opening windows of a site on a local date."""
    weekday = day.weekday()
    return [
        (_clock(opens), _clock(closes)) for days, opens, closes in hours if days[weekday] == "1"
    ]


def appointment(
    place: Place, hours: Hours | None, earliest: datetime, length: timedelta
) -> tuple[datetime, datetime]:
    """The first window of `length` starting on the hour or half hour at or after `earliest`
    that fits in the site's opening hours (any time when it has none)."""
    zone = ZoneInfo(place.time_zone)
    start = ceil_minutes(earliest, 30)
    if hours is None:
        return start, start + length
    for _ in range(14 * 48):
        local = start.astimezone(zone)
        end_local = (start + length).astimezone(zone)
        for opens, closes in open_windows(hours, local.date()):
            if (
                opens <= local.time()
                and end_local.time() <= closes
                and end_local.date() == (local.date())
            ):
                return start, start + length
        start += timedelta(minutes=30)
    raise ValueError(f"{place.name} has no opening of {length} in two weeks")


def local_clock(moment: datetime, place: Place) -> str:
    """`14:30 CDT` in the stop's zone, for event descriptions."""
    local = moment.astimezone(ZoneInfo(place.time_zone))
    return f"{local:%H:%M} {local.tzname()}"


# --- what is known at a given moment ------------------------------------------------------------


@dataclass(frozen=True)
class StatePlan:
    type: ShipmentStateType
    at: datetime
    stop: int | None


def states_until(plan: ShipmentPlan, now: datetime) -> list[StatePlan]:
    """The lifecycle moves that happened by `now`, after the initial SCHEDULED:
    AT_STOP at each arrival, IN_TRANSIT at each departure, COMPLETED at the last departure."""
    moves: list[StatePlan] = []
    last = len(plan.stops) - 1
    for index, stop in enumerate(plan.stops):
        if stop.arrival <= now:
            moves.append(StatePlan(ShipmentStateType.AT_STOP, stop.arrival, index))
        if stop.departure <= now:
            if index == last:
                moves.append(StatePlan(ShipmentStateType.COMPLETED, stop.departure, None))
            else:
                moves.append(StatePlan(ShipmentStateType.IN_TRANSIT, stop.departure, None))
    return moves


def phase(plan: ShipmentPlan, now: datetime) -> ShipmentStateType:
    moves = states_until(plan, now)
    return moves[-1].type if moves else ShipmentStateType.SCHEDULED


def fixes_until(plan: ShipmentPlan, now: datetime) -> list[Fix]:
    found = [fix for leg in plan.legs for fix in leg.fixes if fix.at <= now]
    found.sort(key=lambda fix: fix.at)
    return found
