"""How vehicles move: road-like paths and the position reports of trucks, trains, ships and
aircraft along them.

A road path runs through the waypoints of `networks` and meanders between them: each link is
densified along its great circle and pushed sideways by a smooth, deterministic wave that is
zero at both ends, so a path always passes through the real cities and the same link has the
same shape for every truck that drives it. Trucks then drive the path at varying speeds and
keep hours-of-service rules (US: a 30-minute break after 8 hours, 10 hours off after 11 hours
of driving; EU: 45 minutes after 4.5 hours, 11 hours off after 9), reporting every 5 minutes
while moving and every 30 minutes while parked.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

from freightdesk.server.demo.geography import (
    EARTH_RADIUS_KM,
    Point,
    distance_km,
    intermediate,
    short_km,
)

ROAD_STEP_KM = 2.0
SEA_STEP_KM = 20.0
AIR_STEP_KM = 25.0


@dataclass(frozen=True)
class Fix:
    """One reported position."""

    at: datetime
    latitude: float
    longitude: float
    speed_kmh: float
    heading: float


@dataclass(eq=False)
class Path:
    """A polyline with cumulative distances, to find the point a given distance along it.

    `waypoint_km` is how far along the path each of the waypoints it was built from lies.
    Paths are never changed once built, so equal requests share one (see `road_path`).
    """

    points: list[Point]
    cumulative: list[float] = field(default_factory=list)
    waypoint_km: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.cumulative:
            self.cumulative = _cumulative(self.points)
        if not self.waypoint_km:
            self.waypoint_km = [0.0, self.cumulative[-1]]

    @property
    def length_km(self) -> float:
        return self.cumulative[-1]

    def locate(self, km: float) -> tuple[Point, float]:
        """The point `km` along the path and the heading there."""
        if len(self.points) == 1:
            return self.points[0], 0.0
        km = min(max(km, 0.0), self.length_km)
        index = min(bisect.bisect_right(self.cumulative, km), len(self.points) - 1)
        a, b = self.points[index - 1], self.points[index]
        span = self.cumulative[index] - self.cumulative[index - 1]
        fraction = (km - self.cumulative[index - 1]) / span if span > 0 else 0.0
        point = (a[0] + (b[0] - a[0]) * fraction, a[1] + (b[1] - a[1]) * fraction)
        return point, _course(a, b)


class Walker:
    """Locates points along a path at growing distances without searching from the start."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.index = 1

    def at(self, km: float) -> tuple[Point, float]:
        path = self.path
        if len(path.points) == 1:
            return path.points[0], 0.0
        cumulative = path.cumulative
        last = len(cumulative) - 1
        while self.index < last and cumulative[self.index] < km:
            self.index += 1
        a, b = path.points[self.index - 1], path.points[self.index]
        span = cumulative[self.index] - cumulative[self.index - 1]
        fraction = min(1.0, max(0.0, (km - cumulative[self.index - 1]) / span)) if span else 0.0
        point = (a[0] + (b[0] - a[0]) * fraction, a[1] + (b[1] - a[1]) * fraction)
        return point, round(_course(a, b), 1)


def _cumulative(points: Sequence[Point]) -> list[float]:
    """Distance along densified points (each a few kilometres from the next)."""
    total = 0.0
    found = [0.0]
    for a, b in itertools.pairwise(points):
        total += short_km(a, b)
        found.append(total)
    return found


def _course(a: Point, b: Point) -> float:
    """Heading from a to b over a short step (plane approximation), 0 to 360 from north."""
    east = (b[1] - a[1]) * math.cos(math.radians(a[0]))
    north = b[0] - a[0]
    if east == 0 and north == 0:
        return 0.0
    return (math.degrees(math.atan2(east, north)) + 360.0) % 360.0


def _stable_rng(*parts: object) -> random.Random:
    return random.Random(zlib.crc32(repr(parts).encode()))


@cache
def _road_link(
    a: Point, b: Point, amplitude_scale: float
) -> tuple[tuple[Point, ...], tuple[float, ...]]:
    """A meandering road from a to b (both included) and the distance along it to each point;
    the same every time it is asked for.

    Links join neighbouring cities (at most several hundred kilometres), so the line between
    them is taken on the local plane, which is as good as the great circle at that length.
    """
    length = distance_km(a, b)
    steps = max(1, math.ceil(length / ROAD_STEP_KM))
    rng = _stable_rng(a, b)
    big = min(0.035 * length, 9.0) * amplitude_scale
    small = min(0.012 * length, 2.0) * amplitude_scale
    k_big = 1 + rng.randrange(2)
    k_small = max(2, round(length / 35))
    phase_big, phase_small = rng.uniform(0, math.tau), rng.uniform(0, math.tau)
    # Unit vector to the left of the direction of travel, in degrees of latitude and longitude
    # per kilometre.
    km_per_lat = math.pi * EARTH_RADIUS_KM / 180
    km_per_lon = km_per_lat * math.cos(math.radians((a[0] + b[0]) / 2))
    north = (b[0] - a[0]) * km_per_lat
    east = (b[1] - a[1]) * km_per_lon
    norm = math.hypot(north, east) or 1.0
    left = (east / norm / km_per_lat, -north / norm / km_per_lon)
    points = [a]
    for step in range(1, steps):
        t = step / steps
        envelope = math.sin(math.pi * t)
        side = envelope * (
            big * math.sin(math.tau * k_big * t + phase_big)
            + small * math.sin(math.tau * k_small * t + phase_small)
        )
        points.append(
            (
                a[0] + (b[0] - a[0]) * t + left[0] * side,
                a[1] + (b[1] - a[1]) * t + left[1] * side,
            )
        )
    points.append(b)
    return tuple(points), tuple(_cumulative(points))


