"""Down-sampling of a position track that keeps its first and last point and its shape.

Largest-Triangle-Three-Buckets (Steinarsson 2013) over the track in the plane of longitude and
latitude: the points between the first and the last are split into equal buckets and from each
bucket the point forming the largest triangle with the previously kept point and the average of
the next bucket is kept. Turns and detours form large triangles, so they survive; long straight
stretches thin out. Linear in the number of points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class Located(Protocol):
    @property
    def latitude(self) -> float: ...

    @property
    def longitude(self) -> float: ...


P = TypeVar("P", bound=Located)


def downsample(points: Sequence[P], limit: int) -> list[P]:
    """At most `limit` points of the time-ordered `points`, first and last always kept."""
    count = len(points)
    if count <= limit:
        return list(points)
    if limit <= 2:
        return [points[0], points[-1]][: max(limit, 0)]
    xs = [p.longitude for p in points]
    ys = [p.latitude for p in points]
    kept = [points[0]]
    bucket = (count - 2) / (limit - 2)
    previous = 0
    for index in range(limit - 2):
        start = int(index * bucket) + 1
        end = int((index + 1) * bucket) + 1
        next_start, next_end = end, min(int((index + 2) * bucket) + 1, count)
        if next_start >= next_end:  # the last bucket looks ahead to the final point
            next_start, next_end = count - 1, count
        span = next_end - next_start
        avg_x = sum(xs[next_start:next_end]) / span
        avg_y = sum(ys[next_start:next_end]) / span
        px, py = xs[previous], ys[previous]
        best, best_area = start, -1.0
        for candidate in range(start, end):
            area = abs((px - avg_x) * (ys[candidate] - py) - (px - xs[candidate]) * (avg_y - py))
            if area > best_area:
                best, best_area = candidate, area
        kept.append(points[best])
        previous = best
    kept.append(points[-1])
    return kept
