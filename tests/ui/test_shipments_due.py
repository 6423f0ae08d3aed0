"""The minute's retriage triages only the rows whose time came (a truck's silence running
out), and the list is as a whole-list triage would make it at every minute; shipments
removed from a list of 100,000 leave without the window standing still."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import (
    Attention,
    Facts,
    TriageSettings,
    due_of,
    flags_of,
    settings_of,
)
from freightdesk.ui.panes.shipments import retriage
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.model import ShipmentFilter, ShipmentTableModel
from tests.support import wait_until
from tests.ui.test_shipments_retriage import BUSY_MS, BusyProbe, big_pane

MODES = ["TL", "LTL", "PARCEL", "OCEAN", "AIR", None]
STATES = ["IN_TRANSIT", "IN_TRANSIT", "SCHEDULED", "AT_STOP", "COMPLETED"]


def _varied(
    count: int, start: datetime, rng: random.Random
) -> tuple[list[SummaryRow], dict[str, Facts]]:
    """`count` rows of every mode and state, last heard from up to 3 days before `start`
    (or never), some with a later position, ETAs late, at risk or on time, exceptions."""
    rows, facts = [], {}
    for n in range(count):
        heard = start - timedelta(minutes=rng.uniform(0, 3 * 24 * 60))
        eta = start + timedelta(minutes=rng.uniform(-600, 3000)) if n % 3 else None
        row = SummaryRow(
            id=f"id-{n}",
            identifiers=(("PRO", f"PRO{n:06d}"),),
            primary_identifier=f"PRO{n:06d}",
            mode=rng.choice(MODES),
            current_state=rng.choice(STATES),
            origin_name="Chicago, IL",
            destination_name="Dallas, TX",
            next_eta=eta,
            latest_event_type="DEPARTED",
            latest_event_time=None if n % 11 == 0 else heard,
            latest_event_description=None,
            open_exception_count=1 if n % 7 == 0 else 0,
            carrier="ODFL",
            created=heard,
            last_modified=heard + timedelta(microseconds=n),
        )
        rows.append(row)
        if n % 2:
            position = heard + timedelta(minutes=rng.uniform(-120, 240))
            end = eta + timedelta(minutes=rng.uniform(-120, 240)) if eta is not None else None
            facts[row.id] = Facts(((eta, end),) if eta is not None else (), position)
    return rows, facts


def _due(
    facts: dict[str, Facts], now: list[datetime], rules: list[TriageSettings]
) -> Callable[[SummaryRow], float | None]:
    """`due_of` at the moment and rules of the lists (as the pane's `TriageLink._due`)."""

    def due(row: SummaryRow) -> float | None:
        at = due_of(row, facts.get(row.id), now[0], rules[0])
        return at.timestamp() if at is not None else None

    return due


def _as_triaged_at_once(model: ShipmentTableModel) -> ShipmentTableModel:
    every = ShipmentTableModel()
    every.triage = model.triage
    column, descending = model.sort_key()
    every.sort(column, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
    every.set_summaries(model.rows_by_id().values())
    every.set_filter(model.current_filter)
    return every


@pytest.mark.parametrize("background", [False, True], ids=["at once", "in a worker"])
async def test_the_minutes_retriage_of_the_rows_due_is_a_whole_retriage(
    monkeypatch: pytest.MonkeyPatch, background: bool
) -> None:
    if background:
        monkeypatch.setattr(retriage, "BACKGROUND_ROWS", 1)
    rng = random.Random(11)
    start = datetime.now(UTC)
    rows, facts = _varied(4_000, start, rng)
    now = [start]
    rules = [TriageSettings()]
    triaged = [0]

    def triage(row: SummaryRow) -> int:
        triaged[0] += 1
        return flags_of(row, facts.get(row.id), now[0], rules[0])

    model = ShipmentTableModel()
    model.triage = triage
    model.due = _due(facts, now, rules)
    model.set_summaries(rows)
    model.retriage()  # as the pane does once a list is indexed
    await wait_until(lambda: not model.retriaging)
    moving = sum(r.current_state == "IN_TRANSIT" for r in rows)
    counts = []
    for step in range(60):
        # The clock moves on a minute, or a few, or hours; now and then the list changes.
        now[0] += timedelta(minutes=rng.choice([1, 1, 1, 2, 7, 45, 240]))
        if step % 9 == 4:  # a shipment reports, another is removed, one is new
            current = list(model.rows_by_id().values())
            heard = current[rng.randrange(len(current))]
            gone = current[rng.randrange(len(current))].id
            new = rng.choice(rows)._replace(
                id=f"new-{step}",
                latest_event_time=now[0],
                last_modified=now[0] + timedelta(microseconds=1),
            )
            changed = [heard._replace(latest_event_time=now[0], last_modified=now[0]), new]
            model.apply_changes([c for c in changed if c.id != gone], [gone], highlight=False)
        if step == 30:  # the user changes the rules: every row triaged again
            rules[0] = settings_of(30, {"TL": 2, "OCEAN": 72})
            model.retriage()
            await wait_until(lambda: not model.retriaging)
        if step % 10 == 7:
            model.set_filter(ShipmentFilter(attention=frozenset({Attention.NO_SIGNAL})))
        elif step % 10 == 2:
            model.set_filter(ShipmentFilter())
        triaged[0] = 0
        model.retriage_due(now[0].timestamp())
        await wait_until(lambda: not model.retriaging)
        counts.append(triaged[0])
        every = _as_triaged_at_once(model)
        assert model.visible_summaries() == every.visible_summaries(), f"step {step}"
        assert model.last_result.attention_counts == every.last_result.attention_counts
    # A minute triages the few whose silence ran out, not every truck in transit.
    minutes = sorted(counts)
    assert minutes[len(minutes) // 2] < moving // 20, minutes
    assert max(counts) < moving, counts


async def test_time_set_back_triages_every_row_again() -> None:
    rng = random.Random(5)
    start = datetime.now(UTC)
    rows, facts = _varied(500, start, rng)
    now = [start]
    model = ShipmentTableModel()
    model.triage = lambda row: flags_of(row, facts.get(row.id), now[0], TriageSettings())
    model.due = _due(facts, now, [TriageSettings()])
    model.set_summaries(rows)
    model.retriage()
    for minutes in (300, 60, -240, 30):  # a clock set back (a test's, a user's)
        now[0] += timedelta(minutes=minutes)
        model.retriage_due(now[0].timestamp())
        every = _as_triaged_at_once(model)
        assert model.visible_summaries() == every.visible_summaries()
        assert model.last_result.attention_counts == every.last_result.attention_counts


async def test_shipments_removed_from_a_list_of_100000_leave_while_the_window_answers(
    qtbot: QtBot, settings: QSettings
) -> None:
    pane, rows = big_pane(qtbot, settings)
    model = pane.model
    try:
        await wait_until(lambda: not model.retriaging, seconds=60)
        # The dispatcher sorts by shipment and picks one further down.
        model.sort(COLUMN_INDEX["primaryIdentifier"], Qt.SortOrder.AscendingOrder)
        pane.table.selectRow(500)
        target = pane.selected_ids()
        rng = random.Random(2)
        kept = {r.id: r for r in rows}
        for count in (1, 1, 3, 40, 500):  # one stops being tracked, then more at once
            gone = set(rng.sample(sorted(set(kept) - set(target)), count))
            probe = BusyProbe()
            model.apply_changes([], gone)  # as the list feed merges a poll's removals
            await asyncio.sleep(0.02)  # the repaint after it
            busiest = probe.stop()
            assert busiest < BUSY_MS, f"removing {count}: the GUI thread worked {busiest:.0f} ms"
            for key in gone:
                del kept[key]
            assert model.total == len(kept)
            assert all(model.summary_of(key) is None for key in gone)
            assert pane.selected_ids() == target
        every = ShipmentTableModel()
        every.triage = model.triage
        every.sort(COLUMN_INDEX["primaryIdentifier"], Qt.SortOrder.AscendingOrder)
        every.set_summaries(kept.values())
        assert model.visible_summaries() == every.visible_summaries()
        assert model.last_result.attention_counts == every.last_result.attention_counts
        assert model.last_result.state_counts == every.last_result.state_counts
    finally:
        pane.shutdown()


def test_rows_removed_in_any_order_leave_the_list_as_indexed_afresh() -> None:
    rng = random.Random(8)
    start = datetime.now(UTC)
    rows, facts = _varied(600, start, rng)
    model = ShipmentTableModel()
    model.triage = lambda row: flags_of(row, facts.get(row.id), start, TriageSettings())
    model.set_summaries(rows)
    for turn in range(30):
        if turn % 5 == 0:  # by columns without ties (the order of ties is either)
            column = rng.choice(["primaryIdentifier", "lastModified"])
            order = rng.choice(list(Qt.SortOrder))
            model.sort(COLUMN_INDEX[column], order)
        if turn % 7 == 3:
            model.set_filter(ShipmentFilter(text="pro0001"))
        elif turn % 7 == 5:
            model.set_filter(ShipmentFilter())
        current = sorted(model.rows_by_id())
        gone = set(rng.sample(current, rng.choice([1, 2, 5, 40])))
        changed = [
            rng.choice(rows)._replace(
                id=f"new-{turn}",
                primary_identifier=f"NEW{turn:03d}",
                last_modified=start + timedelta(days=turn),
            )
        ]
        model.apply_changes(changed, gone, highlight=False)
        every = _as_triaged_at_once(model)
        assert [r.id for r in model.visible_summaries()] == [
            r.id for r in every.visible_summaries()
        ], f"turn {turn}"
        assert model.last_result.state_counts == every.last_result.state_counts
        assert model.last_result.mode_counts == every.last_result.mode_counts
        assert model.last_result.attention_counts == every.last_result.attention_counts
