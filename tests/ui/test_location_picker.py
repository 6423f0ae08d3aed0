"""Picking a stop location's point on the map (a real QtWebEngine page, offscreen): where it
opens, a click or a dragged pin choosing the point, the point typed, the geofence drawn with
its radius in metres for every unit, OK filling the form and Cancel not, offline tiles.

Assertions read the page through `runJavaScript` (`FD.pickerStats()`), not pixels.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.models.common import Address, GeoCoordinates
from freightdesk.models.stop_locations import Geofence, StopLocation
from freightdesk.service.session import AppSession
from freightdesk.ui.maps import page
from freightdesk.ui.maps.picker import (
    LocationPickerDialog,
    PickerMapView,
    address_region,
    fence_drawing,
    parse_point,
)
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.geofence import FenceChoice
from freightdesk.ui.panes.stop_locations.picking import Picked, PickRequest
from tests.support import wait_until
from tests.ui.conftest import emitted
from tests.ui.test_maps import (
    OFFLINE_TILES,
    WEBENGINE_STARTUP,
    evaluate,
    stats,
    until,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

JOLIET = (41.52, -88.08)


async def picker_stats(view: PickerMapView) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(await evaluate(view, "JSON.stringify(FD.pickerStats())"))
    return found


async def click_at(view: PickerMapView, latitude: float, longitude: float) -> None:
    """Leaflet's own click event at a place on the map (as a click there fires it)."""
    script = f"FD._map().fire('click', {{latlng: L.latLng({latitude}, {longitude})}}) && null"
    await evaluate(view, script)


async def picker_until(view: PickerMapView, predicate: Any, seconds: float = 20) -> dict[str, Any]:
    """The picker's state once `predicate` holds for it (the page and its script loaded)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    found: dict[str, Any] = {}
    while True:
        assert view.map_page.console_errors == []
        if view.is_ready and await evaluate(view, "typeof FD.pickerStats === 'function'"):
            found = await picker_stats(view)
            if predicate(found):
                return found
        if loop.time() > deadline:
            raise AssertionError(f"the picker did not reach the expected state: {found}")
        await asyncio.sleep(0.05)


async def page_sized(view: PickerMapView, proxy: QWidget, seconds: float = 10) -> None:
    """Wait until the page's map is as high as the view's render widget (a real click is
    placed in the widget; the page takes a changed size a moment later)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while await evaluate(view, "FD._map().getSize().y") != proxy.height():
        if loop.time() > deadline:
            raise AssertionError(f"the page's map is not {proxy.height()} px high")
        await asyncio.sleep(0.05)


def _box(text: str) -> tuple[float, ...]:
    """west, south, east, north of Leaflet's `toBBoxString()`."""
    return tuple(float(value) for value in text.split(","))


