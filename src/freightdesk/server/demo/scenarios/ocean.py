"""Ocean containers: booking, gate-in, the voyage on sea lanes, discharge, customs, delivery."""

from __future__ import annotations

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
    ceil_minutes,
    new_id,
)
from freightdesk.server.demo.networks import road_waypoints, sea_waypoints
from freightdesk.server.demo.scenarios.common import (
    H,
    Lane,
    late_incidents,
    next_local,
    random_hours,
    random_minutes,
    rules_for,
    site_stop,
    truck_leg,
    with_incident_events,
)
from freightdesk.server.demo.tracks import (
    SEA_STEP_KM,
    Hold,
    drive,
    great_circle_path,
    nominal_drive_hours,
    road_path,
    run,
)

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
    etd = next_local(start, pol.place, rng.choice((6, 14, 20)))
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
    gate_in = cutoff - random_minutes(rng, 60, 60 * 70)
    departure = etd + random_minutes(rng, -120, 900)
    if rng.random() < 0.08:
        old_vessel, old_voyage, old_departure = vessel, voyage, departure
        vessel = rng.choice([v for v in vessels if v != old_vessel])
        voyage = f"{int(old_voyage[:3]) + 1:03d}{old_voyage[3]}"
        departure = departure + timedelta(days=7) + random_minutes(rng, -180, 360)
        reason = "Vessel overbooked; container rolled to the next sailing"
        events.append(
            EventPlan(
                "ROLLED_OVER",
                old_departure - random_minutes(rng, 60, 600),
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
    discharged = arrival + random_minutes(rng, 6 * 60, 20 * 60)
    released = discharged + random_minutes(rng, 4 * 60, 30 * 60)
    if rng.random() < 0.08:
        hold_end = released + random_hours(rng, 48, 120)
        incidents.append(
            IncidentPlan(
                "CUSTOMS_HOLD",
                Severity.HIGH,
                "Customs selected the container for examination",
                discharged + random_minutes(rng, 60, 240),
                hold_end,
                1,
            )
        )
        released = hold_end
    gate_out = released + random_minutes(rng, 4 * 60, 48 * 60)
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
            departure - random_minutes(rng, 120, 600),
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
        site_stop(rng, StopType.PORT_OF_LOADING, pol, cutoff, etd, gate_in, departure),
        site_stop(rng, StopType.PORT_OF_DISCHARGE, pod, eta, free_until, arrival, gate_out),
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
        rules = rules_for(lane.region)
        planned_slot = appointment(
            final.place,
            final.hours,
            free_until + timedelta(hours=nominal_drive_hours(road, rules)),
            H,
        )
        dray = drive(road, gate_out, rules, rng=rng, report=not sketch)
        done = max(
            dray.arrival, appointment(final.place, final.hours, dray.arrival, H)[0]
        ) + random_minutes(rng, 60, 180)
        stops.append(
            site_stop(
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
        legs.append(truck_leg(rng, Mode.TL, 1, 2, road, dray, lane))
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
        empty_back = done + random_minutes(rng, 12 * 60, 72 * 60)
    else:
        empty_back = gate_out + random_minutes(rng, 48 * 60, 120 * 60)
    events.append(
        EventPlan("EMPTY_RETURNED", empty_back, "Empty container returned", ocean_code="RD")
    )
    booked = cutoff - random_hours(rng, 7 * 24, 21 * 24)
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
    late_incidents(stops, incidents, Severity.MEDIUM, first=2)
    with_incident_events(plan)
    return plan


def _first_vessel(events: list[EventPlan], vessel: str) -> str:
    """The vessel first booked: the one a rolled-over container was rolled from."""
    for event in events:
        if event.rollover is not None:
            return event.rollover[1]
    return vessel