def road_path(waypoints: Sequence[Point], amplitude_scale: float = 1.0) -> Path:
    """A road-like path through the waypoints (a link is shaped the same in both directions)."""
    return _road_path(tuple(waypoints), amplitude_scale)


@cache
def _road_path(waypoints: tuple[Point, ...], amplitude_scale: float) -> Path:
    points: list[Point] = [waypoints[0]]
    cumulative = [0.0]
    waypoint_km = [0.0]
    for a, b in itertools.pairwise(waypoints):
        if distance_km(a, b) >= 0.05:
            if a <= b:
                link, along = _road_link(a, b, amplitude_scale)
                steps = [along[i] - along[i - 1] for i in range(1, len(along))]
            else:
                link, along = _road_link(b, a, amplitude_scale)
                link = link[::-1]
                steps = [along[i] - along[i - 1] for i in range(len(along) - 1, 0, -1)]
            total = cumulative[-1]
            points.extend(link[1:])
            for step in steps:
                total += step
                cumulative.append(total)
        waypoint_km.append(cumulative[-1])
    return Path(points, cumulative, waypoint_km)


def great_circle_path(waypoints: Sequence[Point], step_km: float) -> Path:
    """Great circles between the waypoints, densified (sea lanes, flights)."""
    return _great_circle_path(tuple(waypoints), step_km)


@cache
def _great_circle_path(waypoints: tuple[Point, ...], step_km: float) -> Path:
    points: list[Point] = [waypoints[0]]
    for a, b in itertools.pairwise(waypoints):
        steps = max(1, math.ceil(distance_km(a, b) / step_km))
        points.extend(intermediate(a, b, i / steps) for i in range(1, steps + 1))
    return Path(points)


def joined(paths: Sequence[Path]) -> Path:
    """One path that runs along each of the paths in turn (each starts where the last ends)."""
    points = list(paths[0].points)
    cumulative = list(paths[0].cumulative)
    for path in paths[1:]:
        base = cumulative[-1]
        points.extend(path.points[1:])
        cumulative.extend(base + km for km in path.cumulative[1:])
    return Path(points, cumulative)


# --- trucks ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrivingRules:
    cruise_kmh: float
    break_after_hours: float
    break_minutes: int
    daily_driving_hours: float
    rest_hours: float
    # Relay or team operations (LTL linehaul) have no driver-rest stops.
    rests: bool = True


US_RULES = DrivingRules(96.0, 8.0, 30, 11.0, 10.0)
EU_RULES = DrivingRules(78.0, 4.5, 45, 9.0, 11.0)
LINEHAUL_US = DrivingRules(92.0, 8.0, 30, 11.0, 10.0, rests=False)
LINEHAUL_EU = DrivingRules(76.0, 4.5, 45, 9.0, 11.0, rests=False)
CITY_KM = 12.0
CITY_KMH = 38.0


@dataclass(frozen=True)
class Hold:
    """An unplanned stop `at_km` along a leg (breakdown, accident, inspection)."""

    at_km: float
    minutes: int


@dataclass(frozen=True)
class Drive:
    fixes: list[Fix]
    arrival: datetime
    # When each of the holds began and ended, in the order of the path.
    held: list[tuple[datetime, datetime]] = field(default_factory=list)


