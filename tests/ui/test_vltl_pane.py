"""The Volume LTL pane against the real local service: a quote form filled with keys, the
carriers' quotes side by side, one dispatched from its dialog and the result shown; refused
inputs beside their field (the models' rules before sending, the service's after); a dispatch
rule (hazardous freight without an emergency contact) refused beside its field before
anything is sent; the quotes and the dispatch back from the cache in a new pane."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.clock import day_text
from freightdesk.service.session import AppSession
from freightdesk.service.vltl import LastQuotes
from freightdesk.ui.panes.vltl.dispatch import DispatchDialog
from freightdesk.ui.panes.vltl.form import (
    CLASS,
    GROUP,
    HAZARD,
    HEADERS,
    HEIGHT,
    ITEMS,
    LENGTH,
    NAME,
    NO_LINES,
    PIECES,
    UN,
    WEIGHT,
    WIDTH,
)
from freightdesk.ui.panes.vltl.pane import COLUMNS, VltlPane
from freightdesk.ui.widgets.elided import is_elided
from tests.server.test_rating_support import account_group
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import clock_text
from tests.ui.plain_words import leaks, shown_text
from tests.ui.test_capacity_support import settle
from tests.ui.test_columns_fit import AT_1366, AT_1440, AT_1920, _shown_text, assert_columns_fit
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_panes_support import answer, connected, message_box, shown_pane

__all__ = ["connected"]


def _keys(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


async def _shown(qtbot: QtBot, session: AppSession) -> VltlPane:
    """The pane, once it has listed the carriers (their default contacts) and account groups:
    key events are typed with nothing else under way."""
    pane = await shown_pane(qtbot, session, VltlPane)
    await wait_until(lambda: bool(pane.carriers) and pane.form.group.count() > 0, 30)
    return pane


def _fill_quote(
    qtbot: QtBot, pane: VltlPane, *, hazmat: bool = False, freight: bool = True
) -> None:
    """The shipment typed in; its freight (unless not `freight`) in the line the form starts
    with."""
    form = pane.form
    for key, text in (("addressLines", "1 Dock Rd"), ("city", "Chicago"), ("state", "IL"),
                      ("postalCode", "60607")):  # fmt: skip
        _keys(qtbot, form.origin.edits[key], text)
    for key, text in (("city", "Dallas"), ("state", "TX"), ("postalCode", "75201")):
        _keys(qtbot, form.destination.edits[key], text)
    _keys(qtbot, form.pickup.start, "08:00")
    _keys(qtbot, form.pickup.end, "12:00")
    if not freight:
        return
    row = 0
    for column, text in ((PIECES, "6"), (WEIGHT, "6000"), (LENGTH, "48"), (WIDTH, "40"),
                         (HEIGHT, "48"), (CLASS, "70")):  # fmt: skip
        form.items.set_text(row, column, text)
    if hazmat:
        form.hazmat.click()  # the hazmat columns shown
        for column, text in ((UN, "UN1203"), (HAZARD, "3"), (GROUP, "II"), (NAME, "Gasoline")):
            form.items.set_text(row, column, text)


async def _quoted(qtbot: QtBot, pane: VltlPane) -> None:
    qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.running and pane.model.rowCount() > 0, 30)


def _pick(pane: VltlPane, scac: str) -> None:
    row = next(r for r, q in enumerate(pane.model.items) if q.carrier_code == scac)
    pane.table.selectRow(row)


def _open_dispatch(qtbot: QtBot, pane: VltlPane) -> DispatchDialog:
    assert pane.dispatch_button.isEnabled()
    qtbot.mouseClick(pane.dispatch_button, Qt.MouseButton.LeftButton)
    dialog = pane.dialog
    assert isinstance(dialog, DispatchDialog) and dialog.isVisible()
    return dialog


async def _dispatching(
    qtbot: QtBot, session: AppSession, scac: str
) -> tuple[VltlPane, DispatchDialog]:
    """The pane with the shipment quoted, and the dispatch dialog of `scac`'s quote."""
    pane = await _shown(qtbot, session)
    _fill_quote(qtbot, pane)
    await _quoted(qtbot, pane)
    _pick(pane, scac)
    return pane, _open_dispatch(qtbot, pane)


