"""The shipment's map at the usual screens, against the real local service: the Map tab
gets the room a dispatcher needs (the list keeping a few rows; the user's own split kept),
the map opens in a window of its own that follows the list, and the offline note never
covers the zoom buttons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QByteArray, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from freightdesk.ui.maps.page import TileSettings
from freightdesk.ui.maps.shipment_map import ShipmentMapView
from freightdesk.ui.panes.shipments.list_layout import LIST_ROWS_LEAST
from freightdesk.ui.panes.shipments.map_room import (
    GEOMETRY_KEY,
    WINDOW_BELOW_TOP,
    WINDOW_SIZE,
    MapWindow,
    window_place,
)
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.screens import run_on_screen
from tests.ui.test_columns_fit import AT_1366, AT_1440, AT_1920
from tests.ui.test_maps import (
    OFFLINE_TILES,
    WEBENGINE_STARTUP,
    evaluate,
    history,
    painted,
    until,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_overview import _click_row_of, _click_tab
from tests.ui.test_shipment_room_support import ShipmentPanes, offline_tiles, panes
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected", "offline_tiles", "panes"]

pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

# A map a dispatcher can follow a route on: its height in the Map tab (the detail's pages get
# `DETAIL_PAGE_LEAST` whatever the tab). At 1366x768 the list keeps its rows first
# (`LIST_ROWS_LEAST`, 10 since the 8 of 73639ff): the route, its stops, the zoom buttons and
# the legend still in sight in 190 px, "Map in window" for a larger one.
USABLE_HEIGHT = {AT_1366: 190, AT_1440: 300, AT_1920: 300}


async def _pane_with_map(
    panes: ShipmentPanes, room: tuple[int, int]
) -> tuple[ShipmentsPane, list[str]]:
    ids = [_put(panes.tenant, _ltl(f"PRO-77300{n}")) for n in range(8)]
    pane = await panes.showing(room, ids[0])
    await panes.map_tab(pane)
    return pane, ids


@pytest.mark.parametrize("room", [AT_1366, AT_1440, AT_1920], ids=["1366", "1440", "1920"])
async def test_the_map_tab_gets_a_usable_map_and_the_list_keeps_rows(
    qtbot: QtBot, panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    pane, _ids = await _pane_with_map(panes, room)
    view = pane.detail.map
    assert view is not None
    await wait_until(lambda: view.height() >= USABLE_HEIGHT[room], 5)
    assert view.height() >= USABLE_HEIGHT[room], (view.size(), pane.splitter.sizes())
    assert view.width() >= 400, view.size()
    # Every tab and "Map in window" in sight, no scroll arrows.
    bar = pane.detail.tabs.tabBar()
    assert bar.tabRect(bar.count() - 1).right() <= bar.width(), bar.width()
    assert pane.detail.map_window.button.isVisible()
    # The list still shows enough whole rows to choose the next shipment from (it kept 4 at
    # 1366x768, the walkthrough's "ship_map").
    rows = pane.table.viewport().height() // pane.table.verticalHeader().defaultSectionSize()
    assert rows >= LIST_ROWS_LEAST >= 8, pane.splitter.sizes()
    # The timeline stays in the tab, its Event and Actual columns in sight.
    timeline = pane.detail.timeline
    assert timeline.isVisible() and timeline.width() >= 300, timeline.size()
    # Back on the Timeline, the split stays: one for every tab, so that the tabs stay put.
    sizes = pane.splitter.sizes()
    _click_tab(qtbot, pane.detail, "Timeline")
    assert pane.splitter.sizes() == sizes, (sizes, pane.splitter.sizes())
    # The offline note is on the map, not over its zoom buttons.
    _click_tab(qtbot, pane.detail, "Map")
    await until(view, lambda s: s["note"] is not None, 30)
    await _assert_note_clear_of_zoom(view)
    assert view.map_page.console_errors == []
    await panes.close()


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_the_list_keeps_its_rows_above_the_map_under_the_news_bar(
    panes: ShipmentPanes, room: tuple[int, int]
) -> None:
    """New shipments arriving while the user works in the list are announced in a bar above
    it ("1 new below"): the rows it takes are given back to the list, not taken from it (it
    showed 7 at 1440x900)."""
    pane, _ids = await _pane_with_map(panes, room)
    view = pane.detail.map
    assert view is not None and not pane.news.isVisible()
    new = _put(panes.tenant, _ltl("PRO-773NEW"))
    assert panes.session.shipments is not None
    await panes.session.shipments.coordinator.fetch_now()  # a poll
    await wait_until(lambda: pane.model.summary_of(new) is not None, 30)
    assert pane.news.isVisible(), "no bar announced the new shipment"
    row = pane.table.verticalHeader().defaultSectionSize()
    await wait_until(lambda: pane.table.viewport().height() // row >= LIST_ROWS_LEAST, 5)
    # The map gives up the bar's height: still the route and the legend in sight.
    assert view.height() >= USABLE_HEIGHT[room] - pane.news.height(), view.size()
    await panes.close()


async def test_the_users_split_is_kept_whatever_the_tab(qtbot: QtBot, panes: ShipmentPanes) -> None:
    pane, _ids = await _pane_with_map(panes, AT_1366)
    _click_tab(qtbot, pane.detail, "Timeline")
    # The user drags the handle between the list and the detail 60 px up.
    before = pane.splitter.sizes()
    handle = pane.splitter.handle(1)
    start = handle.rect().center()
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(handle, start - QPoint(0, 30))
    qtbot.mouseMove(handle, start - QPoint(0, 60))
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=start - QPoint(0, 60))
    chosen = pane.splitter.sizes()
    assert chosen[0] < before[0], (before, chosen)
    _click_tab(qtbot, pane.detail, "Map")
    _click_tab(qtbot, pane.detail, "Overview")
    _click_tab(qtbot, pane.detail, "Map")
    assert pane.splitter.sizes() == chosen
    await panes.close()


# Offscreen, the window cannot be raised over the others (it is under Xvfb and on a desktop).
@pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP, r"^This plugin does not support raise\(\)$")
async def test_the_map_in_its_own_window_follows_the_list_and_closes_with_it(
    qtbot: QtBot, panes: ShipmentPanes
) -> None:
    pane, ids = await _pane_with_map(panes, AT_1366)
    button = pane.detail.map_window.button
    assert button.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    window = pane.detail.map_window.window
    assert isinstance(window, MapWindow) and window.isVisible() and window.isWindow()
    assert "PRO-773000" in window.windowTitle()
    await wait_until(lambda: window.map.drawn and window.map.shipment_id == ids[0], 60)
    # The user resizes it as large as wanted; the next shipment chosen shows there too.
    window.resize(1200, 800)
    _click_row_of(qtbot, pane, ids[1])
    await wait_until(lambda: "PRO-773001" in window.windowTitle(), 30)
    await wait_until(lambda: window.map.drawn and window.map.shipment_id == ids[1], 30)
    assert window.map.height() >= 700
    # Only on the Map tab does the detail offer it.
    _click_tab(qtbot, pane.detail, "Timeline")
    assert not button.isVisible()
    assert window.map.map_page.console_errors == []
    # The pane going (the app closing) takes the window with it: none is left behind.
    panes.shut()
    await wait_until(lambda: pane.detail.map_window.window is None, 10)
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, MapWindow)]
    await panes.close()


# Offscreen, the window cannot be raised over the others (it is under Xvfb and on a desktop).
@pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP, r"^This plugin does not support raise\(\)$")
async def test_the_map_window_opens_clear_of_the_timeline_then_where_it_was_left(
    qtbot: QtBot, panes: ShipmentPanes
) -> None:
    """Without a window manager the window opened at the screen's top left, over the app's
    navigation, and at its first size every time."""
    pane, _ids = await _pane_with_map(panes, AT_1366)
    available = pane.screen().availableGeometry()
    timeline = pane.detail.timeline
    followed = QRect(timeline.mapToGlobal(QPoint(0, 0)), timeline.size())
    qtbot.mouseClick(pane.detail.map_window.button, Qt.MouseButton.LeftButton)
    window = pane.detail.map_window.window
    assert window is not None
    placed = window.frameGeometry()
    assert available.contains(placed), (placed, available)
    # Over the app (the offscreen screen is narrower than it), clear of the timeline it
    # follows, under the app's top.
    assert not placed.intersects(followed), (placed, followed)
    assert placed.top() == pane.frameGeometry().top() + WINDOW_BELOW_TOP, placed
    # The dispatcher moves and sizes it (through the window manager), then closes it.
    chosen = QRect(40, 90, 620, 480)
    window.setGeometry(chosen)
    window.close()
    await wait_until(lambda: pane.detail.map_window.window is None, 10)
    qtbot.mouseClick(pane.detail.map_window.button, Qt.MouseButton.LeftButton)
    again = pane.detail.map_window.window
    assert again is not None and again is not window
    assert again.geometry() == chosen
    # Kept for the next run too.
    assert isinstance(panes.settings.value(GEOMETRY_KEY), QByteArray)
    panes.shut()
    await wait_until(lambda: pane.detail.map_window.window is None, 10)
    await panes.close()


@pytest.mark.parametrize(
    ("screen", "main", "timeline", "expected"),
    [
        # 1366x768, the app maximized, the Map tab's timeline beside its map: left of the
        # timeline (over the tab's own map and the list's left part), its top row in sight.
        (
            QRect(0, 0, 1366, 768),
            QRect(0, 0, 1366, 768),
            QRect(862, 378, 492, 360),
            QRect(0, 48, 862, 640),
        ),
        # 1920x1080, the app at its first 1440x900 at the left: beside it.
        (
            QRect(0, 0, 1920, 1080),
            QRect(0, 0, 1440, 900),
            QRect(914, 378, 518, 496),
            QRect(1440, 48, 480, 640),
        ),
        # The app in the middle (a window manager's choice), no room beside it: over it,
        # left of the timeline.
        (
            QRect(0, 0, 1920, 1080),
            QRect(240, 90, 1440, 900),
            QRect(1154, 468, 518, 496),
            QRect(254, 138, 900, 640),
        ),
        # The timeline low and wide (under the map): above it, over the app's right part.
        (
            QRect(0, 0, 1366, 768),
            QRect(0, 0, 1366, 768),
            QRect(180, 420, 1186, 348),
            QRect(466, 0, 900, 420),
        ),
        # No timeline in sight: over the app's right part, as far right as the screen goes.
        (QRect(0, 0, 1366, 768), QRect(0, 0, 1366, 768), None, QRect(466, 48, 900, 640)),
        (QRect(0, 0, 1920, 1080), QRect(240, 90, 1440, 900), None, QRect(1020, 138, 900, 640)),
        # Room beside the app: beside it.
        (QRect(0, 0, 1920, 1080), QRect(0, 0, 1000, 900), None, QRect(1000, 48, 900, 640)),
        # A small second screen to the left, a panel on top: inside what it has.
        (QRect(-1024, 30, 1024, 738), QRect(-1024, 30, 1024, 738), None, QRect(-682, 78, 682, 615)),
    ],
    ids=[
        "1366",
        "1920",
        "1920-middle",
        "low-timeline",
        "1366-none",
        "1920-none",
        "beside",
        "small-left",
    ],
)
def test_the_map_window_is_placed_on_the_screen_by_the_app(
    screen: QRect, main: QRect, timeline: QRect | None, expected: QRect
) -> None:
    assert window_place(main, screen, QSize(*WINDOW_SIZE), timeline) == expected


@pytest.mark.parametrize("screen", [(1366, 768), (1920, 1080)], ids=["1366x768", "1920x1080"])
def test_the_map_window_opens_clear_of_the_timeline_on_real_screens(
    tmp_path: Path, screen: tuple[int, int]
) -> None:
    """The window covered the Map tab's timeline it follows (over the app's right part, where
    the timeline is). Run in a process whose offscreen screen is `screen` (the suite's is
    800x800): the app's window as it first opens there, the map window opened by clicks."""
    run_on_screen(tmp_path, Path(__file__).with_name("map_window_on_screen.py"), *screen)


