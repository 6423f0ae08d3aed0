"""Triaging the Shipments list again (new facts, settings, the minute) without the window
standing still: a big retriage is worked out in a worker thread and swapped in at once.

100,000 rows take a quarter of a second to triage, which the window would stand still for.
From `BACKGROUND_ROWS` on, the rows, their flags and the Attention column's sort values and
order are taken as they are (a snapshot), worked out again in a worker thread
(`retriaged`: touches nothing shared), and swapped into the model in one layout change. What
changes meanwhile wins: rows merged or triaged on the GUI thread keep their newer flags, and a
new list (a new index) is triaged again itself. Fewer rows are triaged at once. Either way the
few rows that change kind are moved to their places in the order by bisection
(`row_index.moved_in_order`), not all 100,000 sorted again.

The minute's retriage triages only the rows due (`Retriager.tick`): each row triaged also
gets the moment from which time alone would change its flags (`model.due`: a truck going
silent), kept in a heap by that moment, so a minute triages the few that went silent, not
the quarter of a big list in transit. Until a whole-list retriage has given every row's
moment (a new list, or a clock set back), a minute triages every row.

The Alerts' minute follows the list's (`TriageLink.timePassed`): the rows a minute finds due
are the rows the Alerts judge again (their silence is the one condition time alone brings),
or every row in transit when a minute cannot say (`tick` gives None) — the moments were not
known since the last minute (a new list, new settings, the clock set back), so rows may have
gone silent without a moment in the heap.
"""

from __future__ import annotations

import heapq
import sys
from array import array
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import compress
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.attention import column_value, never_late
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, SortValue
from freightdesk.ui.panes.shipments.row_index import moved_in_order, sorted_positions

if TYPE_CHECKING:
    import asyncio

    from freightdesk.ui.panes.shipments.model import ShipmentTableModel

# A retriage of this many rows or more is worked out in a worker thread; fewer, a few
# milliseconds' worth, are triaged at once.
BACKGROUND_ROWS = 2_000
# But in a list of this many rows or more sorted by the Attention column, any rows that
# change are: moving them in the order is a pass over every row (`moved_in_order`, 11 ms of
# the GUI thread for 100,000 on a quiet machine, 46 ms in all with the triage on a loaded
# one, where a minute's 2,000 rows were triaged at once).
BACKGROUND_ORDER = 20_000
_ATTENTION = COLUMN_INDEX["attention"]
# The rows a minute found time had changed (`Retriager.tick`): their ids, or None when it
# cannot say (the moments were not known since the last minute: any row's may have).
Came = frozenset[str] | None


