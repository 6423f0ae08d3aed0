"""The shipments table model: Qt's model checks, filters, sort, stable selection."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QItemSelectionModel, Qt
from pytestqt.modeltest import ModelTester

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS
from freightdesk.ui.panes.shipments.model import (
    FilterResult,
    ShipmentFilter,
    ShipmentTableModel,
    parse_pasted,
)

BASE = datetime(2026, 11, 1, tzinfo=UTC)


def row(n: int, mode: str = "LTL", state: str = "IN_TRANSIT", exceptions: int = 0) -> SummaryRow:
    return SummaryRow(
        id=f"id-{n}",
        identifiers=(("PRO", f"PRO{n:04d}"), ("BILL_OF_LADING", f"BOL{n}")),
        primary_identifier=f"PRO{n:04d}",
        mode=mode,
        current_state=state,
        origin_name="Chicago, IL" if n % 2 else "Dallas, TX",
        destination_name="Atlanta, GA",
        next_eta=BASE + timedelta(hours=n),
        latest_event_type="DEPARTED",
        latest_event_time=BASE,
        latest_event_description=None,
        open_exception_count=exceptions,
        carrier="ODFL",
        created=BASE,
        last_modified=BASE + timedelta(minutes=n),
    )


def test_qt_model_checks(qtmodeltester: ModelTester) -> None:
    model = ShipmentTableModel()
    model.set_summaries([row(n) for n in range(20)])
    qtmodeltester.check(model)
    model.set_filter(ShipmentFilter(text="chicago"))
    qtmodeltester.check(model)


def test_filters_counts_and_pasted_lists() -> None:
    model = ShipmentTableModel()
    model.set_summaries(
        [row(1, "LTL"), row(2, "PARCEL", exceptions=2), row(3, "OCEAN", state="COMPLETED")]
    )
    result = model.set_filter(ShipmentFilter(modes=frozenset({"PARCEL"})))
    assert [r.id for r in model.visible_summaries()] == ["id-2"]
    assert result.mode_counts == {"LTL": 1, "PARCEL": 1, "OCEAN": 1}
    assert result.state_counts == {"IN_TRANSIT": 1}
    model.set_filter(ShipmentFilter(exceptions_only=True))
    assert [r.id for r in model.visible_summaries()] == ["id-2"]
    pasted = parse_pasted("pro0001\nBOL3, NOPE")
    assert pasted == frozenset({"PRO0001", "BOL3", "NOPE"})
    result = model.set_filter(ShipmentFilter(pasted=pasted))
    assert sorted(r.id for r in model.visible_summaries()) == ["id-1", "id-3"]
    assert result.not_found == ["NOPE"]
    assert parse_pasted("single value") is None


def test_sorting_by_any_column() -> None:
    model = ShipmentTableModel()
    model.set_summaries([row(n) for n in (3, 1, 2)])
    model.sort(COLUMN_INDEX["nextEta"], Qt.SortOrder.AscendingOrder)
    assert [r.id for r in model.visible_summaries()] == ["id-1", "id-2", "id-3"]
    model.sort(COLUMN_INDEX["primaryIdentifier"], Qt.SortOrder.DescendingOrder)
    assert [r.id for r in model.visible_summaries()] == ["id-3", "id-2", "id-1"]


def test_updates_keep_the_selection_on_its_shipment() -> None:
    model = ShipmentTableModel()
    model.set_summaries([row(n) for n in range(10)])
    model.sort(COLUMN_INDEX["nextEta"], Qt.SortOrder.AscendingOrder)
    selection = QItemSelectionModel(model)
    selection.setCurrentIndex(
        model.index(5, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    # Remove two rows above it and move another before it: the selection follows id-5.
    moved = row(8)._replace(next_eta=BASE - timedelta(hours=1))
    model.apply_changes([moved], removed=["id-1", "id-2"])
    current = selection.currentIndex()
    assert model.summary_at(current.row()).id == "id-5"
    assert model.is_highlighted("id-8")
    assert model.summary_at(0).id == "id-8"


def _varied(count: int) -> list[SummaryRow]:
    """Rows with every kind of value a column can hold, empty ones and ties included."""
    modes = ["LTL", "PARCEL", "OCEAN", None]
    states = ["IN_TRANSIT", "COMPLETED", "SCHEDULED", None]
    places = ["chicago, IL", "Atlanta, GA", "atlanta, GA", "Zürich", None, ""]
    rows = []
    for n in range(count):
        base = row(n, exceptions=n % 3)
        rows.append(
            base._replace(
                primary_identifier=None if n % 11 == 0 else f"PRO{(n * 7919) % 97:04d}",
                mode=modes[n % 4],
                current_state=states[(n // 2) % 4],
                origin_name=places[n % 6],
                destination_name=places[(n * 5) % 6],
                next_eta=None if n % 5 == 0 else BASE + timedelta(hours=(n * 37) % 13),
                latest_event_type=None if n % 7 == 0 else ["DEPARTED", "ARRIVED"][n % 2],
                latest_event_time=None if n % 7 == 0 else BASE - timedelta(minutes=n % 9),
                carrier=[None, "ODFL", "saia", "Saia"][n % 4],
                created=BASE + timedelta(minutes=(n * 13) % 17),
            )
        )
    return rows


def test_sorting_by_each_column_orders_every_row_and_puts_empty_values_last() -> None:
    rows = _varied(60)
    model = ShipmentTableModel()
    model.set_summaries(rows)
    for column in COLUMNS:
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            model.sort(COLUMN_INDEX[column.key], order)
            shown = model.visible_summaries()
            assert sorted(r.id for r in shown) == sorted(r.id for r in rows)
            values = [column.sort_value(r) for r in shown]
            present = [v for v in values if v is not None]
            empty = len(values) - len(present)
            descending = order == Qt.SortOrder.DescendingOrder
            # Empty values last in ascending order, first in descending; the rest in order.
            if descending:
                assert all(v is None for v in values[:empty]), column.key
            else:
                assert all(v is None for v in values[len(present) :]), column.key
            assert present == sorted(present, reverse=descending), column.key  # type: ignore[type-var]


def test_the_top_of_a_whole_list_is_the_top_it_has_once_indexed() -> None:
    """The first paint of a list read whole shows its top without indexing it all: the
    same rows in the same order as the indexed list, whatever the sort (ties, empty values)."""
    rows = _varied(60)
    for column in COLUMNS:
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            first = ShipmentTableModel()
            first.sort(COLUMN_INDEX[column.key], order)
            first.show_top_of(rows, 12)
            assert first.rowCount() == 60 and first.total == 60 and not first.complete
            indexed = ShipmentTableModel()
            indexed.sort(COLUMN_INDEX[column.key], order)
            indexed.set_summaries(rows)
            top = [first.summary_at(r) for r in range(12)]
            assert top == indexed.visible_summaries()[:12], (column.key, order)
            assert first.index(12, 0).data() is None  # not shown until the whole list is
            asyncio.run(first.load(rows))
            assert first.complete and first.visible_summaries() == indexed.visible_summaries()
    short = ShipmentTableModel()
    short.show_top_of(rows[:10], 12)  # a list shorter than a screen is shown whole at once
    assert short.complete and short.rowCount() == 10


def test_text_columns_sort_without_regard_to_case() -> None:
    model = ShipmentTableModel()
    model.set_summaries(_varied(24))
    model.sort(COLUMN_INDEX["carrier"], Qt.SortOrder.AscendingOrder)
    carriers = [r.carrier for r in model.visible_summaries()]
    assert carriers[:6] == ["ODFL"] * 6
    assert {c.casefold() for c in carriers[6:18] if c} == {"saia"}
    assert carriers[18:] == [None] * 6


def test_sorting_keeps_its_order_through_changes() -> None:
    model = ShipmentTableModel()
    model.set_summaries([row(n) for n in range(30)])
    model.sort(COLUMN_INDEX["nextEta"], Qt.SortOrder.DescendingOrder)
    # A row moves to the front, one is added at the end, one is removed.
    model.apply_changes(
        [row(3)._replace(next_eta=BASE + timedelta(days=9)), row(99)._replace(next_eta=None)],
        removed=["id-10"],
        highlight=False,
    )
    shown = [r.id for r in model.visible_summaries()]
    assert shown[0] == "id-99"  # no ETA: first in descending order
    assert shown[1] == "id-3"
    assert "id-10" not in shown and len(shown) == 30
    etas = [r.next_eta for r in model.visible_summaries()[1:]]
    assert etas == sorted(etas, reverse=True)  # type: ignore[type-var]


def test_typing_on_narrows_as_a_fresh_search_would() -> None:
    rows = _varied(200)
    model = ShipmentTableModel()
    model.set_summaries(rows)

    rows_now = list(rows)

    def fresh(text: str) -> list[str]:
        other = ShipmentTableModel()
        other.set_summaries(rows_now)
        other.set_filter(ShipmentFilter(text=text))
        return [r.id for r in other.visible_summaries()]

    for text in ["p", "pr", "pro", "pro00", "pro0", "", "a", "at", "atl", "zür", "ZÜRICH"]:
        model.set_filter(ShipmentFilter(text=text))
        assert [r.id for r in model.visible_summaries()] == fresh(text), text
    # A change between keystrokes is searched too.
    changed = rows[5]._replace(origin_name="Atlantis")
    rows_now[5] = changed
    model.apply_changes([changed], removed=[], highlight=False)
    model.set_filter(ShipmentFilter(text="atlanti"))
    assert [r.id for r in model.visible_summaries()] == fresh("atlanti")
    assert changed.id in [r.id for r in model.visible_summaries()]


def test_the_search_takes_the_rows_a_plain_scan_takes_through_typing_and_deleting() -> None:
    """Every keystroke (typing on, which reads again only the rows the shorter text took;
    deleting; starting over) shows the rows a plain scan of each row's identifiers, places
    and carrier finds, case folded (accents are not: "zurich" does not find "Zürich"), in
    the sort order; a pasted list finds exact identifier values."""
    rows = []
    for n, base in enumerate(_varied(400)):
        place = ["Straße 5, Köln", "MONTRÉAL", "Zürich", None][n % 4]
        rows.append(base._replace(destination_name=place) if n % 3 == 0 else base)
    model = ShipmentTableModel()
    model.set_summaries(rows)
    shown_in_order = [r.id for r in model.visible_summaries()]

    def scanned(text: str) -> list[str]:
        needle = text.strip().casefold()
        found = set()
        for r in rows:
            haystack = [v for _kind, v in r.identifiers]
            haystack += [r.origin_name or "", r.destination_name or "", r.carrier or ""]
            if needle in "\n".join(haystack).casefold():
                found.add(r.id)
        return [key for key in shown_in_order if key in found]

    keystrokes = ["p", "pr", "PRO", "pro00", "pro001", "pro0012", "pro001", "pro0", ""]
    keystrokes += ["s", "st", "stras", "strasse", "STRASSE 5", "straße", "strass"]
    keystrokes += ["m", "mont", "montré", "montre", "z", "zü", "zürich", "zurich", "  saia "]
    keystrokes += ["bol1", "bol12", "bol123", "bol12", "bol1", "b", ""]
    for text in keystrokes:
        model.set_filter(ShipmentFilter(text=text))
        assert [r.id for r in model.visible_summaries()] == scanned(text), text
    assert scanned("zurich") == [] and scanned("strasse") != []
    model.set_filter(ShipmentFilter(pasted=parse_pasted("bol12, pro0012\nBOL7")))
    assert {r.id for r in model.visible_summaries()} == {
        r.id for r in rows if {"BOL12", "PRO0012", "BOL7"} & {v for _k, v in r.identifiers}
    }


def test_counts_per_mode_and_state_follow_the_other_filters() -> None:
    model = ShipmentTableModel()
    rows = _varied(40)
    model.set_summaries(rows)
    result = model.set_filter(ShipmentFilter(modes=frozenset({"LTL"}), text="chicago"))
    chicago = [
        r for r in rows if r.origin_name == "chicago, IL" or r.destination_name == "chicago, IL"
    ]
    assert [r.id for r in model.visible_summaries()] == [
        r.id
        for r in sorted(chicago, key=lambda r: r.last_modified, reverse=True)
        if r.mode == "LTL"
    ]
    # Modes are counted among all matches, states among the LTL ones.
    assert result.mode_counts == Counter(r.mode or "" for r in chicago)
    assert result.state_counts == Counter(r.current_state or "" for r in chicago if r.mode == "LTL")
    assert model.summary_of("id-7") == rows[7]
    assert model.summary_of("nope") is None


async def test_a_list_loaded_in_the_background_is_the_same_as_one_set_at_once() -> None:
    rows = _varied(300)
    at_once = ShipmentTableModel()
    at_once.sort(COLUMN_INDEX["origin"], Qt.SortOrder.DescendingOrder)
    at_once.set_summaries(rows)
    loaded = ShipmentTableModel()
    loaded.sort(COLUMN_INDEX["origin"], Qt.SortOrder.DescendingOrder)
    results: list[FilterResult] = []
    loaded.filterApplied.connect(results.append)
    assert await loaded.load(rows)
    assert loaded.visible_summaries() == at_once.visible_summaries()
    assert len(results) == 1 and len(results[0].visible) == 300
    assert loaded.set_filter(ShipmentFilter(text="atl")) == at_once.set_filter(
        ShipmentFilter(text="atl")
    )


async def test_a_background_load_overtaken_by_a_change_is_dropped() -> None:
    model = ShipmentTableModel()
    model.set_summaries([row(n) for n in range(5)])
    pending = asyncio.ensure_future(model.load([row(n) for n in range(100)]))
    await asyncio.sleep(0)  # the load has started
    model.apply_changes([row(7)], removed=["id-0"], highlight=False)
    assert not await pending
    assert sorted(r.id for r in model.visible_summaries()) == [
        "id-1",
        "id-2",
        "id-3",
        "id-4",
        "id-7",
    ]


def test_a_large_selection_follows_its_shipments_through_a_filter() -> None:
    model = ShipmentTableModel()
    model.set_summaries([row(n) for n in range(40)])
    model.sort(COLUMN_INDEX["nextEta"], Qt.SortOrder.AscendingOrder)
    selection = QItemSelectionModel(model)
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for r in range(1, 31, 2):  # 15 rows from Chicago: more than are looked up one by one
        selection.select(model.index(r, 0), flags)
    selection.setCurrentIndex(model.index(7, 0), QItemSelectionModel.SelectionFlag.NoUpdate)

    def selected() -> set[str]:
        return {model.summary_at(i.row()).id for i in selection.selectedRows()}  # type: ignore[union-attr]

    before = selected()
    assert len(before) == 15
    model.set_filter(ShipmentFilter(text="chicago"))  # the even rows (Dallas) go
    assert selected() == before
    model.sort(COLUMN_INDEX["nextEta"], Qt.SortOrder.DescendingOrder)
    model.set_filter(ShipmentFilter())
    assert selected() == before
    assert model.summary_at(selection.currentIndex().row()).id == "id-7"  # type: ignore[union-attr]
