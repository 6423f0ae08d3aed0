"""The Rate requests pane and form against the real local service: every problem beside its
field before sending, a failing service keeping the form, quotes arriving and compared,
cancellation outcomes in words; end to end, a quote booked, followed to BOOKED and its
tracked shipment opened in the Shipments pane."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QDateTime, QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.api.errors import ApiError
from freightdesk.models.rating import RateRequestStatus
from freightdesk.server.db import transaction
from freightdesk.server.tables.rating import RateRequestRow
from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.capacity_panes import install_capacity_panes
from freightdesk.ui.panes.packages.delete import DeleteByIdentifierDialog
from freightdesk.ui.panes.packages.form import PackageFormDialog
from freightdesk.ui.panes.rates.form import STOPS, RateRequestFormDialog
from freightdesk.ui.panes.rates.handling_units import KIND, WEIGHT
from freightdesk.ui.panes.rates.pane import RatesPane
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.widgets.elided import is_elided
from tests.proxy import FaultyProxy
from tests.server.test_rating_support import (
    BOOKINGS,
    RATE_REQUESTS,
    set_profile,
    set_tenant_feature,
)
from tests.server.test_stop_locations import create as create_stop_location
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell, clock_text
from tests.ui.test_capacity_support import press, settle, type_text, unplaced_error_labels
from tests.ui.test_panes_support import (
    answer,
    connected,
    proxied,
    saved_while_the_service_fails,
    shown_dialog,
    shown_pane,
)

__all__ = ["connected", "proxied"]


async def _form(pane: RatesPane) -> RateRequestFormDialog:
    """The pane's form for a new rate request, once it lists the carriers and groups."""
    pane.new_item()
    form = shown_dialog(pane, RateRequestFormDialog)
    await wait_until(lambda: form.carriers.count() > 0 and form.groups.count() > 0, 30)
    return form


async def new_rate_request(
    qtbot: QtBot, session: AppSession
) -> tuple[RatesPane, RateRequestFormDialog]:
    """The pane, shown, and its form for a new rate request (see `_form`)."""
    pane = await shown_pane(qtbot, session, RatesPane)
    return pane, await _form(pane)


def _fill(qtbot: QtBot, form: RateRequestFormDialog, *carriers: str) -> None:
    type_text(form.name, "Chicago to Dallas")
    type_text(form.pickup.city, "Chicago")
    type_text(form.pickup.state, "IL")
    type_text(form.delivery.city, "Dallas")
    type_text(form.delivery.state, "TX")
    for scac in carriers:
        form.check_carrier(scac)


async def test_problems_beside_fields_and_nothing_typed_is_lost(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane, form = await new_rate_request(qtbot, session)
    assert "No account groups yet" in form.groups.item(0).text()
    type_text(form.pickup.city, "Chicago")
    type_text(form.pickup.state, "IL")
    type_text(form.other_carriers, "toolong")
    form.ltl.setChecked(True)
    assert not form.truck_box.isEnabled()
    form.units.add_row(["2", "PALLET", "", "LB", "", "", "", "IN", "", False, "cartons"])
    # Every problem at once, each beside its field, the first tab with one shown: the
    # malformed carrier, the delivery stop and the LTL unit.
    form.save()
    assert form.tabs.currentIndex() == 0
    message = form.errors.message_for("otherCarriers")
    assert message == "No carrier the app knows is named 'toolong'; type its SCAC", message
    type_text(form.other_carriers, "")
    form.check_carrier("NBFL")
    delivery = "rateDetail.routeInfo.stops[1].location.address.city"
    assert form.errors.message_for(delivery) == "Enter a city, a postal code or a state"
    form.tabs.setCurrentIndex(1)
    units = form.errors.message_for("rateDetail.shipmentDetails[0].handlingUnits")
    assert "Row 1, weight: Required to rate LTL" in units
    assert "Row 1, class: Required to rate LTL" in units
    form.tabs.setCurrentIndex(0)
    assert form.pickup.city.text() == "Chicago"  # nothing typed is lost
    # Address validation suggests the canonical form; the user takes it.
    type_text(form.delivery.city, "dallas")
    type_text(form.delivery.state, "texas")
    form.delivery.validate_button.click()
    await wait_until(lambda: form.delivery.use_button.isVisible())
    assert "Dallas, TX" in form.delivery.validation.text()
    form.delivery.use_suggestion()
    assert (form.delivery.city.text(), form.delivery.state.text()) == ("Dallas", "TX")
    form.units.set_text(0, 2, "500")
    form.units.set_text(0, 8, "70")
    # Closing with unsaved changes asks first; cancelling the question keeps the form.
    form.reject()
    answer("unsavedChanges", QMessageBox.StandardButton.Cancel)
    assert form.isVisible()
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.requests.rowCount() == 1)
    sent = tenant.http.get(f"{RATE_REQUESTS}/{pane.requests.items[0].id}").json()
    unit = sent["rateDetail"]["shipmentDetails"][0]["handlingUnits"][0]
    assert unit["weight"] == {"value": 500.0, "unit": "LB"} and unit["freightClass"] == "70"
    assert sent["capacityProviderIdentifiers"] == [{"type": "CARRIER_SCAC", "value": "NBFL"}]
    pane.shutdown()
    await settle(session)


