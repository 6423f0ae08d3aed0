"""How far apart two points on the earth are (great circle), for the service's geocoder and
the app's "12 km from Dallas DC" alike."""

from __future__ import annotations

import math

EARTH_RADIUS_KM = 6371.0088

Point = tuple[float, float]  # (latitude, longitude) in degrees


def distance_km(a: Point, b: Point) -> float:
    """The great-circle distance between `a` and `b` (haversine), in kilometres."""
    phi1, phi2 = math.radians(a[0]), math.radians(b[0])
    dphi = phi2 - phi1
    dlambda = math.radians(b[1] - a[1])
    h = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))
