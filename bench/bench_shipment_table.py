"""Shipments table and cache at scale: load 100,000 cached summaries, filter and sort them.

Targets (issues 5 and 6): loading 100,000 cached summaries <= 1 s; filtering 100,000 rows
<= 50 ms per keystroke; sorting them <= 300 ms.

As in the app: the model is shown in a QTableView and every step includes the repaint that
follows it; Python's automatic garbage collection is off (the app collects on the GUI thread
between events, see ui/garbage.py). Figures are wall and CPU time, medians of repeats.
The rows are the start-up benchmark's (`bench.gui.cached_home`, made once under /tmp).

Each keystroke's filter is timed beside a plain Python substring scan of the same rows'
text in the same run (the baseline); the p95 goes to `bench.report`.

Run: QT_QPA_PLATFORM=offscreen python -m bench.bench_shipment_table
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QTableView

from bench.report import Figure, publish
from freightdesk.service.cache import Cache
from freightdesk.service.summary_rows import SUMMARIES, cached_rows, row_json, rows_from_cache
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS
from freightdesk.ui.panes.shipments.model import ShipmentFilter, ShipmentTableModel

N = 100_000
FILTER_LIMIT_MS = 50


def timed(function, repeat: int = 5) -> list[tuple[float, float]]:  # type: ignore[no-untyped-def]
    """(wall ms, CPU ms) of each call, the repaint it causes included."""
    app = QApplication.instance()
    times = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        if app is not None:
            app.processEvents()
        times.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
    return times


def _figures(times: list[tuple[float, float]]) -> str:
    walls, cpus = [t[0] for t in times], [t[1] for t in times]
    return (
        f"median {statistics.median(walls):.1f} ms wall / {statistics.median(cpus):.1f} ms CPU, "
        f"max {max(walls):.1f} ms wall / {max(cpus):.1f} ms CPU"
    )


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18]


def main() -> None:
    from bench.gui import cached_home
    from freightdesk.service.paths import AppPaths

    app = QApplication.instance() or QApplication([])
    # The start-up benchmark's list of `summaries` (made once under /tmp, shared with the
    # other benchmarks of a cached list), written again below as a cache of this run's.
    home_cache = Cache(AppPaths.under(cached_home(N)).cache_file("team"))
    bodies = [(row.id, row_json(row)) for row in cached_rows(home_cache)]
    home_cache.close()
    gc.collect()
    gc.disable()  # as in the app (GuiThreadGarbageCollector)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp) / "cache.sqlite3")
        cache.replace_kind(SUMMARIES, bodies)
        load: list[tuple[float, float]] = []
        parse: list[tuple[float, float]] = []
        for _ in range(3):  # interleaved with the baseline: the standard library's parser
            load += timed(lambda: rows_from_cache(cache.load(SUMMARIES)), repeat=1)
            parse += timed(lambda: [json.loads(b) for b in cache.load(SUMMARIES)], repeat=1)
        loaded = rows_from_cache(cache.load(SUMMARIES))
        cache.close()
    assert len(loaded) == N
    model = ShipmentTableModel()
    view = QTableView()  # set up as the Shipments pane sets up its table
    view.setModel(model)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(26)
    for index, column in enumerate(COLUMNS):
        view.setColumnWidth(index, column.width)
    view.resize(1300, 800)
    view.show()
    app.processEvents()
    set_all = timed(lambda: model.set_summaries(loaded), repeat=3)
    # A dispatcher typing: each prefix is one debounced filter; then deleting back and
    # starting again. Each keystroke is interleaved with the baseline: a plain Python
    # substring scan of the same rows' text (identifiers, places, carrier).
    typing = ["p", "pr", "pro", "pro0", "pro00", "pro001", "pro0012", "pro001", "pro00"]
    typing += ["c", "ch", "chicago", "chica", "dallas", "o", ""]
    haystacks = [
        "\n".join(
            [v for _k, v in r.identifiers]
            + [r.origin_name or "", r.destination_name or ""]
            + [r.carrier or ""]
        ).lower()
        for r in loaded
    ]
    filter_times: list[tuple[float, float]] = []
    scan_times: list[tuple[float, float]] = []
    for _ in range(5):
        for text in typing:
            scan_times += timed(lambda t=text: [i for i, h in enumerate(haystacks) if t in h], 1)
            filter_times += timed(lambda t=text: model.set_filter(ShipmentFilter(text=t)), 1)
    broad = timed(lambda: model.set_filter(ShipmentFilter(text="o")))
    model.set_filter(ShipmentFilter())
    mode_filter = timed(lambda: model.set_filter(ShipmentFilter(modes=frozenset({"LTL"}))))
    model.set_filter(ShipmentFilter())
    first_sorts = []
    again_sorts = []
    plain_sorts = []
    for column in COLUMNS:
        index = COLUMN_INDEX[column.key]
        # The baseline: Python's sort of the same number of plain values (the identifiers).
        plain_sorts += timed(lambda: sorted(r.primary_identifier or "" for r in loaded), 1)
        first_sorts += timed(lambda i=index: model.sort(i, Qt.SortOrder.AscendingOrder), 1)
        again_sorts += timed(lambda i=index: model.sort(i, Qt.SortOrder.DescendingOrder), 1)
        again_sorts += timed(lambda i=index: model.sort(i, Qt.SortOrder.AscendingOrder), 1)
    print(f"rows: {N:,}; load average {os.getloadavg()[0]:.1f}")
    print(f"cache load of {N:,} summaries: {_figures(load)} (target <= 1000 ms)")
    print(f"model fill: {_figures(set_all)}")
    print(f"filter per keystroke: {_figures(filter_times)} (target <= 50 ms)")
    print(f"plain substring scan per keystroke (baseline): {_figures(scan_times)}")
    walls, scans = [t[0] for t in filter_times], [t[0] for t in scan_times]
    over = sum(w > FILTER_LIMIT_MS for w in walls)
    print(f"keystrokes over {FILTER_LIMIT_MS} ms: {over} of {len(walls)}")
    publish(
        [
            Figure(
                "shipment_table",
                f"filter {N:,} rows per keystroke, repaint included, p95",
                _p95(walls),
                baseline=_p95(scans),
                baseline_what="plain substring scan",
                limit=FILTER_LIMIT_MS,
                note=f"median {statistics.median(walls):.1f} ms, {over}/{len(walls)} over",
            ),
        ]
    )
    print(f"filter matching every row ('o'): {_figures(broad)}")
    print(f"mode filter: {_figures(mode_filter)}")
    print(f"sort, first time by a column: {_figures(first_sorts)} (target <= 300 ms)")
    print(f"sort, again or reversed: {_figures(again_sorts)}")
    print(f"plain sorted() of {N:,} identifiers (baseline): {_figures(plain_sorts)}")
    sorts = [t[0] for t in first_sorts]
    publish(
        [
            Figure(
                "shipment_table",
                f"load {N:,} cached rows from disk, median of 3",
                statistics.median(t[0] for t in load),
                baseline=statistics.median(t[0] for t in parse),
                baseline_what="json.loads of the same rows",
                limit=1000,
            ),
            Figure(
                "shipment_table",
                f"sort {N:,} rows by a column, first time, repaint included, slowest column",
                max(sorts),
                baseline=statistics.median(t[0] for t in plain_sorts),
                baseline_what="sorted() of the identifiers",
                limit=300,
                note=f"median of {len(sorts)} columns {statistics.median(sorts):.0f} ms",
            ),
        ]
    )
    del app, view


if __name__ == "__main__":
    main()
