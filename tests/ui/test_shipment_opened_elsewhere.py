"""A shipment opened from another pane (a booking's "Open tracked shipment", an alert, the
fleet map), against the real local service: the detail is titled as the list's row reads, and
the list chooses that row, not the one chosen before."""

from __future__ import annotations

import uuid

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import connected, shown_pane
from tests.ui.test_shipment_overview import _click_row_of
from tests.ui.test_shipments_list import _in_view
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected"]


def _booked_truckload(bill: str) -> dict[str, object]:
    """A truckload as a booking makes it: the carrier's SCAC first, its bill of lading after."""
    return {
        "identifiers": [
            {"type": "CARRIER_SCAC", "value": "PRLF"},
            {"type": "BILL_OF_LADING", "value": bill},
        ],
        "plan": {"expectedTransportationModes": ["TL"]},
    }


def _chosen(pane: ShipmentsPane) -> list[str]:
    return pane.selected_ids()


async def test_a_shipment_opened_from_elsewhere_is_titled_and_chosen_as_its_row(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    ids = [_put(tenant, _ltl(f"PRO{n:02}{tag}")) for n in range(30)]
    pane = await shown_pane(qtbot, session, lambda s: ShipmentsPane(s, settings), (1180, 718))
    await wait_until(lambda: pane.model.rowCount() == 30, 30)
    # The user clicks a row in sight (the first: ids[0], the oldest, sorts last, out of sight).
    first = pane.model.summary_at(0)
    assert first is not None
    _click_row_of(qtbot, pane, str(first.id))
    await wait_until(lambda: pane.detail.history is not None, 30)
    assert _chosen(pane) == [str(first.id)]

    # Booked after the list was read: the list has no row for it yet.
    bill = f"PRLF2007{tag}"
    booked = _put(tenant, _booked_truckload(bill))
    pane.open_shipment(booked)  # what the booking's "Open tracked shipment" calls
    await wait_until(lambda: pane.detail.history is not None, 30)
    # Titled by its bill of lading, as its row will read, not by the carrier's SCAC.
    assert pane.detail.title.full_text() == bill, pane.detail.title.full_text()
    # The shipment chosen before no longer looks chosen beside another's detail.
    assert _chosen(pane) == [], _chosen(pane)

    # Its row comes with the next sync: chosen, and in sight.
    assert session.shipments is not None
    await session.shipments.coordinator.fetch_now()
    await wait_until(lambda: pane.model.row_of(booked) is not None, 30)
    await wait_until(lambda: _chosen(pane) == [booked], 10)
    row = pane.model.row_of(booked)
    assert row is not None
    shown = pane.model.index(row, COLUMN_INDEX["primaryIdentifier"]).data()
    assert shown == pane.detail.title.full_text() == bill, shown
    assert _in_view(pane, booked)

    # A listed shipment far down the list, opened from elsewhere: chosen and scrolled to.
    far = max(ids, key=lambda i: pane.model.row_of(i) or 0)
    assert not _in_view(pane, far)
    pane.open_shipment(far)
    assert _chosen(pane) == [far]
    assert _in_view(pane, far)
    pane.shutdown()
