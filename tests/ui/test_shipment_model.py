"""The shipments table model: Qt's model checks, filters, sort, stable selection."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QItemSelectionModel, Qt
from pytestqt.modeltest import ModelTester

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.model import ShipmentFilter, ShipmentTableModel, parse_pasted

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
