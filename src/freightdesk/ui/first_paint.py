"""The window as the start paints it, shared by both steps of the start (`launch`, then
`application`): its settings file, the cached list read before the session exists, the window
with its panes, and waiting for the first paint.

Like `launch`, this imports nothing heavy (no pydantic, asyncio, API client or QtWebEngine):
the start is a straight line, launch -> first_paint, then `launch.run` imports `application`
(which imports this too) once the list is on screen.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from array import array
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple, cast

from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QWidget

from freightdesk.service.cache import Cache, Reading
from freightdesk.service.connection import ConnectionState, ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileStore
from freightdesk.service.summary_keys import MAPPED, PLAIN, attention_sql, mapped_sql
from freightdesk.service.summary_rows import (
    FIRST_SCREEN_KEY,
    SUMMARIES,
    SummaryRow,
    cached_rows,
    remember_first_screen,
    rows_from_cache,
)
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.setup import add_panes
from freightdesk.ui.panes.shipments.attention import column_values
from freightdesk.ui.panes.shipments.columns import COLUMNS, SortValue
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.panes.shipments.pane import FIRST_SCREEN_ROWS, ShipmentsPane
from freightdesk.ui.panes.shipments.row_index import sorted_positions
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

# Rows kept for the next start's first paint: a screen and more, so that the changes made
# since they were kept can be merged in (`kept_top`) and still fill a screen.
KEPT_ROWS = FIRST_SCREEN_ROWS + 80
# The cache's time up to which every change of the list was in the table when its top was
# last kept (`FirstScreenKeeper`): a start merges the changes logged after it
# (`Cache.changed_since`) into the kept top, so a kept top older than the cache (a kill
# just after a change, another app changing the cache) is brought up to date, never shown
# as it was.
KEPT_SINCE_KEY = "shipments:first_screen_since"
# At most this many changes since then are merged at start; more, and the list is read whole.
MERGE_AT_MOST = 2000


def app_settings(paths: AppPaths) -> QSettings:
    return QSettings(str(paths.config_dir / "freightdesk.ini"), QSettings.Format.IniFormat)


def theme_setting(settings: QSettings) -> ThemeChoice:
    value = str(settings.value("theme", ThemeChoice.SYSTEM.value))
    try:
        return ThemeChoice(value)
    except ValueError:
        return ThemeChoice.SYSTEM


class CachedList(NamedTuple):
    rows: list[SummaryRow]  # the whole list, or its top when `total` is more
    total: int
    # A cache time up to which the list the session reads holds every change (None: not
    # known), where `FirstScreenKeeper` starts checking from.
    since: float | None


def read_cached_list(
    paths: AppPaths,
    profile: Profile,
    model: ShipmentTableModel,
    triage: TriageLink | None = None,
) -> CachedList:
    """The profile's cached shipment list sorted as `model` is and its length: only its top
    when one was kept (`kept_top`: reading 10,000 rows takes as long as Qt takes to show a
    window) or the cache's keys tell it (`indexed_top`), else every row. Nothing when there
    is no cache yet or it cannot be read (the session reads it again, and says what is
    wrong). `triage`: the model's, for the Attention sort."""
    path = paths.cache_file(profile.id)
    if not path.exists():
        return CachedList([], 0, None)
    try:
        cache = Cache.to_read(path)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be opened")
        return CachedList([], 0, None)
    try:
        screen = kept_top(cache, model, triage)
        if screen is None:
            screen = indexed_top(cache, model, triage)
        if screen is not None:
            return screen
        since = cache.saved_at(SUMMARIES)  # before the rows: they hold at least this
        rows = cached_rows(cache)
        return CachedList(rows, len(rows), since)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be read")
        return CachedList([], 0, None)
    finally:
        cache.close()


