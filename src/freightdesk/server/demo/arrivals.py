"""Demo shipments booked after the demo was seeded: the steady stream that keeps the list alive.

The simulator books shipment `k` (1, 2, 3, ...) about `ARRIVAL_INTERVAL * k` after the anchor
of the seeded demo. Like the seeded ones, each is simulated to its end when it is planned, so
the simulator only has to reveal it as the clock passes. Everything depends only on the seed,
the anchor and `k`: a restarted simulator plans the same shipments again.

With the seeded mode mix a shipment stays open (from booking to delivery) 6.8 days on average
(ocean four weeks, air three days), so one booking every 31 minutes keeps about 300 open.
"""

from __future__ import annotations

import random
import zlib
from datetime import datetime, timedelta

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.itineraries import ShipmentPlan
from freightdesk.server.demo.portfolio import (
    COUNTS,
    Phase,
    access_groups,
    choose_lane,
    finish_plan,
    placed_plan,
)
from freightdesk.server.demo.scenarios import build
from freightdesk.server.domain.carrier_directory import Region

ARRIVAL_INTERVAL = timedelta(minutes=31)
# Plan numbers of booked and benchmark shipments, apart from the seeded ones (1 to a few
# hundred); numbers appear in invoice references and pick ocean and air lanes.
ARRIVAL_NUMBERS = 100_000
FLEET_NUMBERS = 500_000

# From booking to the last thing that happens (an ocean container's empty return is weeks
# after booking): a booked shipment older than this is certainly over. Generous bounds.
LONGEST_LIFE: dict[Mode, timedelta] = {
    Mode.TL: timedelta(days=16),
    Mode.LTL: timedelta(days=12),
    Mode.PARCEL: timedelta(days=12),
    Mode.RAIL: timedelta(days=18),
    Mode.OCEAN: timedelta(days=60),
    Mode.AIR: timedelta(days=10),
}

_KINDS = list(COUNTS)
_WEIGHTS = [COUNTS[kind] for kind in _KINDS]


def _rng(seed: int, what: str, k: int) -> random.Random:
    return random.Random(zlib.crc32(f"{seed}/{what}/{k}".encode()) << 20 | k)


def booking_time(anchor: datetime, k: int) -> datetime:
    """When booked shipment `k` is due to be booked (it may be booked an hour or two off, as
    sites' opening hours move the plan)."""
    return anchor + ARRIVAL_INTERVAL * k


def booked_kind(seed: int, k: int) -> tuple[Mode, Region]:
    """The mode and region of booked shipment `k`, in the seeded demo's proportions."""
    return _rng(seed, "booked", k).choices(_KINDS, _WEIGHTS)[0]


def plan_booking(seed: int, anchor: datetime, k: int) -> ShipmentPlan:
    """Booked shipment `k`: booked about `booking_time(anchor, k)`, simulated to its end."""
    rng = _rng(seed, "booked", k)
    mode, region = rng.choices(_KINDS, _WEIGHTS)[0]
    number = ARRIVAL_NUMBERS + k
    lane = choose_lane(rng, mode, region, number)
    sub_seed = rng.getrandbits(62)
    booked = booking_time(anchor, k)
    # The scenarios place the booking some time before the first planned arrival; start the
    # shipment that long after `booked` so that it is booked about then.
    sketch = build(lane, sub_seed, booked, number, sketch=True)
    lead = max(timedelta(hours=1), booked - sketch.booked_at)
    start = booked + timedelta(minutes=round(lead.total_seconds() / 60))
    plan = build(lane, sub_seed, start, number)
    finish_plan(plan, sub_seed, plan.booked_at, access_groups(seed)[lane.region])
    return plan


def moving_fleet(seed: int, anchor: datetime, count: int) -> list[ShipmentPlan]:
    """`count` more shipments in the seeded mode mix, all under way at `anchor` (to measure
    the simulator with a big fleet)."""
    rng = _rng(seed, "fleet", count)
    groups = access_groups(seed)
    plans = []
    for index in range(1, count + 1):
        mode, region = rng.choices(_KINDS, _WEIGHTS)[0]
        number = FLEET_NUMBERS + index
        lane = choose_lane(rng, mode, region, number)
        sub_seed = rng.getrandbits(62)
        plans.append(
            placed_plan(lane, sub_seed, number, Phase.UNDER_WAY, anchor, rng, groups[lane.region])
        )
    return plans
