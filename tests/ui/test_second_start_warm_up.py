"""A later start (`AppController` on a home whose Local sandbox has data): what is not on
screen, the capacity panes and the maps' warm-up (QtWebEngine's start), waits until the
session is Online, so the local service starting meanwhile has the CPU (at load 13 it answered
after 15.9 s inside the app, 9.3 s alone). A map the user opens before then is drawn all the
same."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from freightdesk.service.connection import ConnectionState
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession
from freightdesk.ui.application import AppController
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.conftest import close_session
from tests.ui.test_maps import (
    OFFLINE_TILES,
    WEBENGINE_STARTUP,
    webengine_survives_loop_exits,  # noqa: F401 (a fixture of this module too)
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP),
    pytest.mark.usefixtures("webengine_survives_loop_exits"),
]

# A second start's service start and sign-in on a machine at a load of 10 (27 s at load 13).
ONLINE_SECONDS = 120.0
# The map's page loading once its view is made, at a load of 10.
MAP_SECONDS = 60.0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(child) for child in task.read_text().split()]
        except OSError:  # ended meanwhile
            continue
    return found


def webengine_processes() -> set[int]:
    """This process's QtWebEngine descendants (its zygote, and the render processes the
    zygote forks)."""
    found: set[int] = set()
    waiting = _children(os.getpid())
    while waiting:
        pid = waiting.pop()
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"QtWebEngineProcess" in command:
            found.add(pid)
        waiting += _children(pid)
    return found


async def _first_start(paths: AppPaths) -> None:
    """The Local sandbox's first start on this home, as the app's session does it."""
    session = AppSession(
        paths, ProfileStore(paths.profiles_file, MemorySecretStore()), simulate=False
    )
    try:
        await session.connect()
    finally:
        await close_session(session)


def _second_start(qtbot: QtBot, paths: AppPaths) -> tuple[AppController, ShipmentsPane]:
    # A new secret store: no keyring kept the secret (the service's start gives a new one).
    controller = AppController(paths, secrets=MemorySecretStore(), simulate=False)
    OFFLINE_TILES.store(controller.settings)
    qtbot.addWidget(controller.window)
    pane = controller.window.pane("shipments")
    assert isinstance(pane, ShipmentsPane)
    return controller, pane


def _connecting(controller: AppController) -> bool:
    return controller.session.status.state is ConnectionState.CONNECTING


@pytest.mark.timeout(600)
async def test_a_later_start_warms_nothing_up_before_it_is_online(
    qtbot: QtBot, paths: AppPaths
) -> None:
    await _first_start(paths)
    controller, pane = _second_start(qtbot, paths)
    window = controller.window
    before = webengine_processes()
    # What was up while connecting: QtWebEngine processes of its own, a capacity pane, the map.
    seen_connecting: list[tuple[bool, bool, bool]] = []

    async def watch() -> None:
        while _connecting(controller):
            seen_connecting.append(
                (
                    bool(webengine_processes() - before),
                    window.is_made("rates") or window.is_made("packages"),
                    pane.detail.map is not None,
                )
            )
            await asyncio.sleep(0.05)

    try:
        controller.start()
        await asyncio.wait_for(watch(), ONLINE_SECONDS)
        assert controller.session.status.state is ConnectionState.ONLINE
        assert seen_connecting and not any(any(s) for s in seen_connecting), [
            s for s in seen_connecting if any(s)
        ][:3]
        # Then all of it is made, QtWebEngine's start included (what the check above sees).
        await wait_until(lambda: window.is_made("packages"), seconds=MAP_SECONDS)
        await wait_until(lambda: pane.detail.map is not None, seconds=MAP_SECONDS)
        await wait_until(lambda: bool(webengine_processes() - before), seconds=MAP_SECONDS)
    finally:
        # Shut down before the window closes: closing the last window quits the loop.
        await controller.shutdown()
        window.close()


@pytest.mark.timeout(600)
async def test_a_map_opened_before_a_later_start_is_online_is_drawn(
    qtbot: QtBot, paths: AppPaths
) -> None:
    await _first_start(paths)
    controller, pane = _second_start(qtbot, paths)
    window = controller.window
    detail = pane.detail
    try:
        controller.start()
        await wait_until(lambda: window.isVisible(), seconds=MAP_SECONDS)
        assert _connecting(controller)
        # The user opens the Map tab while the local service starts.
        detail.tabs.setCurrentWidget(detail.map_tab)
        view = detail.map
        assert view is not None
        await wait_until(lambda: view.is_ready, seconds=MAP_SECONDS)
        assert view.isVisible()
        await wait_until(lambda: not _connecting(controller), seconds=ONLINE_SECONDS)
        # The warm-up, once Online, keeps the map the user opened.
        await wait_until(lambda: controller.warmed_up, seconds=MAP_SECONDS)
        assert detail.map is view
    finally:
        await controller.shutdown()
        window.close()