def kept_top(
    cache: Cache, model: ShipmentTableModel, triage: TriageLink | None = None
) -> CachedList | None:
    """The top of the cached list in `model`'s sort, read without reading the list, and the
    list's length; None when it cannot be told so (nothing kept for this sort, or too much
    changed since: the list is read whole then). `triage`: the model's, for the Attention
    sort.

    The rows are those kept at the top when the list was last kept (`FirstScreenKeeper`,
    while the app ran or at its close) with the changes the cache logged since the time
    up to which that list held every change (`KEPT_SINCE_KEY`): the rows changed or
    deleted since are taken out, their current form put in, and the few rows are sorted as
    the table sorts. A row never read (below the kept ones) ranks at or after the last kept
    row that did not change, so only the rows sorted before that one are surely the top.
    Of the rows changed, only those the cache's keys sort before that row are read (at most
    a screen and more: `_changed_ahead`); every one when the keys cannot tell. All is read
    as of one moment (`Cache.reading`), so the top and its time always belong together."""
    with cache.reading() as read:
        screen = _kept_screen(read, model.sort_name())
        if screen is None:
            return None
        ids, since = screen
        changed = read.changed_since(SUMMARIES, since, MERGE_AT_MOST)
        if changed is None or not ids:
            return None
        _saved, keys = changed
        gone = set(keys)
        kept = [i for i in ids if i not in gone]
        total = read.count(SUMMARIES)
        ahead = None
        if kept and total > len(kept) + len(keys):
            ahead = _changed_ahead(read, model, triage, since, kept[-1])
        wanted = kept + (keys if ahead is None else list(ahead.values))
        bodies = read.get_many(SUMMARIES, wanted)
    if any(i not in bodies for i in kept):
        return None  # the log and the list disagree: read the list
    if not keys:
        # Nothing changed: the top as it was kept, in its order (its ties as shown then).
        rows = rows_from_cache((bodies[i] for i in ids), parse=json.loads)
        return CachedList(rows, total, since) if len(rows) == len(ids) else None
    present = sorted(i for i in set(wanted) if i in bodies)
    rows = rows_from_cache((bodies[i] for i in present), parse=json.loads)
    if len(rows) != len(present):
        return None
    # Sorted as the table sorts the whole list: by value, ties in the cache's order (keys).
    column, descending = model.sort_key()
    values = column_values(column, rows, bytearray(map(model.triage, rows)))
    if ahead is not None and not ahead.agrees(present, values, kept[-1]):
        log.warning("the cached keys sort %s otherwise than the list: read whole", column)
        return None
    order = sorted_positions(array("i", range(len(rows))), values, descending)
    if len(rows) < total:
        # Only the rows before the last unchanged kept row (ties with it excluded: a row
        # never read may share its value and come first).
        last = present.index(kept[-1]) if kept else None
        if last is None:
            return None
        bound = _rank(values[last])
        before = [p for p in order if _before(_rank(values[p]), bound, descending)]
        if len(before) < min(FIRST_SCREEN_ROWS, total):
            return None
        order = array("i", before)
    return CachedList([rows[p] for p in order[:KEPT_ROWS]], total, since)


def _kept_screen(read: Reading, order: str) -> tuple[list[str], float] | None:
    """The ids of the top kept for the sort `order`, and the cache time up to which that
    list held every change; None when none is kept for it."""
    try:
        screen = json.loads(read.meta(FIRST_SCREEN_KEY) or "null")
        since = json.loads(read.meta(KEPT_SINCE_KEY) or "null")
        if not isinstance(screen, dict) or screen.get("order") != order:
            return None
        return [str(i) for i in screen["ids"]], float(since)
    except (ValueError, KeyError, TypeError):
        return None


class _Ahead(NamedTuple):
    """The changed rows the cache's keys sort before the last unchanged kept row (`last`),
    the first `KEPT_ROWS` of them, with their sort values and `last`'s by the keys."""

    values: dict[str, SortValue | None]
    last: SortValue | None

    def agrees(self, keys: list[str], values: list[SortValue | None], last: str) -> bool:
        """Whether the table's own sort values of the rows read (`keys`, `values`) are those
        the keys gave: else the keys may have left out a row of the top."""
        mine = dict(zip(keys, values, strict=True))
        return mine.get(last) == self.last and all(
            mine.get(key) == value for key, value in self.values.items()
        )


