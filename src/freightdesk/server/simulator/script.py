"""A demo shipment's plan as the time-ordered things its carrier reports: the script.

A `ShipmentPlan` already holds everything that will happen to a shipment (the demo simulated it
to its end). The script turns that into what reaches the service and when, per mode:

- truckload and LTL carriers push truckload tracking updates: the plan's milestones as
  `shipmentEvent`s with their stop numbers, and a reading at every position fix (position,
  speed and heading, fuel, ignition, and for reefer loads the zone temperatures). Incidents
  are pushed as the event types the push path knows (`DELIVERY_MISSED` for a late delivery,
  `EXCEPTION` otherwise); the truckload push cannot carry an ETA, so the estimate to the next
  stop is written to the shipment directly.
- parcel carriers push parcel status updates: one scan per milestone (pickup, every sort
  facility, out for delivery, delivery) with the facility's address and coordinates and the
  recomputed ETA to the door; a failed attempt is a `DELIVERY_MISSED`.
- rail, ocean and air carriers have no push operation in the interface, so their milestones
  (with ocean event codes and rollover details), lifecycle moves, positions, exceptions and
  estimates are written through the tracking domain with their mode as the source, exactly as
  the demo seeding wrote their past.

Every item has a sequence number that does not depend on when the script is read (`seq`), so
ids derived from it repeat after a restart.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.tracking import (
    ExceptionStatus,
    ShipmentException,
    ShipmentStateType,
    SpeedUnit,
    TrackedShipmentEvent,
    TrackedShipmentPosition,
)
from freightdesk.server.demo.geography import PLACES, Place, short_km
from freightdesk.server.demo.itineraries import (
    ShipmentPlan,
    fixes_until,
    new_id,
    states_until,
)
from freightdesk.server.demo.seed import carrier_event
from freightdesk.server.domain.push_intake import PARCEL, TRUCKLOAD
from freightdesk.server.simulator.telemetry import reefer_for, sensor, stable_random, tank_for

TRUCK_MODES = frozenset({Mode.TL, Mode.LTL})
PUSHED_MODES = TRUCK_MODES | {Mode.PARCEL}
_END = datetime(2200, 1, 1, tzinfo=UTC)

# How often a carrier recomputes the ETA to the next stop while the shipment moves.
ETA_EVERY: dict[Mode, timedelta] = {
    Mode.TL: timedelta(hours=1),
    Mode.LTL: timedelta(hours=2),
    Mode.RAIL: timedelta(hours=4),
    Mode.AIR: timedelta(hours=1),
    # Ocean carriers update a vessel's ETA once a day.
    Mode.OCEAN: timedelta(days=1),
}

# Plan event types and the parcel status update event types they are pushed as.
_PARCEL_EVENTS = {
    "SHIPMENT_CREATED": "SHIPMENT_CREATED",
    "ARRIVAL_AT_STOP": "ARRIVED_AT_STOP",
    "PICKED_UP": "PICKED_UP",
    "ARRIVED_AT_FACILITY": "ARRIVED_AT_STOP",
    "DEPARTED_FACILITY": "DEPARTED_STOP",
    "OUT_FOR_DELIVERY": "OUT_FOR_DELIVERY",
    "DELIVERED": "DELIVERED",
}


# --- what an item does --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Creation:
    """The shipper books the shipment: it appears in the list, SCHEDULED."""


@dataclass(frozen=True, slots=True)
class Push:
    """A carrier push (`TRUCKLOAD` or `PARCEL`); `body` in wire names, not yet validated."""

    kind: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Event:
    event: TrackedShipmentEvent


@dataclass(frozen=True, slots=True)
class State:
    type: ShipmentStateType
    stop_id: str | None


@dataclass(frozen=True, slots=True)
class Position:
    position: TrackedShipmentPosition


@dataclass(frozen=True, slots=True)
class Opening:
    exception: ShipmentException


@dataclass(frozen=True, slots=True)
class Closing:
    """The problem an incident raised is over: close the shipment's open exception of one of
    `types` created at `opened_at`."""

    types: frozenset[str]
    opened_at: datetime
    resolved_at: datetime


@dataclass(frozen=True, slots=True)
class Eta:
    stop_id: str
    eta: datetime
    description: str


Action = Creation | Push | Event | State | Position | Opening | Closing | Eta


@dataclass(frozen=True, slots=True)
class Item:
    """One thing that happens to a shipment, due at `due` (never before its booking)."""

    due: datetime
    seq: int
    action: Action
    # Routine reports (positions, hourly ETAs) may be thinned at high speeds: their index
    # among the shipment's routine reports. None: always reported.
    routine: int | None = None


# Sequence number blocks of the item streams (several hundred thousand items each at most).
_STREAMS = {"creation": 0, "events": 1, "fixes": 2, "states": 3, "incidents": 4, "etas": 5}
_BLOCK = 10_000_000


def _seq(stream: str, index: int) -> int:
    return _STREAMS[stream] * _BLOCK + index


# --- the script -----------------------------------------------------------------------------


def _as_booked(plan: ShipmentPlan, booked_at: datetime) -> ShipmentPlan:
    """A booked shipment's plan as the simulator books it, at `booked_at`: nothing in it
    happens earlier.

    `plan_booking` places the scenario's own booking only near `booked_at` (sites' opening
    hours move it by up to most of a day either way), and the booking's milestone
    (PICKUP_REQUESTED, SHIPMENT_CREATED, BOOKED, BOOKING_CONFIRMED) is dated at the scenario's
    moment. Reported as planned, a shipment the scenario booked earlier would push, the moment
    it is booked, a milestone hours older than the clock: pushes would no longer come in time
    order, which the customer would see as a late report and which a restart relies on (it
    resumes at the moment of the last push). The booking's milestones happen at the booking.
    """

    def at_booking(moment: datetime) -> datetime:
        return max(moment, booked_at)

    earliest = min(
        [plan.booked_at, *(e.at for e in plan.events), *(i.start for i in plan.incidents)]
        + [fix.at for leg in plan.legs for fix in leg.fixes[:1]]
    )
    if earliest >= booked_at:
        return plan
    return replace(
        plan,
        booked_at=at_booking(plan.booked_at),
        events=[replace(e, at=at_booking(e.at)) for e in plan.events],
        incidents=[
            replace(i, start=at_booking(i.start), end=i.end if i.end is None else at_booking(i.end))
            for i in plan.incidents
        ],
        # A truck does not report for a load before it is booked (it never leaves that early:
        # a booked shipment starts an hour after its booking at the earliest).
        legs=[
            replace(leg, fixes=[fix for fix in leg.fixes if fix.at >= booked_at])
            for leg in plan.legs
        ],
    )


@dataclass
class Script:
    """What the carriers of one planned shipment report, for the customer tenant `account`
    (its tenant uuid, the `customerAccountNumber` of pushes)."""

    plan: ShipmentPlan
    world: str
    account: str
    # When the shipper books it (None: it exists already, seeded before `world` began).
    booked_at: datetime | None = None

    def __post_init__(self) -> None:
        if self.booked_at is not None:
            self.plan = _as_booked(self.plan, self.booked_at)

    @property
    def number(self) -> int:
        return self.plan.number

    @property
    def begins(self) -> datetime:
        return self.booked_at or self.plan.booked_at

    @property
    def ends(self) -> datetime:
        """When the last report is due."""
        plan = self.plan
        last = max(
            [plan.delivered_at, *(e.at for e in plan.events)]
            + [i.end for i in plan.incidents if i.end is not None]
        )
        return last + timedelta(minutes=1)

    @property
    def moving_span(self) -> tuple[datetime, datetime]:
        return self.plan.origin.departure, self.plan.destination.arrival

    def items(self, after: datetime) -> Iterator[Item]:
        """The items due after `after`, in order of (due, seq)."""
        streams = [
            self._creation(),
            self._events(after),
            self._fixes(after),
            self._states(),
            self._incidents(),
            self._etas(),
        ]
        merged = heapq.merge(*streams, key=lambda item: (item.due, item.seq))
        return (item for item in merged if item.due > after)

    def closings(self) -> list[Item]:
        """The items that close what the shipment's incidents opened."""
        return [item for item in self._incidents() if isinstance(item.action, Closing)]

    def _due(self, at: datetime) -> datetime:
        return max(at, self.booked_at) if self.booked_at is not None else at

    # --- streams --------------------------------------------------------------------------

    def _creation(self) -> Iterator[Item]:
        if self.booked_at is not None:
            yield Item(self.booked_at, _seq("creation", 0), Creation())

    def _events(self, after: datetime) -> Iterator[Item]:
        plan = self.plan
        for index, event in enumerate(plan.events):
            due, seq = self._due(event.at), _seq("events", index)
            if due <= after:
                continue
            if event.type == "EXCEPTION" and plan.mode in PUSHED_MODES:
                continue  # pushed as the incident itself (see _incidents)
            if plan.mode in TRUCK_MODES:
                shipment_event: dict[str, Any] = {"type": event.type, "dateTime": event.at}
                if event.stop is not None:
                    shipment_event["stopNumber"] = event.stop + 1
                yield Item(due, seq, self._truckload({"shipmentEvent": shipment_event}))
            elif plan.mode is Mode.PARCEL:
                kind = _PARCEL_EVENTS.get(event.type)
                if kind is not None:
                    yield Item(due, seq, self._scan(kind, event.at, event.description))
            else:
                rng = stable_random(self.world, plan.number, "event", index)
                received_by = event.at + timedelta(minutes=10)
                yield Item(due, seq, Event(carrier_event(plan, index, received_by, rng)))

    def _fixes(self, after: datetime) -> Iterator[Item]:
        plan = self.plan
        if plan.mode is Mode.PARCEL:
            return  # parcel positions are the scans' locations
        truck = plan.mode in TRUCK_MODES
        tank = tank_for(plan, self.world)
        reefer = reefer_for(plan, self.world)
        excursion_reported = False
        km = 0.0
        previous = None
        for index, fix in enumerate(fixes_until(plan, _END)):
            if previous is not None:
                km += short_km(
                    (previous.latitude, previous.longitude), (fix.latitude, fix.longitude)
                )
            previous = fix
            # The reefer's alarm goes with the first reading of the excursion.
            alarm = reefer is not None and reefer.in_excursion(fix.at) and not excursion_reported
            excursion_reported = excursion_reported or alarm
            due = self._due(fix.at)
            if due <= after:
                continue
            seq = _seq("fixes", index)
            if not truck:
                position = TrackedShipmentPosition.model_construct(
                    date_time=fix.at,
                    latitude=fix.latitude,
                    longitude=fix.longitude,
                    speed=fix.speed_kmh,
                    speed_unit=SpeedUnit.KILOMETERS_PER_HOUR,
                    heading=fix.heading,
                )
                yield Item(due, seq, Position(position), routine=index)
                continue
            reading: dict[str, Any] = {
                "readings": {
                    "dateTime": fix.at,
                    "position": {
                        "latitude": fix.latitude,
                        "longitude": fix.longitude,
                        "speed": fix.speed_kmh,
                        "heading": fix.heading,
                        "speedUnit": SpeedUnit.KILOMETERS_PER_HOUR.value,
                    },
                    "sensor": sensor(fix, index, km, tank, reefer),
                }
            }
            if alarm:
                # The carrier reports the excursion with the reading.
                reading["shipmentEvent"] = {"type": "EXCEPTION", "dateTime": fix.at}
                yield Item(due, seq, self._truckload(reading))
                continue
            yield Item(due, seq, self._truckload(reading), routine=index)

    def _states(self) -> Iterator[Item]:
        plan = self.plan
        if plan.mode in PUSHED_MODES:
            return  # the pushed milestones move the lifecycle
        for index, move in enumerate(states_until(plan, _END)):
            stop_id = str(plan.stops[move.stop].id) if move.stop is not None else None
            yield Item(self._due(move.at), _seq("states", index), State(move.type, stop_id))

    def _incidents(self) -> Iterator[Item]:
        plan = self.plan
        found: list[Item] = []
        for index, incident in enumerate(plan.incidents):
            stop = plan.stops[incident.stop] if incident.stop is not None else None
            opened = _seq("incidents", 2 * index)
            types = {incident.type}
            if plan.mode in TRUCK_MODES:
                kind = "DELIVERY_MISSED" if incident.type == "DELAY" else "EXCEPTION"
                types.add(kind)
                shipment_event: dict[str, Any] = {"type": kind, "dateTime": incident.start}
                if incident.stop is not None:
                    shipment_event["stopNumber"] = incident.stop + 1
                action: Action = self._truckload({"shipmentEvent": shipment_event})
            elif plan.mode is Mode.PARCEL:
                kind = "DELIVERY_MISSED" if incident.type == "DELIVERY_MISSED" else "EXCEPTION"
                types.add(kind)
                action = self._scan(kind, incident.start, incident.description)
            else:
                rng = stable_random(self.world, plan.number, "incident", index)
                action = Opening(
                    ShipmentException(
                        id=new_id(rng),
                        type=incident.type,
                        status=ExceptionStatus.OPEN,
                        severity=incident.severity,
                        description=incident.description,
                        stop_id=stop.id if stop is not None else None,
                        created_date_time=incident.start,
                    )
                )
            found.append(Item(self._due(incident.start), opened, action))
            if incident.end is not None:
                closing = Closing(frozenset(types), incident.start, incident.end)
                found.append(Item(self._due(incident.end), opened + 1, closing))
        reefer = reefer_for(plan, self.world)
        if reefer is not None and reefer.excursion is not None:
            fixes = [fix.at for fix in fixes_until(plan, _END)]
            began = next((at for at in fixes if reefer.in_excursion(at)), None)
            ended = next((at for at in fixes if at >= reefer.excursion[1]), None)
            if began is not None and ended is not None:
                seq = _seq("incidents", 2 * len(plan.incidents))
                closing = Closing(frozenset({"EXCEPTION"}), began, ended)
                found.append(Item(self._due(ended), seq + 1, closing))
        found.sort(key=lambda item: (item.due, item.seq))
        yield from found

    def _etas(self) -> Iterator[Item]:
        plan = self.plan
        if plan.mode is Mode.PARCEL:
            return  # every scan carries the ETA
        stops = plan.stops
        moments: list[tuple[datetime, bool]] = []
        if self.booked_at is not None:
            moments.append((self.booked_at, False))
        every = ETA_EVERY[plan.mode]
        began, ended = self.moving_span
        step = every.total_seconds()
        offset = timedelta(minutes=plan.number % 53)
        tick = datetime.fromtimestamp((began.timestamp() // step + 1) * step, UTC) + offset
        while tick < ended:
            moments.append((tick, True))
            tick += every
        moments += [(stop.departure + timedelta(minutes=1), False) for stop in stops[:-1]]
        moments.sort()
        for index, (at, routine) in enumerate(moments):
            ahead = [stop for stop in stops if stop.arrival > at]
            if not ahead:
                continue
            # At booking, every stop's estimate, the next one last (it becomes the next ETA).
            targets = ahead[::-1] if at == self.booked_at else ahead[:1]
            for place, stop in enumerate(targets):
                seq = _seq("etas", index * 16 + place)
                eta = estimate(self.world, plan.number, seq, stop.arrival, at)
                action = Eta(str(stop.id), eta, f"Estimated arrival at {stop.place.name}")
                yield Item(self._due(at), seq, action, routine=index if routine else None)

    # --- push bodies ----------------------------------------------------------------------

    def _truckload(self, fields: dict[str, Any]) -> Push:
        identifiers = dict(self.plan.identifiers)
        keys: dict[str, Any] = {"billOfLadingNumber": identifiers["BILL_OF_LADING"]}
        if "PURCHASE_ORDER" in identifiers:
            keys["orderNumber"] = identifiers["PURCHASE_ORDER"]
        body = {
            "customerAccountNumber": self.account,
            "truckload": {"identifiers": keys, **fields},
        }
        return Push(TRUCKLOAD, body)

    def _scan(self, kind: str, at: datetime, description: str | None) -> Push:
        plan = self.plan
        identifiers = dict(plan.identifiers)
        body: dict[str, Any] = {
            "customerAccountNumber": self.account,
            "carrierIdentifier": {"type": "SCAC", "value": plan.carrier.scac},
            "shipmentIdentifiers": [
                {"type": "TRACKING_NUMBER", "value": identifiers["TRACKING_NUMBER"]}
            ],
            "eventType": kind,
            # Parcel carriers report to the second.
            "timestamp": at.replace(microsecond=0),
        }
        if description:
            body["description"] = description[:1000]
        place = self._scanned_at(at)
        if place is not None:
            body["location"] = {
                "address": {
                    "addressLines": [place.street] if place.street else [],
                    "city": place.city,
                    "state": place.state,
                    "postalCode": place.postal_code,
                    "country": place.country,
                },
                "geoCoordinates": {"latitude": place.latitude, "longitude": place.longitude},
            }
        door = plan.destination.arrival
        if at < door:
            body["estimatedTimeOfArrival"] = estimate(self.world, plan.number, kind, door, at)
        return Push(PARCEL, body)

    def _scanned_at(self, at: datetime) -> Place | None:
        """Where the parcel was scanned at `at` (its legs' fixes are the scans)."""
        for fix in fixes_until(self.plan, at):
            if fix.at == at:
                return _place_at(self.plan, fix.latitude, fix.longitude)
        return None


def _place_at(plan: ShipmentPlan, latitude: float, longitude: float) -> Place | None:
    for place in itertools.chain((stop.place for stop in plan.stops), PLACES.values()):
        if place.latitude == latitude and place.longitude == longitude:
            return place
    return None


def estimate(world: str, number: int, key: object, arrival: datetime, at: datetime) -> datetime:
    """The carrier's estimate at `at` of an arrival that really happens at `arrival`: off by
    up to a few hours when it is days away, by minutes when it is near; never in the past."""
    hours_out = (arrival - at).total_seconds() / 3600
    rng = stable_random(world, number, "eta", key, at.isoformat())
    error = timedelta(minutes=round(rng.gauss(0, min(180.0, 3 + hours_out * 1.2))))
    guess = max(arrival + error, at + timedelta(minutes=5))
    return guess.replace(second=0, microsecond=0)
