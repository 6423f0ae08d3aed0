"""The window as the start paints it, shared by both steps of the start (`launch`, then
`application`): its settings file, the cached list read before the session exists, the window
with its panes, and waiting for the first paint.

Like `launch`, this imports nothing heavy (no pydantic, asyncio, API client or QtWebEngine):
the start is a straight line, launch -> first_paint, then `launch.run` imports `application`
(which imports this too) once the list is on screen.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable

from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, QTimer
from PySide6.QtWidgets import QWidget

from freightdesk.service.cache import Cache
from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileStore
from freightdesk.service.summary_rows import (
    SUMMARIES,
    SummaryRow,
    cached_rows,
    first_screen,
    remember_first_screen,
)
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.maps.warm import prepare_window
from freightdesk.ui.panes.setup import add_panes
from freightdesk.ui.panes.shipments.pane import FIRST_SCREEN_ROWS, ShipmentsPane
from freightdesk.ui.theme import ThemeChoice

log = logging.getLogger(__name__)

# How long the start waits for the list's first paint before going on regardless (a window
# started minimized is never painted).
FIRST_PAINT_TIMEOUT_MS = 1000

# How long the list must stay still before its top is kept for the next start: a sync changes
# it in a few steps, and a burst of pushes should cost one write, not one each.
KEEP_FIRST_SCREEN_AFTER_MS = 1500


def app_settings(paths: AppPaths) -> QSettings:
    return QSettings(str(paths.config_dir / "freightdesk.ini"), QSettings.Format.IniFormat)


def theme_setting(settings: QSettings) -> ThemeChoice:
    value = str(settings.value("theme", ThemeChoice.SYSTEM.value))
    try:
        return ThemeChoice(value)
    except ValueError:
        return ThemeChoice.SYSTEM


def read_cached_list(paths: AppPaths, profile: Profile, order: str) -> tuple[list[SummaryRow], int]:
    """The profile's cached shipment list sorted by `order` and its length: only its first
    screen when the last run kept it (`summary_rows.first_screen`: reading 10,000 rows takes
    as long as Qt takes to show a window), else every row. Nothing when there is no cache
    yet or it cannot be read (the session reads it again, and says what is wrong)."""
    path = paths.cache_file(profile.id)
    if not path.exists():
        return [], 0
    try:
        cache = Cache(path)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be opened")
        return [], 0
    try:
        screen = first_screen(cache, order)
        if screen is not None:
            return screen
        rows = cached_rows(cache)
        return rows, len(rows)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be read")
        return [], 0
    finally:
        cache.close()


def open_window(
    paths: AppPaths, settings: QSettings, profiles: ProfileStore
) -> tuple[MainWindow, ShipmentsPane]:
    """The main window with its panes, not yet attached to a session, the Shipments pane
    showing the active profile's cached list."""
    window = MainWindow(None, settings, paths)
    prepare_window(window)  # before it is shown: no new native window when a map joins it
    shipments = add_panes(window)
    window.restore_pane()
    profile = profiles.active
    window.indicator.show_status(
        ConnectionStatus(ConnectionState.CONNECTING, profile.name, f"Connecting to {profile.name}")
    )
    rows, total = read_cached_list(paths, profile, shipments.model.sort_name())
    if len(rows) < total:
        log.info(
            "painting the first %s of %s cached shipments kept at the last close",
            len(rows),
            f"{total:,}",
        )
    shipments.show_cached(rows, total)
    FirstScreenKeeper(shipments)
    return window, shipments


class FirstScreenKeeper(QObject):
    """Keeps the top of the shipment list for the next start's first paint whenever the list
    settles, not only at a normal close: after a crash (or a kill) the next start still
    paints the list's top at once instead of reading the whole cache first.

    It is kept only when what the table shows is exactly the cached list: the whole list in
    (not the first screen alone), unfiltered and in the user's sort (no held updates), the
    same length as the session's list, and no sync under way (a sync saves to the cache
    before the table shows its rows). The cache's change time is read here, with the ids,
    so the kept screen names the list it is the top of: any later change of the list makes
    `summary_rows.first_screen` refuse it. It is written only when the top, its sort or the
    length changed, in a thread of its own (a write waits for the disk)."""

    def __init__(self, pane: ShipmentsPane) -> None:
        super().__init__(pane)
        self._pane = pane
        self._kept: tuple[object, str, int, tuple[str, ...]] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(KEEP_FIRST_SCREEN_AFTER_MS)
        self._timer.timeout.connect(self.keep)
        model = pane.model
        for signal in (
            model.modelReset,
            model.layoutChanged,
            model.rowsInserted,
            model.rowsRemoved,
            model.dataChanged,
        ):
            signal.connect(self._changed)
        self._timer.start()  # the list shown already may be the one to keep

    def _changed(self, *_args: object) -> None:
        self._timer.start()

    def keep(self) -> threading.Thread | None:
        """Writes the first screen if it is to be kept (the thread writing it, else None)."""
        pane = self._pane
        model = pane.model
        if not model.complete or model.order_held:
            return None  # the table changes again once it is whole or settled
        service = pane.session.shipments if pane.is_attached() else None
        cache = pane.session.cache if pane.is_attached() else None
        data = service.coordinator.data if service is not None else None
        if service is None or cache is None or data is None or service.coordinator.status.fetching:
            # The session is still starting or syncing: the list may not change when it is
            # done (the cached list the table shows already), so look again then.
            if model.total:
                self._timer.start()
            return None
        total = model.total
        if service.cache is not cache or len(data.summaries) != total or model.rowCount() != total:
            return None
        top = (model.summary_at(r) for r in range(min(FIRST_SCREEN_ROWS, total)))
        ids = tuple(row.id for row in top if row is not None)
        order = model.sort_name()
        kept = (cache, order, total, ids)
        if kept == self._kept:
            return None
        try:
            saved = cache.saved_at(SUMMARIES)
        except sqlite3.Error:
            return None
        self._kept = kept

        def write() -> None:
            # Closed meanwhile (another profile): only a quicker next start is lost.
            with contextlib.suppress(sqlite3.Error):
                remember_first_screen(cache, order, total, ids, saved)

        writer = threading.Thread(target=write, name="keep-first-screen", daemon=True)
        writer.start()
        return writer


class FirstPaint(QObject):
    """Calls `then` once `widget` has been painted (from the event loop, so after the paint
    has reached the screen)."""

    def __init__(self, widget: QWidget, then: Callable[[], None]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._then = then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            self._widget.removeEventFilter(self)
            QTimer.singleShot(0, self._then)
        return False


def wait_for_first_paint(widget: QWidget, timeout_ms: int = FIRST_PAINT_TIMEOUT_MS) -> None:
    """Process events until `widget` is painted (or `timeout_ms` passed)."""
    loop = QEventLoop()
    watch = FirstPaint(widget, loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    widget.update()
    loop.exec()
    watch.deleteLater()