@dataclass(frozen=True)
class Wanted:
    """Rows to triage again: every row, or those of `ids` and those in `states`."""

    every: bool = False
    ids: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()

    def __or__(self, other: Wanted) -> Wanted:
        return Wanted(self.every or other.every, self.ids | other.ids, self.states | other.states)


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop the GUI thread runs (qasync's), if any: none before asyncio is loaded
    (the first paint) nor in a plain Qt event loop."""
    if "asyncio" not in sys.modules:
        return None
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@dataclass
class Retriaged:
    """Rows' attention flags worked out again (`retriaged`), to be swapped in."""

    flags: bytearray  # every row's, the changed ones new
    changed: list[int]  # the positions whose flags (or Attention sort values) changed
    dues: list[tuple[float, str]]  # of the rows triaged: when time changes them (`due`)
    undue: list[str]  # the rows triaged that time alone will not change
    values: list[SortValue | None] | None  # the Attention column's sort values, if kept
    ordered: array[int] | None  # every position sorted by those, if the list is


def retriaged(
    rows: list[SummaryRow],
    flags: bytes,
    positions: Iterable[int],
    triage: Callable[[SummaryRow], int],
    values: list[SortValue | None] | None,
    ordered: array[int] | None,
    descending: bool,
    due: Callable[[SummaryRow], float | None] = lambda _row: None,
    late: Callable[[SummaryRow], float] = never_late,
) -> Retriaged:
    """`flags` with the rows at `positions` triaged again (and when time would change them,
    `due`), and, when given, the Attention column's sort `values` (by `late` too: a late
    row whose delay changed moves) and the `ordered` positions sorted by them, both changed
    in place. Touches nothing shared: run in a
    worker thread for a big list."""
    new = bytearray(flags)
    changed = []
    positions = list(positions)
    for position in positions:
        found = triage(rows[position])
        if found != new[position]:
            new[position] = found
            changed.append(position)
    dues, undue = moments(rows, positions, due)
    heapq.heapify(dues)  # the heap of a whole list's, ready to be taken as it is
    if values is not None:
        flagged = set(changed)
        for position in positions:
            value = column_value(_ATTENTION, rows[position], new[position], late)
            if value != values[position]:
                values[position] = value
                if position not in flagged:
                    changed.append(position)
    if values is not None and changed and ordered is not None:
        moved = moved_in_order(ordered, changed, values, descending)
        ordered = moved if moved is not None else sorted_positions(ordered, values, descending)
    return Retriaged(new, changed, dues, undue, values, ordered)


def moments(
    rows: list[SummaryRow], positions: Iterable[int], due: Callable[[SummaryRow], float | None]
) -> tuple[list[tuple[float, str]], list[str]]:
    """When time alone changes the rows at `positions` (`due`): (moment, id) of those it
    does, and the ids of those it never does."""
    dues, undue = [], []
    for position in positions:
        row = rows[position]
        at = due(row)
        if at is None:
            undue.append(row.id)
        else:
            dues.append((at, row.id))
    return dues, undue


class Retriager:
    """The model's retriage (`ShipmentTableModel.retriage`): one worked out in a worker thread
    at a time, those asked for meanwhile merged into the next. It works on the model's
    per-row arrays as the model's own methods do (a part of the model kept apart)."""

    def __init__(self, model: ShipmentTableModel) -> None:
        self._model = model
        self._task: asyncio.Task[None] | None = None
        self._queued: Wanted | None = None
        # Positions triaged on the GUI thread while one is worked out (theirs are newer),
        # and the model's new indexes (`adopted`): a result's positions no longer hold.
        self._touched: set[int] | None = None
        self._adoptions = 0
        self._hold: Callable[[], bool] = lambda: False
        # When time alone changes each row's flags (`model.due`; rows it never changes left
        # out), and those moments in a heap (entries no longer in `_due` skipped). `_dues_whole`
        # once every row of the list has its moment; `_ticked`, the last minute's moment.
        self._due: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []
        self._dues_whole = False
        self._ticked: float | None = None
        # Whether the moments were not known at some time since the last minute: rows may
        # have gone silent then without one (the Alerts judge every row at the next minute).
        self._lost_since_tick = True

    @property
    def running(self) -> bool:
        return self._task is not None

    def ask(self, wanted: Wanted, hold: Callable[[], bool]) -> None:
        """Triage `wanted` again; the order and filter follow unless `hold()` says so then."""
        self._hold = hold
        if wanted.every:  # new facts or rules: the moments noted before may not hold
            self.dues_unknown()
        positions = self._positions_of(wanted)
        if self._at_once(len(positions)) or running_loop() is None:
            self._triage_here(positions, whole=wanted.every)
            return
        self._queued = wanted if self._queued is None else self._queued | wanted
        if self._task is None:
            from freightdesk.ui.tasks import spawn  # asyncio, loaded by now

            self._task = spawn(self._work_out(), name="retriage", owner=self._model)

    def _at_once(self, count: int) -> bool:
        """Whether a retriage of `count` rows is cheap enough for the GUI thread: few rows,
        and none to move in a big list's Attention order (`BACKGROUND_ORDER`)."""
        model = self._model
        if count == 0:
            return True
        if count >= BACKGROUND_ROWS:
            return False
        return model._sort_column != _ATTENTION or len(model._rows) < BACKGROUND_ORDER

    def tick(self, now: float, hold: Callable[[], bool]) -> Came:
        """A new minute, `now` (a POSIX timestamp): the rows whose flags time changed by now
        triaged again (every row until each row's moment is known, or if time went back).
        Their ids, or None when time may have changed any row's since the last minute (the
        moments were not known meanwhile)."""
        back = self._ticked is not None and now < self._ticked
        self._ticked = now
        lost = self._lost_since_tick or back or not self._dues_whole
        ids: list[str] = []
        if not self._dues_whole or back:
            self.ask(Wanted(every=True), hold)
        else:
            heap, due = self._heap, self._due
            while heap and heap[0][0] <= now:
                at, key = heapq.heappop(heap)
                if due.get(key) == at:
                    del due[key]
                    ids.append(key)
            self.ask(Wanted(ids=frozenset(ids)), hold)
        # Every row's moment from this minute on is known, or worked out (until then
        # `_dues_whole` is false: the next minute says every row again).
        self._lost_since_tick = False
        return None if lost else frozenset(ids)

    def noted(self, row: SummaryRow) -> None:
        """`row` was triaged on the GUI thread: when time changes it noted."""
        dues, undue = moments([row], [0], self._model.due)
        self._note(undue, dues)

    def forget(self, keys: Iterable[str]) -> None:
        """The rows of `keys` left the list."""
        due = self._due
        for key in keys:
            due.pop(key, None)

    def dues_unknown(self) -> None:
        """What changes with time is no longer known for every row (new facts or rules)."""
        self._due.clear()
        self._heap.clear()
        self._dues_whole = False
        self._lost_since_tick = True

    def _note(self, undue: Iterable[str], dues: Iterable[tuple[float, str]]) -> None:
        due, heap = self._due, self._heap
        for key in undue:
            due.pop(key, None)
        for at, key in dues:
            due[key] = at
            heapq.heappush(heap, (at, key))
        if len(heap) > 2 * len(due) + 1_000:  # mostly stale entries: kept small
            self._heap = [(at, key) for key, at in due.items()]
            heapq.heapify(self._heap)

    def touched(self, position: int) -> None:
        """The row at `position` was triaged on the GUI thread (a change merged)."""
        if self._touched is not None:
            self._touched.add(position)

    def adopted(self, rows_kept: bool = False) -> None:
        """The model took a new index: positions worked out before no longer hold. Unless
        its rows are those it had (some removed), the moments rows change are not known."""
        self._adoptions += 1
        if not rows_kept:
            self.dues_unknown()

    def stop(self) -> None:
        """Drop the retriage being worked out, and the one queued (the rows due in it
        with it: the next minute triages every row)."""
        task, self._task = self._task, None
        self._queued = None
        if task is not None:
            self.dues_unknown()
            task.cancel()

    def _positions_of(self, wanted: Wanted) -> Sequence[int]:
        model = self._model
        if wanted.every:
            return range(len(model._rows))
        known = model._position
        found = [known[key] for key in wanted.ids if key in known]
        if wanted.states:
            marks = model._state_codes.translate(model._states.table(wanted.states))
            found += compress(range(len(model._rows)), marks)
        return found

    def _triage_here(self, positions: Iterable[int], whole: bool) -> None:
        model = self._model
        rows, flags, triage, late = model._rows, model._flags, model.triage, model.late
        if self._touched is not None:
            positions = list(positions)
            self._touched.update(positions)
        positions = list(positions)
        values = model._sort_values.get(_ATTENTION)
        # A late row whose delay changed (its kinds did not) moves in the Attention order.
        changed = {
            p: f
            for p in positions
            if (f := triage(rows[p])) != flags[p]
            or (values is not None and column_value(_ATTENTION, rows[p], f, late) != values[p])
        }
        dues, undue = moments(rows, positions, model.due)
        self._note(undue, dues)
        self._dues_whole = self._dues_whole or whole
        if not changed:
            self._repaint()
            return

        def again() -> None:
            values = model._sort_values.get(_ATTENTION)
            for p, f in changed.items():
                flags[p] = f
                if values is not None:
                    values[p] = column_value(_ATTENTION, rows[p], f, late)
            self._reorder(changed)

        model._relayout(again, hold=self._hold())

    async def _work_out(self) -> None:
        import asyncio

        model = self._model
        try:
            while self._queued is not None:
                wanted, self._queued = self._queued, None
                adoptions, count, sort = self._adoptions, len(model._rows), model.sort_key()
                values = model._sort_values.get(_ATTENTION)
                # The order is worked out beside the values it is sorted by (kept once sorted).
                by_attention = sort[0] == _ATTENTION and values is not None
                ordered = model._ordered if by_attention else None
                job = partial(
                    retriaged,
                    model._rows[:],
                    bytes(model._flags),
                    self._positions_of(wanted),
                    model.triage,
                    values[:] if values is not None else None,
                    ordered[:] if ordered is not None else None,
                    sort[1],
                    model.due,
                    model.late,
                )
                self._touched = set()
                try:
                    done = await asyncio.to_thread(job)
                    touched = self._touched
                finally:
                    self._touched = None
                if adoptions != self._adoptions:  # a new list meanwhile: triaged on it
                    self._queued = wanted if self._queued is None else self._queued | wanted
                    continue
                self._swap_in(done, count, touched, sort, wanted.every)
        finally:
            if self._task is asyncio.current_task():  # not one started since
                self._task = None

    def _swap_in(
        self,
        done: Retriaged,
        count: int,
        touched: set[int],
        sort: tuple[int, bool],
        whole: bool,
    ) -> None:
        """The flags (and Attention sort values and order) worked out for the first `count`
        rows, those of the positions `touched` meanwhile kept as they are now."""
        self._note_worked_out(done, touched, count, whole)
        changed = [p for p in done.changed if p not in touched]
        if not changed:
            self._repaint()
            return
        kept = [p for p in touched if p < count]
        model = self._model

        def swap() -> None:
            flags = done.flags
            flags += model._flags[count:]  # rows added meanwhile
            for p in kept:
                flags[p] = model._flags[p]
            model._flags = flags
            values = model._sort_values.get(_ATTENTION)
            if values is not None and done.values is not None:
                new = done.values
                new += values[count:]
                for p in kept:
                    new[p] = values[p]
                model._sort_values[_ATTENTION] = new
            elif values is not None:  # first sorted by it meanwhile
                for p in changed:
                    values[p] = column_value(_ATTENTION, model._rows[p], flags[p], model.late)
            ordered = model._ordered
            if (
                done.ordered is not None
                and sort == model.sort_key()
                and ordered is not None
                and len(ordered) == count
                and not model._order_dirty
            ):
                model._ordered = done.ordered
                self._reorder(kept)
            else:
                self._reorder(changed)

        model._relayout(swap, hold=self._hold())

    def _note_worked_out(self, done: Retriaged, touched: set[int], count: int, whole: bool) -> None:
        """The moments worked out with `done` noted; those of the rows `touched` meanwhile
        (noted then) and rows added meanwhile kept."""
        ids = self._model._ids
        newer = {ids[p] for p in touched if p < count}
        if not whole:
            self._note(
                [key for key in done.undue if key not in newer],
                [(at, key) for at, key in done.dues if key not in newer],
            )
            return
        # The whole list's: taken at once (a heap already), the newer kept.
        due = self._due
        kept = {key: due[key] for key in ids[count:] if key in due}
        kept.update((key, due[key]) for key in newer if key in due)
        heap = done.dues
        if newer:
            heap = [(at, key) for at, key in heap if key not in newer]
            heapq.heapify(heap)
        self._due = {key: at for at, key in heap}
        self._heap = heap
        self._note([], [(at, key) for key, at in kept.items()])
        self._dues_whole = True

    def _reorder(self, moved: Collection[int]) -> None:
        """The order, once the Attention sort values of the positions `moved` changed: when
        the list is sorted by them, those moved to their new places (or all sorted again)."""
        model = self._model
        if not moved or model._sort_column != _ATTENTION or model._order_dirty:
            return  # the order does not depend on them, or is sorted again anyway
        ordered = model._ordered
        if ordered is None:
            return
        descending = model._sort_order == Qt.SortOrder.DescendingOrder
        moved_ordered = moved_in_order(ordered, moved, model._values_for(_ATTENTION), descending)
        if moved_ordered is None:
            model._order_dirty = True
        else:
            model._ordered = moved_ordered

    def _repaint(self) -> None:
        """The Attention column painted again: its words change with time (the kinds not)."""
        model = self._model
        if model._visible:
            last = model.index(len(model._visible) - 1, _ATTENTION)
            model.dataChanged.emit(model.index(0, _ATTENTION), last)
