"""The sailing network itself: real ports, plausible distances, every port reachable."""

from __future__ import annotations

import random
import re
import zoneinfo

import pytest

from freightdesk.server.domain import schedules
from freightdesk.server.domain.ports import PORTS, sea_leg


def test_ports_are_real_looking_and_all_served() -> None:
    assert len(PORTS) >= 200
    for code, port in PORTS.items():
        assert re.fullmatch(r"[A-Z]{2}[A-Z2-9]{3}", code)
        assert port.country == code[:2]
        assert -90 <= port.latitude <= 90 and -180 <= port.longitude <= 180
        zoneinfo.ZoneInfo(port.time_zone)
    assert schedules.served_ports() == frozenset(PORTS)


@pytest.mark.parametrize(
    ("origin", "destination", "nautical_miles", "canal"),
    [
        ("CNSHA", "NLRTM", 10_500, True),  # via Suez
        ("CNSHA", "USLAX", 5_700, False),
        ("NLRTM", "USNYC", 3_450, False),
        ("USLAX", "PABLB", 2_900, False),
        ("CNSHA", "USNYC", 10_600, True),  # via Panama
        ("BRSSZ", "NLRTM", 5_400, False),
    ],
)
def test_sea_distances_follow_the_shipping_lanes(
    origin: str, destination: str, nautical_miles: int, canal: bool
) -> None:
    leg = sea_leg(origin, destination)
    assert abs(leg.nautical_miles - nautical_miles) / nautical_miles < 0.1
    assert (leg.canal_hours > 0) is canal


def test_every_pair_of_ports_is_connected() -> None:
    codes = sorted(PORTS)
    rng = random.Random(3)
    for _ in range(20):
        origin, destination = rng.sample(codes, 2)
        found = schedules.routings(origin, destination)
        assert found, (origin, destination)
        fastest = min(r.arrive_hours - r.depart_hours for r in found)
        straight = sea_leg(origin, destination).nautical_miles / schedules.MAINLINE_KNOTS
        assert fastest >= straight


def test_services_sail_weekly_with_enough_vessels() -> None:
    for service in schedules.network().services:
        assert service.cycle_hours % schedules.WEEK_HOURS == 0
        assert len(service.vessels) == service.cycle_hours // schedules.WEEK_HOURS
        assert service.arrive[-1] < service.cycle_hours
    names = [v for s in schedules.network().services for v in s.vessels]
    assert len(names) == len(set(names))  # one vessel cannot sail two loops