async def test_expiry_stop_contacts_and_accessorials(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane, form = await new_rate_request(qtbot, session)
    _fill(qtbot, form, "PRLF")
    form.expires.setChecked(True)
    form.expiration.setDateTime(QDateTime.currentDateTime().addSecs(-3600))
    form.stop_contacts.add_row(["Pickup", "ACME", "Ana", "Ruiz", "+1 312 555 0100", "", ""])
    form.stop_contacts.add_row(["Delivery", "", "Bo", "", "", "", "bo@store.test"])
    form.stop_contacts.add_row()  # left empty: not sent
    form.accessorials.boxes["REFRIGERATED"].setChecked(True)
    form.accessorials.boxes["LIFTGATE"].setChecked(True)
    type_text(form.accessorials.lowest, "38")
    type_text(form.accessorials.highest, "34")
    # Each rule beside its field: the expiry on the route tab, shown first.
    form.save()
    assert form.tabs.currentIndex() == 0
    assert form.errors.message_for("expirationDateTime") == "Must be in the future"
    accessorials = form.errors.message_for("rateDetail.shippingDetails.accessorials")
    assert "Temperature control needs a reefer: choose Reefer as the trailer type" in accessorials
    assert "Temperature, highest: Must not be below the lowest" in accessorials
    # The service's own messages about a contact or an accessorial find their rows too.
    form.show_problems(
        {
            "rateDetail.routeInfo.stops[1].contacts[0].email": "is not an address",
            "rateDetail.shippingDetails.accessorials[1].code": "not on this lane",
        }
    )
    assert form.errors.message_for("stopContacts") == "Row 2, email: Is not an address"
    assert form.errors.message_for("rateDetail.shippingDetails.accessorials") == (
        "Not on this lane"
    )
    assert form.stop_contacts.rows() == 3  # nothing typed is lost
    form.expiration.setDateTime(QDateTime.currentDateTime().addDays(2))
    form.trailer_type.setCurrentIndex(form.trailer_type.findData("REEFER"))
    type_text(form.accessorials.lowest, "34")
    type_text(form.accessorials.highest, "38")
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.requests.rowCount() == 1)
    sent = tenant.http.get(f"{RATE_REQUESTS}/{pane.requests.items[0].id}").json()
    stops = sent["rateDetail"]["routeInfo"]["stops"]
    assert stops[0]["contacts"] == [
        {"companyName": "ACME", "givenName": "Ana", "familyName": "Ruiz",
         "phoneNumber": "+1 312 555 0100"}
    ]  # fmt: skip
    assert stops[1]["contacts"] == [{"givenName": "Bo", "email": "bo@store.test"}]
    assert sent["rateDetail"]["shippingDetails"]["accessorials"] == [
        {"code": "LIFTGATE"},
        {"code": "REFRIGERATED", "details": {"min": 34.0, "max": 38.0, "unit": "FAHRENHEIT"}},
    ]
    left = datetime.fromisoformat(sent["expirationDateTime"]) - datetime.now(UTC)
    assert timedelta(days=1, hours=23) < left <= timedelta(days=2)
    # Asking again starts from the same stops, people and services, with a fresh expiry.
    pane.select_request(sent["id"])
    pane.ask_again()
    again = shown_dialog(pane, RateRequestFormDialog)
    assert again.stop_contacts.rows() == 2 and again.stop_contacts.text(1, 0) == "Delivery"
    assert again.accessorials.codes() == ["LIFTGATE", "REFRIGERATED"]
    assert again.accessorials.lowest.text() == "34" and not again.expires.isChecked()
    again.reject()
    pane.shutdown()
    await settle(session)