def _contacts(qtbot: QtBot, dialog: DispatchDialog) -> None:
    _keys(qtbot, dialog.addresses["destinationLocation"].edits["addressLines"], "9 Elm St")
    for path in ("originLocation", "destinationLocation", "requesterLocation"):
        edits = dialog.contacts[path].edits
        _keys(qtbot, edits["companyName"], "Acme")
        _keys(qtbot, edits["contactName"], "Ann")
        _keys(qtbot, edits["phoneNumber"], "3125550100")
    _keys(qtbot, dialog.contacts["requesterLocation"].edits["email"], "ann@acme.example")


def _send(qtbot: QtBot, dialog: DispatchDialog) -> None:
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)


def _compared_whole(pane: VltlPane, columns: list[str]) -> None:
    """`columns` in view and whole, but a no-quote's reason (across the row, cut at its end)."""
    assert_columns_fit(pane.table, pane, columns, whole=["Carrier", "Transit", "Total"])
    for row, quote in enumerate(pane.model.items):
        if quote.rate_quote_detail is not None:
            assert not is_elided(pane.table, pane.model.index(row, columns.index("Service")))


WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


async def test_quote_pick_dispatch_and_see_the_result(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], qtmodeltester: object
) -> None:
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    _fill_quote(qtbot, pane)
    await _quoted(qtbot, pane)
    qtmodeltester.check(pane.model)  # type: ignore[attr-defined]
    keys = mnemonics(pane)  # Alt+letter: each once, none of the menus'
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys
    quotes = {q.carrier_code: q for q in pane.model.items}
    assert {"NBFL", "RDRN"} <= set(quotes)
    # Side by side: carrier, service, transit, total with its currency, linear feet.
    row = list(quotes).index("RDRN")
    texts = [pane.model.data(pane.model.index(row, c)) for c in range(5)]
    assert texts[0] == "Redrun Logistics (RDRN)" and texts[1]
    assert texts[3].endswith(" USD") and texts[4] == "12"
    # Days as the one clock writes them ("4 days, Dec 3"), the weekday in the tooltip, not
    # strftime's locale words or a second format ("Thursday 2026-12-03").
    delivery = quotes["RDRN"].delivery_date
    assert delivery is not None
    assert texts[2] == f"{quotes['RDRN'].transit_days} days, {day_text(delivery)}", texts[2]
    tip = pane.model.data(pane.model.index(row, 2), Qt.ItemDataRole.ToolTipRole)
    assert tip == f"Delivery by {WEEKDAYS[delivery.weekday()]} {day_text(delivery)}", tip
    expires = pane.model.data(pane.model.index(row, 5), Qt.ItemDataRole.ToolTipRole)
    assert expires.startswith("Expires ") and clock_text(expires[8:]), expires  # one clock
    assert "quoted, just now" in pane.age.text()

    assert not pane.dispatch_button.isEnabled()  # nothing picked yet
    _pick(pane, "RDRN")
    dialog = _open_dispatch(qtbot, pane)
    assert dialog.quote_number.text() == quotes["RDRN"].capacity_provider_quote_number
    assert dialog.pickup.start.text() == "08:00"
    keys = mnemonics(dialog)
    assert len(keys) == len(set(keys)), keys
    # Contacts are required (the account has no defaults): each said beside its field.
    _send(qtbot, dialog)
    assert "Required" in dialog.errors.message_for("originLocation.contact.contactName")
    assert "Required" in dialog.errors.message_for("requesterLocation.contact.email")
    assert dialog.errors.message_for("destinationLocation.address.addressLines") == "Required"
    _contacts(qtbot, dialog)
    _keys(qtbot, dialog.identifiers["PURCHASE_ORDER"], "PO-4471")
    _send(qtbot, dialog)
    await wait_until(lambda: not dialog.isVisible(), 30)
    text = pane.result.text()
    assert text.startswith("Dispatched to Redrun Logistics (RDRN)"), text
    assert "PRO " in text and "purchase order PO-4471" in text, text
    pickup = dialog.pickup.day.date().toPython()
    line = f"Pickup {WEEKDAYS[pickup.weekday()]} {day_text(pickup)}, 08:00 to 12:00"
    assert line in text.splitlines(), text
    # In words: no status that is always DISPATCHED, no ISO date, no uuid, no wire name.
    assert "Tracked in the Shipments pane" in text and "service reference " in text, text
    assert not re.search(r"dispatched$|\d{4}-\d\d-\d\d|[0-9a-f]{8}-|SYSTEM|system gen", text, re.M)

    # The quotes side by side fit a 1366x768 window beside the form: what they are compared
    # by (the rest may scroll sideways).
    wide = pane.table.width()
    pane.resize(*AT_1366)
    await wait_until(lambda: pane.table.width() < wide, 30)  # laid out at the new size
    columns = ["Carrier", "Service", "Transit", "Total"]
    _compared_whole(pane, columns)

    # A new pane (the app's next start) shows the quotes and the dispatch from the cache.
    again = await shown_pane(qtbot, session, VltlPane)
    await wait_until(lambda: again.model.rowCount() == len(quotes), 30)
    assert again.form.origin.edits["city"].text() == "Chicago"
    assert again.result.text().startswith("Dispatched to Redrun Logistics")
    # A quote past its expiry is not dispatched (the service would refuse it).
    cached = again.last
    assert cached is not None
    stale = [
        q.model_copy(update={"expiration_date_time": datetime.now(UTC) - timedelta(minutes=1)})
        for q in cached.quotes
    ]
    again.show_quotes(LastQuotes(cached.request, stale, cached.at))
    _pick(again, "RDRN")
    assert not again.dispatch_button.isEnabled()
    assert "expired" in again.dispatch_button.toolTip()
    notes = again.model.data(again.model.index(again.table.currentIndex().row(), 6))
    assert notes.startswith("expired")
    pane.shutdown()
    again.shutdown()
    await settle(session)


