"""Python's cyclic garbage collection, run only on the GUI thread.

The service layer does some work in worker threads (disk cache). If the automatic collector
fired there, it could destroy Qt objects caught in reference cycles from the wrong thread,
which Qt forbids (and which can crash). So automatic collection is switched off and this
timer collects on the GUI thread whenever the allocation counters say it is due.

A collection walks every tracked object of the generations it collects, and the shipment list
is the bulk of them: its rows are named tuples, which CPython never stops tracking (it only
untracks exact tuples), so a full collection with 100,000 rows loaded held the window for
0.15 s on an idle machine and 0.3 to 0.6 s on a loaded one. Rows live until the next whole
list replaces them, and a replaced row is freed by its reference count (rows hold no cycles),
so the list, once in, is frozen (`gc.freeze`): collections no longer walk it. While a list is
being read and indexed in worker threads, collections wait (`bulk_load`): a young collection
then would walk every row made so far, only to find them all alive.

The same goes for the start's later phases and a first sync: the modules loaded for connecting,
the session, the panes and the maps' modules (numpy, QtWebEngine; folium and pandas before
the map page was a file: about 100,000 objects, a pass over them held the window for 50 to
90 ms two to four seconds into the start), and the rows of a first full sync, are all made
at once and live as long as the app or the list. Collections wait while they are made, then
they are frozen (`freeze`). Cyclic garbage
made meanwhile is frozen with them and freed only when the app ends; the benchmarks count it
(bench_app: a few thousand objects, once per start, not growing with use).
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

# Long-lived objects made since the last freeze at which the next `made_long_lived` freezes:
# a full collection walks 5,000 rows in about 7 ms (15 to 30 ms on a loaded machine). Below
# it, nothing is frozen: a freeze also sets apart whatever else is alive then, and what of it
# later becomes cyclic garbage is only collected when the app ends (`stop`).
FREEZE_AFTER = 5_000
# A bulk load that never ends (a bug) holds collections back this long at most.
HOLD_LIMIT_S = 30.0

# Objects made long-lived since the last freeze (`made_long_lived`), and the bulk loads under
# way.
_unfrozen = 0
_loads: set[BulkLoad] = set()


def made_long_lived(count: int) -> None:
    """`count` long-lived objects (rows of a list now shown) were just made: once those made
    since the last freeze reach FREEZE_AFTER, freeze everything tracked so far."""
    global _unfrozen
    _unfrozen += count
    if _unfrozen >= FREEZE_AFTER:
        freeze()


def freeze() -> None:
    """Set everything tracked now apart from collections (a phase that made long-lived
    objects is over)."""
    global _unfrozen
    _unfrozen = 0
    gc.freeze()


class BulkLoad:
    """A list being read and indexed (`bulk_load`): the GUI thread's collections wait until
    `done`, which freezes what it made when it is large."""

    def __init__(self) -> None:
        self.began = time.monotonic()
        _loads.add(self)

    def done(self, count: int = 0) -> None:
        """The load ended: `count` long-lived objects were made (0 when it failed or was
        dropped). Safe to call more than once."""
        if self in _loads:
            _loads.discard(self)
            made_long_lived(count)


def bulk_load() -> BulkLoad:
    return BulkLoad()


def loading() -> bool:
    """True while a bulk load (begun within HOLD_LIMIT_S) is under way."""
    now = time.monotonic()
    return any(now - load.began < HOLD_LIMIT_S for load in _loads)


class GuiThreadGarbageCollector(QObject):
    INTERVAL_MS = 1000

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(self.INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def check(self) -> None:
        if loading():
            return  # the rows being made are alive: collected (frozen) once they are in
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self, *, unfreeze: bool = True, collect: bool = True) -> None:
        """Collect on this thread one last time and give collections back to Python. With
        `unfreeze=False` what is frozen stays set apart (the tests freeze what outlives each
        test: a pass over the whole process after every test cost them minutes); with
        `collect=False` there is no last pass (the process ends next)."""
        self._timer.stop()
        _loads.clear()
        if unfreeze:
            gc.unfreeze()  # what was set apart can be collected again, at the end
        if collect:
            gc.collect()
        gc.enable()
