"""Truckload: one truck from pickup to its drops, with hours of service and road trouble."""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timedelta

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.tracking import ExceptionSeverity as Severity
from freightdesk.models.tracking import StopType
from freightdesk.server.demo import identifiers as ids
from freightdesk.server.demo.itineraries import (
    EventPlan,
    IncidentPlan,
    LegPlan,
    ShipmentPlan,
    appointment,
    local_clock,
)
from freightdesk.server.demo.networks import road_waypoints
from freightdesk.server.demo.scenarios.common import (
    GS1_PREFIX,
    H,
    Lane,
    late_incidents,
    place_label,
    random_hours,
    random_minutes,
    rules_for,
    site_stop,
    truck_leg,
    with_incident_events,
)
from freightdesk.server.demo.tracks import (
    Hold,
    drive,
    nominal_drive_hours,
    road_path,
)


def truckload(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    rules = rules_for(lane.region)
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
    arrival = planned_arrivals[0] + random_minutes(rng, -35, 50)
    if rng.random() < 0.05:
        # The carrier's truck broke down on the way to the pickup: a day late.
        late = random_hours(rng, 18, 26)
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
    departure = max(arrival, windows[0][0]) + random_minutes(rng, 55, 170)
    arrivals, departures = [arrival], [departure]
    legs: list[LegPlan] = []
    for index, path in enumerate(paths, start=1):
        holds: list[Hold] = []
        trouble = _road_trouble(rng)
        if trouble is not None:
            holds.append(Hold(rng.uniform(0.2, 0.8) * path.length_km, trouble[3]))
        moved = drive(path, departures[-1], rules, rng=rng, report=not sketch, holds=holds)
        # A leg of a few kilometres can end before the truck reaches the trouble.
        if trouble is not None and moved.held:
            kind, severity, description, _minutes_held = trouble
            began, ended = moved.held[0]
            incidents.append(IncidentPlan(kind, severity, description, began, ended))
        legs.append(truck_leg(rng, Mode.TL, index - 1, index, path, moved, lane))
        arrivals.append(moved.arrival)
        wait_until = max(moved.arrival, windows[index][0])
        departures.append(wait_until + random_minutes(rng, 40, 150))

    stops = []
    for index, site in enumerate(sites):
        last = index == len(sites) - 1
        kind = StopType.PICKUP if index == 0 else StopType.DELIVERY
        stops.append(
            site_stop(
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
                f"Arrived at {place_label(place)} ({local_clock(arrivals[index], place)})",
                planned=planned_arrivals[index],
                stop=index,
            )
        )
        if index == 0:
            events.append(
                EventPlan(
                    "PICKED_UP",
                    departures[0],
                    f"Loaded and departed {place_label(place)}",
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
                    f"Departed {place_label(place)}",
                    planned=planned_departures[index],
                    stop=index,
                    leg=index,
                )
            )
    dispatched = planned_arrivals[0] - random_hours(rng, 3, 20)
    events.insert(0, EventPlan("DISPATCHED", dispatched, "Driver and tractor assigned"))
    late_incidents(stops, incidents, Severity.MEDIUM)
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
        booked_at=dispatched - random_hours(rng, 12, 96),
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
    with_incident_events(plan)
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