async def test_a_failing_service_keeps_the_form_then_quotes_arrive(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy], qtmodeltester: object
) -> None:
    session, tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, RatesPane)
    assert "No rate requests yet" in pane.subtitle.text()
    form = await _form(pane)
    _fill(qtbot, form, "PRLF", "MPLF")
    await saved_while_the_service_fails(form, proxy, RATE_REQUESTS)
    assert form.name.text() == "Chicago to Dallas"
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.quotes.rowCount() == 4)
    await wait_until(lambda: "4 quotes; cheapest" in pane.waiting.text())
    request = pane.selected()
    assert request is not None and request.status is RateRequestStatus.QUOTES_RECEIVED
    assert pane.market.rowCount() == 2
    assert clock_text(cell(pane.requests, 0, "Created"))  # the one clock, labelled
    assert "Chicago, IL → Dallas, TX" in pane.subtitle.text()
    # Days read as the rest of the app writes them ("Dec 1"), not "2026-12-01".
    pickup = request.rate_detail.pickup_date
    assert pickup is not None
    assert cell(pane.requests, 0, "Pickup") == f"{pickup:%b} {pickup.day}"
    assert f"pickup {pickup:%b} {pickup.day} · " in pane.subtitle.text()
    for row, quote in enumerate(pane.quotes.items):
        by = quote.estimated_delivery_date
        assert by is not None
        assert cell(pane.quotes, row, "Delivery by") == f"{by:%b} {by.day}"
    # The Canadian carrier quotes in CAD: with no exchange rate, dollars and Canadian
    # dollars are never compared; the totals sort within each currency, US dollars first.
    assert {q.total_rate.currency.value for q in pane.quotes.items} == {"USD", "CAD"}
    pane.quote_table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    totals = [(q.total_rate.currency.value, q.total_rate.amount) for q in pane.quotes.items]
    assert totals == sorted(totals, key=lambda t: (t[0] != "USD", t))
    # The quote chosen stays chosen when the table is sorted, and when a poll refreshes it.
    pane.quote_table.selectRow(0)
    chosen = pane.selected_quote()
    assert chosen is not None and pane.book_button.isEnabled()
    pane.quote_table.sortByColumn(6, Qt.SortOrder.AscendingOrder)
    days = [q.transit_days for q in pane.quotes.items]
    assert days == sorted(days)
    assert pane.selected_quote() is chosen
    # Renamed elsewhere, the request comes back changed when the user presses Refresh.
    _rename(tenant, str(request.id), "Chicago to Dallas, renamed")
    qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.title.text() == "Chicago to Dallas, renamed")
    assert pane.selected_quote() == chosen
    assert cell(pane.quotes, 0, "Valid for") not in ("", "expired")  # a countdown
    qtmodeltester.check(pane.quotes)  # type: ignore[attr-defined]
    _cheapest_and_market_per_currency(pane)
    # The lane and the carrier take the room left, not the last columns.
    lane = pane.request_table.columnWidth(1)
    assert lane > pane.requests.columns[1].width
    assert pane.quote_table.columnWidth(0) > pane.quotes.columns[0].width
    pane.shutdown()
    await settle(session)


def _rename(tenant: TenantHandle, request_id: str, name: str) -> None:
    """The request renamed in the service's store (by another app of the tenant)."""
    with transaction(tenant.service.context.sessions) as db:
        row = db.get(RateRequestRow, request_id)
        assert row is not None and row.document.get("name") == "Chicago to Dallas"
        row.document = {**row.document, "name": name}


