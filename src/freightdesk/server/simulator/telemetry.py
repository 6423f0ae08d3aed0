"""What a truck's telematics unit reads besides its position: fuel, ignition, reefer, weather.

Every reading is a pure function of the shipment, the fix and how far the truck has driven, so
a restarted simulator reports exactly the same values. A truck's tanks drain with the distance
driven and are filled when they run low; about a quarter of truckloads ride in a reefer whose
return air stays within 2 degrees of its set point, except that now and then the unit fails
for an hour or two (an excursion the carrier reports as an exception).
"""

from __future__ import annotations

import math
import random
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.itineraries import ShipmentPlan
from freightdesk.server.demo.tracks import Fix
from freightdesk.server.domain.carrier_directory import Region

REEFER_SHARE = 0.25
EXCURSION_SHARE = 0.15
# Degrees either side of the set point a working reefer keeps the return air within.
BAND = 2.0


def stable_random(*parts: object) -> random.Random:
    """A generator that depends only on `parts` (not on Python's hash salt)."""
    return random.Random(zlib.crc32(repr(parts).encode()))


@dataclass(frozen=True)
class Reefer:
    set_point: float
    unit: str  # F in North America, C in Europe
    # When the unit fails and the load warms beyond the band, if it ever does.
    excursion: tuple[datetime, datetime] | None

    def in_excursion(self, at: datetime) -> bool:
        return self.excursion is not None and self.excursion[0] <= at < self.excursion[1]


def reefer_for(plan: ShipmentPlan, world: str) -> Reefer | None:
    """The reefer of a truckload that needs one (None: a dry van)."""
    if plan.mode is not Mode.TL:
        return None
    rng = stable_random(world, plan.number, "reefer")
    if rng.random() >= REEFER_SHARE:
        return None
    if plan.region is Region.NORTH_AMERICA:
        set_point, unit = rng.choice((34.0, 36.0, 38.0, 55.0)), "F"
    else:
        set_point, unit = rng.choice((2.0, 4.0, 13.0)), "C"
    excursion = None
    begin, end = plan.origin.departure, plan.destination.arrival
    if rng.random() < EXCURSION_SHARE and end - begin > timedelta(hours=4):
        starts = begin + (end - begin - timedelta(hours=3)) * rng.uniform(0.1, 0.9)
        excursion = (starts, starts + timedelta(minutes=rng.randrange(50, 150)))
    return Reefer(set_point, unit, excursion)


def return_air(reefer: Reefer, at: datetime, index: int) -> float:
    """The load's temperature at a reading: a gentle cycle within the band, or well above it
    during an excursion."""
    rng = stable_random("air", reefer.set_point, index)
    if reefer.excursion is not None and reefer.in_excursion(at):
        began, ended = reefer.excursion
        progress = (at - began) / (ended - began)
        rise = (3.5 if reefer.unit == "F" else 2.0) * math.sin(math.pi * progress)
        return round(reefer.set_point + BAND + 0.6 + rise + rng.uniform(0, 0.4), 1)
    cycle = 0.9 * math.sin(at.timestamp() / 1900.0) + rng.uniform(-0.5, 0.5)
    return round(reefer.set_point + max(-1.8, min(1.8, cycle)), 1)


@dataclass(frozen=True)
class FuelTank:
    capacity: float
    unit: str
    per_km: float
    # Kilometres already driven on the current fill when the shipment starts.
    offset_km: float

    def level(self, km: float) -> float:
        """The fuel left after `km`; the tanks are filled to 95% when they reach 22%."""
        usable = self.capacity * (0.95 - 0.22)
        burnt = ((km + self.offset_km) * self.per_km) % usable
        return round(self.capacity * 0.95 - burnt, 1)


def tank_for(plan: ShipmentPlan, world: str) -> FuelTank:
    rng = stable_random(world, plan.number, "fuel")
    if plan.region is Region.NORTH_AMERICA:
        # Two 120-gallon saddle tanks, about 6.3 miles per gallon.
        capacity, unit, per_km = 240.0, "GALLONS", 1 / (6.3 * 1.609344)
    else:
        # 700 litres, about 31 litres per 100 km.
        capacity, unit, per_km = 700.0, "LITERS", 0.31
    return FuelTank(capacity, unit, per_km, rng.uniform(0, capacity * 0.7 / per_km))


def ambient(fix: Fix, unit: str) -> float:
    """Outside air: colder further north and in winter, warmer in the afternoon."""
    day = fix.at.timetuple().tm_yday
    solar_hour = (fix.at.hour + fix.at.minute / 60 + fix.longitude / 15) % 24
    celsius = (
        27.0
        - 0.55 * max(0.0, abs(fix.latitude) - 25)
        - 11.0 * math.cos(2 * math.pi * (day - 15) / 365)
        + 4.5 * math.sin(2 * math.pi * (solar_hour - 9) / 24)
    )
    return round(celsius * 9 / 5 + 32 if unit == "F" else celsius, 1)


def sensor(
    fix: Fix, index: int, km: float, tank: FuelTank, reefer: Reefer | None
) -> dict[str, Any]:
    """The `sensor` part of a truckload reading (wire names)."""
    moving = fix.speed_kmh > 0
    found: dict[str, Any] = {
        "ignitionStatus": "ON" if moving else "OFF",
        "fuel": {
            "type": "DIESEL",
            "fuelUnit": tank.unit,
            "currentLevel": tank.level(km),
            "capacity": tank.capacity,
        },
    }
    if reefer is None:
        return found
    air = return_air(reefer, fix.at, index)
    failing = reefer.in_excursion(fix.at)
    found["ambientTemperature"] = {"value": ambient(fix, reefer.unit), "unit": reefer.unit}
    found["reefer"] = {
        "state": "ALARM" if failing else "ON",
        "powerSource": "DIESEL",
        "operatingMode": "CONTINUOUS",
        "voltage": 13.2 if failing else 13.9,
    }
    found["zones"] = [
        {
            "id": 1,
            "setPoint": reefer.set_point,
            "returnAirTemperature": air,
            "dischargeAirTemperature": round(air + 4.0 if failing else reefer.set_point - 1.5, 1),
            "temperatureUnit": reefer.unit,
            "doorState": "CLOSED",
        }
    ]
    return found