async def _assert_note_clear_of_zoom(view: ShipmentMapView) -> None:
    found = await evaluate(
        view,
        """(function () {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  return JSON.stringify({zoom: box(document.querySelector('.leaflet-control-zoom')),
                         note: box(document.querySelector('.fd-note'))});
})()""",
    )
    rects: dict[str, Any] = json.loads(found)
    zoom, note = rects["zoom"], rects["note"]
    assert note["right"] > note["left"], note  # shown
    apart = (
        note["left"] >= zoom["right"]
        or note["right"] <= zoom["left"]
        or note["top"] >= zoom["bottom"]
        or note["bottom"] <= zoom["top"]
    )
    assert apart, rects


async def test_the_offline_note_never_covers_the_zoom_buttons_of_a_low_map(
    qtbot: QtBot,
) -> None:
    """As the Map tab below the list used to be (about 140 px): the note stays clear of the
    zoom buttons, its whole text in its tooltip."""
    view = ShipmentMapView(None, tiles=TileSettings(url=OFFLINE_TILES.url))
    qtbot.addWidget(view)
    view.resize(760, 140)
    view.show()
    await painted(view, view.show_history(history()))
    found = await until(view, lambda s: s["note"] is not None, 30)
    assert found["note"].startswith("Offline: no map tiles")
    await _assert_note_clear_of_zoom(view)
    title = await evaluate(view, "document.querySelector('.fd-note').title")
    assert title == found["note"]
    assert view.map_page.console_errors == []
    view.dispose()


async def test_the_offline_note_reads_whole_in_the_map_tab_at_1366(qtbot: QtBot) -> None:
    """The Map tab beside the timeline at 1366x768 (about 660 px wide): the strip said
    "Offline: no map tiles from tile.open…", cut; its short words read whole, the whole text
    in its tooltip."""
    view = ShipmentMapView(None, tiles=TileSettings(url=OFFLINE_TILES.url))
    qtbot.addWidget(view)
    view.resize(658, 335)
    view.show()
    await painted(view, view.show_history(history()))
    found = await until(view, lambda s: s["note"] is not None, 30)
    shown = json.loads(
        await evaluate(
            view,
            """(function () {
  const note = document.querySelector('.fd-note');
  return JSON.stringify({text: note.textContent, title: note.title,
                         cut: note.scrollWidth > note.clientWidth});
})()""",
        )
    )
    assert shown == {"text": "Offline: outlines only", "title": found["note"], "cut": False}
    await _assert_note_clear_of_zoom(view)
    assert view.map_page.console_errors == []
    view.dispose()
