"""A rate request once one of its quotes is booked, against the real local service (the
walkthrough of session 19 booked a quote, went back, picked another and pressed Book this
quote: the button was on, the Status read "Quotes received", and the service's refusal came
under Rate identifiers as two uuids and BOOKED). Now the pane shows the booking and keeps its
other quotes from being booked, saying how; a refusal all the same is said under the whole
form in words; and Esc in a changed booking's form does not ask to "discard this booking"."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.models.booking import Booking
from freightdesk.service.rating import booking_draft
from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.panes.rates.pane import RatesPane
from freightdesk.ui.panes.rates.quotes import RequestsModel
from tests.proxy import Fault, FaultyProxy
from tests.server.test_rating_support import (
    BOOKINGS,
    booking_of,
    booking_status,
    create_booking,
    quoted,
    set_profile,
    tl_request,
)
from tests.support import LiveService, TenantHandle, make_tenant, wait_until
from tests.ui.test_capacity_support import press, settle, type_text
from tests.ui.test_panes_support import connected, proxied, shown_dialog, shown_pane

__all__ = ["connected", "proxied"]

BOOKED_WORDS = "This request is booked already: cancel that booking in Bookings first"


def _status(pane: RatesPane) -> str:
    return str(pane.requests.index(0, RequestsModel.STATUS).data())


def _carrier(pane: RatesPane, row: int) -> str:
    return str(pane.quotes.index(row, 0).data())


async def _book_first_quote(pane: RatesPane) -> BookingFormDialog:
    """Book the first quote as a user does: choose it, press Return, Book in the form."""
    pane.quote_table.selectRow(0)
    pane.quote_table.setFocus()
    press(pane.quote_table, Qt.Key.Key_Return)
    form = shown_dialog(pane, BookingFormDialog)
    type_text(form.contact["email"], "dispatch@acme.test")
    form.save()
    await wait_until(lambda: not form.isVisible(), seconds=30)
    return form


async def test_a_booked_request_says_so_and_its_other_quotes_cannot_be_booked(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    set_profile(tenant, "ZZBK", behaviour="ACCEPT", responseDelaySeconds=0.2)
    quoted(tenant, tl_request(["ZZBK"]))  # its contract and spot quotes
    pane = await shown_pane(qtbot, session, RatesPane)
    await wait_until(lambda: pane.quotes.rowCount() == 2, seconds=30)
    assert _status(pane) == "Quotes received"

    form = await _book_first_quote(pane)

    # Shown at once as being booked, then booked once the carrier accepts.
    assert _status(pane) in ("Being booked", "Booked")
    await wait_until(lambda: _status(pane) == "Booked", seconds=45)
    booked = next(row for row in range(2) if _carrier(pane, row).endswith(" · Booked"))
    other = 1 - booked
    assert "·" not in _carrier(pane, other)
    # Back to the other quote: it cannot be booked, and the pane says why and what to do.
    pane.quote_table.selectRow(other)
    assert not pane.book_button.isEnabled()
    assert BOOKED_WORDS in pane.book_button.toolTip()
    assert BOOKED_WORDS in pane.waiting.text()
    assert "Booked" in pane.subtitle.text()
    press(pane.quote_table, Qt.Key.Key_Return)  # the keyboard's way to book: refused too
    assert pane.dialog is form  # no new form
    assert BOOKED_WORDS in pane.notice.text()
    pane.shutdown()
    await settle(session)


async def test_a_booking_made_while_the_bookings_are_looked_up_stays_shown(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    """The code review of b5a9d2f: a look-up of the live bookings begun before a quote was
    booked answered without that booking and replaced what the pane knew, so the request read
    "Quotes received" and its other quote could be booked until the list next changed."""
    session, tenant, proxy = proxied
    set_profile(tenant, "ZZBK", behaviour="ACCEPT", responseDelaySeconds=0.2)
    quoted(tenant, tl_request(["ZZBK"]))
    # The pane's first look-up of the bookings (nothing booked yet) is answered late: its
    # answer held until the quote has been booked.
    release = threading.Event()
    proxy.inject(Fault(path_prefix=BOOKINGS, method="GET", hold=release))
    pane = await shown_pane(qtbot, session, RatesPane)
    await wait_until(lambda: pane.quotes.rowCount() == 2, seconds=30)
    await wait_until(lambda: proxy.count("GET", BOOKINGS) == 1, seconds=30)
    assert proxy.answered("GET", BOOKINGS) == 0  # still looking up

    await _book_first_quote(pane)
    assert _status(pane) == "Being booked"

    release.set()  # the look-up's answer, older than the booking, arrives
    await wait_until(lambda: proxy.answered("GET", BOOKINGS) == 1, seconds=30)
    # The pane either forgot the booking (as before) or asked again; never the first.
    await wait_until(
        lambda: _status(pane) == "Quotes received" or proxy.count("GET", BOOKINGS) > 1,
        seconds=30,
    )
    assert _status(pane) != "Quotes received"
    await wait_until(lambda: _status(pane) == "Booked", seconds=45)
    booked = next(row for row in range(2) if _carrier(pane, row).endswith(" · Booked"))
    pane.quote_table.selectRow(1 - booked)
    assert not pane.book_button.isEnabled()
    assert BOOKED_WORDS in pane.book_button.toolTip()
    assert BOOKED_WORDS in pane.waiting.text()
    pane.shutdown()
    await settle(session)


async def test_the_services_refusal_is_said_under_the_form_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """Booked elsewhere while the form was open: the refusal under the whole form, not
    beside the rate identifiers (nothing typed there is wrong)."""
    session, tenant = connected
    set_profile(tenant, "ZZBK", behaviour="ACCEPT", responseDelaySeconds=0)
    await session.connect()
    body = quoted(tenant, tl_request(["ZZBK"]))
    rating = session.rating
    assert rating is not None
    request = await rating.open(body["id"])
    first, second = request.quotes[:2]
    form = BookingFormDialog(session, draft=booking_draft(request, second), quote=second)
    qtbot.addWidget(form)
    form.show()
    # The first quote booked meanwhile (as a colleague would), accepted by the carrier.
    made = create_booking(
        tenant, booking_of(next(q for q in body["quotes"] if q["id"] == str(first.id)))
    )
    booking_status(tenant, made["id"], "BOOKED")
    form.save()
    await wait_until(lambda: BOOKED_WORDS in form.general_error.text(), seconds=30)
    assert form.errors.message_for("rateIdentifiers") == ""
    assert "BOOKED" not in form.general_error.text() and made["id"] not in form.general_error.text()
    assert form.isVisible()  # nothing typed is lost
    form.mark_clean()  # closed by qtbot after the test (closing the last window quits)
    await settle(session)


def _discard_question(qtbot: QtBot, form: BookingFormDialog) -> str:
    """Change the notes, press Esc: the question asked (then keep editing)."""
    qtbot.addWidget(form)
    form.show()
    qtbot.waitExposed(form)
    tab = next(i for i in range(form.tabs.count()) if form.tabs.widget(i).isAncestorOf(form.notes))
    form.tabs.setCurrentIndex(tab)
    form.notes.setFocus()
    qtbot.keyClicks(form.notes, "Dock 4")
    assert form.dirty
    qtbot.keyClick(form.notes, Qt.Key.Key_Escape)
    boxes = [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QMessageBox) and w.objectName() == "unsavedChanges" and w.isVisible()
    ]
    assert len(boxes) == 1
    text = boxes[0].text()
    qtbot.keyClick(boxes[0], Qt.Key.Key_Escape)
    return text


def test_esc_in_a_changed_booking_asks_to_discard_the_changes_not_the_booking(
    qtbot: QtBot, session: AppSession, sqlite_service: LiveService
) -> None:
    tenant = make_tenant(sqlite_service)
    set_profile(tenant, "ZZRV", behaviour="REVIEW")
    made = create_booking(
        tenant,
        {
            "shipmentId": "6b0f1c0e-8d3a-4f7e-9a51-0c2b7d7e9e10",
            "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": "ZZRV"},
            "rateIdentifiers": [{"source": "EXTERNAL", "type": "CONTRACT", "value": "C-7"}],
        },
    )
    booking = Booking.model_validate(tenant.http.get(f"{BOOKINGS}/{made['id']}").json())
    tenant.http.close()
    edited = _discard_question(qtbot, BookingFormDialog(session, booking=booking))
    assert edited == "Discard your changes to this booking?"
    assert _discard_question(qtbot, BookingFormDialog(session)) == "Discard this new booking?"
