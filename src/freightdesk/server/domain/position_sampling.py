"""Down-sampling of a position track that keeps its first and last point and its shape.

Largest-Triangle-Three-Buckets (Steinarsson 2013) over the track in the plane of longitude and
latitude: the points between the first and the last are split into equal buckets and from each
bucket the point forming the largest triangle with the previously kept point and the average of
the next bucket is kept. Turns and detours form large triangles, so they survive; long straight
stretches thin out. Linear in the number of points.

The work is on numpy arrays of coordinates and gives the indices to keep: a shipment's whole
track (100,000 positions and more) is read for every history request, so the service reads the
coordinates alone and builds only the kept positions (issue 18).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

import numpy as np
import numpy.typing as npt


class Located(Protocol):
    @property
    def latitude(self) -> float: ...

    @property
    def longitude(self) -> float: ...


P = TypeVar("P", bound=Located)

Floats = npt.NDArray[np.float64]
Instants = npt.NDArray[np.int64]

# A packed track's record (`ShipmentTrack.points`): the instant in microseconds since the
# epoch (UTC), latitude and longitude, little-endian whatever the machine.
TRACK_RECORD = np.dtype([("at", "<i8"), ("latitude", "<f8"), ("longitude", "<f8")])


def kept_instants(points: npt.NDArray[np.void], limit: int) -> Instants:
    """The instants `kept_indices` keeps of a packed, time-ordered track."""
    xs = np.ascontiguousarray(points["longitude"], dtype=np.float64)
    ys = np.ascontiguousarray(points["latitude"], dtype=np.float64)
    instants: Instants = np.ascontiguousarray(points["at"], dtype=np.int64)
    return instants[kept_indices(xs, ys, limit)]


def downsample(points: Sequence[P], limit: int) -> list[P]:
    """At most `limit` points of the time-ordered `points`, first and last always kept."""
    if len(points) <= limit:
        return list(points)
    xs = np.fromiter((p.longitude for p in points), np.float64, len(points))
    ys = np.fromiter((p.latitude for p in points), np.float64, len(points))
    return [points[i] for i in kept_indices(xs, ys, limit)]


def kept_indices(xs: Floats, ys: Floats, limit: int) -> list[int]:
    """The ascending indices of the points `downsample` keeps, given their longitudes `xs` and
    latitudes `ys` in time order: all of them within `limit`, else first and last always."""
    count = len(xs)
    if count <= limit:
        return list(range(count))
    if limit <= 2:
        return [0, count - 1][: max(limit, 0)]
    buckets = limit - 2
    size = (count - 2) / buckets
    # Bucket i holds [edge(i), edge(i + 1)) with edge(k) = int(k * size) + 1, and looks ahead to
    # the next bucket, or to the final point where there is none.
    edges = (np.arange(buckets + 2, dtype=np.float64) * size).astype(np.int64) + 1
    ahead_start, ahead_end = edges[1:-1], np.minimum(edges[2:], count)
    short = ahead_start >= ahead_end
    ahead_start = np.where(short, count - 1, ahead_start)
    ahead_end = np.where(short, count, ahead_end)
    # The next buckets' averages from running sums: one pass instead of one sum per bucket.
    sum_x = np.concatenate(([0.0], np.cumsum(xs)))
    sum_y = np.concatenate(([0.0], np.cumsum(ys)))
    span = (ahead_end - ahead_start).astype(np.float64)
    avg_x = ((sum_x[ahead_end] - sum_x[ahead_start]) / span).tolist()
    avg_y = ((sum_y[ahead_end] - sum_y[ahead_start]) / span).tolist()
    starts, ends = edges[:-2].tolist(), edges[1:-1].tolist()
    kept = [0]
    previous = 0
    for index in range(buckets):
        start, end = starts[index], ends[index]
        px, py = float(xs[previous]), float(ys[previous])
        # Twice the triangle's area, as a linear function of the candidate (x, y).
        a, b = px - avg_x[index], avg_y[index] - py
        area = np.abs(a * (ys[start:end] - py) - b * (px - xs[start:end]))
        previous = start + int(area.argmax())
        kept.append(previous)
    kept.append(count - 1)
    return kept