def _changed_ahead(
    read: Reading,
    model: ShipmentTableModel,
    triage: TriageLink | None,
    since: float,
    last: str,
) -> _Ahead | None:
    """Of the rows changed after `since` (when the top was kept), those that may reach the
    top: a row sorted at or after `last` (the last kept row that did not change) cannot, nor
    one after `KEPT_ROWS` other changed rows. Told inside SQLite from the sort values the
    cache keeps per row (`summary_keys`), the rows themselves not read; None when the keys
    cannot tell (a sort they do not hold, a triage with facts, keys behind the list). Not
    the mode's or the state's: of a few values each, they tie too many rows with the last
    kept one for a kept top to tell the top (the list is read whole)."""
    column, descending = model.sort_key()
    key = COLUMNS[column].key
    if key == "attention":
        if triage is None or triage.facts is not None:
            return None
        value, params, _runs = attention_sql(triage.now, triage.settings)
    elif key in PLAIN:
        value, params = PLAIN[key], []
    else:
        return None
    ahead = read.changed_ahead(since, value, params, last, descending, KEPT_ROWS)
    if ahead is None:
        return None
    # The keys' values, checked against the table's own once the rows are read (`agrees`).
    bound, top = cast("tuple[SortValue | None, list[tuple[str, SortValue | None]]]", ahead)
    return _Ahead(dict(top), bound)


def indexed_top(
    cache: Cache, model: ShipmentTableModel, triage: TriageLink | None
) -> CachedList | None:
    """The top of the cached list in `model`'s sort, found from the keys the cache keeps per
    row (`service/summary_keys.py`: one scan in SQLite instead of decoding every row), and
    the list's length; None when the keys cannot tell it (a sort they do not hold, a
    triage with facts, keys behind the list) or the list is short enough to read whole.

    Only the top's rows are decoded; their sort values, worked out by the table's own
    functions, must be those the keys gave, else the list is read whole."""
    column, descending = model.sort_key()
    key = COLUMNS[column].key
    runs: list[tuple[str, list[object]]] = []
    if key == "attention":
        # The keys hold the triage without facts, as the table's is before the session.
        if triage is None or triage.facts is not None:
            return None
        value, params, kinds = attention_sql(triage.now, triage.settings)
        runs = kinds if descending else []  # the default sort: through the indexes
    elif key in PLAIN:
        value, params = PLAIN[key], []
    elif key in MAPPED:
        field = MAPPED[key]
        sort_value = COLUMNS[column].sort_value
        found = cache.summary_values(field)
        probe = _PROBES[field]
        value, params = mapped_sql(field, {v: sort_value(probe(v)) for v in found if v})
    else:
        return None
    total = cache.count(SUMMARIES)
    if total <= KEPT_ROWS:
        return None
    top = cache.summary_top(value, params, descending, KEPT_ROWS, runs)
    if top is None:
        return None
    saved, pairs = top
    keys = [k for k, _ in pairs]
    bodies = cache.get_many(SUMMARIES, keys)
    rows = rows_from_cache((bodies[k] for k in keys if k in bodies), parse=json.loads)
    if len(rows) != len(keys) or [r.id for r in rows] != keys:
        return None
    values = column_values(column, rows, bytearray(map(model.triage, rows)))
    if values != [v for _, v in pairs] or (runs and not _descending(values)):
        log.warning("the cached keys sort %s otherwise than the list: read whole", key)
        return None
    return CachedList(rows, total, saved)


def _descending(values: list[SortValue | None]) -> bool:
    # The runs (the Attention sort's kinds) hold the sort's order only while every last
    # change is within their bounds (a time after 2286 would not be).
    numbers = [v for v in values if isinstance(v, float)]
    return len(numbers) == len(values) and numbers == sorted(numbers, reverse=True)


# A row to learn the sort value of a kept-as-is column's value from (`indexed_top`).
_EPOCH = datetime.fromtimestamp(0, UTC)
_PROBE = SummaryRow(
    "", (), None, None, None, None, None, None, None, None, None, 0, None, _EPOCH, _EPOCH
)
_PROBES: dict[str, Callable[[str], SummaryRow]] = {
    "mode": lambda value: _PROBE._replace(mode=value),
    "state": lambda value: _PROBE._replace(current_state=value),
}


def _rank(value: object) -> tuple[int, object] | tuple[int]:
    # The table's order: rows without a value after the others ascending, first descending.
    return (1,) if value is None else (0, value)


def _before(rank: tuple[object, ...], bound: tuple[object, ...], descending: bool) -> bool:
    return rank > bound if descending else rank < bound