def _cheapest_and_market_per_currency(pane: RatesPane) -> None:
    """Quotes in USD and CAD: the cheapest of each marked and named, CAD not set against the
    USD market (the cell's tooltip says why), amounts never cut, units written one way."""
    quotes = pane.quotes
    summary = pane.waiting.text()
    assert "cheapest per currency" in summary and "USD)" in summary and "CAD)" in summary
    assert "not compared" in pane.waiting.toolTip()
    bold = {}
    for row, quote in enumerate(quotes.items):
        font = quotes.data(quotes.index(row, 2), Qt.ItemDataRole.FontRole)
        if font is not None and font.bold():
            bold[quote.total_rate.currency.value] = quote.total_rate.amount
        versus = quotes.index(row, 10)
        if quote.total_rate.currency.value == "CAD":
            assert quotes.data(versus) == ""
            assert "No market rate in CAD" in quotes.data(versus, Qt.ItemDataRole.ToolTipRole)
        else:
            assert quotes.data(versus).endswith("%")
        for column in range(2, 6):  # Total, Line haul, Fuel surcharge, Accessorials
            assert not is_elided(pane.quote_table, quotes.index(row, column)), (row, column)
    assert bold == {
        currency: min(q.total_rate.amount for q in quotes.items
                      if q.total_rate.currency.value == currency)
        for currency in ("USD", "CAD")
    }  # fmt: skip
    market = pane.market
    per_mile = market.data(market.index(0, 5))
    distance = market.data(market.index(0, 6))
    assert per_mile.endswith(" USD/mi") and distance.endswith(" mi"), (per_mile, distance)


