"""Tracks for maps: a shipment's position history simplified for drawing, and the fleet's
latest positions kept current.

Simplification is Douglas-Peucker measured the way the map draws: Leaflet joins points with
straight lines in Web Mercator, so distances are taken there and scaled to ground metres at
each point (Mercator is conformal, so a small distance near latitude φ is its Mercator length
times cos φ). Every position left out is within the tolerance of the drawn line between the
kept positions that surround it; the first and last positions are always kept, in order.

The splitting runs level by level over all open stretches at once with numpy (one pass over
the remaining points per level instead of one Python call per stretch). A long track (over
10,000 positions) is first cut every 64 positions: the tolerance holds all the same, the top
levels that would each pass over every position are skipped (four times faster on 100,000),
and the cuts add at most one point in 64 to the drawing.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
import numpy.typing as npt

from freightdesk.api.client import ApiClient
from freightdesk.models.tracking import LatestPosition
from freightdesk.service.coordinator import Coordinator

log = logging.getLogger(__name__)

# The drawn track never strays further than this from a reported position; the margin under
# the promised 50 m covers the difference between the spherical Mercator and the ellipsoid.
TOLERANCE_M = 45.0
MAX_DEVIATION_M = 50.0

EARTH_RADIUS_M = 6378137.0  # the sphere of Web Mercator (EPSG:3857)
MAX_MERCATOR_LATITUDE = 85.05112878

FloatArray = npt.NDArray[np.float64]


def unwrap_longitudes(longitudes: Sequence[float]) -> list[float]:
    """Longitudes made continuous (179 then -179 becomes 179 then 181), so that a track over
    the antimeridian is drawn across it instead of around the whole world."""
    if not longitudes:
        return []
    unwrapped = np.unwrap(np.asarray(longitudes, dtype=np.float64), period=360.0)
    return [float(value) for value in unwrapped]


def mercator(
    latitudes: Sequence[float] | FloatArray, longitudes: Sequence[float] | FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Web Mercator x and y in metres, and the scale (cos φ) from Mercator to ground metres."""
    phi = np.radians(
        np.clip(
            np.asarray(latitudes, dtype=np.float64), -MAX_MERCATOR_LATITUDE, MAX_MERCATOR_LATITUDE
        )
    )
    x = EARTH_RADIUS_M * np.radians(np.asarray(longitudes, dtype=np.float64))
    y = EARTH_RADIUS_M * np.log(np.tan(np.pi / 4 + phi / 2))
    return x, y, np.cos(phi)


LONG_TRACK = 10_000
LONG_TRACK_CUT = 64

Coordinates = Sequence[float] | FloatArray


def simplify(
    latitudes: Coordinates, longitudes: Coordinates, tolerance_m: float = TOLERANCE_M
) -> list[int]:
    """Indexes of the positions to draw, ascending; the first and the last are always kept.

    Longitudes should be continuous (see `unwrap_longitudes`)."""
    return [int(index) for index in simplified(latitudes, longitudes, tolerance_m)]


def simplified(
    latitudes: Coordinates, longitudes: Coordinates, tolerance_m: float = TOLERANCE_M
) -> npt.NDArray[np.intp]:
    """`simplify` as a numpy array of indexes."""
    count = len(latitudes)
    if count != len(longitudes):
        raise ValueError("as many latitudes as longitudes are needed")
    if count <= 2:
        return np.arange(count)
    if not tolerance_m > 0:
        raise ValueError("the tolerance must be a positive number of metres")
    x, y, scale = mercator(latitudes, longitudes)
    # A point is too far when (mercator distance * cos φ / tolerance)² > 1.
    weight = (scale / tolerance_m) ** 2
    keep = np.zeros(count, dtype=bool)
    keep[0] = keep[-1] = True
    if count > LONG_TRACK:
        keep[::LONG_TRACK_CUT] = True
    open_points = np.flatnonzero(~keep)
    px, py, pw = x[open_points], y[open_points], weight[open_points]
    while open_points.size:
        kept = np.flatnonzero(keep)
        # The stretch (between two kept points) each open point lies in; points of one
        # stretch are contiguous because both arrays are in track order.
        stretch = np.cumsum(keep)[open_points] - 1
        starts = np.flatnonzero(np.diff(stretch, prepend=-1))
        sizes = np.diff(starts, append=open_points.size)
        first, last = kept[stretch[starts]], kept[stretch[starts] + 1]
        ax, ay = x[first], y[first]
        dx, dy = x[last] - ax, y[last] - ay
        length2 = np.maximum(dx * dx + dy * dy, 1e-12)
        ax, ay = np.repeat(ax, sizes), np.repeat(ay, sizes)
        dx, dy, length2 = np.repeat(dx, sizes), np.repeat(dy, sizes), np.repeat(length2, sizes)
        rx, ry = px - ax, py - ay
        # Distance to the segment, not the line: a track that doubles back must keep its turn.
        t = np.clip((rx * dx + ry * dy) / length2, 0.0, 1.0)
        rx -= t * dx
        ry -= t * dy
        excess = (rx * rx + ry * ry) * pw
        worst = np.maximum.reduceat(excess, starts)
        positions = np.arange(open_points.size)
        at_worst = np.where(excess == np.repeat(worst, sizes), positions, open_points.size)
        split_at = np.minimum.reduceat(at_worst, starts)
        too_far = worst > 1.0
        chosen = split_at[too_far]
        keep[open_points[chosen]] = True
        stay = np.repeat(too_far, sizes)
        stay[chosen] = False
        open_points, px, py, pw = open_points[stay], px[stay], py[stay], pw[stay]
    return np.flatnonzero(keep)


