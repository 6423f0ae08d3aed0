"""The Local sandbox's service process misbehaving under the app, as a dispatcher would meet it:
killed (SIGKILL) while the list is shown, and hung (SIGSTOP) then let go (SIGCONT). The real
`freightdesk serve` child of the session, the real window's status bar and shipment list.

Killed: the status bar says the service stopped, then that it restarts (not "restarting in
1 s" through the whole launch), never "check the network", and the list fetches again as soon
as the service is back, not when its backoff ends; killed with its port taken meanwhile, it
comes back on another and the app follows it there. Hung: the GUI answers all along, the
status bar says the service does not answer (long before the client's 30 s timeout), and all
is well again once it answers. Faults of answers (cut, 5xx, garbage, slow through a proxy):
tests/ui/test_faults.py; the supervisor on its own: tests/service/test_local_service.py."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Protocol, TypeVar

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QStyle, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.local_service import LocalService, ServiceState
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import port_taken, wait_until
from tests.ui.conftest import close_session
from tests.ui.test_faults import responsive

START_SECONDS = 300.0  # the service's start with its demo data, at a load of 10
NO_ANSWER = 3.0  # the session's wait before it says so (the app's: 10 s)
# From the service back to the list fetched: the poke's fetch, at a load of 10. Without the
# poke the next poll comes when the backoff of the failed ones ends: 30 s and more.
BACK_SECONDS = 20.0


def _window(qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths) -> MainWindow:
    """The window with the shipment list, as the app shows it first."""
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    pane = ShipmentsPane(session, settings, window)
    window.add_pane("shipments", "Shipments", pane, QStyle.StandardPixmap.SP_FileIcon)
    window.show()
    return window


def _shipments(window: MainWindow) -> ShipmentsPane:
    pane = window.current_pane()
    assert isinstance(pane, ShipmentsPane)
    return pane


async def _closed(session: AppSession, window: MainWindow) -> None:
    _shipments(window).shutdown()
    await close_session(session)


async def _back(session: AppSession, window: MainWindow, killed: int) -> None:
    """Wait for the service started in place of the one killed (`killed`, its process id),
    then for the status bar's Online."""
    service = session.local_service
    assert service is not None
    await wait_until(
        lambda: service.state is ServiceState.RUNNING and service.pid not in (None, killed),
        seconds=START_SECONDS,
    )
    await wait_until(
        lambda: window.indicator.state_label.text().startswith("Online"),
        seconds=BACK_SECONDS,
    )


