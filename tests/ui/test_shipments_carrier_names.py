"""The Shipments list and a shipment's Overview name the carrier, not only its code: the
Carrier column says its short name (the whole name and code in the tooltip), sorts by the
name, and the search finds a shipment by the carrier's name as by its code. A code the service
knows no name of shows as the code. Against the real local service, at 1366x768."""

from __future__ import annotations

import uuid

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.model import ShipmentFilter, ShipmentTableModel
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_columns_fit import assert_columns_fit
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_model import row
from tests.ui.test_shipment_overview import _click_row_of, _click_tab, _detail, _showing
from tests.ui.test_shipments_list import _click_header, _pane, window
from tests.ui.test_shipments_pane import _put

__all__ = ["connected", "window"]

CARRIER = COLUMN_INDEX["carrier"]


def _truckload(tenant: TenantHandle, scac: str) -> str:
    bol = f"BOL{uuid.uuid4().hex[:10].upper()}"
    return _put(
        tenant,
        {
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": bol},
                {"type": "CARRIER_SCAC", "value": scac},
            ],
            "plan": {"expectedTransportationModes": ["TL"]},
        },
    )


def _cell(pane: ShipmentsPane, shipment_id: str) -> QModelIndex:
    row = pane.model.row_of(shipment_id)
    assert row is not None, shipment_id
    return pane.model.index(row, CARRIER)


def _shown(pane: ShipmentsPane) -> list[str]:
    return [s.id for s in pane.model.visible_summaries()]


async def _search(qtbot: QtBot, pane: ShipmentsPane, text: str, expected: list[str]) -> None:
    pane.search.clear()
    qtbot.keyClicks(pane.search, text)
    await wait_until(lambda: sorted(_shown(pane)) == sorted(expected), seconds=10)


async def test_the_list_and_the_overview_name_the_carrier(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    prairie = _truckload(tenant, "PWTR")  # Prairie Wind Transport, a carrier the demo knows
    hanseatic = _truckload(tenant, "HOCS")  # Hanseatic Ocean Carriers
    unknown = _truckload(tenant, "PRZZ")  # no carrier the service knows
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == 3, seconds=30)

    await wait_until(lambda: _cell(pane, prairie).data() == "Prairie Wind", seconds=30)
    tip = _cell(pane, prairie).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "Prairie Wind Transport (PWTR)"
    assert _cell(pane, hanseatic).data() == "Hanseatic"
    assert _cell(pane, unknown).data() == "PRZZ"
    assert _cell(pane, unknown).data(Qt.ItemDataRole.ToolTipRole) == "PRZZ"
    # The key columns still fit a laptop's screen, the carriers' names whole.
    columns = ["Shipment", "Mode", "State", "Attention", "Origin", "Destination"]
    assert_columns_fit(pane.table, pane, [*columns, "Latest ETA", "Carrier"], whole=["Carrier"])

    # Sorted by the names: Hanseatic, Prairie, then PRZZ (by code PRZZ came before PWTR).
    _click_header(qtbot, pane.table.horizontalHeader(), CARRIER)
    await wait_until(lambda: _shown(pane) == [hanseatic, prairie, unknown], seconds=10)

    # Found by the name as by the code, typed as a dispatcher types it.
    await _search(qtbot, pane, "prairie wind", [prairie])
    await _search(qtbot, pane, "pwtr", [prairie])
    await _search(qtbot, pane, "Hanseatic", [hanseatic])
    await _search(qtbot, pane, "przz", [unknown])
    await _search(qtbot, pane, "", [hanseatic, prairie, unknown])

    _click_row_of(qtbot, pane, prairie)
    await wait_until(lambda: _showing(pane, prairie), seconds=30)
    detail = _detail(pane)
    _click_tab(qtbot, detail, "Overview")
    carrier = detail.overview.labels["carrier"]
    await wait_until(lambda: carrier.text() == "Prairie Wind Transport (PWTR)", seconds=10)

    _click_row_of(qtbot, pane, unknown)
    await wait_until(lambda: _showing(pane, unknown), seconds=30)
    await wait_until(lambda: carrier.text() == "PRZZ", seconds=10)


def test_a_list_of_many_carriers_is_found_by_their_names_as_they_come() -> None:
    """Past 255 carriers (one byte per row names a carrier) each is still found by its own
    name; names that come after the list is shown find their rows at once, and rows that
    come later by the names known."""
    rows = [row(n)._replace(carrier=f"C{n:03d}") for n in range(600)]
    model = ShipmentTableModel()
    CARRIER_NAMES.replace({})
    try:
        model.set_summaries(rows)
        assert model.set_filter(ShipmentFilter(text="harbor")).visible == []
        CARRIER_NAMES.replace({"C010": "Harbor Ten Freight", "C500": "Harbor Five Hundred"})
        model.carriers_renamed(frozenset({"C010", "C500"}))
        model.set_filter(ShipmentFilter(text="harbor"))
        assert sorted(s.id for s in model.visible_summaries()) == ["id-10", "id-500"]
        model.set_filter(ShipmentFilter(text="five hun"))
        assert [s.id for s in model.visible_summaries()] == ["id-500"]
        # By its code as before.
        model.set_filter(ShipmentFilter(text="c499"))
        assert [s.id for s in model.visible_summaries()] == ["id-499"]
        # A row that comes later, of a named carrier.
        model.apply_changes([row(700)._replace(carrier="C500")], [], highlight=False)
        model.set_filter(ShipmentFilter(text="five hun"))
        assert sorted(s.id for s in model.visible_summaries()) == ["id-500", "id-700"]
    finally:
        CARRIER_NAMES.replace({})
