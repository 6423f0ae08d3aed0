"""Less than truckload: pickup, the carrier's terminals and linehaul, delivery by appointment."""

from __future__ import annotations

import math
import random
from datetime import datetime

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.tracking import ExceptionSeverity as Severity
from freightdesk.models.tracking import StopType
from freightdesk.server.demo import identifiers as ids
from freightdesk.server.demo.geography import PLACES, Place, distance_km
from freightdesk.server.demo.itineraries import (
    EventPlan,
    IncidentPlan,
    LegPlan,
    ShipmentPlan,
    appointment,
    local_clock,
    new_id,
)
from freightdesk.server.demo.networks import road_nodes, road_waypoints
from freightdesk.server.demo.scenarios.common import (
    GS1_PREFIX,
    MIN,
    H,
    Lane,
    late_incidents,
    linehaul_for,
    next_business_local,
    next_local,
    random_hours,
    random_minutes,
    site_stop,
    with_incident_events,
)
from freightdesk.server.demo.tracks import (
    drive,
    joined,
    road_path,
)
from freightdesk.server.domain.carrier_directory import Carrier


def less_than_truckload(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    origin, destination = lane.stops
    hub_a, hub_b = PLACES[origin.place.node], PLACES[destination.place.node]
    linehaul = linehaul_for(lane.region)
    window = appointment(origin.place, origin.hours, start, 4 * H)
    incidents: list[IncidentPlan] = []
    events: list[EventPlan] = []
    pickup = window[0] + random_minutes(rng, 10, 210)
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
        pickup = next_business_local(window[1], origin.place, 14) + random_minutes(rng, 0, 120)
        incidents[-1].end = pickup
    loaded = pickup + random_minutes(rng, 15, 45)

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
    at_origin_terminal = to_terminal.arrival + random_minutes(rng, 20, 90)
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
    depart = next_local(at_origin_terminal, hub_a, rng.choice((21, 22, 23)))
    events.append(_terminal_event("ARRIVED_AT_TERMINAL", to_terminal.arrival, hub_a, lane.carrier))
    paths = [collect]
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
        paths.append(path)
        events.append(_terminal_event("ARRIVED_AT_TERMINAL", moved.arrival, b, lane.carrier))
        depart = moved.arrival + random_minutes(rng, 150, 330)
    arrived_hub = events[-1].at
    out_for_delivery = next_business_local(arrived_hub + H, hub_b, 7, rng.choice((0, 15, 30, 45)))
    events.append(
        EventPlan(
            "OUT_FOR_DELIVERY", out_for_delivery, f"Out for delivery from {hub_b.name} terminal"
        )
    )
    deliver = road_path([hub_b.point, destination.place.point], amplitude_scale=0.5)
    first_drop = out_for_delivery + random_minutes(rng, 20, 240)
    delivered_run = drive(
        deliver, first_drop, linehaul, rng=rng, report=not sketch, report_minutes=15
    )
    fixes.extend(delivered_run.fixes)
    arrival = delivered_run.arrival
    opening = appointment(destination.place, destination.hours, arrival, 30 * MIN)[0]
    done = max(arrival, opening) + random_minutes(rng, 20, 60)
    paths.append(deliver)

    # The plan: the carrier's standard transit days.
    transit_days = max(1, math.ceil(total / 750))
    planned_day = window[0]
    for _ in range(transit_days):
        planned_day = next_business_local(planned_day + H, destination.place, 9)
    planned_window = (planned_day, planned_day + 4 * H)
    stops = [
        site_stop(
            rng, StopType.PICKUP, origin, window[0], window[0] + 30 * MIN, pickup, loaded, window
        ),
        site_stop(
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
            f"Picked up {lane.pieces} {lane.package.lower()}{'s' if lane.pieces != 1 else ''} "
            f"from {origin.place.name}",
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
    late_incidents(stops, incidents, Severity.LOW)
    leg = LegPlan(
        id=new_id(rng),
        mode=Mode.LTL,
        origin=0,
        destination=1,
        path=joined(paths),
        fixes=fixes,
        co2_kg_per_km=0.3,
        load_factor=0.72,
    )
    account = lane.options["account"]
    booked = window[0] - random_hours(rng, 6, 50)
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
            # The carrier, as an LTL shipment names it: the account it moves on is the
            # carrier's, its code the SCAC (rule 6 gives LTL no CARRIER_SCAC).
            ("CAPACITY_PROVIDER_ACCOUNT_CODE", lane.carrier.scac),
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
    with_incident_events(plan)
    return plan


def _terminal_event(kind: str, at: datetime, city: Place, carrier: Carrier) -> EventPlan:
    verb = "Arrived at" if kind.startswith("ARRIVED") else "Departed"
    return EventPlan(kind, at, f"{verb} {carrier.name} terminal, {city.name}")
