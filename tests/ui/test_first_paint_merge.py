"""A start's first screen from a kept top older than the cache (`first_paint.kept_top`):
whatever changed since, the rows it paints are exactly the top of the cached list in the
user's sort, as the table shows it once the whole list is read."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from freightdesk.service.cache import Cache
from freightdesk.service.summary_rows import (
    SUMMARIES,
    SummaryRow,
    cached_rows,
    remember_first_screen,
    row_json,
)
from freightdesk.ui.first_paint import KEPT_ROWS, KEPT_SINCE_KEY, kept_top
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.panes.shipments.pane import FIRST_SCREEN_ROWS

BASE = datetime(2026, 11, 1, tzinfo=UTC)


def _row(n: int, minutes: int, origin: str | None) -> SummaryRow:
    return SummaryRow(
        id=f"id-{n:05d}",
        identifiers=(("PRO", f"PRO{n:05d}"),),
        primary_identifier=f"PRO{n:05d}",
        mode="LTL",
        current_state="IN_TRANSIT",
        origin_name=origin,
        destination_name="Dallas, TX",
        next_eta=None,
        latest_event_type=None,
        latest_event_time=None,
        latest_event_description=None,
        open_exception_count=0,
        carrier="ODFL",
        created=BASE,
        last_modified=BASE + timedelta(minutes=minutes),
    )


def _top(rows: list[SummaryRow], column: str, order: Qt.SortOrder) -> list[str]:
    """The ids the table shows first once it holds the whole list."""
    model = ShipmentTableModel()
    model.sort(COLUMN_INDEX[column], order)
    model.set_summaries(rows)
    return [row.id for row in model.visible_summaries()]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    ("column", "order"),
    [("attention", Qt.SortOrder.DescendingOrder), ("origin", Qt.SortOrder.AscendingOrder)],
)
def test_the_kept_top_with_the_changes_since_is_the_top_of_the_cached_list(
    qapp: QApplication, tmp_path: Path, seed: int, column: str, order: Qt.SortOrder
) -> None:
    rng = random.Random(seed)
    cities: list[str | None] = [f"City {k:03d}" for k in range(400)] + [None] * 40
    rows = [_row(n, rng.randrange(5000), rng.choice(cities)) for n in range(1500)]
    cache = Cache(tmp_path / f"cache-{seed}.sqlite3")
    cache.put_many(SUMMARIES, ((r.id, row_json(r)) for r in rows))
    model = ShipmentTableModel()
    model.sort(COLUMN_INDEX[column], order)
    shown = _top(rows, column, order)
    # Kept as the running app keeps it: the top, and the time the table held every change.
    remember_first_screen(cache, model.sort_name(), len(rows), shown[:KEPT_ROWS])
    cache.set_meta(KEPT_SINCE_KEY, repr(cache.saved_at(SUMMARIES)))

    # Then, before the next start: rows of the top deleted and changed, rows from below
    # moved up, new rows, in a few saves.
    top_ids = shown[: KEPT_ROWS // 2]
    cache.delete_many(SUMMARIES, rng.sample(top_ids, 10))
    by_id = {r.id: r for r in rows}
    moved = [by_id[i] for i in rng.sample(shown, 40)]
    cache.put_many(
        SUMMARIES,
        (
            (
                r.id,
                row_json(
                    r._replace(
                        last_modified=BASE + timedelta(minutes=rng.randrange(6000)),
                        origin_name=rng.choice(cities),
                    )
                ),
            )
            for r in moved
        ),
    )
    new = [_row(n, rng.randrange(6000), rng.choice(cities)) for n in range(1500, 1530)]
    cache.put_many(SUMMARIES, ((r.id, row_json(r)) for r in new))

    cached = cached_rows(cache)
    expected = _top(cached, column, order)
    kept = kept_top(cache, model)
    assert kept is not None  # a tenth of the kept top changed: still told without reading
    assert kept.total == len(cached) == len(expected)
    assert len(kept.rows) >= FIRST_SCREEN_ROWS
    assert [r.id for r in kept.rows] == expected[: len(kept.rows)]
    # Each as the cache holds it now.
    now = {r.id: r for r in cached}
    assert all(now[r.id] == r for r in kept.rows)
    cache.close()
