"""The demo's shipments: how many of each mode, on which lanes, and how far along.

`plan_shipments(seed, anchor)` is a pure function: the same seed and anchor give the same
plans. Each shipment is first simulated from the anchor to learn how long it takes, then placed
in time so that by the anchor it is delivered (in the past days), under way, or still to come
(in the coming days), and simulated again from there.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from enum import StrEnum

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo import commercial
from freightdesk.server.demo.geography import PLACES, distance_km
from freightdesk.server.demo.itineraries import ShipmentPlan, new_id
from freightdesk.server.demo.lanes import (
    AIR_LANES,
    OCEAN_LANES,
    PORT_DESTINATIONS,
    RAIL_LANES_EU,
    RAIL_LANES_NA,
    SITES,
    TRUCK_DISTANCE,
    Site,
    customers,
    own_sites,
)
from freightdesk.server.demo.scenarios import Lane, build
from freightdesk.server.domain.carrier_directory import FORWARDERS, Region, carriers_for

NA, EU = Region.NORTH_AMERICA, Region.EUROPE

# (mode, region): how many shipments.
COUNTS: dict[tuple[Mode, Region], int] = {
    (Mode.TL, NA): 80,
    (Mode.TL, EU): 30,
    (Mode.LTL, NA): 44,
    (Mode.LTL, EU): 16,
    (Mode.PARCEL, NA): 34,
    (Mode.PARCEL, EU): 16,
    (Mode.RAIL, NA): 22,
    (Mode.RAIL, EU): 12,
    (Mode.OCEAN, EU): 28,
    (Mode.AIR, EU): 20,
}

# Share of shipments delivered, under way and still to come, by mode.
PHASES: dict[Mode, tuple[float, float, float]] = {
    Mode.TL: (0.38, 0.42, 0.20),
    Mode.LTL: (0.40, 0.40, 0.20),
    Mode.PARCEL: (0.45, 0.40, 0.15),
    Mode.RAIL: (0.35, 0.50, 0.15),
    Mode.OCEAN: (0.25, 0.60, 0.15),
    Mode.AIR: (0.40, 0.35, 0.25),
}

_COMMODITIES = (
    ("Cookware", "PALLET"),
    ("Small kitchen appliances", "PALLET"),
    ("Glassware", "PALLET"),
    ("Bedding and linens", "PALLET"),
    ("Furniture flat packs", "PALLET"),
    ("Ceramic tableware", "CRATE"),
)

# The shipper's accounts with its LTL and parcel carriers (capacity provider account groups).
ACCOUNT_GROUPS: tuple[tuple[str, str], ...] = (
    ("AF-NA-DC", "Alder & Finch North American DCs"),
    ("AF-NA-PLANTS", "Alder & Finch North American plants"),
    ("AF-EU-DC", "Alder & Finch European DCs"),
    ("AF-ECOM", "Alder & Finch e-commerce"),
)


class Phase(StrEnum):
    """Where a shipment stands at the anchor."""

    DELIVERED = "DELIVERED"
    UNDER_WAY = "UNDER_WAY"
    TO_COME = "TO_COME"


def _cargo(rng: random.Random, mode: Mode) -> tuple[str, int, str, float]:
    commodity, package = rng.choice(_COMMODITIES)
    if mode is Mode.TL:
        pieces = rng.randrange(12, 27)
        return commodity, pieces, package, round(pieces * rng.uniform(380, 720))
    if mode is Mode.LTL:
        pieces = rng.randrange(1, 9)
        return commodity, pieces, package, round(pieces * rng.uniform(180, 520))
    if mode is Mode.PARCEL:
        pieces = rng.randrange(1, 6)
        return commodity, pieces, "CARTON", round(pieces * rng.uniform(1.5, 22), 1)
    if mode is Mode.AIR:
        pieces = rng.randrange(2, 18)
        return "Replacement parts", pieces, "CARTON", round(pieces * rng.uniform(8, 60))
    pieces = rng.randrange(14, 24)
    return commodity, pieces, package, round(pieces * rng.uniform(600, 1000))


def _pair(rng: random.Random, mode: Mode, region: Region) -> tuple[Site, ...]:
    low, high = TRUCK_DISTANCE[mode]
    origins = own_sites(region)
    for _ in range(200):
        origin = rng.choice(origins)
        if mode is Mode.TL and rng.random() < 0.25:
            targets = tuple(s for s in origins if s is not origin)  # transfer between own sites
        else:
            targets = customers(region)
        destination = rng.choice(targets)
        span = distance_km(origin.place.point, destination.place.point)
        if low <= span <= high:
            if mode is Mode.TL and rng.random() < 0.2:
                # A second drop on the way: a customer near the line to the last stop.
                extra = [
                    c
                    for c in customers(region)
                    if c is not destination
                    and distance_km(origin.place.point, c.place.point)
                    + distance_km(c.place.point, destination.place.point)
                    < span * 1.15
                    and distance_km(origin.place.point, c.place.point) > 100
                ]
                if extra:
                    return (origin, rng.choice(extra), destination)
            return (origin, destination)
    raise RuntimeError(f"no {mode} lane found in {region}")


def choose_lane(rng: random.Random, mode: Mode, region: Region, number: int) -> Lane:
    commodity, pieces, package, weight = _cargo(rng, mode)
    options: dict[str, str] = {}
    stops: tuple[Site, ...]
    if mode in (Mode.TL, Mode.LTL, Mode.PARCEL):
        stops = _pair(rng, mode, region)
        if mode is Mode.LTL:
            group = "AF-EU-DC" if region is EU else rng.choice(("AF-NA-DC", "AF-NA-PLANTS"))
            options["account"] = group
        if mode is Mode.PARCEL:
            options["service"] = "EXPRESS" if rng.random() < 0.3 else "GROUND"
            if rng.random() < 0.6:
                options["account"] = "AF-ECOM"
    elif mode is Mode.RAIL:
        a, b = rng.choice(RAIL_LANES_NA if region is NA else RAIL_LANES_EU)
        stops = (_terminal(a), _terminal(b))
        if region is NA and rng.random() < 0.2:
            options["equipment"] = "RAIL_CAR"
    elif mode is Mode.OCEAN:
        pol, pod = OCEAN_LANES[number % len(OCEAN_LANES)]
        stops = (_terminal(pol), _terminal(pod))
        if rng.random() < 0.65:
            stops = (*stops, SITES[PORT_DESTINATIONS[pod]])
        if rng.random() < 0.15:
            options["forwarder"] = rng.choice(FORWARDERS).scac
    else:
        a, b = AIR_LANES[number % len(AIR_LANES)]
        stops = (_terminal(a), _terminal(b))
        if rng.random() < 0.2:
            options["house"] = "1"
    carrier_region = stops[0].place.region
    carrier = rng.choice(carriers_for(mode, carrier_region))
    return Lane(mode, carrier_region, carrier, stops, commodity, pieces, package, weight, options)


def _terminal(key: str) -> Site:
    return Site(PLACES[key], (("1111111", "00:00", "24:00"),), is_own=False)


def _span(plan: ShipmentPlan) -> timedelta:
    return plan.delivered_at - plan.origin.planned_arrival


def _placed(rng: random.Random, phase: Phase, span: timedelta, anchor: datetime) -> datetime:
    """A first planned arrival that should put a shipment of this length in `phase`."""
    if phase == Phase.DELIVERED:
        offset = -span - timedelta(hours=rng.uniform(2, 9 * 24))
    elif phase == Phase.UNDER_WAY:
        offset = -span * rng.uniform(0.08, 0.92)
    else:
        offset = timedelta(hours=rng.uniform(3, 6 * 24))
    return anchor + timedelta(minutes=round(offset.total_seconds() / 60))


def _correction(plan: ShipmentPlan, phase: Phase, anchor: datetime) -> timedelta:
    """How far to move the start so that the plan is in `phase` at `anchor` (zero if it is).

    Appointments and opening hours move a shipment's real times away from where it was
    placed; one or two corrections bring it back."""
    began, ended = plan.origin.arrival, plan.delivered_at
    margin = timedelta(hours=2)
    if phase == Phase.DELIVERED and ended > anchor - margin:
        return -(ended - anchor + margin)
    if phase == Phase.UNDER_WAY and began > anchor:
        return -(began - anchor + margin)
    if phase == Phase.UNDER_WAY and ended <= anchor:
        return anchor - ended + margin
    if phase == Phase.TO_COME and began <= anchor:
        return anchor - began + margin
    return timedelta(0)


def plan_shipments(seed: int, anchor: datetime) -> list[ShipmentPlan]:
    """Every demo shipment, simulated to its end; `anchor` is "now" rounded to the hour."""
    return list(iter_plans(seed, anchor))


def iter_plans(seed: int, anchor: datetime) -> Iterator[ShipmentPlan]:
    """The plans of `plan_shipments` one at a time (a caller may stop between two)."""
    rng = random.Random(seed)
    groups = {NA: new_id(rng), EU: new_id(rng)}
    number = 0
    for (mode, region), count in COUNTS.items():
        weights = PHASES[mode]
        for _ in range(count):
            number += 1
            lane = choose_lane(rng, mode, region, number)
            phase = rng.choices((Phase.DELIVERED, Phase.UNDER_WAY, Phase.TO_COME), weights)[0]
            sub_seed = rng.getrandbits(62)
            yield placed_plan(lane, sub_seed, number, phase, anchor, rng, groups[lane.region])


def access_groups(seed: int) -> dict[Region, uuid.UUID]:
    """The access group of each region's shipments (the first draws of the seed)."""
    rng = random.Random(seed)
    return {NA: new_id(rng), EU: new_id(rng)}


def placed_plan(
    lane: Lane,
    sub_seed: int,
    number: int,
    phase: Phase,
    anchor: datetime,
    rng: random.Random,
    access_group: uuid.UUID,
) -> ShipmentPlan:
    """The shipment on `lane`, placed in time so that it is in `phase` at `anchor`."""
    trial = build(lane, sub_seed, anchor, number, sketch=True)
    start = _placed(rng, phase, _span(trial), anchor)
    for _attempt in range(4):
        sketch = build(lane, sub_seed, start, number, sketch=True)
        correction = _correction(sketch, phase, anchor)
        if not correction:
            break
        start += correction
    plan = build(lane, sub_seed, start, number)
    finish_plan(plan, sub_seed, anchor, access_group)
    return plan


def finish_plan(
    plan: ShipmentPlan, sub_seed: int, anchor: datetime, access_group: uuid.UUID
) -> None:
    """The plan's costs, attributes, papers (those issued by `anchor`) and access group."""
    detail = random.Random(sub_seed ^ 0x5EED)
    plan.costs = commercial.costs(plan, detail)
    plan.attributes = commercial.attributes(plan, detail)
    plan.documents = commercial.documents(plan, anchor)
    plan.access_group = access_group
