"""One shipment per call, per mode: its route, its plan, and what really happens on the way.

Each builder takes a `Lane` (what the demo chose: places, carrier, cargo) and a private
`random.Random`, and simulates the shipment from its first planned arrival `start` to the end:
planned times follow the carriers' usual schedules and the sites' opening hours; real times
add loading that runs long, traffic, drivers' rest, breakdowns, rolled-over containers,
customs holds. Calling a builder again with the same lane, seed and start gives the same plan.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.tracking import ExceptionSeverity as Severity
from freightdesk.models.tracking import StopType
from freightdesk.server.demo import identifiers as ids
from freightdesk.server.demo.carriers import Carrier
from freightdesk.server.demo.geography import PLACES, Place, Region, distance_km
from freightdesk.server.demo.itineraries import (
    EventPlan,
    IncidentPlan,
    LegPlan,
    ShipmentPlan,
    StopPlan,
    appointment,
    ceil_minutes,
    local_clock,
    new_id,
)
from freightdesk.server.demo.lanes import PARCEL_HUBS, Site
from freightdesk.server.demo.networks import road_nodes, road_waypoints, sea_waypoints
from freightdesk.server.demo.tracks import (
    AIR_STEP_KM,
    EU_RULES,
    LINEHAUL_EU,
    LINEHAUL_US,
    SEA_STEP_KM,
    US_RULES,
    Drive,
    DrivingRules,
    Fix,
    Hold,
    Path,
    drive,
    great_circle_path,
    nominal_drive_hours,
    road_path,
    run,
)

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


def _site_stop(
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


def _minutes(rng: random.Random, low: float, high: float) -> timedelta:
    """A random span in whole minutes (carriers report to the minute)."""
    return timedelta(minutes=round(rng.uniform(low, high)))


def _hours(rng: random.Random, low: float, high: float) -> timedelta:
    return _minutes(rng, low * 60, high * 60)


def _rules(region: Region) -> DrivingRules:
    return US_RULES if region is Region.NORTH_AMERICA else EU_RULES


def _linehaul(region: Region) -> DrivingRules:
    return LINEHAUL_US if region is Region.NORTH_AMERICA else LINEHAUL_EU


def _at(place: Place) -> str:
    if place.kind == "CITY":
        return place.name
    return f"{place.name}, {place.city}"


def _next_local(moment: datetime, place: Place, hour: int, minute: int = 0) -> datetime:
    """The first local `hour:minute` at the place at or after `moment`."""
    zone = ZoneInfo(place.time_zone)
    local = moment.astimezone(zone)
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate < local:
        candidate += timedelta(days=1)
    return candidate.astimezone(moment.tzinfo)


def _next_business_local(moment: datetime, place: Place, hour: int, minute: int = 0) -> datetime:
    candidate = _next_local(moment, place, hour, minute)
    while candidate.astimezone(ZoneInfo(place.time_zone)).weekday() >= 5:
        candidate += timedelta(days=1)
    return candidate


def _scan(at: datetime, place: Place) -> Fix:
    return Fix(at, place.latitude, place.longitude, 0.0, 0.0)


# --- truckload ------------------------------------------------------------------------------------


def truckload(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    rules = _rules(lane.region)
    sites = lane.stops
    paths = [road_path(road_waypoints(a.place, b.place)) for a, b in itertools.pairwise(sites)]
    window = appointment(sites[0].place, sites[0].hours, start, H)
    planned_arrivals = [window[0]]
    planned_departures = [window[0] + 2 * H]
    windows = [window]
    for index, path in enumerate(paths, start=1):
        earliest = planned_departures[-1] + timedelta(hours=nominal_drive_hours(path, rules))
        slot = appointment(sites[index].place, sites[index].hours, earliest, H)
        windows.append(slot)
        planned_arrivals.append(slot[0])
        planned_departures.append(slot[0] + timedelta(minutes=90))

    incidents: list[IncidentPlan] = []
    events: list[EventPlan] = []
    arrival = planned_arrivals[0] + _minutes(rng, -35, 50)
    if rng.random() < 0.05:
        # The carrier's truck broke down on the way to the pickup: a day late.
        late = _hours(rng, 18, 26)
        incidents.append(
            IncidentPlan(
                "MISSED_PICKUP",
                Severity.HIGH,
                "Carrier missed the pickup appointment; truck re-dispatched for the next day",
                windows[0][1],
                planned_arrivals[0] + late,
                0,
            )
        )
        arrival = planned_arrivals[0] + late
    departure = max(arrival, windows[0][0]) + _minutes(rng, 55, 170)
    arrivals, departures = [arrival], [departure]
    legs: list[LegPlan] = []
    for index, path in enumerate(paths, start=1):
        holds: list[Hold] = []
        trouble = _road_trouble(rng)
        if trouble is not None:
            holds.append(Hold(rng.uniform(0.2, 0.8) * path.length_km, trouble[3]))
        moved = drive(path, departures[-1], rules, rng=rng, report=not sketch, holds=holds)
        if trouble is not None:
            kind, severity, description, _minutes_held = trouble
            began, ended = moved.held[0]
            incidents.append(IncidentPlan(kind, severity, description, began, ended))
        legs.append(_truck_leg(rng, Mode.TL, index - 1, index, path, moved, lane))
        arrivals.append(moved.arrival)
        wait_until = max(moved.arrival, windows[index][0])
        departures.append(wait_until + _minutes(rng, 40, 150))

    stops = []
    for index, site in enumerate(sites):
        last = index == len(sites) - 1
        kind = StopType.PICKUP if index == 0 else StopType.DELIVERY
        stops.append(
            _site_stop(
                rng,
                kind,
                site,
                planned_arrivals[index],
                planned_departures[index],
                arrivals[index],
                departures[index],
                windows[index],
            )
        )
        place = site.place
        events.append(
            EventPlan(
                "ARRIVAL_AT_STOP",
                arrivals[index],
                f"Arrived at {_at(place)} ({local_clock(arrivals[index], place)})",
                planned=planned_arrivals[index],
                stop=index,
            )
        )
        if index == 0:
            events.append(
                EventPlan(
                    "PICKED_UP",
                    departures[0],
                    f"Loaded and departed {_at(place)}",
                    planned=planned_departures[0],
                    stop=0,
                    leg=0,
                )
            )
        elif last:
            events.append(
                EventPlan(
                    "DELIVERED",
                    departures[index],
                    f"Delivered to {place.name}; unloaded and signed for",
                    planned=planned_departures[index],
                    stop=index,
                )
            )
        else:
            events.append(
                EventPlan(
                    "DEPARTURE_FROM_STOP",
                    departures[index],
                    f"Departed {_at(place)}",
                    planned=planned_departures[index],
                    stop=index,
                    leg=index,
                )
            )
    dispatched = planned_arrivals[0] - _hours(rng, 3, 20)
    events.insert(0, EventPlan("DISPATCHED", dispatched, "Driver and tractor assigned"))
    _late_incidents(stops, incidents, Severity.MEDIUM)
    trailer = f"{rng.randrange(100, 999)}{rng.randrange(1000, 9999)}"
    for leg in legs:
        leg.identifiers.append(("TRAILER_ID", trailer))
    plan = ShipmentPlan(
        number=number,
        mode=Mode.TL,
        region=lane.region,
        carrier=lane.carrier,
        identifiers=[
            ("BILL_OF_LADING", ids.make_vics_bol(rng, GS1_PREFIX)),
            ("PURCHASE_ORDER", ids.make_purchase_order(rng)),
            ("CARRIER_SCAC", lane.carrier.scac),
        ],
        booked_at=dispatched - _hours(rng, 12, 96),
        stops=stops,
        legs=legs,
        events=events,
        incidents=incidents,
        planned_modes=[Mode.TL],
        commodity=lane.commodity,
        pieces=lane.pieces,
        package=lane.package,
        weight_kg=lane.weight_kg,
    )
    _with_incident_events(plan)
    return plan


def _road_trouble(rng: random.Random) -> tuple[str, Severity, str, int] | None:
    """Now and then a truck is stopped on the road: (type, severity, description, minutes)."""
    roll = rng.random()
    if roll < 0.10:
        return (
            "MECHANICAL_BREAKDOWN",
            Severity.HIGH,
            "Tractor broke down; roadside repair under way",
            rng.randrange(120, 330),
        )
    if roll < 0.16:
        return (
            "WEATHER_DELAY",
            Severity.MEDIUM,
            "Highway closed for severe weather; driver holding at a truck stop",
            rng.randrange(180, 480),
        )
    return None


def _truck_leg(
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


def _late_incidents(
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
                    f"Running {_duration(late)} behind the appointment at {stop.place.name}",
                    max(stop.arrival - 3 * H, stops[index - 1].departure),
                    stop.arrival,
                    index,
                )
            )


def _duration(span: timedelta) -> str:
    hours = span.total_seconds() / 3600
    if hours >= 36:
        return f"{hours / 24:.1f} days"
    if hours >= 1.5:
        return f"{hours:.0f} hours"
    return f"{span.total_seconds() / 60:.0f} minutes"


def _with_incident_events(plan: ShipmentPlan) -> None:
    """Every incident also shows in the event history when it begins."""
    for incident in plan.incidents:
        plan.events.append(
            EventPlan("EXCEPTION", incident.start, incident.description, stop=incident.stop)
        )
    plan.events.sort(key=lambda event: event.at)


# --- less than truckload --------------------------------------------------------------------------


def less_than_truckload(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    origin, destination = lane.stops
    hub_a, hub_b = PLACES[origin.place.node], PLACES[destination.place.node]
    linehaul = _linehaul(lane.region)
    window = appointment(origin.place, origin.hours, start, 4 * H)
    incidents: list[IncidentPlan] = []
    events: list[EventPlan] = []
    pickup = window[0] + _minutes(rng, 10, 210)
    if rng.random() < 0.06:
        incidents.append(
            IncidentPlan(
                "MISSED_PICKUP",
                Severity.MEDIUM,
                "Driver ran out of time on the route; pickup moved to the next business day",
                window[1],
                None,
                0,
            )
        )
        pickup = _next_business_local(window[1], origin.place, 14) + _minutes(rng, 0, 120)
        incidents[-1].end = pickup
    loaded = pickup + _minutes(rng, 15, 45)

    # Pickup and delivery runs with the city truck; linehaul between the carrier's terminals.
    collect = road_path([origin.place.point, hub_a.point], amplitude_scale=0.5)
    to_terminal = drive(
        collect,
        loaded,
        linehaul,
        rng=rng,
        report=not sketch,
        report_minutes=15,
        parked_report_minutes=60,
    )
    at_origin_terminal = to_terminal.arrival + _minutes(rng, 20, 90)
    nodes = list(road_nodes(hub_a.key, hub_b.key))
    total = distance_km(hub_a.point, hub_b.point)
    breakbulk = None
    if total > 1100 and len(nodes) > 2:
        breakbulk = min(
            nodes[1:-1],
            key=lambda key: abs(distance_km(hub_a.point, PLACES[key].point) - total / 2),
        )
    legs_nodes = (
        [[hub_a.key, breakbulk], [breakbulk, hub_b.key]] if breakbulk else [[hub_a.key, hub_b.key]]
    )
    fixes = list(to_terminal.fixes)
    depart = _next_local(at_origin_terminal, hub_a, rng.choice((21, 22, 23)))
    events.append(_terminal_event("ARRIVED_AT_TERMINAL", to_terminal.arrival, hub_a, lane.carrier))
    linehaul_path_points: list[tuple[float, float]] = [origin.place.point]
    for start_key, end_key in legs_nodes:
        assert start_key is not None and end_key is not None
        a, b = PLACES[start_key], PLACES[end_key]
        path = road_path(road_waypoints(a, b))
        events.append(_terminal_event("DEPARTED_TERMINAL", depart, a, lane.carrier))
        moved = drive(
            path,
            depart,
            linehaul,
            rng=rng,
            report=not sketch,
            report_minutes=15,
            parked_report_minutes=60,
        )
        fixes.extend(moved.fixes)
        linehaul_path_points.extend(path.points)
        events.append(_terminal_event("ARRIVED_AT_TERMINAL", moved.arrival, b, lane.carrier))
        depart = moved.arrival + _minutes(rng, 150, 330)
    arrived_hub = events[-1].at
    out_for_delivery = _next_business_local(arrived_hub + H, hub_b, 7, rng.choice((0, 15, 30, 45)))
    events.append(
        EventPlan(
            "OUT_FOR_DELIVERY", out_for_delivery, f"Out for delivery from {hub_b.name} terminal"
        )
    )
    deliver = road_path([hub_b.point, destination.place.point], amplitude_scale=0.5)
    first_drop = out_for_delivery + _minutes(rng, 20, 240)
    delivered_run = drive(
        deliver, first_drop, linehaul, rng=rng, report=not sketch, report_minutes=15
    )
    fixes.extend(delivered_run.fixes)
    arrival = delivered_run.arrival
    opening = appointment(destination.place, destination.hours, arrival, 30 * MIN)[0]
    done = max(arrival, opening) + _minutes(rng, 20, 60)
    linehaul_path_points.append(destination.place.point)

    # The plan: the carrier's standard transit days.
    transit_days = max(1, math.ceil(total / 750))
    planned_day = window[0]
    for _ in range(transit_days):
        planned_day = _next_business_local(planned_day + H, destination.place, 9)
    planned_window = (planned_day, planned_day + 4 * H)
    stops = [
        _site_stop(
            rng, StopType.PICKUP, origin, window[0], window[0] + 30 * MIN, pickup, loaded, window
        ),
        _site_stop(
            rng,
            StopType.DELIVERY,
            destination,
            planned_window[0],
            planned_window[0] + 45 * MIN,
            arrival,
            done,
            planned_window,
        ),
    ]
    events[:0] = [
        EventPlan(
            "ARRIVAL_AT_STOP",
            pickup,
            f"Driver arrived at {origin.place.name}",
            planned=window[0],
            stop=0,
        ),
        EventPlan(
            "PICKED_UP",
            loaded,
            f"Picked up {lane.pieces} {lane.package.lower()}s from {origin.place.name}",
            planned=window[0] + 30 * MIN,
            stop=0,
            leg=0,
        ),
    ]
    events += [
        EventPlan(
            "ARRIVAL_AT_STOP",
            arrival,
            f"Arrived at {destination.place.name} ({local_clock(arrival, destination.place)})",
            planned=planned_window[0],
            stop=1,
        ),
        EventPlan(
            "DELIVERED",
            done,
            f"Delivered to {destination.place.name}",
            planned=planned_window[0] + 45 * MIN,
            stop=1,
        ),
    ]
    if rng.random() < 0.08:
        incidents.append(
            IncidentPlan(
                "DAMAGE",
                Severity.HIGH,
                "Receiver noted 2 damaged cartons on the delivery receipt; claim to be filed",
                done,
                None,
                1,
            )
        )
    _late_incidents(stops, incidents, Severity.LOW)
    leg = LegPlan(
        id=new_id(rng),
        mode=Mode.LTL,
        origin=0,
        destination=1,
        path=Path(linehaul_path_points),
        fixes=fixes,
        co2_kg_per_km=0.3,
        load_factor=0.72,
    )
    account = lane.options["account"]
    booked = window[0] - _hours(rng, 6, 50)
    events.append(
        EventPlan(
            "PICKUP_REQUESTED",
            booked,
            f"Pickup requested at {origin.place.name} for {local_clock(window[0], origin.place)}",
        )
    )
    plan = ShipmentPlan(
        number=number,
        mode=Mode.LTL,
        region=lane.region,
        carrier=lane.carrier,
        identifiers=[
            ("PRO", ids.make_pro_number(rng, lane.carrier.pro_prefix)),
            ("BILL_OF_LADING", ids.make_vics_bol(rng, GS1_PREFIX)),
            ("PURCHASE_ORDER", ids.make_purchase_order(rng)),
            ("CAPACITY_PROVIDER_ACCOUNT_GROUP", account),
            ("CAPACITY_PROVIDER_ACCOUNT_CODE", lane.options["account_code"]),
        ],
        booked_at=booked,
        stops=stops,
        legs=[leg],
        events=events,
        incidents=incidents,
        planned_modes=[Mode.LTL],
        commodity=lane.commodity,
        pieces=lane.pieces,
        package=lane.package,
        weight_kg=lane.weight_kg,
    )
    _with_incident_events(plan)
    return plan


def _terminal_event(kind: str, at: datetime, city: Place, carrier: Carrier) -> EventPlan:
    verb = "Arrived at" if kind.startswith("ARRIVED") else "Departed"
    return EventPlan(kind, at, f"{verb} {carrier.name} terminal, {city.name}")


# --- parcel ---------------------------------------------------------------------------------------


def parcel(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    origin, destination = lane.stops
    facility_a, facility_b = PLACES[origin.place.node], PLACES[destination.place.node]
    hubs = [PLACES[key] for key in PARCEL_HUBS[lane.carrier.scac]]
    hub = min(
        hubs,
        key=lambda h: (
            distance_km(facility_a.point, h.point) + distance_km(h.point, facility_b.point)
        ),
    )
    express = lane.options.get("service") == "EXPRESS"
    pickup_planned = _next_local(start, origin.place, 16)
    pickup = pickup_planned + _minutes(rng, 0, 110)
    loaded = pickup + _minutes(rng, 5, 20)
    label = pickup_planned - _hours(rng, 2, 30)
    events = [
        EventPlan(
            "SHIPMENT_CREATED", label, "Shipping label created; the carrier awaits the parcel"
        ),
        EventPlan(
            "ARRIVAL_AT_STOP",
            pickup,
            f"Driver at {origin.place.name}",
            planned=pickup_planned,
            stop=0,
        ),
        EventPlan(
            "PICKED_UP",
            loaded,
            f"Picked up at {origin.place.city}",
            planned=pickup_planned,
            stop=0,
            leg=0,
        ),
    ]
    scans: list[tuple[str, datetime, Place]] = []
    t = loaded + timedelta(hours=distance_km(origin.place.point, facility_a.point) / 45 + 0.5)
    scans.append(("ARRIVED_AT_FACILITY", t, facility_a))
    t = _next_local(t, facility_a, 22, 30)
    scans.append(("DEPARTED_FACILITY", t, facility_a))
    route = (
        [facility_a, hub, facility_b]
        if hub.key not in (facility_a.key, facility_b.key)
        else [facility_a, facility_b]
    )
    speed = 700.0 if express else 70.0
    for previous, place in itertools.pairwise(route):
        hours = distance_km(previous.point, place.point) * (1.0 if express else 1.15) / speed
        t += timedelta(hours=hours + (1.0 if express else 0.5)) + _minutes(rng, 0, 60)
        scans.append(("ARRIVED_AT_FACILITY", t, place))
        if place is not facility_b:
            t += _minutes(rng, 90, 240)
            scans.append(("DEPARTED_FACILITY", t, place))
    out = _next_business_local(t + 30 * MIN, facility_b, 8, rng.choice((0, 10, 20, 40)))
    delivered = (
        out
        + timedelta(hours=distance_km(facility_b.point, destination.place.point) / 30)
        + _minutes(rng, 30, 300)
    )
    delivered = max(
        delivered, appointment(destination.place, destination.hours, delivered, 15 * MIN)[0]
    )
    incidents: list[IncidentPlan] = []
    for kind, at, place in scans:
        verb = "Arrived at" if kind.startswith("ARRIVED") else "Departed"
        events.append(EventPlan(kind, at, f"{verb} {lane.carrier.name} facility, {place.name}"))
    events.append(EventPlan("OUT_FOR_DELIVERY", out, "Out for delivery"))
    if rng.random() < 0.07:
        attempt = delivered
        events.append(
            EventPlan(
                "DELIVERY_ATTEMPTED",
                attempt,
                "Business closed; delivery will be reattempted",
                stop=1,
            )
        )
        delivered = _next_business_local(attempt + H, destination.place, 11) + _minutes(rng, 0, 180)
        incidents.append(
            IncidentPlan(
                "DELIVERY_MISSED",
                Severity.LOW,
                "Receiver closed at the delivery attempt; reattempt next business day",
                attempt,
                delivered,
                1,
            )
        )
    days = (
        1 if express else max(1, math.ceil(distance_km(facility_a.point, facility_b.point) / 650))
    )
    promised = pickup_planned
    for _ in range(days):
        promised = _next_business_local(promised + H, destination.place, 12)
    stops = [
        _site_stop(
            rng, StopType.PICKUP, origin, pickup_planned, pickup_planned + 15 * MIN, pickup, loaded
        ),
        _site_stop(
            rng,
            StopType.DELIVERY,
            destination,
            promised,
            promised + 5 * MIN,
            delivered,
            delivered + 3 * MIN,
            (promised - 4 * H, promised + 5 * H),
        ),
    ]
    events += [
        EventPlan(
            "ARRIVAL_AT_STOP",
            delivered,
            f"Driver at {destination.place.name}",
            planned=promised,
            stop=1,
        ),
        EventPlan(
            "DELIVERED",
            delivered + 3 * MIN,
            f"Delivered; signed for by {rng.choice(_SIGNERS)}",
            planned=promised,
            stop=1,
        ),
    ]
    fixes = [_scan(at, place) for _kind, at, place in scans]
    fixes.append(_scan(delivered, destination.place))
    leg = LegPlan(
        id=new_id(rng),
        mode=Mode.PARCEL,
        origin=0,
        destination=1,
        path=Path([origin.place.point, *(p.point for p in route), destination.place.point]),
        fixes=fixes,
        vehicle="FREIGHTER_AIRCRAFT" if express else "TRUCK_TRACTOR_TRAILER",
        co2_kg_per_km=0.02,
        load_factor=0.8,
    )
    identifiers = [
        ("TRACKING_NUMBER", ids.make_tracking_number(rng, lane.carrier.tracking_prefix)),
        ("CARRIER_SCAC", lane.carrier.scac),
        ("REFERENCE_NUMBER", ids.make_reference(rng, "SO")),
    ]
    if "account" in lane.options:
        identifiers.append(("CAPACITY_PROVIDER_ACCOUNT_GROUP", lane.options["account"]))
    plan = ShipmentPlan(
        number=number,
        mode=Mode.PARCEL,
        region=lane.region,
        carrier=lane.carrier,
        identifiers=identifiers,
        booked_at=label,
        stops=stops,
        legs=[leg],
        events=events,
        incidents=incidents,
        planned_modes=[Mode.PARCEL],
        commodity=lane.commodity,
        pieces=lane.pieces,
        package="CARTON",
        weight_kg=lane.weight_kg,
    )
    _with_incident_events(plan)
    return plan


_SIGNERS = ("M. Alvarez", "J. Chen", "R. Okafor", "S. Novak", "K. Brennan", "L. Moreau", "T. Weber")


# --- rail -----------------------------------------------------------------------------------------


def rail(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    origin, destination = lane.stops
    a, b = origin.place, destination.place
    europe = lane.region is Region.EUROPE
    nodes = list(road_nodes(a.node, b.node))
    path = road_path(road_waypoints(a, b), amplitude_scale=0.4)
    speed = 58.0 if europe else 66.0
    train_hour = rng.choice((1, 5, 18, 21) if not europe else (2, 20, 22))
    gate_in_planned = ceil_minutes(start, 60)
    departure_planned = _next_local(gate_in_planned + 6 * H, a, train_hour)
    yards = _yards(nodes, path, 700.0 if not europe else 450.0)
    nominal = path.length_km / speed + sum(h.minutes for _k, h in yards) / 60 * 0.8
    arrival_planned = ceil_minutes(departure_planned + timedelta(hours=nominal), 60)
    gate_out_planned = arrival_planned + 24 * H

    incidents: list[IncidentPlan] = []
    gate_in = gate_in_planned + _minutes(rng, -120, 480)
    departure = departure_planned + _minutes(rng, -15, 240)
    if rng.random() < 0.10:
        missed = departure
        departure = _next_local(departure + 6 * H, a, train_hour) + _minutes(rng, 0, 120)
        incidents.append(
            IncidentPlan(
                "TERMINAL_CONGESTION",
                Severity.MEDIUM,
                "Container not loaded on its planned train because of terminal congestion; "
                "moved to the next departure",
                missed,
                departure,
                0,
            )
        )
    moving = run(
        path,
        departure,
        speed,
        rng=rng,
        report=not sketch,
        report_minutes=30,
        stops=[Hold(h.at_km, int(h.minutes * rng.uniform(0.6, 1.6))) for _k, h in yards],
        end_speed_kmh=25.0,
        end_km=8.0,
    )
    arrival = moving.arrival
    unloaded = arrival + _minutes(rng, 120, 360)
    available = unloaded + _minutes(rng, 30, 180)
    gate_out = available + _minutes(rng, 240, 2880)
    stops = [
        _site_stop(
            rng, StopType.TERMINAL, origin, gate_in_planned, departure_planned, gate_in, departure
        ),
        _site_stop(
            rng,
            StopType.TERMINAL,
            destination,
            arrival_planned,
            gate_out_planned,
            arrival,
            gate_out,
        ),
    ]
    train = ids.make_train_number(rng)
    if europe:
        arrived_verb, departed_verb = "Wagon arrived at", "Train departed"
    else:
        arrived_verb, departed_verb = "Train arrived at", "Train departed"
    events = [
        EventPlan("GATE_IN", gate_in, f"Received at {a.name}", planned=gate_in_planned, stop=0),
        EventPlan(
            "LOADED_ON_RAIL", departure - _minutes(rng, 60, 180), f"Loaded on train {train}", stop=0
        ),
        EventPlan(
            "DEPARTURE_FROM_STOP",
            departure,
            f"{departed_verb} {a.name}",
            planned=departure_planned,
            stop=0,
            leg=0,
        ),
    ]
    for (key, _hold), (began, _ended) in zip(yards, moving.held, strict=True):
        city = PLACES[key]
        previous = PLACES[nodes[nodes.index(key) - 1]]
        if europe and previous.country != city.country:
            events.append(
                EventPlan(
                    "BORDER_CROSSED", began, f"Crossed into {city.country} near {city.name}", leg=0
                )
            )
        events.append(EventPlan("PASSED_YARD", began, f"At {city.name} yard", leg=0))
    events += [
        EventPlan(
            "ARRIVAL_AT_STOP", arrival, f"{arrived_verb} {b.name}", planned=arrival_planned, stop=1
        ),
        EventPlan("UNLOADED_FROM_RAIL", unloaded, "Unloaded from the train", stop=1),
        EventPlan("AVAILABLE_FOR_PICKUP", available, "Available for pickup", stop=1),
        EventPlan("GATE_OUT", gate_out, f"Picked up at {b.name}", planned=gate_out_planned, stop=1),
    ]
    if europe:
        identifiers = [
            ("WAGON_ID", ids.make_wagon_id(rng, "33", lane.carrier.keeper_country, "4955")),
            ("TRAIN_NUMBER", train),
        ]
        vehicle_ids = [("TRAIN_NUMBER", train)]
    elif lane.options.get("equipment") == "RAIL_CAR":
        identifiers = [
            ("RAIL_CAR_ID", ids.make_rail_car_id(rng, lane.carrier.reporting_mark)),
            ("WAYBILL", ids.make_rail_waybill(rng)),
            ("BILL_OF_LADING", ids.make_vics_bol(rng, GS1_PREFIX)),
        ]
        vehicle_ids = [("TRAIN_NUMBER", train)]
    else:
        identifiers = [
            ("CONTAINER_ID", ids.make_container_id(rng, lane.carrier.owner_code)),
            ("WAYBILL", ids.make_rail_waybill(rng)),
            ("BILL_OF_LADING", ids.make_vics_bol(rng, GS1_PREFIX)),
        ]
        vehicle_ids = [("TRAIN_NUMBER", train)]
    booked = gate_in_planned - _hours(rng, 24, 120)
    events.append(
        EventPlan("BOOKED", booked, f"Booked with {lane.carrier.name} from {a.name} to {b.name}")
    )
    leg = LegPlan(
        id=new_id(rng),
        mode=Mode.RAIL,
        origin=0,
        destination=1,
        path=path,
        fixes=moving.fixes,
        identifiers=vehicle_ids,
        vehicle="FREIGHT_TRAIN",
        co2_kg_per_km=0.25,
        load_factor=0.9,
    )
    plan = ShipmentPlan(
        number=number,
        mode=Mode.RAIL,
        region=lane.region,
        carrier=lane.carrier,
        identifiers=identifiers,
        booked_at=booked,
        stops=stops,
        legs=[leg],
        events=events,
        incidents=incidents,
        planned_modes=[Mode.RAIL],
        commodity=lane.commodity,
        pieces=lane.pieces,
        package=lane.package,
        weight_kg=lane.weight_kg,
    )
    _with_incident_events(plan)
    return plan


def _yards(nodes: list[str], path: Path, spacing_km: float) -> list[tuple[str, Hold]]:
    """Crew changes and yard work at network cities roughly every `spacing_km` (the path was
    built through the nodes, so node i lies at the path's waypoint i)."""
    yards: list[tuple[str, Hold]] = []
    last = 0.0
    for index, key in enumerate(nodes[1:-1], start=1):
        at_km = path.waypoint_km[index]
        if at_km - last >= spacing_km * 0.6:
            yards.append((key, Hold(at_km, 150)))
            last = at_km
    return yards


# --- ocean ----------------------------------------------------------------------------------------

_VESSELS = {
    "HOCS": ("Hanseatic Elbe", "Hanseatic Weser", "Hanseatic Trave"),
    "AZMS": ("Azure Horizon", "Azure Meridian", "Azure Solstice"),
    "CRVN": ("Corvina Star", "Corvina Tide", "Corvina Bay"),
    "GSMT": ("Gulfstream Pioneer", "Gulfstream Explorer", "Gulfstream Voyager"),
    "NVKL": ("Nordvik Aurora", "Nordvik Fjord", "Nordvik Polaris"),
}


def ocean(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    pol, pod = lane.stops[0], lane.stops[1]
    final = lane.stops[2] if len(lane.stops) > 2 else None
    sea = great_circle_path(sea_waypoints(pol.place.key, pod.place.key), SEA_STEP_KM)
    service_speed = 31.5  # km/h, about 17 knots
    etd = _next_local(start, pol.place, rng.choice((6, 14, 20)))
    cutoff = etd - 48 * H
    transit = sea.length_km / service_speed + 8
    eta = ceil_minutes(etd + timedelta(hours=transit), 60)
    free_until = eta + 72 * H
    vessels = _VESSELS[lane.carrier.scac]
    vessel = rng.choice(vessels)
    westbound = pod.place.longitude < pol.place.longitude
    voyage = f"{rng.randrange(10, 60):03d}{'W' if westbound else 'E'}"

    incidents: list[IncidentPlan] = []
    events: list[EventPlan] = []
    gate_in = cutoff - _minutes(rng, 60, 60 * 70)
    departure = etd + _minutes(rng, -120, 900)
    if rng.random() < 0.08:
        old_vessel, old_voyage, old_departure = vessel, voyage, departure
        vessel = rng.choice([v for v in vessels if v != old_vessel])
        voyage = f"{int(old_voyage[:3]) + 1:03d}{old_voyage[3]}"
        departure = departure + timedelta(days=7) + _minutes(rng, -180, 360)
        reason = "Vessel overbooked; container rolled to the next sailing"
        events.append(
            EventPlan(
                "ROLLED_OVER",
                old_departure - _minutes(rng, 60, 600),
                f"Rolled over from {old_vessel} {old_voyage} to {vessel} {voyage}",
                stop=0,
                ocean_code="RO",
                rollover=(reason, old_vessel, old_voyage, vessel, voyage, old_departure, departure),
            )
        )
        incidents.append(
            IncidentPlan("ROLLOVER", Severity.HIGH, reason, events[-1].at, departure, 0)
        )
    holds = []
    if rng.random() < 0.12:
        minutes = rng.randrange(18 * 60, 72 * 60)
        holds.append(Hold(max(0.0, sea.length_km - 30), minutes))
    voyage_run = run(
        sea,
        departure,
        service_speed,
        rng=rng,
        report=not sketch,
        report_minutes=180,
        stops=holds,
        end_speed_kmh=18.0,
        end_km=25.0,
    )
    arrival = voyage_run.arrival
    if holds:
        waited = timedelta(minutes=holds[0].minutes)
        incidents.append(
            IncidentPlan(
                "PORT_CONGESTION",
                Severity.MEDIUM,
                f"Vessel waiting at anchor off {pod.place.city} for a berth",
                arrival - waited - timedelta(hours=1),
                arrival,
                1,
            )
        )
    discharged = arrival + _minutes(rng, 6 * 60, 20 * 60)
    released = discharged + _minutes(rng, 4 * 60, 30 * 60)
    if rng.random() < 0.08:
        hold_end = released + _hours(rng, 48, 120)
        incidents.append(
            IncidentPlan(
                "CUSTOMS_HOLD",
                Severity.HIGH,
                "Customs selected the container for examination",
                discharged + _minutes(rng, 60, 240),
                hold_end,
                1,
            )
        )
        released = hold_end
    gate_out = released + _minutes(rng, 4 * 60, 48 * 60)
    events += [
        EventPlan(
            "GATE_IN",
            gate_in,
            f"Full container received at {pol.place.name}",
            planned=cutoff,
            stop=0,
            ocean_code="I",
        ),
        EventPlan(
            "LOADED",
            departure - _minutes(rng, 120, 600),
            f"Loaded on {vessel} {voyage}",
            stop=0,
            ocean_code="AE",
        ),
        EventPlan(
            "DEPARTURE_FROM_STOP",
            departure,
            f"{vessel} {voyage} departed {pol.place.city}",
            planned=etd,
            stop=0,
            leg=0,
            ocean_code="VD",
        ),
        EventPlan(
            "ARRIVAL_AT_STOP",
            arrival,
            f"{vessel} {voyage} arrived at {pod.place.city}",
            planned=eta,
            stop=1,
            ocean_code="VA",
        ),
        EventPlan(
            "DISCHARGED", discharged, f"Discharged at {pod.place.name}", stop=1, ocean_code="UV"
        ),
        EventPlan("CUSTOMS_RELEASED", released, "Released by customs", stop=1, ocean_code="CT"),
        EventPlan(
            "GATE_OUT",
            gate_out,
            f"Full container out of {pod.place.name}",
            planned=free_until,
            stop=1,
            ocean_code="OA",
        ),
    ]
    stops = [
        _site_stop(rng, StopType.PORT_OF_LOADING, pol, cutoff, etd, gate_in, departure),
        _site_stop(rng, StopType.PORT_OF_DISCHARGE, pod, eta, free_until, arrival, gate_out),
    ]
    legs = [
        LegPlan(
            id=new_id(rng),
            mode=Mode.OCEAN,
            origin=0,
            destination=1,
            path=sea,
            fixes=voyage_run.fixes,
            identifiers=[("VESSEL_NAME", vessel), ("VOYAGE_NUMBER", voyage)],
            vehicle="CONTAINER_SHIP",
            co2_kg_per_km=0.12,
            load_factor=0.82,
        )
    ]
    if final is not None:
        road = road_path(road_waypoints(pod.place, final.place), amplitude_scale=0.6)
        rules = _rules(lane.region)
        planned_slot = appointment(
            final.place,
            final.hours,
            free_until + timedelta(hours=nominal_drive_hours(road, rules)),
            H,
        )
        dray = drive(road, gate_out, rules, rng=rng, report=not sketch)
        done = max(
            dray.arrival, appointment(final.place, final.hours, dray.arrival, H)[0]
        ) + _minutes(rng, 60, 180)
        stops.append(
            _site_stop(
                rng,
                StopType.DELIVERY,
                final,
                planned_slot[0],
                planned_slot[0] + 2 * H,
                dray.arrival,
                done,
                planned_slot,
            )
        )
        legs.append(_truck_leg(rng, Mode.TL, 1, 2, road, dray, lane))
        events += [
            EventPlan(
                "ARRIVAL_AT_STOP",
                dray.arrival,
                f"Arrived at {final.place.name}",
                planned=planned_slot[0],
                stop=2,
            ),
            EventPlan(
                "DELIVERED",
                done,
                f"Container unloaded at {final.place.name}",
                planned=planned_slot[0] + 2 * H,
                stop=2,
                ocean_code="D",
            ),
        ]
        empty_back = done + _minutes(rng, 12 * 60, 72 * 60)
    else:
        empty_back = gate_out + _minutes(rng, 48 * 60, 120 * 60)
    events.append(
        EventPlan("EMPTY_RETURNED", empty_back, "Empty container returned", ocean_code="RD")
    )
    booked = cutoff - _hours(rng, 7 * 24, 21 * 24)
    events.append(
        EventPlan(
            "BOOKING_CONFIRMED",
            booked,
            f"Booking confirmed on {_first_vessel(events, vessel)} from {pol.place.city} "
            f"to {pod.place.city}",
        )
    )
    container = ids.make_container_id(rng, lane.carrier.owner_code)
    if lane.options.get("forwarder"):
        forwarder = lane.options["forwarder"]
        identifiers = [
            ("HOUSE_BILL_OF_LADING", ids.make_house_bill_of_lading(rng, forwarder)),
            ("FFW_SCAC", forwarder),
            ("BOOKING_NUMBER", ids.make_booking_number(rng)),
        ]
    else:
        identifiers = [
            ("BILL_OF_LADING", ids.make_ocean_bill_of_lading(rng, lane.carrier.scac)),
            ("CARRIER_SCAC", lane.carrier.scac),
            ("CONTAINER_ID", container),
            ("BOOKING_NUMBER", ids.make_booking_number(rng)),
        ]
    plan = ShipmentPlan(
        number=number,
        mode=Mode.OCEAN,
        region=lane.region,
        carrier=lane.carrier,
        identifiers=identifiers,
        booked_at=booked,
        stops=stops,
        legs=legs,
        events=events,
        incidents=incidents,
        planned_modes=[Mode.OCEAN, Mode.TL] if final is not None else [Mode.OCEAN],
        commodity=lane.commodity,
        pieces=lane.pieces,
        package=lane.package,
        weight_kg=lane.weight_kg,
    )
    _late_incidents(stops, incidents, Severity.MEDIUM, first=2)
    _with_incident_events(plan)
    return plan


def _first_vessel(events: list[EventPlan], vessel: str) -> str:
    """The vessel first booked: the one a rolled-over container was rolled from."""
    for event in events:
        if event.rollover is not None:
            return event.rollover[1]
    return vessel


# --- air ------------------------------------------------------------------------------------------


def air(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    origin, destination = lane.stops
    a, b = origin.place, destination.place
    flight_path = great_circle_path([a.point, b.point], AIR_STEP_KM)
    received_planned = ceil_minutes(start, 30)
    slot = rng.choice(((13, 35), (17, 50), (22, 10)))
    etd = _next_local(received_planned + 4 * H, a, *slot)
    block = flight_path.length_km / 830 + 0.6
    eta = ceil_minutes(etd + timedelta(hours=block), 5)
    planned_delivery = eta + 10 * H
    flight = f"{lane.carrier.flight_code} {rng.randrange(100, 999)}"

    incidents: list[IncidentPlan] = []
    received = received_planned + _minutes(rng, -90, 120)
    departure = etd + _minutes(rng, -5, 50)
    if rng.random() < 0.07:
        offloaded = departure
        departure = departure + timedelta(days=1) + _minutes(rng, -20, 60)
        incidents.append(
            IncidentPlan(
                "OFFLOADED",
                Severity.HIGH,
                f"Offloaded from {flight} for lack of space; rebooked on the next day's flight",
                offloaded - _minutes(rng, 60, 180),
                departure,
                0,
            )
        )
    flown = run(
        flight_path,
        departure,
        860.0,
        rng=rng,
        report=not sketch,
        report_minutes=15,
        variation=0.03,
        end_speed_kmh=420.0,
        end_km=140.0,
    )
    arrival = flown.arrival
    from_flight = arrival + _minutes(rng, 90, 240)
    notified = from_flight + _minutes(rng, 60, 300)
    delivered = notified + _minutes(rng, 120, 24 * 60)
    if rng.random() < 0.06:
        hold_end = notified + _hours(rng, 24, 72)
        incidents.append(
            IncidentPlan(
                "CUSTOMS_HOLD",
                Severity.HIGH,
                "Held by customs for documentation",
                from_flight,
                hold_end,
                1,
            )
        )
        delivered = hold_end + _minutes(rng, 60, 240)
    stops = [
        _site_stop(rng, StopType.TERMINAL, origin, received_planned, etd, received, departure),
        _site_stop(rng, StopType.TERMINAL, destination, eta, planned_delivery, arrival, delivered),
    ]
    code_a, code_b = a.iata or a.city, b.iata or b.city
    events = [
        EventPlan(
            "BOOKED",
            received_planned - _hours(rng, 6, 30),
            f"BKD: booked on {flight} {code_a}-{code_b}",
        ),
        EventPlan(
            "RECEIVED_FROM_SHIPPER",
            received,
            f"RCS: received from shipper at {code_a}",
            planned=received_planned,
            stop=0,
        ),
        EventPlan(
            "MANIFESTED", departure - _minutes(rng, 90, 180), f"MAN: manifested on {flight}", stop=0
        ),
        EventPlan(
            "DEPARTURE_FROM_STOP",
            departure,
            f"DEP: departed {code_a} on {flight}",
            planned=etd,
            stop=0,
            leg=0,
        ),
        EventPlan(
            "ARRIVAL_AT_STOP", arrival, f"ARR: arrived at {code_b} on {flight}", planned=eta, stop=1
        ),
        EventPlan(
            "RECEIVED_FROM_FLIGHT", from_flight, f"RCF: received from flight at {code_b}", stop=1
        ),
        EventPlan("CONSIGNEE_NOTIFIED", notified, "NFD: consignee notified", stop=1),
        EventPlan(
            "DELIVERED",
            delivered,
            f"DLV: delivered to the consignee's agent at {code_b}",
            planned=planned_delivery,
            stop=1,
        ),
    ]
    leg = LegPlan(
        id=new_id(rng),
        mode=Mode.AIR,
        origin=0,
        destination=1,
        path=flight_path,
        fixes=flown.fixes,
        identifiers=[("FLIGHT_NUMBER", flight)],
        vehicle="FREIGHTER_AIRCRAFT",
        co2_kg_per_km=max(0.05, lane.weight_kg * 0.0006),
        load_factor=0.7,
    )
    identifiers = [("AIR_WAYBILL", ids.make_air_waybill(rng, lane.carrier.awb_prefix))]
    if lane.options.get("house"):
        identifiers.append(("HOUSE_AIR_WAYBILL", ids.make_reference(rng, "HAWB")))
    identifiers.append(("CARRIER_SCAC", lane.carrier.scac))
    plan = ShipmentPlan(
        number=number,
        mode=Mode.AIR,
        region=lane.region,
        carrier=lane.carrier,
        identifiers=identifiers,
        booked_at=events[0].at - _hours(rng, 1, 12),
        stops=stops,
        legs=[leg],
        events=events,
        incidents=incidents,
        planned_modes=[Mode.AIR],
        commodity=lane.commodity,
        pieces=lane.pieces,
        package=lane.package,
        weight_kg=lane.weight_kg,
    )
    _with_incident_events(plan)
    return plan


BUILDERS = {
    Mode.TL: truckload,
    Mode.LTL: less_than_truckload,
    Mode.PARCEL: parcel,
    Mode.RAIL: rail,
    Mode.OCEAN: ocean,
    Mode.AIR: air,
}


def build(
    lane: Lane, seed: int, start: datetime, number: int, *, sketch: bool = False
) -> ShipmentPlan:
    """Simulate the shipment on `lane` from `start`; a sketch has the same times but no
    positions (to learn how long the shipment takes)."""
    return BUILDERS[lane.mode](lane, random.Random(seed), start, number, sketch)
