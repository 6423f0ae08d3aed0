"""Intermodal and carload rail in North America, wagonload rail in Europe."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.tracking import ExceptionSeverity as Severity
from freightdesk.models.tracking import StopType
from freightdesk.server.demo import identifiers as ids
from freightdesk.server.demo.geography import PLACES
from freightdesk.server.demo.itineraries import (
    EventPlan,
    IncidentPlan,
    LegPlan,
    ShipmentPlan,
    ceil_minutes,
    new_id,
)
from freightdesk.server.demo.networks import road_nodes, road_waypoints
from freightdesk.server.demo.scenarios.common import (
    GS1_PREFIX,
    H,
    Lane,
    next_local,
    random_hours,
    random_minutes,
    site_stop,
    with_incident_events,
)
from freightdesk.server.demo.tracks import (
    Hold,
    Path,
    road_path,
    run,
)
from freightdesk.server.domain.carrier_directory import Region


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
    departure_planned = next_local(gate_in_planned + 6 * H, a, train_hour)
    yards = _yards(nodes, path, 700.0 if not europe else 450.0)
    nominal = path.length_km / speed + sum(h.minutes for _k, h in yards) / 60 * 0.8
    arrival_planned = ceil_minutes(departure_planned + timedelta(hours=nominal), 60)
    gate_out_planned = arrival_planned + 24 * H

    incidents: list[IncidentPlan] = []
    gate_in = gate_in_planned + random_minutes(rng, -120, 480)
    departure = departure_planned + random_minutes(rng, -15, 240)
    if rng.random() < 0.10:
        missed = departure
        departure = next_local(departure + 6 * H, a, train_hour) + random_minutes(rng, 0, 120)
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
    unloaded = arrival + random_minutes(rng, 120, 360)
    available = unloaded + random_minutes(rng, 30, 180)
    gate_out = available + random_minutes(rng, 240, 2880)
    stops = [
        site_stop(
            rng, StopType.TERMINAL, origin, gate_in_planned, departure_planned, gate_in, departure
        ),
        site_stop(
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
            "LOADED_ON_RAIL",
            departure - random_minutes(rng, 60, 180),
            f"Loaded on train {train}",
            stop=0,
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
    booked = gate_in_planned - random_hours(rng, 24, 120)
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
    with_incident_events(plan)
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
