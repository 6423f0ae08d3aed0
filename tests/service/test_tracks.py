"""Track simplification for maps: the drawn line stays within 50 m of every reported position,
keeps the first and last position and the order, and stays fast on 100,000 positions."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from freightdesk.service.tracks import (
    MAX_DEVIATION_M,
    TOLERANCE_M,
    max_deviation_m,
    simplify,
    unwrap_longitudes,
)

R = 6378137.0
Point = tuple[float, float]
Track = tuple[list[float], list[float]]


def _merc(lat: float, lon: float) -> tuple[float, float]:
    """Web Mercator, written independently of the module under test."""
    lat = max(-85.05112878, min(85.05112878, lat))
    return R * math.radians(lon), R * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))


def _drawn_distance_m(
    p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]
) -> float:
    """Ground metres from position p to the straight Mercator segment a-b, as Leaflet draws it."""
    (px, py), (ax, ay), (bx, by) = _merc(*p), _merc(*a), _merc(*b)
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    mercator_distance = math.hypot(px - (ax + t * dx), py - (ay + t * dy))
    return mercator_distance * math.cos(math.radians(max(-85.05112878, min(85.05112878, p[0]))))


def _worst(lats: list[float], lons: list[float], kept: list[int]) -> float:
    worst = 0.0
    for start, end in itertools.pairwise(kept):
        a, b = (lats[start], lons[start]), (lats[end], lons[end])
        for index in range(start + 1, end):
            worst = max(worst, _drawn_distance_m((lats[index], lons[index]), a, b))
    return worst


@st.composite
def tracks(draw: st.DrawFn) -> Track:
    """Random journeys: steps from standing still to long jumps, turns, doubling back, dwell
    clusters and GPS jitter, anywhere on Earth (longitudes unwrapped over the antimeridian)."""
    lat = draw(st.floats(-80, 80))
    lon = draw(st.floats(-180, 180))
    heading = draw(st.floats(0, 2 * math.pi))
    steps = draw(
        st.lists(
            st.tuples(
                st.sampled_from([0.0, 3.0, 30.0, 120.0, 400.0, 2_000.0, 40_000.0]),  # metres
                st.floats(-math.pi, math.pi),  # turn
                st.floats(-20.0, 20.0),  # jitter in metres
            ),
            min_size=1,
            max_size=120,
        )
    )
    lats, lons = [lat], [lon]
    for distance, turn, jitter in steps:
        heading += turn if abs(turn) > 2.5 else turn / 8  # mostly gentle, sometimes a U-turn
        dlat = (distance * math.cos(heading) + jitter) / 111_320
        lat = max(-84.0, min(84.0, lat + dlat))
        dlon = (distance * math.sin(heading) - jitter) / (111_320 * math.cos(math.radians(lat)))
        lon = (lon + dlon + 180) % 360 - 180
        lats.append(lat)
        lons.append(lon)
    return lats, unwrap_longitudes(lons)


@settings(max_examples=300, deadline=None)
@given(tracks())
def test_within_50_m_of_every_position_keeping_endpoints_and_order(track: Track) -> None:
    lats, lons = track
    kept = simplify(lats, lons)
    assert kept[0] == 0 and kept[-1] == len(lats) - 1
    assert kept == sorted(set(kept))
    worst = _worst(lats, lons, kept)
    assert worst <= MAX_DEVIATION_M
    # The module's own measure (used by the benchmark) agrees with this independent one.
    assert max_deviation_m(lats, lons, kept) == pytest.approx(worst, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(tracks(), st.floats(1.0, 5_000.0))
def test_any_tolerance_is_respected(
    track: tuple[list[float], list[float]], tolerance: float
) -> None:
    lats, lons = track
    kept = simplify(lats, lons, tolerance)
    assert _worst(lats, lons, kept) <= tolerance * (1 + 1e-9)


def test_a_straight_road_is_two_points_and_a_u_turn_keeps_its_turn() -> None:
    lats = [41.0 + i * 0.001 for i in range(100)]
    lons = [-87.6] * 100
    assert simplify(lats, lons) == [0, 99]
    # Out and back along the same line: a line-distance test would drop the far end.
    there_and_back = lats + lats[::-1]
    kept = simplify(there_and_back, lons * 2)
    assert 99 in kept or 100 in kept
    assert max_deviation_m(there_and_back, lons * 2, kept) <= TOLERANCE_M


def test_parked_jitter_collapses() -> None:
    rng = random.Random(3)
    lats = [51.9 + rng.gauss(0, 5e-5) for _ in range(500)]  # about 5 m of jitter
    lons = [4.5 + rng.gauss(0, 8e-5) for _ in range(500)]
    assert len(simplify(lats, lons)) < 10


def test_short_and_bad_input() -> None:
    assert simplify([], []) == []
    assert simplify([1.0], [2.0]) == [0]
    assert simplify([1.0, 1.0], [2.0, 2.0]) == [0, 1]
    with pytest.raises(ValueError, match="as many"):
        simplify([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="tolerance"):
        simplify([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], 0.0)


def test_the_antimeridian_is_crossed_not_circled() -> None:
    assert unwrap_longitudes([178.0, 179.5, -179.5, -178.0]) == [178.0, 179.5, 180.5, 182.0]
    assert unwrap_longitudes([-179.0, 179.0]) == [-179.0, -181.0]
    assert unwrap_longitudes([]) == []


def test_a_hundred_thousand_positions() -> None:
    """A long, noisy road journey with stops: simplified within 50 m, to a drawable size."""
    rng = random.Random(11)
    lat, lon, heading = 41.0, -87.0, 1.0
    lats: list[float] = []
    lons: list[float] = []
    while len(lats) < 100_000:
        if rng.random() < 0.002:
            for _ in range(rng.randrange(20, 200)):
                lats.append(lat + rng.gauss(0, 3e-5))
                lons.append(lon + rng.gauss(0, 4e-5))
        heading += rng.gauss(0, 0.05)
        lat += 300 / 111_320 * math.cos(heading)
        lon += 300 / 111_320 * math.sin(heading) / math.cos(math.radians(lat))
        lats.append(lat + rng.gauss(0, 4e-5))
        lons.append(lon + rng.gauss(0, 5e-5))
    lats, lons = lats[:100_000], lons[:100_000]
    kept = simplify(lats, lons)
    assert kept[0] == 0 and kept[-1] == 99_999
    assert len(kept) < 20_000
    assert max_deviation_m(lats, lons, kept) <= MAX_DEVIATION_M
