"""The offline basemap: country and US state outlines, drawn when map tiles cannot load.

The outlines are Natural Earth's 1:110m countries and the US Census states as TopoJSON in
longitude and latitude, packaged in `assets/outlines` (copied unchanged from bqplot 0.13.1,
which the app installed for these two files only, with 24 packages more: their origin and
licence are in `assets/outlines/NOTICE`). The pages get them as packaged
(`basemap_topologies`) and decode them in JavaScript (map.js); the picker's regions decode
them here (`basemap_geojson`).
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from typing import Any

from freightdesk.ui.maps import ASSETS

log = logging.getLogger(__name__)

OUTLINES = ASSETS / "outlines"
SOURCES = (("WorldMap.json", "country"), ("USStatesMap.json", "state"))
# About 100 m: finer than the 1:110m data itself, and a third of the size of full precision.
DIGITS = 3

Ring = list[list[float]]


def decode_arcs(topology: dict[str, Any]) -> list[Ring]:
    """The topology's arcs as absolute longitude/latitude positions."""
    transform = topology.get("transform")
    (sx, sy), (tx, ty) = (
        (transform["scale"], transform["translate"]) if transform else ((1, 1), (0, 0))
    )
    arcs: list[Ring] = []
    for arc in topology["arcs"]:
        x = y = 0.0
        points = []
        for dx, dy in arc:
            if transform:
                x, y = x + dx, y + dy
            else:
                x, y = dx, dy
            points.append([round(x * sx + tx, DIGITS), round(y * sy + ty, DIGITS)])
        arcs.append(points)
    return arcs


def _ring(indexes: list[int], arcs: list[Ring]) -> Ring:
    ring: Ring = []
    for index in indexes:
        # A negative index ~i is arc i walked backwards.
        points = arcs[~index][::-1] if index < 0 else arcs[index]
        ring.extend(points if not ring else points[1:])
    return ring


def _geometry(geometry: dict[str, Any], arcs: list[Ring]) -> dict[str, Any] | None:
    kind = geometry.get("type")
    if kind == "Polygon":
        return {"type": kind, "coordinates": [_ring(r, arcs) for r in geometry["arcs"]]}
    if kind == "MultiPolygon":
        return {
            "type": kind,
            "coordinates": [[_ring(r, arcs) for r in polygon] for polygon in geometry["arcs"]],
        }
    return None


def features(topology: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """GeoJSON features of the topology's `subunits` (countries or states)."""
    arcs = decode_arcs(topology)
    found = []
    for geometry in topology["objects"]["subunits"].get("geometries", []):
        shape = _geometry(geometry, arcs)
        if shape is not None:
            name = (geometry.get("properties") or {}).get("name", "")
            found.append(
                {"type": "Feature", "properties": {"kind": kind, "name": name}, "geometry": shape}
            )
    return found


@lru_cache(maxsize=1)
def basemap_geojson() -> bytes:
    """Countries, then US states, as one GeoJSON FeatureCollection (without what is unreadable)."""
    collected: list[dict[str, Any]] = []
    for name, kind in SOURCES:
        try:
            topology = json.loads((OUTLINES / name).read_text(encoding="utf-8"))
            collected.extend(features(topology, kind))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            log.warning("cannot read the basemap outlines %s: %s", name, exc)
    document = {"type": "FeatureCollection", "features": collected}
    return json.dumps(document, separators=(",", ":")).encode()


@lru_cache(maxsize=1)
def basemap_topologies() -> bytes:
    """Each source's TopoJSON by kind (`{"country": ..., "state": ...}`), joined unread: the
    scheme answers on the GUI thread, and a page waits for nothing else of ours then."""
    parts: list[bytes] = []
    for name, kind in SOURCES:
        try:
            parts.append(json.dumps(kind).encode() + b":" + (OUTLINES / name).read_bytes())
        except OSError as exc:
            log.warning("cannot read the basemap outlines %s: %s", name, exc)
    return b"{" + b",".join(parts) + b"}"
