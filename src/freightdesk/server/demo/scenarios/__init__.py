"""One shipment per call, per mode: its route, its plan, and what really happens on the way.

Each builder takes a `Lane` (what the demo chose: places, carrier, cargo) and a private
`random.Random`, and simulates the shipment from its first planned arrival `start` to the end:
planned times follow the carriers' usual schedules and the sites' opening hours; real times
add loading that runs long, traffic, drivers' rest, breakdowns, rolled-over containers,
customs holds. Calling a builder again with the same lane, seed and start gives the same plan.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.itineraries import ShipmentPlan
from freightdesk.server.demo.scenarios.air import air
from freightdesk.server.demo.scenarios.common import Lane
from freightdesk.server.demo.scenarios.ltl import less_than_truckload
from freightdesk.server.demo.scenarios.ocean import ocean
from freightdesk.server.demo.scenarios.parcel import parcel
from freightdesk.server.demo.scenarios.rail import rail
from freightdesk.server.demo.scenarios.truckload import truckload

Builder = Callable[[Lane, random.Random, datetime, int, bool], ShipmentPlan]

BUILDERS: dict[Mode, Builder] = {
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


__all__ = ["BUILDERS", "Lane", "build"]