def drive(
    path: Path,
    depart: datetime,
    rules: DrivingRules,
    *,
    rng: random.Random | None = None,
    holds: Sequence[Hold] = (),
    report_minutes: int = 5,
    parked_report_minutes: int = 30,
    report: bool = True,
) -> Drive:
    """Drive the path from `depart`; without `rng` the nominal (planning) drive, unreported.
    With `report` False the drive is the same but leaves no positions (a quick sketch).

    Speed varies smoothly with distance (terrain, traffic) around the rules' cruising speed,
    slower in the first and last kilometres (city streets). Time is kept in minutes since
    departure; the truck moves one reporting interval per step (five minutes when planning).
    """
    length = path.length_km
    pace = rng.uniform(0.93, 1.04) if rng else 0.97
    phase_a = rng.uniform(0, math.tau) if rng else 0.0
    phase_b = rng.uniform(0, math.tau) if rng else 0.0
    step = float(report_minutes) if rng is not None and report else 5.0
    pending = sorted(holds, key=lambda h: h.at_km)
    fixes: list[Fix] = []
    held: list[tuple[datetime, datetime]] = []
    minute = 0.0
    km = 0.0
    since_break = 0.0
    today = 0.0
    reporting = rng is not None and report
    next_report = 0.0 if reporting else math.inf
    cruise = rules.cruise_kmh * pace
    walker = Walker(path)

    def fix(at: float, speed: float, parked: bool) -> None:
        point, heading = walker.at(km)
        if parked:
            # A parked truck's GPS wanders by a few metres.
            point = (point[0] + 4e-5 * math.sin(at * 1.7), point[1] + 4e-5 * math.cos(at * 2.3))
            heading = fixes[-1].heading if fixes else heading
        when = depart + timedelta(minutes=round(at))
        fixes.append(Fix(when, round(point[0], 5), round(point[1], 5), round(speed, 1), heading))

    def park(minutes: float) -> None:
        nonlocal minute, next_report
        end = minute + minutes
        if reporting:
            at = minute
            while at < end:
                fix(at, 0.0, parked=True)
                at += parked_report_minutes
        minute = end
        next_report = minute if reporting else math.inf

    while km < length:
        if pending and km >= pending[0].at_km:
            began = minute
            park(pending.pop(0).minutes)
            held.append(
                (
                    depart + timedelta(minutes=round(began)),
                    depart + timedelta(minutes=round(minute)),
                )
            )
            continue
        if rules.rests and today >= rules.daily_driving_hours * 60:
            park(rules.rest_hours * 60)
            today = since_break = 0.0
            continue
        if rules.rests and since_break >= rules.break_after_hours * 60:
            park(rules.break_minutes + (rng.randrange(0, 20) if rng else 0))
            since_break = 0.0
            continue
        if km < CITY_KM or length - km < CITY_KM:
            speed = CITY_KMH
        else:
            wave = 0.07 * math.sin(km / 23.0 + phase_a) + 0.04 * math.sin(km / 7.3 + phase_b)
            speed = cruise * (1.0 + wave)
        if minute >= next_report:
            fix(minute, speed, parked=False)
            next_report = minute + report_minutes
        # One step per report; the last one only as long as the remaining distance takes.
        moved = min(step, (length - km) / speed * 60.0)
        km = min(length, km + speed * moved / 60.0)
        minute += moved
        since_break += moved
        today += moved
    return Drive(fixes, depart + timedelta(minutes=round(minute)), held)


@cache
def nominal_drive_hours(path: Path, rules: DrivingRules) -> float:
    """How long planning allows for the drive (no report, no incident)."""
    start = datetime(2000, 1, 1)
    return (drive(path, start, rules).arrival - start).total_seconds() / 3600


# --- trains, ships, aircraft -------------------------------------------------------------------


def run(
    path: Path,
    depart: datetime,
    speed_kmh: float,
    *,
    rng: random.Random,
    report_minutes: int,
    stops: Sequence[Hold] = (),
    variation: float = 0.06,
    end_speed_kmh: float | None = None,
    end_km: float = 0.0,
    report: bool = True,
) -> Drive:
    """A vehicle at a steady speed with scheduled stops (yards, anchorages); reports every
    `report_minutes` while moving and every hour while stopped. Within `end_km` of either end
    it moves at `end_speed_kmh` (climb and descent, harbour pilotage)."""
    length = path.length_km
    pending = sorted(stops, key=lambda h: h.at_km)
    phase = rng.uniform(0, math.tau)
    fixes: list[Fix] = []
    t, km = depart, 0.0
    never = depart + timedelta(days=3650)
    next_report = depart if report else never
    walker = Walker(path)
    # Steps a third of the reporting interval: fine enough to report on time, few enough for
    # a two-week voyage.
    step = timedelta(minutes=max(1, min(10, report_minutes // 3)))
    held: list[tuple[datetime, datetime]] = []
    while km < length:
        if pending and km >= pending[0].at_km:
            hold = pending.pop(0)
            end = t + timedelta(minutes=hold.minutes)
            held.append((t, end))
            point, heading = walker.at(km)
            while t < end:
                if t >= next_report:
                    fixes.append(Fix(t, round(point[0], 5), round(point[1], 5), 0.0, heading))
                    next_report = t + timedelta(minutes=60)
                t += timedelta(minutes=10)
            t = end
            continue
        slow = end_speed_kmh is not None and (km < end_km or length - km < end_km)
        speed = (
            end_speed_kmh
            if slow and end_speed_kmh is not None
            else speed_kmh * (1.0 + variation * math.sin(km / 97.0 + phase))
        )
        if t >= next_report:
            point, heading = walker.at(km)
            fixes.append(Fix(t, round(point[0], 5), round(point[1], 5), round(speed, 1), heading))
            next_report = t + timedelta(minutes=report_minutes)
        km = min(length, km + speed * step.total_seconds() / 3600)
        t += step
    return Drive(fixes, t, held)
