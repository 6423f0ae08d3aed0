"""The Bookings pane shows a booking as a dispatcher knows it, as the new user's walkthrough
asked: no uuid column but the order numbers shared with the carrier (the id in the reference's
tooltip, and whole and selectable in the detail), and the rate and identifiers in words, not
"CONTRACT C-7 (CAPACITY_PROVIDER)". Against the real local service, with a click."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.panes.bookings.pane import COLUMNS
from freightdesk.ui.panes.push.booking_answer import BookingAnswerDialog
from freightdesk.ui.panes.push.pane import PushPane
from tests.server.test_rating_support import (
    BOOKINGS,
    booking_of,
    create_booking,
    quoted,
    set_profile,
    tl_request,
)
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell
from tests.ui.plain_words import leaks
from tests.ui.test_bookings_pane import _booking, _bookings_pane
from tests.ui.test_capacity_support import settle
from tests.ui.test_export_panes import SAVE_DIALOG_WARNINGS, save_export
from tests.ui.test_panes_support import connected, shown_dialog, shown_pane

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


@pytest.mark.qt_log_ignore(r"^This plugin does not support")  # a combo's popup, offscreen
async def test_the_booking_to_answer_is_named_as_the_bookings_list_names_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """Carrier push's Answer a booking offers the bookings waiting by their reference, carrier
    and lane, as the Bookings list shows them (it named them "booking e55d098e", the start of
    an id no dispatcher knows); two that read alike are told apart by when they were made."""
    session, tenant = connected
    set_profile(tenant, "PRLF", behaviour="REVIEW", responseDelaySeconds=0)
    set_profile(tenant, "ZZRV", behaviour="REVIEW", responseDelaySeconds=0)
    request = tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
    request["identifiers"] = [{"type": "PURCHASE_ORDER", "value": "PO-71437"}]
    quote = quoted(tenant, request)["quotes"][0]
    made = create_booking(tenant, booking_of(quote))
    alike = [_booking(tenant, "ZZRV"), _booking(tenant, "ZZRV")]
    pane = await shown_pane(qtbot, session, PushPane)
    qtbot.mouseClick(pane.answer_button, Qt.MouseButton.LeftButton)
    dialog = shown_dialog(pane, BookingAnswerDialog)
    combo = dialog.booking
    await wait_until(lambda: combo.count() == 3, 60)
    names = {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}
    # The carrier by its short name, as the list's Carrier column says it ('Prairie' alone
    # would read as Prairie Wind, PWTR).
    assert names[made["id"]] == "PO-71437 · Prairie Line · Chicago, IL → Dallas, TX", names
    for booking in alike:
        assert names[booking["id"]].startswith("C-7 · ZZRV, made "), names
    assert len(set(names.values())) == 3, names
    ids = [b["id"] for b in (made, *alike)]
    assert not [n for n in names.values() for i in ids if i[:8] in n], names
    assert leaks(dialog) == []
    # Chosen with the keys, as a user does; the one chosen is the one answered.
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Home)
    while combo.currentData() != made["id"]:
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    qtbot.keyClicks(dialog.identifier_value, "BOL-5")
    qtbot.mouseClick(dialog.send_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not dialog.isVisible(), 60)
    assert pane.notice.text() == (
        "Answered as the carrier: Prairie Line Freight (PRLF): booked, Truckload (TL), "
        "PO-71437, BOL-5."
    )
    assert not UUID.search(pane.notice.text())
    pane.shutdown()
    await settle(session)


@pytest.mark.qt_log_ignore(SAVE_DIALOG_WARNINGS)
async def test_an_export_carries_each_bookings_id_and_reference(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], tmp_path: Path
) -> None:
    """An export goes to other systems, which know a booking by its id: the file leads with
    it ("Booking id") though the list shows none, and keeps the reference the user hid from
    the list (the export of the view as shown had lost both)."""
    session, tenant = connected
    request = tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
    request["identifiers"] = [{"type": "PURCHASE_ORDER", "value": "PO-71437"}]
    made = create_booking(tenant, booking_of(quoted(tenant, request)["quotes"][0]))
    alone = _booking(tenant, "ZZHD")
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: pane.model.rowCount() == 2)
    header = pane.table.horizontalHeader()
    titles = [c.title for c in COLUMNS]
    header.setSectionHidden(titles.index("Reference"), True)  # the user's choice of columns
    path = tmp_path / "bookings.csv"
    pane.export_view()  # File → Export view…
    await save_export(qtbot, path)
    await wait_until(lambda: pane.notice.text().startswith("Exported 2 bookings"), 30)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    shown = [t for t in titles if t != "Reference"]
    assert list(rows[0]) == ["Booking id", *shown, "Reference"]
    by_id = {r["Booking id"]: r for r in rows}
    assert by_id[made["id"]]["Reference"] == "PO-71437"
    assert by_id[alone["id"]]["Reference"] == "C-7"
    assert by_id[alone["id"]]["Carrier"] == "ZZHD"
    pane.shutdown()
    await settle(session)


async def test_the_booking_form_says_its_codes_and_units_in_words_and_sends_the_codes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The booking form read "CARRIER_SCAC", "CAPACITY_PROVIDER", "LINE_HAUL", the booking's
    uuid and "900 LB each, 48x40x50 IN": now the carrier's identifier type, the rate's source
    and type, the charges and the freight's units read in words, and what Save sends keeps
    the codes."""
    session, tenant = connected
    set_profile(tenant, "ZZHD", behaviour="SLOW")  # unanswered while the form edits it
    unit = {"quantity": 10, "handlingUnitType": "PLT", "weight": {"value": 900, "unit": "LB"},
            "dimensions": {"length": 48, "width": 40, "height": 50, "unit": "IN"}}  # fmt: skip
    made = _booking(
        tenant,
        "ZZHD",
        rateIdentifiers=[{"source": "CAPACITY_PROVIDER", "type": "CONTRACT", "value": "C-9"}],
        charges=[{"code": "LINE_HAUL", "amount": 800, "currency": "USD"}],
        shipmentDetails=[{"handlingUnits": [unit]}],
        shippingDetails={"trailerLength": {"value": 53, "unit": "FT"}},
    )
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    table = pane.table
    row = table.visualRect(pane.model.index(0, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(row.center()))
    await wait_until(lambda: pane.detail.edit_button.isEnabled())
    qtbot.mouseClick(pane.detail.edit_button, Qt.MouseButton.LeftButton)
    form = shown_dialog(pane, BookingFormDialog)
    freight = form.freight.text()
    x = "\u00d7"  # a multiplication sign
    assert f"10 {x} pallet, 900 pounds each, 48{x}40{x}50 inches" in freight, freight
    assert "53 feet" in freight, freight
    assert form.carrier_type.currentText() == "Carrier SCAC"
    assert form.summary.text().startswith("Booking C-9 with ZZHD, ")
    for tab in range(form.tabs.count()):
        form.tabs.setCurrentIndex(tab)
        assert leaks(form) == [], tab
    # The detail says the units in words too.
    assert "900 pounds each" in pane.detail.body.toPlainText()

    form.tabs.setCurrentIndex(1)
    qtbot.keyClicks(form.notes, "Dock 4")
    save = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not form.isVisible(), 30)
    stored = tenant.http.get(f"{BOOKINGS}/{made['id']}").json()
    assert stored["notes"] == "Dock 4"
    assert stored["capacityProviderIdentifier"] == {"type": "CARRIER_SCAC", "value": "ZZHD"}
    assert stored["rateIdentifiers"] == made["rateIdentifiers"]
    assert [c["code"] for c in stored["charges"]] == ["LINE_HAUL"]
    assert stored["shipmentDetails"][0]["handlingUnits"][0]["weight"]["unit"] == "LB"
    pane.shutdown()
    await settle(session)


async def test_a_carrier_the_service_names_after_the_connect_is_named_in_the_list(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The names are asked at the connect; a carrier the service came to know after it (the
    demo's carriers on a first start, a profile a colleague adds) read as its code in the
    Carrier column until a restart. A row showing a code without a name asks again (at most
    once a minute in the app)."""
    session, tenant = connected
    session.naming_again_seconds = 1.0
    pane = await shown_pane(qtbot, session, _bookings_pane)
    set_profile(tenant, "QQCR", name="Quarry Creek Freight")
    _booking(tenant, "QQCR")
    pane.refresh()
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    await wait_until(lambda: cell(pane.model, 0, "Carrier") == "Quarry Creek", 30)
    pane.shutdown()
    await settle(session)