def max_deviation_m(
    latitudes: Sequence[float], longitudes: Sequence[float], kept: Sequence[int]
) -> float:
    """How far (in ground metres) the furthest position is from the line through `kept`."""
    if len(latitudes) <= 2 or len(kept) < 2:
        return 0.0
    x, y, scale = mercator(latitudes, longitudes)
    worst = 0.0
    for start, end in itertools.pairwise(kept):
        if end - start < 2:
            continue
        ax, ay, dx, dy = x[start], y[start], x[end] - x[start], y[end] - y[start]
        length2 = max(dx * dx + dy * dy, 1e-12)
        rx, ry = x[start + 1 : end] - ax, y[start + 1 : end] - ay
        t = np.clip((rx * dx + ry * dy) / length2, 0.0, 1.0)
        distance = np.hypot(rx - t * dx, ry - t * dy) * scale[start + 1 : end]
        worst = max(worst, float(distance.max()))
    return worst


# --- the fleet -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fleet:
    """The latest position of each visible shipment, by shipment id."""

    positions: dict[str, LatestPosition] = field(default_factory=dict)
    # The newest fix seen: the next poll asks only for fixes after it (less an overlap).
    newest: datetime | None = None
    # False when the service lacks the fleet extension (a deployment of the interface only).
    available: bool = True
    polls_since_full: int = 0


@dataclass(frozen=True)
class FleetChange:
    changed: frozenset[str] = frozenset()
    full: bool = False


def diff_fleet(old: Fleet | None, new: Fleet) -> FleetChange | None:
    if old is None or old.available != new.available:
        return FleetChange(frozenset(new.positions), full=True)
    if old.positions is new.positions:
        return None
    changed = frozenset(
        key
        for key, position in new.positions.items()
        if (before := old.positions.get(key)) is None or before != position
    )
    removed = old.positions.keys() - new.positions.keys()
    if removed:
        return FleetChange(frozenset(new.positions), full=True)
    return FleetChange(changed) if changed else None


class FleetPositions:
    """Polls the fleet's latest positions while someone listens (the fleet map is shown).

    A poll asks only for fixes newer than the newest one seen (less `overlap`, for fixes
    stored in the same instant); every `full_every` polls the whole fleet is read again, which
    drops shipments that were deleted and picks up a fix that arrived late.
    """

    def __init__(
        self,
        client: Callable[[], ApiClient],
        *,
        interval: float = 20.0,
        overlap: timedelta = timedelta(seconds=5),
        full_every: int = 15,
    ) -> None:
        self._client = client
        self.overlap = overlap
        self.full_every = full_every
        self.coordinator: Coordinator[Fleet, FleetChange] = Coordinator(
            "fleet", self._fetch, diff_fleet, interval=interval
        )

    async def _fetch(self, previous: Fleet | None) -> Fleet:
        client = self._client()
        if not await client.fleet.has_latest_positions():
            unchanged = previous is not None and not previous.available
            return previous if unchanged and previous is not None else Fleet(available=False)
        if (
            previous is not None
            and previous.available
            and previous.newest is not None
            and previous.polls_since_full + 1 < self.full_every
        ):
            return await self._newer(client, previous, previous.newest)
        found = await client.fleet.latest_positions()
        positions = {str(p.shipment_id): p for p in found}
        if previous is not None and previous.positions == positions:
            positions = previous.positions  # the same dict: listeners are not told
        return Fleet(positions, max((p.date_time for p in found), default=None))

    async def _newer(self, client: ApiClient, previous: Fleet, newest: datetime) -> Fleet:
        found = await client.fleet.latest_positions(since=newest - self.overlap)
        fresh = [p for p in found if previous.positions.get(str(p.shipment_id)) != p]
        polls = previous.polls_since_full + 1
        if not fresh:
            return Fleet(previous.positions, newest, polls_since_full=polls)
        positions = {**previous.positions, **{str(p.shipment_id): p for p in fresh}}
        return Fleet(positions, max(newest, *(p.date_time for p in fresh)), polls_since_full=polls)

    async def aclose(self) -> None:
        await self.coordinator.aclose()