async def test_a_truckload_across_an_ocean_is_refused_beside_the_delivery_country(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    hersfeld = {"addressLines": ["Am Weinberg 12"], "city": "Bad Hersfeld", "state": "HE",
                "postalCode": "36251", "country": "DE"}  # fmt: skip
    at = {"latitude": 50.869, "longitude": 9.707}
    create_stop_location(tenant, name="Bad Hersfeld DC", address=hersfeld, coordinates=at)
    pane, form = await new_rate_request(qtbot, session)
    type_text(form.name, "Bad Hersfeld to Dallas")
    # The pickup is the saved German site, found by name and chosen from the list.
    type_text(form.pickup.finder, "Hersfeld")
    QTest.keyClick(form.pickup.finder, Qt.Key.Key_Return)
    await wait_until(lambda: form.pickup.saved.count() == 2)
    form.pickup.saved.setFocus()
    QTest.keyClick(form.pickup.saved, Qt.Key.Key_Down)
    assert form.pickup.country.text() == "DE" and form.pickup.coordinates is not None
    type_text(form.delivery.name, "Dallas DC")
    type_text(form.delivery.city, "Dallas")
    type_text(form.delivery.state, "TX")
    form.check_carrier("PRLF")
    form.save()
    await wait_until(lambda: form.buttons.isEnabled() or not form.isVisible())  # answered
    country = "rateDetail.routeInfo.stops[1].location.address.country"
    assert "Dallas DC (US) cannot be reached by road from DE" in form.errors.message_for(country)
    assert "Europe and North America are not joined by road" in form.errors.message_for(country)
    assert form.isVisible() and form.tabs.currentIndex() == 0
    assert pane.requests.rowCount() == 0
    pane.shutdown()
    await settle(session)


async def _cancel(pane: RatesPane, request_id: str) -> None:
    """Cancel as the pane's button does; return once the outcome is shown. Awaits the cancel
    task itself (its callback, which shows the outcome, runs first), not the notice."""
    pane.cancel(request_id)
    (task,) = [t for t in asyncio.all_tasks() if t.get_name() == "cancel-rate-request"]
    with contextlib.suppress(ApiError):
        await task


async def test_cancel_outcomes_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZAC", behaviour="ACCEPT", responseDelaySeconds=0, quoteDelaySeconds=0)
    pane = await shown_pane(qtbot, session, RatesPane)
    body = {
        "rateDetail": {
            "routeInfo": {
                "stops": [
                    {"type": "PICKUP", "location": {"address": {"city": "Chicago"}}},
                    {"type": "DELIVERY", "location": {"address": {"city": "Dallas"}}},
                ]
            }
        },
        "capacityProviderIdentifiers": [{"type": "CARRIER_SCAC", "value": "ZZAC"}],
        "quoteTypeFilter": "SPOT",
    }  # fmt: skip
    assert session.rating is not None
    # Cancelled elsewhere first: cancelling here says so.
    first = tenant.http.post(RATE_REQUESTS, json=body).json()
    await session.rating.open(first["id"])
    tenant.http.post(f"{RATE_REQUESTS}/{first['id']}/cancellations")
    pane.select_request(first["id"])
    await wait_until(lambda: pane.selected() is not None)
    # Return goes to its quotes; Delete asks to cancel it.
    pane.request_table.setFocus()
    press(pane.request_table, Qt.Key.Key_Return)
    assert pane.quote_table.hasFocus() or pane.focusWidget() is pane.quote_table
    press(pane.request_table, QKeySequence(QKeySequence.StandardKey.Delete))
    answer("confirmCancel", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: "already cancelled" in pane.notice.text())
    assert not pane.cancel_button.isEnabled()
    # Booked by the carrier: refused, and the way out named.
    second = tenant.http.post(RATE_REQUESTS, json=body).json()
    await session.rating.open(second["id"])
    pane.select_request(second["id"])
    await wait_until(lambda: pane.quotes.rowCount() == 1)
    quote = pane.quotes.item_at(0)
    assert quote is not None
    booking = tenant.http.post(
        BOOKINGS,
        json={"capacityProviderIdentifier": quote.capacity_provider_identifier.wire(),
              "rateIdentifiers": [i.wire() for i in quote.rate_identifiers]},
    ).json()  # fmt: skip
    assert booking.get("status") == "PROCESSING", booking
    await wait_until(
        lambda: tenant.http.get(f"{BOOKINGS}/{booking['id']}").json()["status"] == "BOOKED"
    )
    pane.select_request(second["id"])
    await _cancel(pane, second["id"])
    assert "carrier already accepted a booking" in pane.notice.text()
    assert pane.notice.is_error and "Bookings pane" in pane.notice.text()
    # The list's next good polls leave the refusal for the dispatcher to read.
    polls: list[str] = []
    pane.binding.statusChanged.connect(polls.append)
    await wait_until(lambda: polls.count("") >= 2)
    pane.binding.statusChanged.disconnect(polls.append)
    assert "carrier already accepted a booking" in pane.notice.text()
    # The account without the feature: refused, and said so.
    third = tenant.http.post(RATE_REQUESTS, json=body).json()
    await session.rating.open(third["id"])
    set_tenant_feature(tenant, "rateRequestCancellation", False)
    try:
        await _cancel(pane, third["id"])
        assert "not enabled for this account" in pane.notice.text()
    finally:
        set_tenant_feature(tenant, "rateRequestCancellation", True)
    await _cancel(pane, third["id"])
    assert "The rate request is cancelled" in pane.notice.text()
    # Opening by id: a mistyped id is said to be one.
    pane.open_id.setText("not-an-id")
    pane.open_by_id()
    assert "is not a rate request id: one is 36 letters" in pane.notice.text()
    assert "uuid" not in pane.notice.text()
    pane.shutdown()
    await settle(session)


async def test_end_to_end_book_a_quote_follow_it_and_open_its_shipment(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    paths: AppPaths,
) -> None:
    session, tenant = connected
    # The carriers profile extension: this carrier accepts at once.
    set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=0.2)
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    shipments = ShipmentsPane(session, settings, window)
    window.add_pane("shipments", "Shipments", shipments, window.style().StandardPixmap.SP_DirIcon)
    rates, bookings, packages = install_capacity_panes(window, session, shipments)
    window.resize(1400, 900)
    window.show()
    window.show_pane("rates")
    await session.connect()

    form = await _form(rates)
    _fill(qtbot, form, "PRLF")
    form.quote_types.setCurrentIndex(form.quote_types.findData("CONTRACT"))
    form.save()
    await wait_until(lambda: rates.quotes.rowCount() == 1)
    rates.quote_table.selectRow(0)
    rates.quote_table.setFocus()
    assert rates.book_button.isEnabled()
    press(rates.quote_table, Qt.Key.Key_Return)  # books it
    booking_form = shown_dialog(rates, BookingFormDialog)
    assert "Prairie Line Freight (PRLF), contract quote" in booking_form.summary.text()
    assert booking_form.scac.isReadOnly() and booking_form.charges.rows() >= 2
    type_text(booking_form.contact["email"], "dispatch@acme.test")
    booking_form.notes.setPlainText("Dock 4, call ahead")
    booking_form.save()
    await wait_until(lambda: not booking_form.isVisible())
    # The booking is shown at once in Bookings, then follows the carrier's answer.
    assert window.current_pane() is bookings
    await wait_until(lambda: bookings.detail.booking is not None)
    await wait_until(
        lambda: (
            bookings.detail.booking is not None and bookings.detail.booking.status.value == "BOOKED"
        ),
        seconds=45,
    )
    await wait_until(lambda: bool(bookings.changes))
    assert (
        "Booking with Prairie Line Freight (PRLF) is booked" in window.statusBar().currentMessage()
    )
    assert window.nav.item(2).text() == "Bookings"  # the pane is shown: no count of unseen
    assert "Dock 4, call ahead" in bookings.detail.body.toPlainText()
    assert bookings.detail.shipment_button.isEnabled()
    booked = bookings.detail.booking
    assert booked is not None and booked.master_shipment_id is not None
    bookings.detail.shipment_button.click()
    assert window.current_pane() is shipments
    await wait_until(lambda: shipments.detail.shipment_id == str(booked.master_shipment_id))
    await wait_until(lambda: shipments.detail.history is not None)
    assert any(i.value == "PRLF" for i in shipments.detail.history.shipment.identifiers)  # type: ignore[union-attr]
    for pane in (shipments, rates, bookings, packages):
        pane.shutdown()
    await settle(session)