def open_window(
    paths: AppPaths, settings: QSettings, profiles: ProfileStore
) -> tuple[MainWindow, ShipmentsPane]:
    """The main window with its panes, not yet attached to a session, the Shipments pane
    showing the active profile's cached list."""
    window = MainWindow(None, settings, paths)  # made for maps (`prepare_window`)
    shipments = add_panes(window)
    window.restore_pane()
    profile = profiles.active
    window.indicator.show_status(
        ConnectionStatus(ConnectionState.CONNECTING, profile.name, f"Connecting to {profile.name}")
    )
    rows, total, since = read_cached_list(paths, profile, shipments.model, shipments.triage)
    if len(rows) < total:
        log.info("painting the top %s of %s cached shipments", len(rows), f"{total:,}")
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
    table may lag the cache: in a thread of its own (a read waits for the disk), the rows
    the cache logged as changed since the last check (`Cache.changed_since`) are compared
    with the table's, and the top is kept with the cache time it holds every change up to
    (`KEPT_SINCE_KEY`) only when they all match, else looked at again later. A start
    merges every change after that time (`kept_top`). It is written only when the top, its
    sort or the length changed, and at the app's close (`keep_now`, the pane's shutdown)."""

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

        def write() -> None:
            if not self._write(*top):
                self._again.emit()  # the table is behind the cache: look again later
                return
            # A cache of an older version: its keys built once, for a start that finds
            # nothing kept (`indexed_top`).
            with contextlib.suppress(sqlite3.Error):
                top[0].index_summaries()

        writer = threading.Thread(target=write, name="keep-first-screen", daemon=True)
        self._writer = writer
        writer.start()
        return writer

    def keep_now(self) -> None:
        """Keeps the first screen at once if it is to be kept (the app is closing)."""
        if self._writer is not None:
            self._writer.join()
        self._timer.stop()
        model = self._pane.model
        if model.complete and not model.order_held and self._pane.is_attached():
            top = self._top()
            if top is not None:
                self._write(*top)

    def _top(
        self,
    ) -> tuple[Cache, str, int, tuple[str, ...], dict[str, SummaryRow], float | None] | None:
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
        return cache, order, total, ids, model.rows_by_id(), since

    def _write(
        self,
        cache: Cache,
        order: str,
        total: int,
        ids: tuple[str, ...],
        rows: dict[str, SummaryRow],
        since: float | None,
    ) -> bool:
        """Keeps `ids` as the top of the list if `rows` (the table's) hold every change the
        cache has; False when they do not yet."""
        # Closed meanwhile (another profile): only a quicker next start is lost.
        with contextlib.suppress(sqlite3.Error):
            verified = holds_every_change(cache, rows, since)
            if verified is None:
                return False
            # The top first: with an older time beside it a start merges more, never less.
            remember_first_screen(cache, order, total, ids, verified)
            cache.set_meta(KEPT_SINCE_KEY, repr(verified))
            self._since = (cache, verified)
            self._kept = (cache, order, total, ids)
        return True


# Changes since the last check compared one by one up to this many; more (the first sync of
# a list, say), and the table is compared with the whole cached list.
CHECK_AT_MOST = 5000


def holds_every_change(
    cache: Cache, rows: dict[str, SummaryRow], since: float | None
) -> float | None:
    """The cache's time of its last change of the list when `rows` (the table's, by id) are
    the cached list as of then, else None. The table held every change up to `since` (when
    given): only the rows changed after it are compared."""
    changed = cache.changed_since(SUMMARIES, since, CHECK_AT_MOST) if since is not None else None
    if changed is None:
        saved = cache.saved_at(SUMMARIES)
        whole = cached_rows(cache)
        if saved is None or cache.saved_at(SUMMARIES) != saved or len(whole) != len(rows):
            return None
        return saved if all(rows.get(row.id) == row for row in whole) else None
    saved, keys = changed
    if saved is None:
        return None
    bodies: dict[str, bytes] = {}
    for start in range(0, len(keys), 500):
        bodies.update(cache.get_many(SUMMARIES, keys[start : start + 500]))
    for key in keys:
        body, mine = bodies.get(key), rows.get(key)
        if body is None:
            if mine is not None:
                return None  # deleted from the cache, still in the table
            continue
        cached = rows_from_cache([body], parse=json.loads)
        if not cached or cached[0] != mine:
            return None
    return saved


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