@pytest.fixture
def offline_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every map made in the test uses tiles that fail at once (as offline)."""
    monkeypatch.setattr(page.CONFIG, "tiles", OFFLINE_TILES)


@pytest.fixture
def host(qtbot: QtBot) -> QWidget:
    """The window the picker opens over, as over the form: closing the picker must not close
    the last window (which would stop the application's loop)."""
    window = QWidget()
    qtbot.addWidget(window)
    window.show()
    return window


def _dialog(host: QWidget, request: PickRequest) -> LocationPickerDialog:
    dialog = LocationPickerDialog(request, host, tiles=OFFLINE_TILES)
    dialog.resize(900, 650)
    dialog.show()
    return dialog


async def test_opens_on_the_coordinates_and_a_click_chooses_the_point(
    qtbot: QtBot, host: QWidget
) -> None:
    fence = FenceChoice("DISTANCE", "METERS", 400)
    dialog = _dialog(host, PickRequest(point=JOLIET, fence=fence, name="Joliet DC"))
    found = await picker_until(dialog.map, lambda s: s["point"] is not None)
    assert found["point"] == pytest.approx(list(JOLIET))
    assert found["center"] == pytest.approx(list(JOLIET), abs=1e-4)
    assert found["marker"] and found["draggable"] and found["picking"]
    assert found["fence"]["shape"] == "circle" and found["fence"]["radius"] == pytest.approx(400)
    assert (dialog.latitude.text(), dialog.longitude.text()) == ("41.520000", "-88.080000")
    assert dialog.ok_button.isEnabled()
    assert "Joliet DC" in dialog.windowTitle()

    # Leaflet's own click, at a place on the map.
    async with emitted(dialog.map.picked, 10):
        await evaluate(
            dialog.map, "FD._map().fire('click', {latlng: L.latLng(41.53, -88.1)}) && null"
        )
    assert dialog.point == (41.53, -88.1)
    assert (dialog.latitude.text(), dialog.longitude.text()) == ("41.530000", "-88.100000")
    found = await picker_stats(dialog.map)
    assert found["point"] == pytest.approx([41.53, -88.1])
    assert found["fence"]["center"] == pytest.approx([41.53, -88.1])  # the fence follows

    # A real mouse click in the middle of the map chooses the map's centre. Once the offline
    # strip above the map is in and the page has the view's height: the strip came in between
    # reading the centre and the click at load 15, and the click landed 13 px off the centre.
    proxy = dialog.map.focusProxy()
    assert proxy is not None
    await wait_until(dialog.offline_note.isVisible)
    await page_sized(dialog.map, proxy)
    centre = (await picker_stats(dialog.map))["center"]
    middle = QPoint(proxy.width() // 2, proxy.height() // 2)
    async with emitted(dialog.map.picked, 10):
        QTest.mouseClick(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, middle)
    assert dialog.point == pytest.approx(tuple(centre), abs=2e-4)  # a pixel at zoom 15

    # The pin dragged elsewhere.
    async with emitted(dialog.map.picked, 10):
        await evaluate(
            dialog.map,
            "(function(){const m=[];FD._map().eachLayer(l=>{if(l.dragging&&l.getLatLng)m.push(l)});"
            "m[0].setLatLng([41.5, -88.05]);m[0].fire('drag');m[0].fire('dragend');})()",
        )
    assert dialog.point == (41.5, -88.05)
    assert dialog.map.map_page.console_errors == []


async def test_opens_on_the_address_region_then_on_a_default(qtbot: QtBot, host: QWidget) -> None:
    dialog = _dialog(host, PickRequest(country="US", state="tx"))
    await picker_until(dialog.map, lambda s: s["picking"])
    found = await stats(dialog.map)
    west, south, east, north = (float(v) for v in found["bounds"].split(","))
    assert west <= -106.6 and east >= -93.5 and south <= 25.9 and north >= 36.5
    assert east - west < 40  # Texas, not the whole country
    before = await picker_stats(dialog.map)
    assert before["point"] is None
    assert "the address's state (Texas)" in dialog.hint.text()
    assert not dialog.ok_button.isEnabled()
    qtbot.keyClick(dialog.latitude, Qt.Key.Key_Return)  # nothing chosen: Enter does nothing
    assert dialog.isVisible()
    # A click on the whole state is rough: the map zooms in around it for a closer click.
    async with emitted(dialog.map.picked, 10):
        await click_at(dialog.map, 32.78, -96.8)
    found = await picker_stats(dialog.map)
    assert found["zoom"] == before["zoom"] + 4
    assert found["center"] == pytest.approx([32.78, -96.8], abs=1e-3)
    assert dialog.ok_button.isEnabled()

    plain = _dialog(host, PickRequest())
    await picker_until(plain.map, lambda s: s["picking"])
    found = await stats(plain.map)
    assert found["center"] == pytest.approx([39.5, -98.35], abs=0.5)
    assert "No coordinates or address" in plain.hint.text()


async def test_typing_the_point_and_the_map_centre(qtbot: QtBot, host: QWidget) -> None:
    dialog = _dialog(host, PickRequest(point=JOLIET))
    await picker_until(dialog.map, lambda s: s["point"] is not None)
    dialog.latitude.clear()
    qtbot.keyClicks(dialog.latitude, "41.6")
    await picker_until(dialog.map, lambda s: s["point"] == pytest.approx([41.6, -88.08]))
    qtbot.keyClicks(dialog.latitude, "x")
    assert dialog.point_error.text() == "Latitude is not a number."
    assert not dialog.ok_button.isEnabled()
    dialog.latitude.clear()
    qtbot.keyClicks(dialog.latitude, "95")
    assert dialog.point_error.text() == "Latitude is -90 to 90."
    dialog.latitude.clear()
    qtbot.keyClicks(dialog.latitude, "41,7")  # a decimal comma is understood
    assert dialog.ok_button.isEnabled() and dialog.point == (41.7, -88.08)

    await evaluate(dialog.map, "FD._map().setView([40.0, -89.0], 12, {animate: false}) && null")
    async with emitted(dialog.map.picked, 10):
        qtbot.mouseClick(dialog.centre_button, Qt.MouseButton.LeftButton)
    assert dialog.point == pytest.approx((40.0, -89.0), abs=5e-4)  # a pixel at zoom 12
    assert dialog.latitude.text() == f"{dialog.point[0]:.6f}"


# A fence of each kind and unit: (kind, units, value, its radius in metres, drawn dashed).
FENCES = [
    ("DISTANCE", "METERS", 400, 400.0, False),
    ("DISTANCE", "KILOMETERS", 2.5, 2500.0, False),
    ("DISTANCE", "FEET", 1000, 304.8, False),
    ("DISTANCE", "MILES", 1.5, 2414.016, False),
    # Travel time: the distance covered at 40 km/h, dashed (an approximation).
    ("TIME", "SECONDS", 90, 1000.0, True),
    ("TIME", "MINUTES", 15, 10_000.0, True),
    ("TIME", "HOURS", 0.5, 20_000.0, True),
]


@pytest.mark.parametrize(("kind", "units", "value", "metres", "dashed"), FENCES)
def test_fence_radius_in_metres(
    kind: str, units: str, value: float, metres: float, dashed: bool
) -> None:
    drawing = fence_drawing(FenceChoice(kind, units, value), None, JOLIET)
    assert drawing is not None
    assert drawing["radius"] == pytest.approx(metres)
    assert drawing["approximate"] is dashed


async def test_the_fence_drawn_for_each_unit_as_the_inputs_change(
    qtbot: QtBot, host: QWidget
) -> None:
    dialog = _dialog(host, PickRequest(point=JOLIET))
    found = await picker_until(dialog.map, lambda s: s["point"] is not None)
    assert found["fence"] is None and dialog.fence_text.text() == "No geofence."
    fence = dialog.fence
    fence.use.setChecked(True)
    for kind, units, value, metres, dashed in FENCES:
        fence.type.setCurrentIndex(fence.type.findData(kind))
        fence.units.setCurrentIndex(fence.units.findData(units))
        fence.value.setValue(value)
        found = await picker_until(
            dialog.map,
            lambda s, m=metres: s["fence"] is not None and s["fence"]["radius"] == pytest.approx(m),
        )
        assert found["fence"]["dashed"] is dashed
        assert found["fence"]["center"] == pytest.approx(list(JOLIET))
        # The whole fence in view, and not a speck in it (down to the closest zoom).
        west, south, east, north = _box(found["view"])
        f_west, f_south, f_east, f_north = _box(found["fence"]["bounds"])
        assert west <= f_west < f_east <= east and south <= f_south < f_north <= north
        assert f_north - f_south > (north - south) / 8 or found["zoom"] == 15
        assert units.lower() in dialog.fence_text.text()
    # Grown far past the view, then back: the view follows both ways.
    fence.value.setValue(400)
    found = await picker_until(dialog.map, lambda s: s["fence"]["radius"] > 500_000)
    assert found["zoom"] < 8
    fence.value.setValue(0.25)
    found = await picker_until(dialog.map, lambda s: s["fence"]["radius"] < 20_000)
    assert found["zoom"] >= 10
    fence.value.setValue(0)
    await picker_until(dialog.map, lambda s: s["fence"] is None)
    assert "cannot be drawn" in dialog.fence_text.text()
    fence.use.setChecked(False)
    assert dialog.fence_text.text() == "No geofence."


async def test_offline_tiles_show_the_basemap_and_say_so(qtbot: QtBot, host: QWidget) -> None:
    dialog = _dialog(host, PickRequest(point=JOLIET))
    found = await until(dialog.map, lambda s: s["note"] and s["basemap"])
    assert found["note"] == "Offline: no map tiles from 127.0.0.1:9. Showing outlines."
    assert found["basemapFeatures"] > 200
    assert (await picker_stats(dialog.map))["marker"]


async def test_the_offline_note_is_above_the_map_and_all_of_the_map_picks(
    qtbot: QtBot, host: QWidget
) -> None:
    """The page's note was a box over the map's bottom left: readable, but a click there
    picked nothing (a map control keeps its clicks). The dialog says it above the map, and
    its map view asks the page for no note of its own."""
    dialog = _dialog(host, PickRequest(point=JOLIET))
    found = await until(dialog.map, lambda s: s["note"] and s["basemap"])
    assert not found["noteShown"]
    await wait_until(dialog.offline_note.isVisible)
    note = dialog.offline_note
    assert note.text() == "Offline: no map tiles from 127.0.0.1:9. Showing outlines."
    assert not note.geometry().intersects(dialog.map.geometry())
    assert note.height() >= note.heightForWidth(note.width())  # its words whole
    # No box of the page's note is laid out on the map (where it would keep the clicks).
    boxes = "[...document.querySelectorAll('.fd-note')].filter(e => e.getClientRects().length)"
    assert await evaluate(dialog.map, f"{boxes}.length") == 0

    # A real click where the page's note was (the bottom left, over the scale) picks there.
    proxy = dialog.map.focusProxy()
    assert proxy is not None
    where = QPoint(100, proxy.height() - 70)
    async with emitted(dialog.map.picked, 10):
        QTest.mouseClick(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, where)
    assert dialog.point is not None and dialog.point[0] < JOLIET[0] and dialog.point[1] < JOLIET[1]
    assert dialog.map.map_page.console_errors == []


async def test_a_crashed_page_shows_the_chosen_point_again(qtbot: QtBot, host: QWidget) -> None:
    dialog = _dialog(
        host, PickRequest(point=JOLIET, fence=FenceChoice("DISTANCE", "KILOMETERS", 1))
    )
    await picker_until(dialog.map, lambda s: s["fence"] is not None)
    async with emitted(dialog.map.picked, 10):
        await click_at(dialog.map, 41.6, -88.2)
    pid = dialog.map.render_process_pid()
    os.kill(pid, signal.SIGKILL)  # the page's own render process, started by this test
    await wait_until(lambda: not dialog.map.is_ready)
    found = await picker_until(dialog.map, lambda s: s["point"] is not None, 30)
    assert found["point"] == pytest.approx([41.6, -88.2])
    assert found["fence"]["radius"] == pytest.approx(1000)
    assert dialog.map.render_process_pid() != pid


# --- with the form -----------------------------------------------------------------------------


@pytest.fixture
def form(
    qtbot: QtBot, session: AppSession, offline_tiles: None
) -> Iterator[StopLocationFormDialog]:
    location = StopLocation(
        name="Joliet DC",
        address=Address(address_lines=["1 Industry Rd"], city="Joliet", state="IL"),
        coordinates=GeoCoordinates(latitude=JOLIET[0], longitude=JOLIET[1]),
        geofence=Geofence(type="DISTANCE", units="MILES", value=0.5),
        version=3,
    )
    dialog = StopLocationFormDialog(session, location)
    qtbot.addWidget(dialog)
    dialog.show()
    yield dialog


async def test_ok_fills_the_form_and_cancel_does_not(
    qtbot: QtBot, form: StopLocationFormDialog
) -> None:
    assert form.pick_on_map.isEnabled()
    qtbot.mouseClick(form.pick_on_map, Qt.MouseButton.LeftButton)
    picker = form.picker
    assert isinstance(picker, LocationPickerDialog) and picker.isVisible()
    found = await picker_until(picker.map, lambda s: s["fence"] is not None)
    assert found["center"] == pytest.approx(list(JOLIET), abs=1e-4)
    assert found["fence"]["radius"] == pytest.approx(804.672)  # the form's half mile

    async with emitted(picker.map.picked, 10):
        await evaluate(
            picker.map, "FD._map().fire('click', {latlng: L.latLng(41.55, -88.12)}) && null"
        )
    picker.fence.value.setValue(2)
    async with emitted(picker.finished, 5):
        qtbot.keyClick(picker.latitude, Qt.Key.Key_Return)
    assert (form.latitude.text(), form.longitude.text()) == ("41.550000", "-88.120000")
    assert form.fence.choice() == FenceChoice("DISTANCE", "MILES", 2)
    assert form.dirty
    wire = form.wire()
    assert wire["coordinates"] == {"latitude": 41.55, "longitude": -88.12}
    assert wire["geofence"] == {"type": "DISTANCE", "units": "MILES", "value": 2}
    await wait_until(lambda: form.picker is None)

    # The fields stay editable; the picker opens on what they hold now.
    form.latitude.setText("41.6")
    qtbot.mouseClick(form.pick_on_map, Qt.MouseButton.LeftButton)
    picker = form.picker
    assert isinstance(picker, LocationPickerDialog)
    found = await picker_until(picker.map, lambda s: s["point"] is not None)
    assert found["point"] == pytest.approx([41.6, -88.12])
    async with emitted(picker.map.picked, 10):
        await click_at(picker.map, 40, -87)
    picker.fence.use.setChecked(False)
    async with emitted(picker.finished, 5):
        qtbot.keyClick(picker.latitude, Qt.Key.Key_Escape)
    assert (form.latitude.text(), form.longitude.text()) == ("41.6", "-88.120000")
    assert form.fence.choice() == FenceChoice("DISTANCE", "MILES", 2)
    await wait_until(lambda: form.picker is None)


async def test_the_form_starts_the_picker_from_its_address(
    qtbot: QtBot, session: AppSession, offline_tiles: None
) -> None:
    form = StopLocationFormDialog(session, None)
    qtbot.addWidget(form)
    form.show()
    form.state.setText("IL")
    request = form.pick_request()
    assert request.point is None and (request.country, request.state) == ("US", "IL")
    form.latitude.setText("91")  # not a point: the picker starts from the address
    form.longitude.setText("-88")
    assert form.pick_request().point is None
    picked: list[Picked] = []
    form.use_picked(Picked(41.0, -88.0, None))
    assert (form.latitude.text(), form.longitude.text()) == ("41.000000", "-88.000000")
    assert form.dirty and not picked


# --- without a page ----------------------------------------------------------------------------


def test_address_region() -> None:
    texas = address_region("US", "Texas")
    assert texas is not None and texas.name == "Texas"
    assert address_region("usa", "TX") == texas
    britain = address_region("GB", None)
    assert britain is not None and -7 < britain.west < britain.east < 2
    usa = address_region("US", None)
    assert usa is not None and usa.west > -125  # the lower 48, not Alaska's Aleutians
    assert address_region("", None) is None
    assert address_region("Atlantis", None) is None


def test_parse_point() -> None:
    assert parse_point(" 41.5 ", "-88,1") == (41.5, -88.1)
    assert parse_point("", "1") == "Latitude is missing."
    assert parse_point("1", "181") == "Longitude is -180 to 180."
    assert parse_point("91", "1") == "Latitude is -90 to 90."
    # One number rule for every field (models/numbers.py): "nan" is text, not a number.
    assert parse_point("nan", "1") == "Latitude is not a number."
    assert parse_point("1,500", "1") == "Latitude: 1,500 could be 1500 or 1.5: type one of those."


@pytest.mark.parametrize(
    ("key", "accepted"), [(Qt.Key.Key_Return, True), (Qt.Key.Key_Escape, False)]
)
async def test_enter_and_escape_with_the_map_focused(
    qtbot: QtBot, host: QWidget, key: Qt.Key, accepted: bool
) -> None:
    """Keys the map does not use (Enter, Escape) answer the dialog, as from any field."""
    dialog = _dialog(host, PickRequest(point=JOLIET))
    chosen: list[Picked] = []
    closed: list[int] = []
    dialog.chosen.connect(chosen.append)
    dialog.finished.connect(closed.append)
    await picker_until(dialog.map, lambda s: s["point"] is not None)
    proxy = dialog.map.focusProxy()
    assert proxy is not None
    async with emitted(dialog.map.picked, 10):
        QTest.mouseClick(proxy, Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    await wait_until(proxy.hasFocus)
    focused = "document.activeElement.classList.contains('leaflet-container')"
    assert await evaluate(dialog.map, focused)  # the map has the keyboard
    QTest.keyClick(proxy, key)
    await wait_until(lambda: bool(closed))
    assert bool(chosen) is accepted
    if accepted:
        assert (chosen[0].latitude, chosen[0].longitude) == dialog.point
