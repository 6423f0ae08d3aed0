"""Forms never save what the user did not enter (issue 14, point 9), the booking form: a user
types a booking without a quote, switches the carrier's identifier type, the rate's type and
currency back and forth, ticks the expiry and unticks it again, leaves empty rows, and what the
real local service stored (read back over the API) is exactly what the form showed. The other
list panes' forms are in tests/ui/test_forms_send_what_is_shown.py."""

from __future__ import annotations

import uuid
from typing import Any

from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from tests.server.test_rating_support import BOOKINGS, set_profile
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys
from tests.ui.test_bookings_pane import _bookings_pane
from tests.ui.test_capacity_support import settle
from tests.ui.test_panes_support import connected, new_form, shown_pane

__all__ = ["connected"]


def _present(wire: dict[str, Any]) -> dict[str, Any]:
    """The fields given (the service answers the others as null or empty)."""
    return {k: v for k, v in wire.items() if v not in (None, [], {}, "")}


async def test_booking_switched_back_and_forth_saves_what_the_form_shows(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZHD", behaviour="SLOW")  # unanswered while the test reads it back
    pane = await shown_pane(qtbot, session, _bookings_pane)
    form = await new_form(pane, BookingFormDialog, "No bookings yet", seconds=30)
    shipment = str(uuid.uuid4())

    # The carrier: its identifier type switched away and back, the SCAC typed.
    for kind in ("FFW_SCAC", "CARRIER_SCAC"):  # shown in words, the code its data
        form.carrier_type.setCurrentIndex(form.carrier_type.findData(kind))
    await keys(qtbot, form.scac, "ZZHD")
    await keys(qtbot, form.shipment_id, shipment)
    # The rate identifier: spot, then contract again.
    form.rate_identifiers.set_text(0, 1, "SPOT")
    form.rate_identifiers.set_text(0, 2, "C-2024-17")
    form.rate_identifiers.set_text(0, 1, "CONTRACT")
    form.rate_identifiers.add_row()  # left as it came: not sent
    # The total in euros, then in dollars again; a fuel surcharge typed and taken out.
    await keys(qtbot, form.total_rate.amount, "1450.50")
    form.total_rate.currency.setCurrentText("EUR")
    form.total_rate.currency.setCurrentText("USD")
    await keys(qtbot, form.fuel.amount, "120")
    form.fuel.amount.clear()
    form.charges.add_row()
    form.charges.set_text(0, 0, "LINE_HAUL")
    form.charges.set_text(0, 1, "1450.50")
    form.charges.add_row()  # left as it came (USD only): not sent
    # An expiry ticked, then unticked: none is sent.
    form.expires.click()
    assert form.expiration.isEnabled()
    form.expires.click()
    assert not form.expiration.isEnabled() and "expirationDateTime" not in form.wire()

    form.tabs.setCurrentIndex(1)
    form.notes.setPlainText("  Dock 4, ask for Ana  ")
    form.attributes.add_row("Customer", "ACME, Retail")
    form.tabs.setCurrentIndex(2)
    await keys(qtbot, form.contact["companyName"], "ACME Foods")
    await keys(qtbot, form.contact["email"], "ops@acme.test")
    form.contact["email"].clear()
    form.carrier_contacts.add_row(["", "Bo", "", "", "", "bo@zzhd.test"])
    form.carrier_contacts.add_row()  # left empty: not sent
    shown = form.wire()

    book = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert book.text() == "&Book"
    await click(qtbot, book)
    await wait_until(lambda: not form.isVisible(), seconds=30)
    await wait_until(lambda: pane.model.rowCount() == 1, seconds=30)
    stored = _present(tenant.http.get(f"{BOOKINGS}/{pane.model.items[0].id}").json())
    assert stored["capacityProviderIdentifier"] == {"type": "CARRIER_SCAC", "value": "ZZHD"}
    assert stored["shipmentId"] == shipment
    assert stored["rateIdentifiers"] == [
        {"source": "EXTERNAL", "type": "CONTRACT", "value": "C-2024-17"}
    ]
    assert stored["totalRate"] == {"amount": 1450.5, "currency": "USD"}
    assert "fuelSurchargeRate" not in stored and "expirationDateTime" not in stored
    assert stored["charges"] == [{"code": "LINE_HAUL", "amount": 1450.5, "currency": "USD"}]
    assert stored["notes"] == "Dock 4, ask for Ana"
    assert [(a["name"], a["values"]) for a in stored["attributes"]] == [
        ("Customer", ["ACME", "Retail"])
    ]
    assert _present(stored["shipperContactInfo"]) == {"companyName": "ACME Foods"}
    assert [_present(c) for c in stored["carrierContacts"]] == [
        {"givenName": "Bo", "email": "bo@zzhd.test"}
    ]
    # And that is what the form showed.
    for key in ("rateIdentifiers", "totalRate", "charges", "carrierContacts"):
        assert shown[key] == stored[key], key
    pane.shutdown()
    await settle(session)


async def test_a_booking_names_its_carrier_by_name_and_saves_its_scac(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The carrier typed as a dispatcher knows it: a name the app does not know is refused
    beside the field, the carrier's short name is booked under its SCAC."""
    session, tenant = connected
    set_profile(tenant, "BMFL", behaviour="SLOW")  # unanswered while the test reads it back
    pane = await shown_pane(qtbot, session, _bookings_pane)
    await wait_until(lambda: CARRIER_NAMES.name("BMFL") == "Blue Mesa Freight Lines", 30)
    form = await new_form(pane, BookingFormDialog, "No bookings yet", seconds=30)
    await keys(qtbot, form.scac, "Blu Mesa")
    await keys(qtbot, form.shipment_id, str(uuid.uuid4()))
    form.rate_identifiers.set_text(0, 2, "C-2024-17")
    await keys(qtbot, form.total_rate.amount, "900")
    book = form.buttons.button(QDialogButtonBox.StandardButton.Ok)
    await click(qtbot, book)
    message = form.errors.message_for("capacityProviderIdentifier.value")
    assert message == "No carrier the app knows is named 'Blu Mesa'; type its SCAC", message
    assert form.isVisible() and pane.model.rowCount() == 0

    await keys(qtbot, form.scac, "Blue Mesa")
    await click(qtbot, book)
    await wait_until(lambda: not form.isVisible(), seconds=30)
    await wait_until(lambda: pane.model.rowCount() == 1, seconds=30)
    stored = tenant.http.get(f"{BOOKINGS}/{pane.model.items[0].id}").json()
    assert stored["capacityProviderIdentifier"] == {"type": "CARRIER_SCAC", "value": "BMFL"}
    pane.shutdown()
