"""The vehicle search grid: every point inside a search circle lies in one of its cells."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from freightdesk.server.domain.places import EARTH_RADIUS_KM, haversine_km
from freightdesk.server.domain.vehicles import Centre, grid_cells
from freightdesk.server.tables.vehicles import cell_of


def destination(centre: Centre, bearing: float, km: float) -> tuple[float, float]:
    d = km / EARTH_RADIUS_KM
    lat1, lon1 = math.radians(centre.latitude), math.radians(centre.longitude)
    lat2 = math.asin(
        math.sin(lat1) * math.cos(d) + math.cos(lat1) * math.sin(d) * math.cos(bearing)
    )
    lon2 = lon1 + math.atan2(
        math.sin(bearing) * math.sin(d) * math.cos(lat1),
        math.cos(d) - math.sin(lat1) * math.sin(lat2),
    )
    return math.degrees(lat2), (math.degrees(lon2) + 540) % 360 - 180


@settings(max_examples=400, deadline=None)
@given(
    latitude=st.floats(-90, 90),
    longitude=st.floats(-180, 180),
    radius=st.floats(1, 90),
    bearing=st.floats(0, 2 * math.pi),
    share=st.floats(0, 1),
)
def test_points_in_the_circle_are_in_its_cells(
    latitude: float, longitude: float, radius: float, bearing: float, share: float
) -> None:
    centre = Centre(latitude, longitude)
    point = destination(centre, bearing, radius * share)
    if haversine_km(latitude, longitude, *point) <= radius:
        assert cell_of(*point) in set(grid_cells(centre, radius))


def test_a_search_looks_at_few_cells() -> None:
    assert len(grid_cells(Centre(41.88, -87.63), 80.5)) <= 25  # 50 miles around Chicago
    assert len(grid_cells(Centre(50, 179.9), 80)) == len(
        grid_cells(Centre(50, 0), 80)
    )  # the dateline
