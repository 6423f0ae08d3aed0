"""Parcel: label, pickup, sort scans at the carrier's facilities and hub, delivery."""

from __future__ import annotations

import itertools
import math
import random
from datetime import datetime, timedelta

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
    new_id,
)
from freightdesk.server.demo.lanes import PARCEL_HUBS
from freightdesk.server.demo.scenarios.common import (
    MIN,
    H,
    Lane,
    next_business_local,
    next_local,
    random_hours,
    random_minutes,
    scan,
    site_stop,
    with_incident_events,
)
from freightdesk.server.demo.tracks import (
    Path,
)


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
    pickup_planned = next_local(start, origin.place, 16)
    pickup = pickup_planned + random_minutes(rng, 0, 110)
    loaded = pickup + random_minutes(rng, 5, 20)
    label = pickup_planned - random_hours(rng, 2, 30)
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
    t = next_local(t, facility_a, 22, 30)
    scans.append(("DEPARTED_FACILITY", t, facility_a))
    route = (
        [facility_a, hub, facility_b]
        if hub.key not in (facility_a.key, facility_b.key)
        else [facility_a, facility_b]
    )
    speed = 700.0 if express else 70.0
    for previous, place in itertools.pairwise(route):
        hours = distance_km(previous.point, place.point) * (1.0 if express else 1.15) / speed
        t += timedelta(hours=hours + (1.0 if express else 0.5)) + random_minutes(rng, 0, 60)
        scans.append(("ARRIVED_AT_FACILITY", t, place))
        if place is not facility_b:
            t += random_minutes(rng, 90, 240)
            scans.append(("DEPARTED_FACILITY", t, place))
    out = next_business_local(t + 30 * MIN, facility_b, 8, rng.choice((0, 10, 20, 40)))
    delivered = (
        out
        + timedelta(hours=distance_km(facility_b.point, destination.place.point) / 30)
        + random_minutes(rng, 30, 300)
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
        delivered = next_business_local(attempt + H, destination.place, 11) + random_minutes(
            rng, 0, 180
        )
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
        promised = next_business_local(promised + H, destination.place, 12)
    stops = [
        site_stop(
            rng, StopType.PICKUP, origin, pickup_planned, pickup_planned + 15 * MIN, pickup, loaded
        ),
        site_stop(
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
    fixes = [scan(at, place) for _kind, at, place in scans]
    fixes.append(scan(delivered, destination.place))
    leg = LegPlan(
        id=new_id(rng),
        mode=Mode.PARCEL,
        origin=0,
        destination=1,
        path=Path([origin.place.point, *(p.point for p in route), destination.place.point]),
        fixes=fixes,
        vehicle=None,  # the carrier's network, vans to planes: no equipment the shipper books
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
    with_incident_events(plan)
    return plan


_SIGNERS = ("M. Alvarez", "J. Chen", "R. Okafor", "S. Novak", "K. Brennan", "L. Moreau", "T. Weber")