async def test_refused_inputs_beside_their_field_and_kept(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    account_group(tenant, "EMPTY")  # a group with no carriers in it
    pane = await _shown(qtbot, session)
    _fill_quote(qtbot, pane)
    # The models' rules, before sending: a time not written hh:mm, a weight that is no number,
    # a state the address rules do not know.
    _keys(qtbot, pane.form.pickup.start, "8am")
    pane.form.items.set_text(0, WEIGHT, "heavy")
    _keys(qtbot, pane.form.origin.edits["state"], "ZZ")
    qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)
    assert "hh:mm" in pane.form.errors.message_for("pickupWindow")
    assert pane.form.errors.message_for("lineItems").startswith("Row 1, weight:")
    assert "ZZ" in pane.form.errors.message_for("originAddress.state")
    assert not pane.running and pane.model.rowCount() == 0

    # Each goes as its field is edited (the others stay until theirs are).
    _keys(qtbot, pane.form.pickup.start, "08:00")
    assert pane.form.errors.message_for("pickupWindow") == ""
    assert "ZZ" in pane.form.errors.message_for("originAddress.state")
    pane.form.items.set_text(0, WEIGHT, "6000")
    assert pane.form.errors.message_for("lineItems") == ""
    _keys(qtbot, pane.form.origin.edits["state"], "IL")
    assert pane.form.errors.message_for("originAddress.state") == ""

    # The service's refusal, beside the field it names, in the form's words (the service's
    # name the API's fallBackToDefaultAccountGroup); what was typed stays.
    await wait_until(lambda: pane.form.group.findData("EMPTY") >= 0, 30)
    pane.form.group.setCurrentIndex(pane.form.group.findData("EMPTY"))
    qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.running, 30)
    message = pane.form.errors.message_for("capacityProviderAccountGroup")
    assert message == (
        "Account group EMPTY has no carriers: choose another group or All my volume LTL carriers"
    ), message
    assert pane.form.origin.edits["city"].text() == "Chicago"
    assert pane.form.items.text(0, WEIGHT) == "6000"
    # A pane switch keeps it too.
    pane.hide()
    pane.show()
    assert pane.form.group.currentData() == "EMPTY"
    assert pane.form.errors.message_for("capacityProviderAccountGroup") == message
    # Another group chosen: the message about the one left goes (it stayed until the next
    # Get quotes).
    pane.form.group.setFocus()
    qtbot.keyClick(pane.form.group, Qt.Key.Key_Home)
    assert pane.form.group.currentData() is None
    assert pane.form.errors.message_for("capacityProviderAccountGroup") == ""

    # A dispatch the service refuses: Northbridge picks up under two SCACs, say which.
    await _quoted(qtbot, pane)
    _pick(pane, "NBFL")
    dialog = _open_dispatch(qtbot, pane)
    assert dialog.carrier_code.isEnabled()
    _contacts(qtbot, dialog)
    _send(qtbot, dialog)
    await wait_until(lambda: bool(dialog.errors.message_for("carrierCode")), 30)
    assert "several SCACs (NBFL, NBFC)" in dialog.errors.message_for("carrierCode")
    assert dialog.contacts["originLocation"].edits["contactName"].text() == "Ann"
    dialog.carrier_code.setCurrentIndex(dialog.carrier_code.findData("NBFC"))
    _send(qtbot, dialog)
    await wait_until(lambda: not dialog.isVisible(), 30)
    assert pane.result.text().startswith("Dispatched to Northbridge Freight Lines (NBFC)")
    pane.shutdown()
    await settle(session)


