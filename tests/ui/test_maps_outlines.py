"""The offline basemap's outlines, packaged with the app (assets/outlines) since bqplot, which
the app installed for these two files and 24 packages more, is no longer a dependency: the
same files, decoded to the same countries and states, with their licence beside them."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

from freightdesk.ui.maps.basemap import OUTLINES, SOURCES, basemap_geojson, basemap_topologies

ROOT = Path(__file__).resolve().parents[2]
# bqplot 0.13.1's bqplot/map_data files, which the app read before (and its repository's HEAD).
BQPLOT_SHA256 = {
    "WorldMap.json": "35ed3867de6bc88de49a2aca6655ca8b91d0c4118cb85d8282ad8a1f67299e1c",
    "USStatesMap.json": "5dae92fd75d6e69bbade2d35d499acf3081cfe8b87619768711f45de6054a89d",
}
# basemap_geojson() as decoded from bqplot's installed files before they were packaged here.
DECODED_SHA256 = "217621f02d78fbef38002880551eb1384a42042eabf66ea86ce9cad56627a7d3"


def test_the_outlines_are_bqplots_files_unchanged() -> None:
    for name, _ in SOURCES:
        digest = hashlib.sha256((OUTLINES / name).read_bytes()).hexdigest()
        assert digest == BQPLOT_SHA256[name], name
    served = json.loads(basemap_topologies())
    assert sorted(served) == ["country", "state"]
    assert all(topology["type"] == "Topology" for topology in served.values())


def test_the_outlines_decode_to_the_same_countries_and_states() -> None:
    decoded = basemap_geojson()
    features = json.loads(decoded)["features"]
    kinds = [feature["properties"]["kind"] for feature in features]
    assert (kinds.count("country"), kinds.count("state")) == (177, 53)
    by_name = {feature["properties"]["name"]: feature["geometry"] for feature in features}
    assert by_name["Brazil"]["coordinates"][0][0] == [-54.635, -25.745]
    assert by_name["France"]["coordinates"][0][0][0] == [-54.527, 2.302]  # French Guiana
    assert by_name["Texas"]["coordinates"][0][0][0] == [-103.012, 36.502]
    assert len(by_name["Hawaii"]["coordinates"]) == 8
    assert hashlib.sha256(decoded).hexdigest() == DECODED_SHA256


def test_the_outlines_licence_is_beside_them_and_bqplot_is_not_a_dependency() -> None:
    notice = (OUTLINES / "NOTICE").read_text(encoding="utf-8")
    assert "Copyright (c) 2012, Michael Bostock" in notice
    assert "Redistributions in binary form must reproduce" in notice
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert not [name for name in project["project"]["dependencies"] if "bqplot" in name]
    package_data = project["tool"]["setuptools"]["package-data"]["freightdesk.ui.maps"]
    assert "assets/outlines/*" in package_data