def test_every_problem_has_a_place_in_the_forms(qtbot: QtBot, session: AppSession) -> None:
    """A problem is shown under its field, never drawn over the corner of a tab."""
    forms = [
        RateRequestFormDialog(session),
        BookingFormDialog(session),
        PackageFormDialog(session, None),
        DeleteByIdentifierDialog(session, ("OLPN",)),
    ]
    for form in forms:
        qtbot.addWidget(form)
        assert unplaced_error_labels(form) == [], form.objectName()


def test_return_in_a_location_search_searches_and_does_not_send(
    qtbot: QtBot, session: AppSession
) -> None:
    form = RateRequestFormDialog(session)
    qtbot.addWidget(form)
    form.show()
    QTest.keyClick(form.pickup.finder, Qt.Key.Key_Return)
    assert form.isVisible() and not form.general_error.isVisible()
    assert form.errors.message_for(f"{STOPS}[0].location.address.city") == ""


async def test_a_handling_units_type_reads_as_a_word_and_is_sent_as_its_code(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The unit's type offered as Pallet, Skid, Crate (as the Packages form says them),
    PALLET on the wire."""
    session, _tenant = connected
    _pane, form = await new_rate_request(qtbot, session)
    form.tabs.setCurrentIndex(1)
    qtbot.mouseClick(form.units.add_button, Qt.MouseButton.LeftButton)
    kind = form.units.table.cellWidget(0, KIND)
    assert isinstance(kind, QComboBox)
    choices = [kind.itemText(i) for i in range(kind.count())]
    assert kind.currentText() == "Pallet" and "Skid" in choices, choices
    assert not [c for c in choices if c.isupper()]
    kind.setCurrentIndex(kind.findText("Crate"))
    form.units.set_text(0, WEIGHT, "500")
    units = form.wire()["rateDetail"]["shipmentDetails"][0]["handlingUnits"]
    assert units[0]["handlingUnitType"] == "CRATE"
    form.mark_clean()
    form.reject()
    await settle(session)
