"""Python's cyclic garbage collection, run only on the GUI thread.

The service layer does some work in worker threads (disk cache). If the automatic collector
fired there, it could destroy Qt objects caught in reference cycles from the wrong thread,
which Qt forbids (and which can crash). So automatic collection is switched off and this
timer collects on the GUI thread whenever the allocation counters say it is due.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer


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
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        self._timer.stop()
        gc.collect()
        gc.enable()
