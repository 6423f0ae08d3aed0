"""The offline basemap: country and US state outlines, drawn when map tiles cannot load.

The outlines come installed with a registry package (bqplot ships Natural Earth's 1:110m
countries and the US Census states as TopoJSON in longitude and latitude). They are read from
the package's directory without importing it (its import pulls in Jupyter widgets). The pages
get them as installed (`basemap_topologies`) and decode them in JavaScript (map.js); the
picker's regions decode them here (`basemap_geojson`).
"""

from __future__ import annotations

import importlib.util
import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DATA_PACKAGE = "bqplot"
SOURCES = (("WorldMap.json", "country"), ("USStatesMap.json", "state"))
# About 100 m: finer than the 1:110m data itself, and a third of the size of full precision.
DIGITS = 3

Ring = list[list[float]]


def data_dir() -> Path | None:
    spec = importlib.util.find_spec(DATA_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "map_data"


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
    """Countries, then US states, as one GeoJSON FeatureCollection (empty if not installed)."""
    folder = data_dir()
    collected: list[dict[str, Any]] = []
    if folder is None:
        log.warning("%s is not installed: maps have no offline basemap", DATA_PACKAGE)
    else:
        for name, kind in SOURCES:
            try:
                topology = json.loads((folder / name).read_text(encoding="utf-8"))
                collected.extend(features(topology, kind))
            except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
                log.warning("cannot read the basemap outlines %s: %s", name, exc)
    document = {"type": "FeatureCollection", "features": collected}
    return json.dumps(document, separators=(",", ":")).encode()


@lru_cache(maxsize=1)
def basemap_topologies() -> bytes:
    """Each source's TopoJSON by kind (`{"country": ..., "state": ...}`), joined unread: the
    scheme answers on the GUI thread, and a page waits for nothing else of ours then."""
    folder = data_dir()
    parts: list[bytes] = []
    if folder is None:
        log.warning("%s is not installed: maps have no offline basemap", DATA_PACKAGE)
    else:
        for name, kind in SOURCES:
            try:
                parts.append(json.dumps(kind).encode() + b":" + (folder / name).read_bytes())
            except OSError as exc:
                log.warning("cannot read the basemap outlines %s: %s", name, exc)
    return b"{" + b",".join(parts) + b"}"
