"""The app's start, second step: once the cached list is painted (`launch.py`), the event
loop (qasync), the session, and the panes attached to it.

The modules the connection needs are loaded in a worker thread (the API client and every
area's models take a third of a second to import), the keyring is found there too, then the
session connects (starting the local service in the background). Once it is Online the
capacity panes are made in idle moments, then the maps warmed up. The other panes are made
the first time they are shown.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

# qasync picks its Qt binding from QT_API when it is imported.
os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import SecretStore, SystemSecretStore, find_system_store
from freightdesk.service.session import AppSession
from freightdesk.ui.first_paint import FIRST_PAINT_TIMEOUT_MS, FirstPaint, app_settings, open_window
from freightdesk.ui.garbage import BulkLoad, GuiThreadGarbageCollector, bulk_load
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.setup import connect_panes
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.tasks import WorkerThreads, cancel_all, spawn
from freightdesk.ui.watchdog import WatchdogSwitch

if TYPE_CHECKING:
    from freightdesk.ui.maps.warm import MapWarmUp

log = logging.getLogger(__name__)


# Loaded in a worker thread once the cached list shows: what connecting needs (the API client
# with every area's models, the local service's supervisor) and the services of the panes made
# soon after. Only modules without Qt: Qt's classes are best made on the GUI thread.
PRELOADED = (
    "freightdesk.api.client",
    "freightdesk.service.local_service",
    "freightdesk.service.messages",
    "freightdesk.service.rating",
    "freightdesk.service.bookings",
    "freightdesk.service.packages",
)
# How long the start waits for the cached list before connecting regardless.
CACHED_LIST_TIMEOUT = 10.0
# How often a first run looks whether its list has rows before the maps are warmed up.
MAPS_WAIT_MS = 250
# How long the panes not on screen and the maps wait for the session to be Online (or to
# have failed) before they are made regardless: a second start at load 13 is Online in 27 s.
CONNECTED_TIMEOUT = 60.0


def preload(modules: Sequence[str] = PRELOADED) -> None:
    for name in modules:
        importlib.import_module(name)


async def load_for_connecting(secrets: SecretStore | None = None) -> None:
    """Load what connecting needs in a worker thread (and find the system's secret store,
    which asks the keyring daemon), then set the objects made so far (modules, the window,
    the cached list) apart from garbage collection.

    Automatic collection is off in the app (ui/garbage.py collects on the GUI thread); its
    first pass over everything made at start-up (10,000 cached rows, the API client's
    models) would hold the window for 100 to 300 ms. Those objects live as long as the app,
    so they are frozen instead: later passes look only at what is made afterwards, and passes
    wait while the modules load (a pass then would walk every object they made so far)."""
    load = bulk_load()
    try:
        await asyncio.to_thread(preload)
        if secrets is not None:
            await asyncio.to_thread(find_system_store, secrets)
    finally:
        load.done()
    gc.freeze()


class AppController:
    """Owns the session and the window for the life of the app."""

    def __init__(
        self,
        paths: AppPaths,
        *,
        secrets: SecretStore | None = None,
        local_service_args: Sequence[str] = (),
        simulate: bool = True,
        profiles: ProfileStore | None = None,
        opened: tuple[MainWindow, ShipmentsPane] | None = None,
        threads: WorkerThreads | None = None,
    ) -> None:
        """`opened`: the window and Shipments pane `first_paint.open_window` made, when the app
        painted them before this step; made here otherwise. `threads`: the loop's worker
        threads, whose saves a close of the session waits for before the cache closes."""
        self.paths = paths
        self.profiles = profiles or ProfileStore(
            paths.profiles_file, secrets or SystemSecretStore()
        )
        if opened is None:
            opened = open_window(paths, app_settings(paths), self.profiles)
        self.window, shipments = opened
        self.settings = self.window.settings
        self.session = AppSession(
            paths,
            self.profiles,
            local_service_args=tuple(local_service_args),
            simulate=simulate,
            threads_idle=threads.idle if threads is not None else None,
        )
        self._closed = asyncio.Event()
        self._maps_warm_up: MapWarmUp | None = None
        self._starting: BulkLoad | None = None
        self._shut_down = False
        self.window.attach(self.session)
        connect_panes(self.window, shipments)
        if self.session.cache_problem:  # no timeout: it lasts as long as the problem
            self.window.statusBar().showMessage(self.session.cache_problem)
        self.window.closing.connect(self._closed.set)
        self.window.profileSwitchRequested.connect(self.window.switch_profile)
        # Watches the GUI thread from the first paint on (see _start_in_background).
        self.watchdog = WatchdogSwitch(self.settings, self.window)
        self.watchdog.follow(self.window.watchdog_action)

    def start(self) -> None:
        """Show the window; connect once the cached list is on screen."""
        self.window.show()
        spawn(self._start_in_background(), name="start")

    async def _start_in_background(self) -> None:
        pane = self.window.pane("shipments")
        assert isinstance(pane, ShipmentsPane)
        try:
            await asyncio.wait_for(pane.cached_list_shown(), CACHED_LIST_TIMEOUT)
        except TimeoutError:
            log.warning("the cached shipment list took over %s s to load", CACHED_LIST_TIMEOUT)
        if pane.isVisible():
            painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            def done() -> None:
                if not painted.done():
                    painted.set_result(None)

            FirstPaint(pane.table.viewport(), done)
            pane.table.viewport().update()
            try:
                await asyncio.wait_for(painted, FIRST_PAINT_TIMEOUT_MS / 1000)
            except TimeoutError:
                log.info("the shipment list was not painted within %s ms", FIRST_PAINT_TIMEOUT_MS)
        self.watchdog.start()
        # The Local sandbox's service starts beside the rest of what connecting needs.
        await self.session.start_local_service()
        await load_for_connecting(self.profiles.secrets)
        # Collections wait until the start is over (the session connected meanwhile, the
        # panes made, the maps warmed up): a pass would walk everything those made so far
        # (50 to 90 ms), all of it living as long as the app. The maps' warm-up freezes it.
        self._starting = bulk_load()

        def failed(error: BaseException) -> None:
            from freightdesk.service.messages import explain

            self.window.show_error(explain(error))

        spawn(self.session.connect(), on_error=failed, name="connect")
        # What is not on screen waits until the session is connected: QtWebEngine's start and
        # the capacity panes took the CPU the local service needed to start (at load 13 it
        # answered after 15.9 s inside the app, 9.3 s alone). A map or pane the user opens
        # meanwhile is made at once all the same.
        await self._connection_settled()
        # The capacity panes, then the maps (imported on a worker thread, the shipment map's
        # page loaded in its hidden tab, so the first map a user opens is drawn at once), then
        # freezing what they made too (see load_for_connecting).
        self.window.warm_up(done=self._warm_up_maps)

    async def _connection_settled(self) -> None:
        """Return once the session is no longer connecting (Online, or it failed)."""
        settled = asyncio.Event()

        def seen(status: ConnectionStatus) -> None:
            if status.state is not ConnectionState.CONNECTING:
                settled.set()

        unsubscribe = self.session.listen_status(seen)
        try:
            seen(self.session.status)
            await asyncio.wait_for(settled.wait(), CONNECTED_TIMEOUT)
        except TimeoutError:
            log.info("still connecting after %s s: the panes are made now", CONNECTED_TIMEOUT)
        finally:
            unsubscribe()

    def _warm_up_maps(self) -> None:
        from freightdesk.ui.maps.warm import warm_up_maps

        shipments = self.window.pane("shipments")
        if self._shut_down:
            return
        if (
            self.session.demo.preparation is not None
            and isinstance(shipments, ShipmentsPane)
            and not shipments.model.rowCount()
        ):
            # A first run: QtWebEngine's start (seconds of CPU) waits for the demo's first
            # shipments to be listed rather than compete with the service writing them.
            QTimer.singleShot(MAPS_WAIT_MS, self._warm_up_maps)
            return
        steps = (shipments.detail.prepare_map,) if isinstance(shipments, ShipmentsPane) else ()
        self._maps_warm_up = warm_up_maps(*steps, done=self._started)

    @property
    def warmed_up(self) -> bool:
        """Whether the start's warm-up is over: the panes made, then the maps (tests wait for
        it: nothing else tells)."""
        return self._maps_warm_up is not None and self._maps_warm_up.finished

    def _started(self) -> None:
        if self._starting is not None:
            self._starting.done()

    async def run(self) -> None:
        if not self.window.is_closed():  # closed before the loop ran (SIGTERM): no start
            self.start()
            await self._closed.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        self._shut_down = True
        try:
            if self._maps_warm_up is not None:
                self._maps_warm_up.cancel()
            self._started()  # collections resume (closed before the warm-up was done)
            await cancel_all()
            await self.session.close()
            self.settings.sync()
            gc.unfreeze()  # what start-up set apart can be collected again
        finally:
            self.watchdog.stop()  # last: a stall while closing is logged too


def run_attached(
    app: QApplication,
    collector: GuiThreadGarbageCollector,
    window: MainWindow,
    shipments: ShipmentsPane,
    profiles: ProfileStore,
    on_sigterm: Callable[[Callable[[], None]], None],
) -> int:
    """Run the app whose window `launch.run` painted, until it quits. `on_sigterm(act)`: a
    SIGTERM calls `act` from now on (at once when one came during the start)."""
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    threads = WorkerThreads()
    loop.set_default_executor(threads)
    controller = AppController(
        window.paths, profiles=profiles, opened=(window, shipments), threads=threads
    )
    # SIGTERM (logout, kill) closes the window as Quit does, so the Local sandbox's service is
    # stopped too, but without a question nobody is there to answer; one that came since the
    # window was painted closes it now (the handler is launch.run's, installed before Qt
    # loaded). The collector's timer lets Python run the handler promptly.
    on_sigterm(controller.window.close_without_asking)
    with loop:
        loop.run_until_complete(controller.run())
    # No last pass: the process ends now (see launch.end_process), and a pass over all the
    # app made takes 0.6 to 0.9 s on a busy machine.
    collector.stop(collect=False)
    return 0
