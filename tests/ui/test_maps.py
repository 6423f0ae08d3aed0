"""The shipment map in a real QtWebEngine page (offscreen): layers, markers, popups, the live
update path, the timeline link, offline tiles and the basemap, local assets only.

Assertions read the page's state through `runJavaScript` (`FD.stats()`), not pixels.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from PySide6.QtCore import SIGNAL
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from freightdesk.models.tracking import TrackingHistory
from freightdesk.ui.maps.basemap import basemap_geojson
from freightdesk.ui.maps.page import MapView, NotePlace, TileSettings, map_profile, render_page
from freightdesk.ui.maps.scheme import resolve
from freightdesk.ui.maps.shell import SHELL
from freightdesk.ui.maps.shipment_map import ShipmentMapView
from tests.support import free_port, wait_until
from tests.ui.conftest import emitted

# QtWebEngine reports its graphics set-up on a machine without a GPU as warnings: the view
# falls back to software rendering and works. Only these exact start-up messages are ignored.
WEBENGINE_STARTUP = [
    r"^QRhiGles2: Failed to create (temporary )?context$",
    r"^Failed to create RHI for backend: OpenGL$",
    r"^This plugin does not support createPlatformVulkanInstance$",
    r"^QVulkanInstance: Failed to initialize Vulkan$",
    r"^GBM is not supported with the current configuration",
    r"^GPUInfo not initialized on GpuInfoUpdate$",
]
pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

# Connection refused at once: the offline case without waiting for DNS.
OFFLINE_TILES = TileSettings(url="http://127.0.0.1:9/{z}/{x}/{y}.png", attribution="test tiles")
T0 = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
# Positions every 5 minutes from 25 hours ago, so that they span several age colours.
NOW = datetime.now(UTC).replace(microsecond=0)
START = NOW - timedelta(minutes=5 * 300)


@pytest.fixture(scope="session", autouse=True)
def webengine_survives_loop_exits(qapp: QApplication) -> Iterator[None]:
    """QtWebEngine tears itself down when the application emits aboutToQuit (and crashes the
    next time it is emitted). The app emits it once, on quit; qasync emits it at the end of
    every async test, since each test runs and stops the Qt loop. So once QtWebEngine is up,
    its teardown is left to the end of the process. (Other map test modules import this.)"""
    map_profile()  # brings QtWebEngine up, which connects its teardown to aboutToQuit
    if qapp.receivers(SIGNAL("aboutToQuit()")) > 0:  # not yet done by another map module
        qapp.aboutToQuit.disconnect()
    yield


# --- helpers -------------------------------------------------------------------------------


async def evaluate(view: MapView, script: str, seconds: float = 15) -> Any:
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[Any] = loop.create_future()

    def done(result: Any) -> None:
        if not answer.done():
            answer.set_result(result)

    view.page().runJavaScript(script, 0, done)
    return await asyncio.wait_for(answer, seconds)


async def stats(view: MapView) -> dict[str, Any]:
    found = await evaluate(view, "JSON.stringify(FD.stats())")
    result: dict[str, Any] = json.loads(found)
    return result


async def painted(view: MapView, token: int, seconds: float = 20) -> None:
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[None] = loop.create_future()

    def check(value: int) -> None:
        if value >= token and not seen.done():
            seen.set_result(None)

    view.rendered.connect(check)
    try:
        await asyncio.wait_for(seen, seconds)
    finally:
        view.rendered.disconnect(check)


async def until(view: MapView, predicate: Any, seconds: float = 15) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        found = await stats(view) if view.is_ready else {}
        if found and predicate(found):
            return found
        if loop.time() > deadline:
            raise AssertionError(f"the map did not reach the expected state: {found}")
        await asyncio.sleep(0.05)


def history(position_count: int = 300, *, shipment_id: str | None = None) -> TrackingHistory:
    """Chicago to Dallas: two stops with appointment windows, events at the stops and one
    along the way, an open exception at the delivery, an ETA, positions every 5 minutes."""
    pickup, delivery = str(uuid.uuid4()), str(uuid.uuid4())
    positions = [
        {
            "dateTime": (START + timedelta(minutes=5 * i)).isoformat(),
            # South-west with a little GPS jitter (a few metres) and a bend every 25 fixes.
            "latitude": 41.88 - i * 0.03 + (0.00003 if i % 2 else 0.0),
            "longitude": -87.63 - i * 0.02 - (0.05 if (i // 25) % 2 else 0.0),
            "speed": 80 if i % 10 else 3,
            "speedUnit": "KILOMETERS_PER_HOUR",
            "heading": 200,
        }
        for i in range(position_count)
    ]
    return TrackingHistory.model_validate(
        {
            "shipment": {
                "id": shipment_id or str(uuid.uuid4()),
                "identifiers": [{"type": "PRO", "value": "PRO123"}],
                "routeInfo": {
                    "stops": [
                        {
                            "id": pickup,
                            "type": "PICKUP",
                            "name": "Chicago DC",
                            "location": {
                                "address": {"city": "Chicago", "state": "IL", "country": "US"},
                                "coordinates": {"latitude": 41.88, "longitude": -87.63},
                            },
                            "appointmentWindow": {
                                "startDateTime": "2026-11-20T07:00:00Z",
                                "endDateTime": "2026-11-20T09:00:00Z",
                                "localTimeZoneIdentifier": "America/Chicago",
                            },
                        },
                        {
                            "id": delivery,
                            "type": "DELIVERY",
                            "name": "Dallas DC",
                            "location": {
                                "address": {"city": "Dallas", "state": "TX", "country": "US"},
                                "coordinates": {"latitude": 32.78, "longitude": -96.8},
                            },
                        },
                    ]
                },
            },
            "events": [
                {
                    "id": str(uuid.uuid4()),
                    "type": "PICKED_UP",
                    "dateTime": T0.isoformat(),
                    "description": "Picked up 12 pallets",
                    "stopId": pickup,
                },
                {
                    "id": str(uuid.uuid4()),
                    "type": "DEPARTURE_FROM_STOP",
                    "dateTime": (T0 + timedelta(minutes=20)).isoformat(),
                    "stopId": pickup,
                },
                {
                    "id": str(uuid.uuid4()),
                    "type": "CHECK_CALL",
                    "dateTime": (START + timedelta(hours=5)).isoformat(),
                    "description": "Driver reports heavy traffic",
                },
                {
                    "id": str(uuid.uuid4()),
                    "type": "ARRIVAL_AT_STOP",
                    "estimateDateTime": (T0 + timedelta(hours=30)).isoformat(),
                    "stopId": delivery,
                },
            ],
            "exceptions": [
                {
                    "id": str(uuid.uuid4()),
                    "type": "DELAY",
                    "description": "Late for the appointment",
                    "stopId": delivery,
                    "createdDateTime": (T0 + timedelta(hours=6)).isoformat(),
                }
            ],
            "positions": positions,
        }
    )


@pytest.fixture
def shipment_map(qtbot: QtBot) -> Iterator[ShipmentMapView]:
    view = ShipmentMapView(None, tiles=OFFLINE_TILES)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    yield view
    assert view.map_page.console_errors == []
    view.dispose()


# --- the shipment map ---------------------------------------------------------------------------


async def test_route_stops_events_position_and_eta(shipment_map: ShipmentMapView) -> None:
    shown = history()
    await painted(shipment_map, shipment_map.show_history(shown))
    found = await stats(shipment_map)

    assert found["stops"] == 2
    # Two events at the pickup, one placed on the track, the open exception at the delivery,
    # the expected arrival at the delivery.
    assert found["events"] == 5
    assert 2 <= found["routePoints"] < 300  # simplified
    assert found["routeLayers"] >= 2  # coloured by age: several runs
    assert found["current"]["lat"] == shown.positions[-1].latitude
    assert found["current"]["heading"] == 200
    assert found["eta"].startswith("ETA Dallas DC")
    # Fitted to the shipment: Chicago and Dallas are in view.
    west, south, east, north = (float(v) for v in found["bounds"].split(","))
    assert west < -96.8 < -87.63 < east and south < 32.78 < 41.88 < north

    event = shown.events[0]
    assert await evaluate(shipment_map, f"FD.highlight('event:{event.id}')") is True
    found = await stats(shipment_map)
    assert found["selected"] == f"event:{event.id}"
    assert "Picked up 12 pallets" in found["popup"]
    # The stop's local time, zone named (its year too once the day is half a year away).
    assert re.search(r"Nov 20( 2026)? 02:00 CST", found["popup"]), found["popup"]

    stop = shown.shipment.route_info.stops[0]  # type: ignore[union-attr]
    await evaluate(shipment_map, f"FD.highlight('stop:{stop.id}')")
    found = await stats(shipment_map)
    assert "1. Pickup: Chicago DC" in found["popup"]
    assert re.search(r"Nov 20( 2026)? 01:00 CST to Nov 20( 2026)? 03:00 CST", found["popup"])

    await evaluate(shipment_map, "FD.colorBy('speed')")
    assert (await stats(shipment_map))["colorBy"] == "speed"


async def test_live_positions_extend_the_track_and_keep_the_view(
    shipment_map: ShipmentMapView,
) -> None:
    first = history(200)
    await painted(shipment_map, shipment_map.show_history(first))
    # The user zooms in somewhere else.
    await evaluate(
        shipment_map, "(function(){FD._map().setView([38.5, -92.0], 9, {animate:false})})()"
    )
    before = await stats(shipment_map)
    assert before["zoom"] == 9

    longer = history(260, shipment_id=str(first.shipment.id))
    longer.shipment = first.shipment
    longer.events = first.events
    token = shipment_map.show_history(longer)
    await painted(shipment_map, token)
    after = await stats(shipment_map)

    assert after["routePoints"] > before["routePoints"]
    assert after["routeLayers"] > before["routeLayers"]  # new pieces added, none redrawn
    assert after["layers"] > before["layers"]
    assert after["zoom"] == 9
    assert after["center"] == pytest.approx(before["center"], abs=1e-6)
    assert after["current"]["lat"] == longer.positions[-1].latitude

    # Another shipment is fitted anew.
    await painted(shipment_map, shipment_map.show_history(history(50)))
    assert (await stats(shipment_map))["zoom"] != 9


async def test_clicking_a_marker_tells_python(qtbot: QtBot, shipment_map: ShipmentMapView) -> None:
    shown = history()
    await painted(shipment_map, shipment_map.show_history(shown))
    event = shown.events[2]  # the check call on the track
    async with emitted(shipment_map.itemClicked, 10) as clicked:
        await evaluate(
            shipment_map,
            f"FD._markers()['event:{event.id}'].getElement().click()",
        )
    assert clicked.args == [(f"event:{event.id}",)]
    assert (await stats(shipment_map))["selected"] == f"event:{event.id}"


# Ontario CA, El Paso and Laredo, as the demo's in-transit truckload; the truck ~40 km short of
# Laredo, at the east end of everything drawn, so its label points off the map unless turned.
FAR_STOPS = [("Ontario DC", 34.06, -117.65), ("El Paso", 31.76, -106.49), ("Laredo", 27.53, -99.51)]


def far_apart_history() -> TrackingHistory:
    legs = [(34.06, -117.65, 31.76, -106.49), (31.76, -106.49, 27.82, -99.75)]
    points = [
        (a_lat + (b_lat - a_lat) * i / 60, a_lon + (b_lon - a_lon) * i / 60)
        for a_lat, a_lon, b_lat, b_lon in legs
        for i in range(60)
    ]
    return TrackingHistory.model_validate(
        {
            "shipment": {
                "id": str(uuid.uuid4()),
                "routeInfo": {
                    "stops": [
                        {
                            "id": str(uuid.uuid4()),
                            "type": "PICKUP" if number == 0 else "DELIVERY",
                            "name": name,
                            "location": {"coordinates": {"latitude": lat, "longitude": lon}},
                        }
                        for number, (name, lat, lon) in enumerate(FAR_STOPS)
                    ]
                },
            },
            "positions": [
                {
                    "dateTime": (NOW - timedelta(minutes=5 * (len(points) - i))).isoformat(),
                    "latitude": lat,
                    "longitude": lon,
                    "speed": 92,
                    "speedUnit": "KILOMETERS_PER_HOUR",
                    "heading": 135,
                }
                for i, (lat, lon) in enumerate(points)
            ],
        }
    )


# What of the shipment a user cannot see: a stop off the map, a stop or the truck's label cut
# off at the map's edge or under a control (zoom, fit, ETA, legend, note, scale, attribution).
NOT_IN_SIGHT = """(function () {
  const map = FD._map();
  const box = map.getContainer().getBoundingClientRect();
  const controls = Array.from(document.querySelectorAll(".leaflet-control"))
    .map((element) => element.getBoundingClientRect())
    .filter((rect) => rect.width > 0 && rect.height > 0);
  const hidden = (rect) =>
    rect.left < box.left || rect.right > box.right || rect.top < box.top ||
    rect.bottom > box.bottom ||
    controls.some((c) => rect.left < c.right && rect.right > c.left &&
                         rect.top < c.bottom && rect.bottom > c.top);
  const unseen = [];
  for (const [key, marker] of Object.entries(FD._markers())) {
    if (!key.startsWith("stop:")) continue;
    const name = marker.options.title;
    if (!map.getBounds().contains(marker.getLatLng())) unseen.push(name + ": off the map");
    else if (hidden(marker.getElement().getBoundingClientRect())) unseen.push(name + ": covered");
  }
  const label = document.querySelector(".fd-fix");
  if (!label) unseen.push("no label at the truck");
  else if (hidden(label.getBoundingClientRect())) unseen.push(label.textContent + ": cut off");
  return JSON.stringify(unseen);
})()"""


async def not_in_sight(view: MapView) -> list[str]:
    found: list[str] = json.loads(await evaluate(view, NOT_IN_SIGHT))
    return found


async def test_the_whole_route_is_in_sight_and_the_fit_button_brings_it_back(
    shipment_map: ShipmentMapView,
) -> None:
    # The size of the Map tab's map in the app's window at 1440x900.
    shipment_map.resize(505, 440)
    shown = far_apart_history()
    await painted(shipment_map, shipment_map.show_history(shown))
    # Offline, the note comes with the first tile that fails, which may be after the paint.
    found = await until(shipment_map, lambda s: s["note"] is not None, 30)
    assert found["stops"] == 3 and found["eta"] is None
    assert await not_in_sight(shipment_map) == []

    # The user drags the map away (a drag ends as a pan), then presses the fit button.
    await evaluate(shipment_map, "FD._map().panBy([420, -260], {animate: false}) && null")
    moved = await not_in_sight(shipment_map)
    assert any("off the map" in what for what in moved), moved
    await evaluate(shipment_map, "document.querySelector('.fd-fit a').click()")
    assert await not_in_sight(shipment_map) == []

    # Zoomed in on Laredo: the button shows the whole shipment again.
    await evaluate(shipment_map, "FD._map().setView([27.53, -99.51], 11, {animate: false}) && null")
    assert len(await not_in_sight(shipment_map)) >= 2
    await evaluate(shipment_map, "document.querySelector('.fd-fit a').click()")
    assert await not_in_sight(shipment_map) == []


async def test_a_crashed_page_is_drawn_again(shipment_map: ShipmentMapView) -> None:
    await painted(shipment_map, shipment_map.show_history(history()))
    pid = shipment_map.render_process_pid()
    assert pid > 0
    os.kill(pid, signal.SIGKILL)  # the page's own render process, started by this test
    await wait_until(lambda: not shipment_map.is_ready)
    await until(shipment_map, lambda s: s["stops"] == 2 and s["events"] == 5, 30)
    assert shipment_map.render_process_pid() != pid


async def test_offline_tiles_say_so_and_show_the_basemap(shipment_map: ShipmentMapView) -> None:
    found = await until(shipment_map, lambda s: s["note"] and s["basemap"])
    assert found["note"] == "Offline: no map tiles from 127.0.0.1:9. Showing outlines."
    assert found["basemapFeatures"] > 200  # countries and US states
    # The page decodes the outlines itself (map.js), as the picker's regions do in Python.
    assert found["basemapFeatures"] == len(json.loads(basemap_geojson())["features"])
    assert found["tiles"] and not found["tilesOk"]


async def test_the_outlines_and_tiles_are_on_the_map_after_a_fit(
    shipment_map: ShipmentMapView,
) -> None:
    # A fit takes them off the map while it tries views, and must put them back.
    await until(shipment_map, lambda s: s["basemap"] and s["tiles"])
    await painted(shipment_map, shipment_map.show_history(far_apart_history()))
    await painted(shipment_map, shipment_map.show_history(history()))  # another fit
    found = await stats(shipment_map)
    assert found["basemap"] and found["tiles"]
    assert found["basemapFeatures"] > 200


async def test_tiles_switched_off(qtbot: QtBot) -> None:
    view = ShipmentMapView(None, tiles=TileSettings(url=""))
    qtbot.addWidget(view)
    view.show()
    found = await until(view, lambda s: s["note"] and s["basemap"])
    assert "switched off" in found["note"] and not found["tiles"]
    view.dispose()


# Where the page puts its offline note for each choice of its view: the corner of Leaflet's
# controls it sits in, or "none" (not in the page).
NOTE_CORNER = """(() => {
  const note = [...document.querySelectorAll('.fd-note')].find(e => e.getClientRects().length);
  const corner = note && note.closest('.leaflet-top, .leaflet-bottom');
  return corner ? corner.className.replace('leaflet-', '').replace(' leaflet-', ' ') : 'none';
})()"""


@pytest.mark.parametrize(
    ("place", "corner"),
    [(NotePlace.CORNER, "bottom left"), (NotePlace.STRIP, "top left"), (NotePlace.NONE, "none")],
)
async def test_the_view_says_where_the_offline_note_goes(
    qtbot: QtBot, place: NotePlace, corner: str
) -> None:
    view = MapView("fleet", tiles=OFFLINE_TILES, note=place)
    qtbot.addWidget(view)
    view.show()
    found = await until(view, lambda s: s["note"] and s["basemap"])
    # The page knows it is offline (and tells the view) wherever its note goes.
    assert found["note"] == "Offline: no map tiles from 127.0.0.1:9. Showing outlines."
    assert found["noteShown"] == (corner != "none")
    assert await evaluate(view, NOTE_CORNER) == corner
    view.set_tiles(TileSettings(url=""))  # configured again: the note stays where it was
    found = await until(view, lambda s: "switched off" in (s["note"] or ""))
    assert found["noteShown"] == (corner != "none")
    assert await evaluate(view, NOTE_CORNER) == corner
    view.dispose()


class _Tiles(BaseHTTPRequestHandler):
    agents: list[str] = []
    # The smallest valid PNG (1x1, transparent).
    PNG = bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
        "0000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
    )

    def do_GET(self) -> None:
        self.agents.append(self.headers.get("User-Agent", ""))
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(self.PNG)))
        self.end_headers()
        self.wfile.write(self.PNG)

    def log_message(self, *args: Any) -> None:
        pass


async def test_tiles_that_load_hide_the_note_and_name_the_app(qtbot: QtBot) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _Tiles)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        view = ShipmentMapView(
            None, tiles=TileSettings(url=f"http://127.0.0.1:{port}/{{z}}/{{x}}/{{y}}.png")
        )
        qtbot.addWidget(view)
        view.show()
        found = await until(view, lambda s: s["tilesOk"])
        assert found["note"] is None
        assert any(agent.startswith("FreightDesk/") for agent in _Tiles.agents)
        view.dispose()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# --- the page and its assets ---------------------------------------------------------------------


def test_the_page_loads_nothing_from_the_network() -> None:
    html = render_page()
    assert "http://" not in html and "https://" not in html
    for dropped in ("jquery", "bootstrap", "font-awesome", "fontawesome", "awesome-markers"):
        assert dropped not in html.lower()
    assert "fdmap://app/lib/leaflet/leaflet.js" in html


def test_the_served_shell_is_the_one_rendered_now() -> None:
    # Rendered ahead, since importing folium made the first map wait a second or more. After a
    # change to render_page or to folium: python -m freightdesk.ui.maps.shell
    assert SHELL.read_text(encoding="utf-8") == render_page()
    assert resolve("/map.html") == (SHELL.read_bytes(), "text/html; charset=utf-8")


# In a process of its own: this one imports folium to render the shell.
WARMED_PAGE_MODULES = """
import sys
from freightdesk.ui.maps.scheme import resolve
from freightdesk.ui.maps.warm import import_maps
import_maps()
resolve("/map.html"), resolve("/basemap.json")
print(sorted(name for name in ("folium", "branca", "pandas") if name in sys.modules))
"""


def test_a_map_page_is_served_without_folium() -> None:
    # folium with branca and pandas: 75 MB and one to two seconds of a session's first map.
    result = subprocess.run(
        [sys.executable, "-c", WARMED_PAGE_MODULES], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "[]"


def test_the_scheme_serves_packaged_files_only() -> None:
    leaflet = resolve("/lib/leaflet/leaflet.js")
    assert leaflet is not None and b"Leaflet" in leaflet[0][:400]
    assert leaflet[1] == "application/javascript"
    assert resolve("/lib/markercluster/leaflet.markercluster.js") is not None
    assert resolve("/lib/leaflet/images/marker-icon.png") is not None
    basemap = resolve("/basemap.json")
    assert basemap is not None and basemap[1] == "application/json"
    outlines = json.loads(basemap[0])
    assert sorted(outlines) == ["country", "state"]
    assert all(topology["type"] == "Topology" for topology in outlines.values())
    assert resolve("/qwebchannel.js") is not None
    for escape in ("/assets/../scheme.py", "/lib/leaflet/../../../../etc/passwd", "/nothing"):
        assert resolve(escape) is None
