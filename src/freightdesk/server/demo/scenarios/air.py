"""Air cargo: received from shipper, flown on a great circle, received from flight, delivered."""

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
    ceil_minutes,
    new_id,
)
from freightdesk.server.demo.scenarios.common import (
    H,
    Lane,
    next_local,
    random_hours,
    random_minutes,
    site_stop,
    with_incident_events,
)
from freightdesk.server.demo.tracks import (
    AIR_STEP_KM,
    great_circle_path,
    run,
)


def air(
    lane: Lane, rng: random.Random, start: datetime, number: int, sketch: bool = False
) -> ShipmentPlan:
    origin, destination = lane.stops
    a, b = origin.place, destination.place
    flight_path = great_circle_path([a.point, b.point], AIR_STEP_KM)
    received_planned = ceil_minutes(start, 30)
    slot = rng.choice(((13, 35), (17, 50), (22, 10)))
    etd = next_local(received_planned + 4 * H, a, *slot)
    block = flight_path.length_km / 830 + 0.6
    eta = ceil_minutes(etd + timedelta(hours=block), 5)
    planned_delivery = eta + 10 * H
    flight = f"{lane.carrier.flight_code} {rng.randrange(100, 999)}"

    incidents: list[IncidentPlan] = []
    received = received_planned + random_minutes(rng, -90, 120)
    departure = etd + random_minutes(rng, -5, 50)
    if rng.random() < 0.07:
        offloaded = departure
        departure = departure + timedelta(days=1) + random_minutes(rng, -20, 60)
        incidents.append(
            IncidentPlan(
                "OFFLOADED",
                Severity.HIGH,
                f"Offloaded from {flight} for lack of space; rebooked on the next day's flight",
                offloaded - random_minutes(rng, 60, 180),
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
    from_flight = arrival + random_minutes(rng, 90, 240)
    notified = from_flight + random_minutes(rng, 60, 300)
    delivered = notified + random_minutes(rng, 120, 24 * 60)
    if rng.random() < 0.06:
        hold_end = notified + random_hours(rng, 24, 72)
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
        delivered = hold_end + random_minutes(rng, 60, 240)
    stops = [
        site_stop(rng, StopType.TERMINAL, origin, received_planned, etd, received, departure),
        site_stop(rng, StopType.TERMINAL, destination, eta, planned_delivery, arrival, delivered),
    ]
    code_a, code_b = a.iata or a.city, b.iata or b.city
    events = [
        EventPlan(
            "BOOKED",
            received_planned - random_hours(rng, 6, 30),
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
            "MANIFESTED",
            departure - random_minutes(rng, 90, 180),
            f"MAN: manifested on {flight}",
            stop=0,
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
        booked_at=events[0].at - random_hours(rng, 1, 12),
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
    with_incident_events(plan)
    return plan
