"""The Bookings pane shows a booking as a dispatcher knows it, as the new user's walkthrough
asked: no uuid column but the order numbers shared with the carrier (the id in the reference's
tooltip, and whole and selectable in the detail), and the rate and identifiers in words, not
"CONTRACT C-7 (CAPACITY_PROVIDER)". Against the real local service, with a click."""

from __future__ import annotations

import re

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from tests.server.test_rating_support import booking_of, create_booking, quoted, tl_request
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell
from tests.ui.test_bookings_pane import _booking, _bookings_pane
from tests.ui.test_capacity_support import settle
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
CODE = re.compile(r"\b[A-Z]+_[A-Z_]+\b")


async def test_a_booking_reads_by_its_reference_and_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    # From a quote of a rate request with the customer's purchase order (a booking shares
    # its rate request's identifiers with the carrier).
    request = tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
    request["identifiers"] = [{"type": "PURCHASE_ORDER", "value": "PO-71437"}]
    quote = quoted(tenant, request)["quotes"][0]
    made = create_booking(tenant, booking_of(quote))
    rate = quote["rateIdentifiers"][0]
    assert (rate["source"], rate["type"]) == ("CAPACITY_PROVIDER", "CONTRACT")
    # Without a rate request: known by its rate (the carrier's contract or quote number).
    alone = _booking(tenant, "ZZHD")
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: pane.model.rowCount() == 2)
    rows = {str(b.id): r for r, b in enumerate(pane.model.items)}
    assert cell(pane.model, rows[alone["id"]], "Reference") == "C-7"
    first = rows[made["id"]]
    model = pane.model
    titles = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert "Booking id" not in titles and "Reference" in titles
    cells = [str(model.index(r, c).data() or "") for r in range(2) for c in range(len(titles))]
    assert not any(UUID.search(text) for text in cells), cells
    assert cell(model, first, "Reference") == "PO-71437"
    tip = model.index(first, titles.index("Reference")).data(Qt.ItemDataRole.ToolTipRole)
    assert "Purchase order PO-71437" in tip and made["id"] in tip

    table = pane.table
    row = table.visualRect(model.index(first, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(row.center()))
    await wait_until(lambda: pane.detail.booking is not None)
    text = pane.detail.body.toPlainText()
    assert f"Contract {rate['value']} (the carrier's)" in text, text
    assert "Purchase order PO-71437" in text, text
    assert not CODE.search(text), CODE.findall(text)
    assert made["id"] in text  # the id where it is needed: whole, to copy
    pane.shutdown()
    await settle(session)
