"""Shipments table and cache at scale: load 100,000 cached summaries, filter and sort them.

Targets (issues 5 and 6): loading 100,000 cached summaries <= 1 s; filtering 100,000 rows
<= 50 ms per keystroke; sorting them <= 300 ms.

Run: QT_QPA_PLATFORM=offscreen python -m bench.bench_shipment_table
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from freightdesk.models.common import LogisticsIdentifier, TransportationMode
from freightdesk.models.shipment_search import LatestEvent, ShipmentSummary
from freightdesk.models.tracking import ShipmentStateType
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import SUMMARIES
from freightdesk.service.summary_rows import rows_from_cache
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.model import ShipmentFilter, ShipmentTableModel

N = 100_000
CITIES = [
    "Chicago, IL",
    "Dallas, TX",
    "Atlanta, GA",
    "Rotterdam",
    "Hamburg",
    "Memphis, TN",
    "Los Angeles, CA",
    "Newark, NJ",
    "Lyon",
    "Toronto, ON",
]


def summaries(count: int, rng: random.Random) -> list[ShipmentSummary]:
    base = datetime(2026, 11, 1, tzinfo=UTC)
    modes = list(TransportationMode)
    states = list(ShipmentStateType)
    result = []
    for n in range(count):
        pro = f"PRO{n:08d}"
        modified = base + timedelta(minutes=rng.randrange(0, 30 * 24 * 60))
        result.append(
            ShipmentSummary(
                id=uuid.UUID(int=rng.getrandbits(128)),
                identifiers=[
                    LogisticsIdentifier(type="PRO", value=pro),
                    LogisticsIdentifier(type="BILL_OF_LADING", value=f"BOL{rng.randrange(10**9)}"),
                ],
                primary_identifier=pro,
                mode=rng.choice(modes),
                current_state=rng.choice(states),
                origin_name=rng.choice(CITIES),
                destination_name=rng.choice(CITIES),
                next_eta=modified + timedelta(days=2),
                latest_event=LatestEvent(type="DEPARTED", date_time=modified),
                open_exception_count=rng.choice([0] * 9 + [1]),
                carrier=rng.choice(["ODFL", "SAIA", "XPOL", "MAEU"]),
                created_date_time=modified - timedelta(days=3),
                last_modified_date_time=modified,
            )
        )
    return result


def timed(function, repeat: int = 5) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    app = QApplication.instance() or QApplication([])
    rng = random.Random(1)
    rows = summaries(N, rng)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp) / "cache.sqlite3")
        cache.replace_kind(
            SUMMARIES,
            (
                (str(s.id), s.model_dump_json(by_alias=True, exclude_none=True).encode())
                for s in rows
            ),
        )
        load = timed(lambda: rows_from_cache(cache.load(SUMMARIES)), repeat=3)
        loaded = rows_from_cache(cache.load(SUMMARIES))
        cache.close()
    assert len(loaded) == N
    model = ShipmentTableModel()
    set_all = timed(lambda: model.set_summaries(loaded), repeat=3)
    keystrokes = ["p", "pr", "pro", "pro0", "pro00", "pro001", "pro0012", "chicago", "dallas"]
    filter_times = []
    for text in keystrokes:
        filter_times += timed(lambda t=text: model.set_filter(ShipmentFilter(text=t)), repeat=3)
    model.set_filter(ShipmentFilter())
    mode_filter = timed(lambda: model.set_filter(ShipmentFilter(modes=frozenset({"LTL"}))))
    model.set_filter(ShipmentFilter())
    sort_times = []
    for key in ("primaryIdentifier", "origin", "nextEta", "lastModified"):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            sort_times += timed(lambda k=key, o=order: model.sort(COLUMN_INDEX[k], o), repeat=1)
    print(f"rows: {N:,}")
    print(
        f"cache load of {N:,} summaries: median {statistics.median(load):.0f} ms "
        f"(target <= 1000 ms)"
    )
    print(f"model fill: median {statistics.median(set_all):.0f} ms")
    print(
        f"filter per keystroke: median {statistics.median(filter_times):.1f} ms, "
        f"max {max(filter_times):.1f} ms (target <= 50 ms)"
    )
    print(f"mode filter: median {statistics.median(mode_filter):.1f} ms")
    print(
        f"sort: median {statistics.median(sort_times):.0f} ms, max {max(sort_times):.0f} ms "
        f"(target <= 300 ms)"
    )
    del app


if __name__ == "__main__":
    main()