@asynccontextmanager
async def _list_online(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> AsyncIterator[tuple[MainWindow, LocalService, int]]:
    """The window with the shipment list, shown once the session is Online; the local
    service and its process id. After: the list shut down, the session closed."""
    window = _window(qtbot, session, settings, paths)
    try:
        pid = await _online(session, window)
        assert session.local_service is not None
        yield window, session.local_service, pid
    finally:
        await _closed(session, window)


async def _moved_to_another_port(service: LocalService, pid: int) -> None:
    """Kill the service (its process id `pid`) and hold its port until it is running on
    another."""
    before = service.url
    assert before is not None
    service.max_backoff = 0.5  # its three failed restarts on the old port in seconds
    os.kill(pid, signal.SIGKILL)
    with port_taken(int(before.rsplit(":", 1)[1])):
        await wait_until(
            lambda: service.state is ServiceState.RUNNING and service.url != before,
            seconds=START_SECONDS,
        )


class _Pane(Protocol):
    def shutdown(self) -> None: ...


P = TypeVar("P", bound=_Pane)


@asynccontextmanager
async def _pane_online(
    qtbot: QtBot,
    session: AppSession,
    settings: QSettings,
    paths: AppPaths,
    make: Callable[[AppSession, MainWindow], P],
) -> AsyncIterator[tuple[MainWindow, P, LocalService, int]]:
    """The window with the pane `make` makes beside the shipment list, shown once the session
    is Online; the local service and its process id. After: the pane shut down, the session
    closed."""
    window = _window(qtbot, session, settings, paths)
    pane = make(session, window)
    assert isinstance(pane, QWidget)
    window.add_pane("pane", "Pane", pane, QStyle.StandardPixmap.SP_FileIcon)
    try:
        pid = await _online(session, window)
        assert session.local_service is not None
        window.show_pane("pane")
        yield window, pane, session.local_service, pid
    finally:
        pane.shutdown()
        window.show_pane("shipments")
        await _closed(session, window)


async def _online(session: AppSession, window: MainWindow) -> int:
    """Connect, wait for the list on screen; the service's process id."""
    await session.connect()
    pane = _shipments(window)
    await wait_until(
        lambda: (
            window.indicator.state_label.text().startswith("Online") and pane.model.rowCount() > 0
        ),
        seconds=START_SECONDS,
    )
    assert session.local_service is not None
    pid = session.local_service.pid
    assert pid is not None
    return pid


@pytest.mark.timeout(900)
async def test_a_killed_service_restarts_says_so_and_the_list_comes_back(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    async with _list_online(qtbot, session, settings, paths) as (window, service, pid):
        said: list[ConnectionStatus] = []
        session.listen_status(said.append)
        killed = time.time()
        with responsive():
            os.kill(pid, signal.SIGKILL)
            await wait_until(
                lambda: service.state is ServiceState.RUNNING and service.pid not in (None, pid),
                seconds=START_SECONDS,
            )
            back = time.monotonic()
            await wait_until(
                lambda: window.indicator.state_label.text().startswith("Online"),
                seconds=BACK_SECONDS,
            )
            assert time.monotonic() - back < BACK_SECONDS
        status = session.status
        assert status.last_success is not None and status.last_success > killed
        messages = [s.message for s in said]
        assert any(m.startswith("The local service stopped; restarting in") for m in messages)
        # Once its launch begins it says so, in the state the status bar shows as Connecting.
        assert any(
            s.state is ConnectionState.CONNECTING and s.message == "Restarting the local service"
            for s in said
        ), messages
        assert not any("Check the network" in m for m in messages), messages


@pytest.mark.timeout(900)
async def test_a_hung_service_is_said_not_to_answer_and_the_app_recovers(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = _window(qtbot, session, settings, paths)
    pid = 0
    try:
        pid = await _online(session, window)
        assert session.shipments is not None
        session.no_answer_seconds = NO_ANSWER
        coordinator = session.shipments.coordinator
        coordinator.interval = 0.5
        pane = _shipments(window)
        rows = pane.model.rowCount()
        indicator = window.indicator
        with responsive():
            os.kill(pid, signal.SIGSTOP)
            coordinator.poke()
            # Well before the client's 30 s timeout.
            await wait_until(
                lambda: (
                    indicator.state_label.text().startswith("Degraded")
                    and "The freight service has not answered for" in indicator.toolTip()
                    and indicator.reason_label.isVisible()
                ),
                seconds=NO_ANSWER + 15,
            )
            assert pane.model.rowCount() == rows  # the list stays
            os.kill(pid, signal.SIGCONT)
            await wait_until(
                lambda: (
                    indicator.state_label.text().startswith("Online")
                    and not indicator.reason_label.isVisible()
                ),
                seconds=BACK_SECONDS,
            )
        assert session.local_service is not None and session.local_service.pid == pid
    finally:
        if pid:
            os.kill(pid, signal.SIGCONT)
        await _closed(session, window)


@pytest.mark.timeout(900)
async def test_a_service_restarted_on_another_port_is_followed_there(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    async with _list_online(qtbot, session, settings, paths) as (window, service, pid):
        await _moved_to_another_port(service, pid)
        moved = time.time()
        # Online again, with the list fetched from the service where it is now.
        await wait_until(
            lambda: (
                window.indicator.state_label.text().startswith("Online")
                and (last := session.status.last_success) is not None
                and last > moved
            ),
            seconds=BACK_SECONDS,
        )
        assert _shipments(window).model.rowCount() > 0