async def test_escape_asks_before_a_chosen_scac_and_window_are_lost(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane, dialog = await _dispatching(qtbot, session, "NBFL")
    # Nothing typed: Escape closes at once.
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and message_box("unsavedChanges") is None
    # Only a SCAC picked (keys) and the delivery window ticked (a click): those are changes.
    dialog = _open_dispatch(qtbot, pane)
    dialog.carrier_code.setFocus()
    qtbot.keyClick(dialog.carrier_code, Qt.Key.Key_Down)
    assert dialog.carrier_code.currentData() == "NBFL"
    qtbot.mouseClick(dialog.delivery_wanted, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))
    assert dialog.delivery_wanted.isChecked()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert message_box("unsavedChanges") is not None and dialog.isVisible()
    answer("unsavedChanges", QMessageBox.StandardButton.Cancel)
    assert dialog.carrier_code.currentData() == "NBFL" and dialog.delivery_wanted.isChecked()
    dialog.mark_clean()
    dialog.reject()
    pane.shutdown()
    await settle(session)


async def test_the_dispatch_rules_said_in_the_dialogs_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """Checked before sending, beside their fields, in the dialog's words: the rules' own name
    the carrier account and wire fields ("is required (or set a default contact on the
    carrier account)", "must be after startTime")."""
    session, _tenant = connected
    pane, dialog = await _dispatching(qtbot, session, "RDRN")
    _keys(qtbot, dialog.pickup.end, "07:00")  # before 08:00
    _send(qtbot, dialog)
    message = dialog.errors.message_for("originLocation.contact.companyName")
    assert message == "Required: this carrier has no default contact to use", message
    message = dialog.errors.message_for("pickupWindow.endTime")
    assert message == "Must be after the start time", message
    assert dialog.buttons.isEnabled()  # nothing was sent
    # The service's refusal: a note longer than the carrier takes (the words named
    # apiConfiguration.noteConfiguration.enableTruncation, which the dialog does not offer).
    _contacts(qtbot, dialog)
    _keys(qtbot, dialog.pickup.end, "12:00")
    _keys(qtbot, dialog.pickup_note, "Call ahead. " * 22)
    _send(qtbot, dialog)
    await wait_until(lambda: bool(dialog.errors.message_for("pickupNote")), 30)
    message = dialog.errors.message_for("pickupNote")
    assert message.startswith("The carrier takes notes of 250 characters;"), message
    assert message.endswith(": shorten it"), message
    qtbot.keyClick(dialog.pickup_note, Qt.Key.Key_End)
    qtbot.keyClick(dialog.pickup_note, Qt.Key.Key_Backspace)
    assert dialog.errors.message_for("pickupNote") == ""  # edited: it goes
    dialog.mark_clean()
    dialog.reject()
    pane.shutdown()
    await settle(session)


