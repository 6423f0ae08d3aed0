"""The window as the start paints it, shared by both steps of the start (`launch`, then
`application`): its settings file, the cached list read before the session exists, the window
with its panes, and waiting for the first paint.

Like `launch`, this imports nothing heavy (no pydantic, asyncio, API client or QtWebEngine):
the start is a straight line, launch -> first_paint, then `launch.run` imports `application`
(which imports this too) once the list is on screen.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QWidget

from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.first_screen import (
    FirstScreen,
    Kept,
    ListSort,
    TopToKeep,
    Triaged,
    keep_top,
    keep_top_in_thread,
    kept_rows,
    read_first_screen,
)
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileStore
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import Facts
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.setup import add_panes
from freightdesk.ui.panes.shipments.attention import column_values
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS, SortValue
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.panes.shipments.pane import FIRST_SCREEN_ROWS, ShipmentsPane
from freightdesk.ui.theme import ThemeChoice

if TYPE_CHECKING:
    from freightdesk.ui.panes.shipments.attention import TriageLink

log = logging.getLogger(__name__)

# How long the start waits for the list's first paint before going on regardless (a window
# started minimized is never painted).
FIRST_PAINT_TIMEOUT_MS = 1000

# How long the list must stay still before its top is kept for the next start: a sync changes
# it in a few steps, and a burst of pushes should cost one write, not one each.
KEEP_FIRST_SCREEN_AFTER_MS = 1500

# Rows kept for the next start's first paint: a screen and more (`first_screen.kept_top`).
KEPT_ROWS = kept_rows(FIRST_SCREEN_ROWS)


def app_settings(paths: AppPaths) -> QSettings:
    return QSettings(str(paths.config_dir / "freightdesk.ini"), QSettings.Format.IniFormat)


def theme_setting(settings: QSettings) -> ThemeChoice:
    value = str(settings.value("theme", ThemeChoice.SYSTEM.value))
    try:
        return ThemeChoice(value)
    except ValueError:
        return ThemeChoice.SYSTEM


def list_sort(model: ShipmentTableModel, triage: TriageLink | None = None) -> ListSort:
    """The table's sort as its first screen is read in (`service/first_screen.py`), with
    the table's own sort values. `triage`: the model's, for the Attention sort (the cache's
    keys tell it for a triage without facts, as the start's is)."""
    column, descending = model.sort_key()
    triaged = None
    if triage is not None and triage.facts is None:
        triaged = Triaged(triage.now, triage.settings)
    attention = column == COLUMN_INDEX["attention"]

    def values(rows: Sequence[SummaryRow], facts: Mapping[str, Facts]) -> list[SortValue | None]:
        # The triage's flags are the Attention sort's alone; with the facts read of `rows`,
        # as the model's will be once they are known (`TriageLink.know`).
        if not attention:
            return column_values(column, rows, bytearray(len(rows)))
        flags, late = (model.triage, model.late) if triage is None else triage.judging(facts)
        return column_values(column, rows, bytearray(map(flags, rows)), late)

    return ListSort(model.sort_name(), COLUMNS[column].key, descending, values, triaged)


def read_cached_list(
    paths: AppPaths,
    profile: Profile,
    model: ShipmentTableModel,
    triage: TriageLink | None = None,
) -> FirstScreen:
    """The profile's cached shipment list sorted as `model` is and its length, or only its
    top (`read_first_screen`: reading 10,000 rows takes as long as Qt takes to show a
    window). `triage`: the model's, for the Attention sort."""
    sort = list_sort(model, triage)
    return read_first_screen(paths.cache_file(profile.id), sort, FIRST_SCREEN_ROWS)


def open_window(
    paths: AppPaths, settings: QSettings, profiles: ProfileStore
) -> tuple[MainWindow, ShipmentsPane]:
    """The main window with its panes, not yet attached to a session, the Shipments pane
    showing the active profile's cached list."""
    window = MainWindow(None, settings, paths)  # made for maps (`prepare_window`)
    shipments = add_panes(window)
    window.restore_pane()
    profile = profiles.active
    rows, total, since, facts = read_cached_list(paths, profile, shipments.model, shipments.triage)
    # The cached list's time: the status bar says how old the rows shown are from the start.
    connecting = f"Connecting to {profile.name}"
    window.indicator.show_status(
        ConnectionStatus(ConnectionState.CONNECTING, profile.name, connecting, since)
    )
    if len(rows) < total:
        log.info("painting the top %s of %s cached shipments", len(rows), f"{total:,}")
    # Before the rows: the table sorts them by their facts as it will once all are read.
    shipments.triage.know(facts)
    shipments.show_cached(rows, total)
    shipments.keep_first_screen = FirstScreenKeeper(shipments, since).keep_now
    return window, shipments


class FirstScreenKeeper(QObject):
    """Keeps the top of the shipment list for the next start's first paint whenever the list
    settles, not only at a normal close: after a crash (or a kill) the next start still
    paints the list's top at once instead of reading the whole cache first.

    It is kept only when what the table shows is exactly the cached list: the whole list in
    (not the first screen alone), unfiltered and in the user's sort (no held updates), the
    same length as the session's list, and no sync under way. A change is saved to the
    cache before the table shows it (an edit is saved, then the list updated), so the
    table may lag the cache: in a thread of its own (`keep_top_in_thread`), the rows the
    cache logged as changed since the last check are compared with the table's, and the top
    is kept with the cache time it holds every change up to only when they all match, else
    looked at again later. It is written only when the top, its sort or the length changed,
    and at the app's close (`keep_now`, the pane's shutdown)."""

    _again = Signal()

    def __init__(self, pane: ShipmentsPane, since: float | None = None) -> None:
        super().__init__(pane)
        self._pane = pane
        self._kept: tuple[object, str, int, tuple[str, ...]] | None = None
        # The cache time up to which the table holds every change, per cache (a profile
        # switch opens another): where the next check starts.
        self._since: tuple[object, float] | None = None
        self._first_since = since
        self._writer: threading.Thread | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(KEEP_FIRST_SCREEN_AFTER_MS)
        self._timer.timeout.connect(self.keep)
        self._again.connect(self._timer.start)  # from the writer's thread: queued
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
        data = service.coordinator.data if service is not None else None
        busy = self._writer is not None and self._writer.is_alive()
        if service is None or data is None or service.coordinator.status.fetching or busy:
            # The session is still starting or syncing: the list may not change when it is
            # done (the cached list the table shows already), so look again then.
            if model.total:
                self._timer.start()
            return None
        if service.cache is not pane.session.cache or len(data.summaries) != model.total:
            return None
        top = self._top()
        if top is None:
            return None

        def then(kept: Kept) -> None:  # in the writer's thread
            self._note(top, kept)
            if kept.behind:
                self._again.emit()  # the table is behind the cache: look again later

        self._writer = keep_top_in_thread(top, then)
        return self._writer

    def keep_now(self) -> None:
        """Keeps the first screen at once if it is to be kept (the app is closing)."""
        if self._writer is not None:
            self._writer.join()
        self._timer.stop()
        model = self._pane.model
        if model.complete and not model.order_held and self._pane.is_attached():
            top = self._top()
            if top is not None:
                self._note(top, keep_top(top))

    def _top(self) -> TopToKeep | None:
        """What keeping the first screen now would write, read from the table (None when
        the table shows a filtered list, or the top kept already)."""
        model = self._pane.model
        cache = self._pane.session.cache
        total = model.total
        if cache is None or model.rowCount() != total:
            return None
        top = (model.summary_at(r) for r in range(min(KEPT_ROWS, total)))
        ids = tuple(row.id for row in top if row is not None)
        order = model.sort_name()
        if (cache, order, total, ids) == self._kept:
            return None
        if self._since is not None and self._since[0] is cache:
            since: float | None = self._since[1]
        else:
            since, self._first_since = self._first_since, None
        return TopToKeep(cache, order, total, ids, model.rows_by_id(), since)

    def _note(self, top: TopToKeep, kept: Kept) -> None:
        """Where the next check starts, once `top` was kept."""
        if kept.since is not None:
            self._since = (top.cache, kept.since)
            self._kept = (top.cache, top.order, top.total, top.ids)


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
