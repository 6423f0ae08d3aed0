"""The Bookings pane and form against the real local service: the list with its status and
attribute filters, paging and coloured statuses; the detail with every field a dispatcher
needs; edits through PUT with problems beside their fields and a failing service keeping the
form; cancel after a question; the carriers' answers announced."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.models.booking import BookingStatus
from freightdesk.service.bookings import check_booking
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.dialogs.booking_text import status_color
from freightdesk.ui.panes.bookings.pane import BookingsPane
from tests.proxy import FaultyProxy
from tests.server.test_rating_support import BOOKINGS, set_profile
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell, clock_text, holds_clock_text
from tests.ui.plain_words import leaks
from tests.ui.test_capacity_support import press, settle, type_text
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import (
    answer,
    connected,
    message_box,
    new_form,
    proxied,
    saved_while_the_service_fails,
    shown_dialog,
    shown_pane,
)

__all__ = ["connected", "proxied"]


def _booking(tenant: TenantHandle, scac: str, **fields: Any) -> dict[str, Any]:
    body = {
        "shipmentId": str(uuid.uuid4()),
        "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": scac},
        "rateIdentifiers": [{"source": "EXTERNAL", "type": "CONTRACT", "value": "C-7"}],
        **fields,
    }
    answer_ = tenant.http.post(BOOKINGS, json=body)
    assert answer_.status_code == 200, answer_.text
    return dict(answer_.json())


def session_settings(session: AppSession) -> QSettings:
    """The settings file of the `settings` fixture (in the session's own config folder)."""
    session.paths.config_dir.mkdir(parents=True, exist_ok=True)
    return QSettings(str(session.paths.config_dir / "test.ini"), QSettings.Format.IniFormat)


def _bookings_pane(session: AppSession) -> BookingsPane:
    # No Shipments pane here.
    return BookingsPane(session, session_settings(session), open_shipment=lambda _id: None)


async def test_filters_paging_colours_and_detail(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZHD", behaviour="SLOW")
    set_profile(tenant, "ZZDC", behaviour="DECLINE", responseDelaySeconds=0)
    for n in range(27):
        _booking(tenant, "ZZHD", attributes=[{"name": "Customer", "values": [f"C{n % 3}"]}])
    declined = _booking(
        tenant,
        "ZZDC",
        notes="Two pallets, call ahead",
        totalRate={"amount": 1450.5, "currency": "USD"},
        fuelSurchargeRate={"amount": 210, "currency": "USD"},
        charges=[{"code": "LINE_HAUL", "amount": 1240.5, "currency": "USD"},
                 {"code": "FUEL_SURCHARGE", "amount": 210, "currency": "USD"}],
        carrierContacts=[{"givenName": "Ana", "familyName": "Ruiz", "phoneNumber": "+1 312 555"}],
        shipperContactInfo={"companyName": "ACME", "email": "d@acme.test"},
        attributes=[{"name": "Customer", "values": ["C9"]}],
    )  # fmt: skip
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: pane.model.rowCount() == 25)
    assert pane.page_bar.label.text() == "1\u201325 of 28 bookings"
    assert pane.page_bar.next_button.isEnabled() and not pane.page_bar.previous_button.isEnabled()
    pane.page_bar.next_button.click()
    await wait_until(lambda: pane.model.rowCount() == 3)
    pane.page_bar.previous_button.click()
    await wait_until(lambda: pane.model.rowCount() == 25)
    # The declined booking: its answer arrives, coloured, with reason and notes.
    await wait_until(
        lambda: any(b.status is BookingStatus.REJECTED for b in pane.model.items), seconds=45
    )
    row = next(r for r, b in enumerate(pane.model.items) if str(b.id) == declined["id"])
    color = pane.model.data(pane.model.index(row, 0), Qt.ItemDataRole.ForegroundRole)
    assert color == status_color(BookingStatus.REJECTED)
    assert pane.model.data(pane.model.index(row, 0)) == "Rejected"
    assert clock_text(cell(pane.model, row, "Created"))  # the one clock, labelled
    pane.table.selectRow(row)
    text = pane.detail.body.toPlainText()
    assert holds_clock_text(text), text
    for expected in (
        "1,450.50 USD",
        "Line haul",
        "1,240.50 USD",
        "Two pallets, call ahead",
        "Rejection reason",
        "Carrier's notes",
        "Ana Ruiz, +1 312 555",
        "ACME, d@acme.test",
        "Customer: C9",
        declined["id"],
    ):
        assert expected in text, expected
    assert not pane.detail.edit_button.isEnabled()  # answered for good
    assert not pane.detail.shipment_button.isEnabled()
    # Filters: by status, then by attribute (any of the values).
    pane.status_boxes[BookingStatus.REJECTED].setChecked(True)
    await wait_until(lambda: pane.model.rowCount() == 1)
    assert pane.page_bar.label.text() == "1\u20131 of 1 bookings"
    pane.status_boxes[BookingStatus.REJECTED].setChecked(False)
    pane.status_boxes[BookingStatus.BOOKED].setChecked(True)
    await wait_until(lambda: pane.page_bar.label.text() == "No bookings match")
    pane.status_boxes[BookingStatus.BOOKED].setChecked(False)
    pane.focus_search()
    type_text(pane.attribute_name, "customer")
    type_text(pane.attribute_values, "c1, c9")
    pane.attribute_values.returnPressed.emit()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u201310 of 10 bookings")
    # Values without a name are refused before asking the service.
    pane.attribute_name.clear()
    pane.page.show_page(1)
    assert "enter the attribute's name too" in pane.notice.text()
    pane.page.clear_search()
    await wait_until(lambda: pane.model.rowCount() == 25)
    # An open booking counts down to its expiry.
    expiring = _booking(
        tenant, "ZZHD", expirationDateTime=(datetime.now(UTC) + timedelta(hours=3)).isoformat()
    )
    pane.refresh()
    await wait_until(lambda: any(str(b.id) == expiring["id"] for b in pane.model.items))
    pane.table.selectRow(0)
    assert pane.detail.countdown.text().startswith("Waiting for the carrier; expires in 2 h 5")
    assert pane.model.data(pane.model.index(0, 4)).startswith("in 2 h 5")
    assert pane.detail.edit_button.isEnabled()
    pane.shutdown()
    await settle(session)


async def test_edit_cancel_and_the_carriers_answer_announced(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZRV", behaviour="REVIEW", responseDelaySeconds=0.2)
    created = _booking(tenant, "ZZRV", notes="first")
    pane = await shown_pane(qtbot, session, _bookings_pane)
    heard: list[str] = []
    pane.bookingStatusChanged.connect(heard.append)
    await wait_until(lambda: pane.model.rowCount() == 1)
    await wait_until(lambda: pane.model.items[0].status is BookingStatus.UNDER_REVIEW, seconds=45)
    pane.table.selectRow(0)
    pane.table.setFocus()
    press(pane.table, Qt.Key.Key_F2)
    form = shown_dialog(pane, BookingFormDialog)
    assert "Saving sends the changed booking to the carrier again" in form.summary.text()
    assert form.shipment_id.isReadOnly()
    # Bad input: every problem beside its field, the first one's tab shown.
    type_text(form.scac, "Z9")
    form.expires.setChecked(True)
    form.expiration.setDateTime(form.expiration.dateTime().addDays(-2))
    form.total_rate.amount.setText("lots")
    form.tabs.setCurrentIndex(2)
    form.save()
    assert form.tabs.currentIndex() == 0
    assert "SCAC (2 to 4 letters)" in form.errors.message_for("capacityProviderIdentifier.value")
    assert form.errors.message_for("expirationDateTime") == "Must be in the future"
    assert "valid number" in form.errors.message_for("totalRate")
    type_text(form.scac, "ZZRV")
    form.expires.setChecked(False)
    form.total_rate.amount.setText("980")
    form.notes.setPlainText("second")
    form.attributes.add_row("Customer", "ACME, ACME-DAL")
    form.save()
    await wait_until(lambda: not form.isVisible())
    saved = tenant.http.get(f"{BOOKINGS}/{created['id']}").json()
    assert saved["notes"] == "second" and saved["totalRate"] == {"amount": 980.0, "currency": "USD"}
    assert saved["attributes"] == [{"name": "Customer", "values": ["ACME", "ACME-DAL"]}]
    assert saved["rateIdentifiers"] == created["rateIdentifiers"]  # kept as it was
    # The carrier reviews the new version; the answer is announced.
    await wait_until(lambda: any("under review (was processing)" in h for h in heard), seconds=45)
    # Cancel asks first.
    assert pane.detail.booking is not None
    before_cancel = pane.detail.booking
    pane.detail.cancel_button.click()
    box = message_box("confirmCancelBooking")
    assert box is not None  # the answers say what they do ("Cancel" could mean either)
    assert box.button(QMessageBox.StandardButton.Yes).text() == "Cancel the &booking"
    assert box.button(QMessageBox.StandardButton.Cancel).text() == "&Keep it"
    answer("confirmCancelBooking", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: "is cancelled" in pane.notice.text())
    assert pane.detail.booking.status is BookingStatus.CANCELLED
    assert not pane.detail.cancel_button.isEnabled()
    # A list read before the cancel and answered after it (seen in a CI run under load) does
    # not show the booking processing again.
    pane.detail.show_booking(before_cancel)
    assert pane.detail.booking.status is BookingStatus.CANCELLED
    pane.shutdown()
    await settle(session)


async def test_a_failing_service_keeps_the_form(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    set_profile(tenant, "ZZHD", behaviour="SLOW")
    pane = await shown_pane(qtbot, session, _bookings_pane)
    form = await new_form(pane, BookingFormDialog, "No bookings yet")
    form.save()  # a booking without a quote needs the shipment and carrier
    assert "Required unless the booking is made from a quote" in form.errors.message_for(
        "shipmentId"
    )
    type_text(form.scac, "zzhd")
    type_text(form.shipment_id, str(uuid.uuid4()))
    form.rate_identifiers.set_text(0, 2, "C-2024-17")
    form.tabs.setCurrentIndex(1)
    form.notes.setPlainText("Keep me")
    await saved_while_the_service_fails(form, proxy, BOOKINGS)
    assert form.notes.toPlainText() == "Keep me"
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.rowCount() == 1)
    assert pane.model.items[0].capacity_provider_identifier.value == "ZZHD"
    # The service's own refusal (an edit once answered) is said in words.
    booking = pane.model.items[0]
    tenant.http.post(f"{BOOKINGS}/{booking.id}/cancellations")
    pane.edit(booking)
    form = shown_dialog(pane, BookingFormDialog)
    form.tabs.setCurrentIndex(1)
    qtbot.keyClicks(form.notes, "too late")
    form.save()
    await wait_until(lambda: bool(form.errors.message_for("status")))
    # In words under the summary naming the booking, as the booking answer dialog says it
    # under its booking: no wire name (status), uuid or state codes, not under the form.
    assert form.errors.message_for("status") == (
        "This booking was cancelled; only a booking being processed or under review can be changed"
    )
    assert form.general_error.isHidden(), form.general_error.text()
    # The summary right above says the status the refusal reports (it was opened when the
    # booking was still processing), not a resend that cannot happen.
    await wait_until(lambda: "cancelled" in form.summary.text())
    assert "processing" not in form.summary.text(), form.summary.text()
    assert "Saving sends" not in form.summary.text(), form.summary.text()
    assert form.tabs.currentIndex() == 1  # the notes typed stay in sight
    assert leaks(form) == []
    assert proxy.count("PUT", f"{BOOKINGS}/{booking.id}") == 1
    form.mark_clean()
    form.reject()
    pane.shutdown()
    await settle(session)


async def test_the_carriers_answer_shows_in_the_detail_as_it_arrives(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZRV", behaviour="REVIEW", responseDelaySeconds=0)
    people = [{"givenName": "Sam", "familyName": "Okafor", "email": "sam@carrier.test"}]
    declined = _booking(tenant, "ZZRV", carrierContacts=people)
    accepted = _booking(tenant, "ZZRV")
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: pane.model.rowCount() == 2)
    await wait_until(
        lambda: all(b.status is BookingStatus.UNDER_REVIEW for b in pane.model.items), seconds=45
    )

    def show(booking_id: str) -> None:
        pane.table.selectRow(next(r for r, b in enumerate(pane.model.items)
                                  if str(b.id) == booking_id))  # fmt: skip

    def reply(booking_id: str, **answer_: Any) -> None:
        sent = tenant.http.post(
            f"{BOOKINGS}/{booking_id}/carrier-response",
            json=answer_,
            headers={"x-tenant-role": "CARRIER"},
        )
        assert sent.status_code == 200, sent.text

    # The app announces what changes after its watch's first look (that look is what is,
    # nothing changed): the list's own fetch may show the bookings under review before it, and
    # an answer sent then was never announced (in a run at load 4-8: no news in 45 s).
    assert session.bookings is not None
    watch = session.bookings.watch
    await wait_until(
        lambda: (
            watch.data is not None and {declined["id"], accepted["id"]} <= watch.data.open.keys()
        ),
        seconds=45,
    )
    show(declined["id"])
    text = pane.detail.body.toPlainText()
    assert "ZZRV is reviewing the booking; the answer will show here" in text
    assert "Carrier contact" in text and "Sam Okafor, sam@carrier.test" in text
    assert not pane.detail.news.isVisible()
    # The carrier declines: the detail shows why, without the booking being picked again.
    reply(
        declined["id"],
        decision="REJECT",
        rejectionReason="NO_CAPACITY",
        carrierRejectionNotes="No truck on Tuesday",
        responseMethod="EMAIL",
    )
    await wait_until(
        lambda: (
            pane.detail.booking is not None and pane.detail.booking.status is BookingStatus.REJECTED
        ),
        seconds=45,
    )
    text = pane.detail.body.toPlainText()
    assert text.startswith("Carrier's answer\nRejected. ZZRV declined the booking: no capacity.")
    for expected in ("No truck on Tuesday", "Answered by\nEmail", "Sam Okafor"):
        assert expected in text, expected
    # The list's refresh may show the answer before the watch announces it: wait for the news.
    await wait_until(pane.detail.news.isVisible, seconds=45)
    assert "Booking with ZZRV is rejected (was under review): no capacity" in (
        pane.detail.news.text()
    )
    # Another booking shown: the news was about the first one.
    show(accepted["id"])
    assert not pane.detail.news.isVisible()
    # The carrier accepts: booked, with the carrier's identifier, tracking one click away.
    reply(
        accepted["id"],
        decision="ACCEPT",
        carrierProvidedIdentifiers=[{"type": "BILL_OF_LADING", "value": "BOL-7731"}],
    )
    await wait_until(
        lambda: (
            pane.detail.booking is not None and pane.detail.booking.status is BookingStatus.BOOKED
        ),
        seconds=45,
    )
    text = pane.detail.body.toPlainText()
    assert "ZZRV accepted the booking on" in text and "Tracking has started" in text
    assert "Bill of lading BOL-7731" in text
    assert pane.detail.news.isVisible() and pane.detail.shipment_button.isEnabled()
    # Cancelled here afterwards: the news of the acceptance is no longer what is.
    pane.cancel(pane.detail.booking)  # type: ignore[arg-type]
    await wait_until(lambda: "is cancelled" in pane.notice.text())
    assert not pane.detail.news.isVisible()
    assert "after ZZRV had accepted it; the tracked shipment stays" in (
        pane.detail.body.toPlainText()
    )
    pane.shutdown()
    await settle(session)


async def test_a_booking_made_while_the_pane_was_hidden_is_listed_when_shown(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZHD", behaviour="SLOW")
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: pane.page_bar.label.text() == "No bookings yet")
    pane.hide()
    assert session.bookings is not None
    body, _ = check_booking(
        {
            "shipmentId": str(uuid.uuid4()),
            "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": "ZZHD"},
            "rateIdentifiers": [{"source": "EXTERNAL", "type": "CONTRACT", "value": "C-9"}],
        }
    )
    assert body is not None
    made = await session.bookings.create(body)  # e.g. from a quote, in Rate requests
    pane.show()
    assert [b.id for b in pane.model.items] == [made.id]
    assert pane.page_bar.label.text() == "1\u20131 of 1 bookings"
    pane.shutdown()
    await settle(session)


def _click_row(qtbot: QtBot, pane: BookingsPane, booking_id: str) -> None:
    row = next(r for r, b in enumerate(pane.model.items) if str(b.id) == booking_id)
    rect = pane.table.visualRect(pane.model.index(row, 0))
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


async def test_a_search_that_hides_the_chosen_booking_takes_it_out_of_the_detail(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZHD", behaviour="SLOW")
    acme = _booking(tenant, "ZZHD", attributes=[{"name": "Customer", "values": ["ACME"]}])
    _booking(tenant, "ZZHD", attributes=[{"name": "Customer", "values": ["Globex"]}])
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: pane.model.rowCount() == 2)
    await _from_loop(lambda: _click_row(qtbot, pane, acme["id"]))
    assert pane.detail.booking is not None and str(pane.detail.booking.id) == acme["id"]

    # A search for the other customer: ACME's booking leaves the list, and the detail.
    # (A user's click puts the focus in the field: the table's Return, which opens the
    # booking, no longer has it.)
    pane.activateWindow()
    await _from_loop(lambda: qtbot.mouseClick(pane.attribute_name, Qt.MouseButton.LeftButton))
    assert pane.attribute_name.hasFocus()
    await _from_loop(lambda: qtbot.keyClicks(pane.attribute_name, "Customer"))
    await _from_loop(lambda: qtbot.keyClick(pane.attribute_name, Qt.Key.Key_Tab))
    assert pane.attribute_values.hasFocus()
    await _from_loop(lambda: qtbot.keyClicks(pane.attribute_values, "Globex"))
    await _from_loop(lambda: qtbot.keyClick(pane.attribute_values, Qt.Key.Key_Return))
    await wait_until(lambda: pane.page_bar.label.text() == "1\u20131 of 1 bookings")
    assert pane.table.selected() is None
    assert pane.detail.booking is None
    assert pane.detail.title.text() == "Select a booking"
    assert pane.detail.body.toPlainText() == ""
    assert not pane.detail.edit_button.isEnabled()

    # A booking opened from elsewhere (an alert) that the list's first page does not hold
    # stays in the detail while the list, its search cleared, is shown again.
    made = [_booking(tenant, "ZZHD")["id"] for _ in range(25)]
    await _from_loop(lambda: qtbot.mouseClick(pane.clear_button, Qt.MouseButton.LeftButton))
    await wait_until(lambda: pane.page_bar.label.text() == "1\u201325 of 27 bookings")
    listed = {str(b.id) for b in pane.model.items}
    elsewhere = next(i for i in [acme["id"], *made] if i not in listed)
    assert session.bookings is not None
    opened = await session.bookings.get(elsewhere)
    shown: list[str | None] = []  # the detail's booking each time the list's choice changes
    pane.table.selectedChanged.connect(
        lambda: shown.append(str(pane.detail.booking.id) if pane.detail.booking else None)
    )
    pane.show_booking(opened)
    await wait_until(lambda: bool(shown))
    assert set(shown) == {elsewhere}
    assert pane.detail.booking is not None and str(pane.detail.booking.id) == elsewhere
    # The user's pick takes its place.
    await _from_loop(lambda: _click_row(qtbot, pane, str(pane.model.items[0].id)))
    assert pane.detail.booking == pane.model.items[0]
    pane.shutdown()
    await settle(session)