async def test_hazmat_needs_an_emergency_contact_before_sending(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    _fill_quote(qtbot, pane, hazmat=True)
    form = pane.form
    form.service.setCurrentIndex(form.service.findData("GUR"))  # guaranteed by 5 PM
    await _quoted(qtbot, pane)
    _pick(pane, "RDRN")
    dialog = _open_dispatch(qtbot, pane)
    assert "hazardous materials" in dialog.freight.text()
    assert dialog.accessorials.text() == "Guaranteed by 5 PM"
    _contacts(qtbot, dialog)
    _send(qtbot, dialog)
    message = dialog.errors.message_for("emergencyContact")
    assert message == "Required when the shipment has hazardous materials"
    message = dialog.errors.message_for("deliveryWindow")
    assert message == "Required for guaranteed or expedited service"
    qtbot.keyClick(dialog.delivery_wanted, Qt.Key.Key_Space)
    assert dialog.delivery.isEnabled()
    _keys(qtbot, dialog.delivery.start, "09:00")
    _keys(qtbot, dialog.delivery.end, "17:00")
    assert dialog.isVisible() and pane.result.text() == "Nothing dispatched yet."
    assert dialog.buttons.isEnabled()  # nothing was sent
    _keys(qtbot, dialog.emergency.edits["contactName"], "Chemtrec")
    _send(qtbot, dialog)
    assert dialog.errors.message_for("emergencyContact.phoneNumber").startswith("Required")
    _keys(qtbot, dialog.emergency.edits["phoneNumber"], "8004249300")
    _send(qtbot, dialog)
    await wait_until(lambda: not dialog.isVisible(), 30)
    assert pane.result.text().startswith("Dispatched to Redrun Logistics")
    pane.shutdown()
    await settle(session)


async def test_at_1366_the_line_items_fit_and_the_empty_quotes_say_how_to_get_them(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, VltlPane, AT_1366)
    await wait_until(lambda: pane.form.group.count() > 0, 30)
    assert pane.form.items.rows() == 1  # the line ready to type into
    # The line items' key columns are read without scrolling sideways...
    columns = ["Pieces", "Weight", "Length", "Width", "Height", "Class", "Stackable"]
    assert_columns_fit(pane.form.items.table, pane, [*columns, "Description"])
    # ...and no column shown is cut at the table's edge ("UN/NA no." was): the hazmat ones
    # come with hazardous freight only; unticked, what was typed in them waits unsent.
    items = pane.form.items
    shown = [h for c, h in enumerate(HEADERS) if not items.table.isColumnHidden(c)]
    assert shown == [*columns, "Description"]
    assert_columns_fit(items.table, pane, shown)
    qtbot.mouseClick(pane.form.hazmat, Qt.MouseButton.LeftButton)
    assert not items.table.isColumnHidden(UN)
    items.set_text(0, UN, "UN1203")
    items.set_text(0, PIECES, "1")
    qtbot.mouseClick(pane.form.hazmat, Qt.MouseButton.LeftButton)
    assert items.table.isColumnHidden(UN)
    sent = pane.form.wire({})["lineItems"][0]
    assert "hazmatDetail" not in sent and sent["totalPackages"] == 1
    qtbot.mouseClick(pane.form.hazmat, Qt.MouseButton.LeftButton)
    assert items.text(0, UN) == "UN1203"  # the typing kept
    assert pane.form.wire({})["lineItems"][0]["hazmatDetail"] == {"identificationNumber": "UN1203"}
    # ...and the quotes' room beside them keeps its key columns too.
    quotes = ["Carrier", "Service", "Transit", "Total", "Linear ft"]
    assert_columns_fit(pane.table, pane, quotes)
    # Before any quote the quotes' area says what goes there and how.
    assert pane.empty.isVisible() and "Get quotes" in pane.empty.text()
    pane.shutdown()
    await settle(session)


async def test_one_empty_line_ready_and_get_quotes_with_it_empty(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The line items start with one line to type into (its pieces 1); Get quotes with that
    line left empty says so beside the table, nothing sent; typed into with the keys, the
    line is the request's freight."""
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    items = pane.form.items
    assert items.rows() == 1 and items.text(0, PIECES) == "1"
    _fill_quote(qtbot, pane, freight=False)
    qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)
    assert pane.form.errors.message_for(ITEMS) == NO_LINES
    assert pane.form.errors.general.text() == "" and pane.model.rowCount() == 0
    assert not pane.running  # nothing sent

    # Typed into as a user: the weight's cell clicked and keyed (the sizes and class set).
    table = items.table
    table.scrollTo(table.model().index(0, WEIGHT))
    cell = table.visualRect(table.model().index(0, WEIGHT)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    qtbot.keyClick(table, Qt.Key.Key_F2)
    # The cell's editor (the class's and packing group's combo boxes hold line edits too).
    (editor,) = [
        e
        for e in table.viewport().findChildren(QLineEdit)
        if e.isVisible() and not isinstance(e.parent(), QComboBox)
    ]
    qtbot.keyClicks(editor, "6000")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the delegate commits it on the next turn
    await wait_until(lambda: items.text(0, WEIGHT) == "6000", 10)
    for column, text in ((LENGTH, "48"), (WIDTH, "40"), (HEIGHT, "48"), (CLASS, "70")):
        items.set_text(0, column, text)
    await _quoted(qtbot, pane)
    assert pane.form.errors.message_for(ITEMS) == ""
    pane.shutdown()
    await settle(session)


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_the_quotes_compared_without_scrolling_sideways(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """What a dispatcher compares the quotes by, each carrier's name, service, transit and
    total, is read whole beside the form at 1366x768 and 1440x900; the rest (linear feet,
    the quote's number, notes) may scroll, the number also in the carrier's tooltip."""
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    pane.resize(*room)
    _fill_quote(qtbot, pane)
    await _quoted(qtbot, pane)
    await wait_until(lambda: pane.table.width() < room[0] // 2, 30)  # laid out at the size
    assert pane.model.rowCount() >= 2
    columns = ["Carrier", "Service", "Transit", "Total"]
    _compared_whole(pane, columns)
    # A carrier that did not quote says why beside its name, in sight (it was in the notes,
    # off to the side, and in the total's tooltip).
    refused = [r for r, q in enumerate(pane.model.items) if q.rate_quote_detail is None]
    assert refused
    for row in refused:
        # In the app's words, not the service's (which name the API's fields for integrators:
        # "... set apiConfiguration.enableUnitConversion to have LB and IN converted").
        said = pane.model.items[row].alerts[0].message
        assert "apiConfiguration" in said
        why = pane.model.data(pane.model.index(row, len(COLUMNS) - 1))
        assert why.endswith("rates only in KG and CM or M: it does not convert units"), why
        cell = pane.model.index(row, columns.index("Service"))
        left = pane.table.visualRect(cell).left()
        start = f"No quote: {why[:40]}"
        assert _shown_text(pane.table, cell).startswith(start)
        # Its start in sight (the row runs on off to the right, scrolled to).
        needed = pane.table.fontMetrics().horizontalAdvance(start) + 8
        assert left + needed <= pane.table.viewport().width(), left
        assert pane.model.data(cell, Qt.ItemDataRole.ToolTipRole) == why
    for row, quote in enumerate(pane.model.items):
        tip = str(pane.model.data(pane.model.index(row, 0), Qt.ItemDataRole.ToolTipRole))
        number = quote.capacity_provider_quote_number
        assert not number or number in tip, tip
    pane.shutdown()
    await settle(session)


async def test_get_quotes_with_nothing_typed_says_required_in_a_sentence(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user read "is required" under an empty postal code: the rule's sentence end
    is said as one, no validator's words anywhere in the form."""
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)
    for side in ("originAddress", "destinationAddress"):
        assert pane.form.errors.message_for(f"{side}.postalCode") == "Required"
    assert not [t for t in shown_text(pane.form) if t.startswith("is ")]
    assert leaks(pane) == [] and not pane.running
    pane.shutdown()
    await settle(session)


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_the_empty_quotes_fit_their_headers_without_scrolling_sideways(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """Before any quote the table has its headers only: each is read whole, with air about it,
    and the table does not scroll sideways (at 1440x900 its columns' least widths, meant for
    quotes' text, ran past the viewport, a scroll bar under an empty table; then each column
    was as narrow as its title, "Carrier" against its borders). A refused Get quotes keeps it
    so."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, VltlPane, room)
    await wait_until(lambda: pane.form.group.count() > 0, 30)
    qtbot.mouseClick(pane.quote_button, Qt.MouseButton.LeftButton)  # nothing typed: refused
    assert pane.model.rowCount() == 0 and not pane.running
    await wait_until(lambda: pane.table.width() < room[0] // 2, 30)  # laid out at the size
    titles = [c.title for c in COLUMNS]
    assert_columns_fit(pane.table, pane, titles)
    assert not pane.table.horizontalScrollBar().isVisible()
    # The room shared: each column as wide as its quotes' text will want, or its title and
    # 16 px of air beside its 4 px margins (it was the title and the margins alone).
    header = pane.table.horizontalHeader()
    for index, column in enumerate(COLUMNS):
        title = header.fontMetrics().horizontalAdvance(column.title)
        assert header.sectionSize(index) >= min(column.width, title + 24), column.title
    pane.shutdown()
    await settle(session)


@pytest.mark.parametrize("room", [AT_1366, AT_1920], ids=["1366", "1920"])
async def test_the_line_items_and_the_accessorials_share_the_room(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """At 1920x1080 every accessorial is in sight and the line items' table is as tall as its
    lines and one more, growing as lines are added (its one empty line took ~300 px while the
    list showed 7 of its 15 services behind a scroll bar); at 1366x768 the form still fits
    without scrolling, the list scrolling instead."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, VltlPane, room)
    await wait_until(lambda: pane.form.group.count() > 0, 30)
    form = pane.form
    services, table = form.accessorials, form.items.table
    await wait_until(lambda: pane.form_area.height() > room[1] // 2, 30)  # laid out at the size
    assert not pane.form_area.verticalScrollBar().isVisible()
    row = table.verticalHeader().defaultSectionSize()
    if room == AT_1366:
        assert services.verticalScrollBar().isVisible()
        pane.shutdown()
        await settle(session)
        return
    assert not services.verticalScrollBar().isVisible()
    last = services.visualItemRect(services.item(services.count() - 1))
    assert services.viewport().rect().contains(last), (last, services.viewport().rect())
    for lines in range(1, 6):
        assert table.rowCount() == lines
        above = table.horizontalHeader().height() + (lines + 1) * row
        assert table.height() <= above + 2 * row, (lines, table.height())
        # The scroll bar shown while the line was added goes once the table has grown: the
        # scroll area takes it away in a later pass of the event loop (late at load 15).
        await wait_until(lambda: not table.verticalScrollBar().isVisible(), 10)
        qtbot.mouseClick(form.items.add_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda n=lines: table.rowCount() == n + 1)
        await wait_until(
            lambda n=lines: table.height() >= table.horizontalHeader().height() + (n + 1) * row
        )
    pane.shutdown()
    await settle(session)
