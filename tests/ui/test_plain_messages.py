"""What a dispatcher reads when a form is refused, against the real local service: plain words
beside the field (not wire paths or pydantic's wording), every problem of the rate request at
once, and numbers read by one rule in cells and fields alike."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.rates.handling_units import QTY, WEIGHT
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from freightdesk.ui.panes.webhooks.form import TABS
from freightdesk.ui.widgets.forms import plain_words
from freightdesk.ui.widgets.row_table import fold_rows
from tests.server.test_rating_support import RATE_REQUESTS
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys, ok_button, refusal
from tests.ui.plain_words import leaks
from tests.ui.test_capacity_support import settle
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import connected, shown_dialog, shown_pane
from tests.ui.test_rates_pane import new_rate_request
from tests.ui.test_webhooks_forms import _new_form as new_webhook_form

__all__ = ["connected"]

UNITS = "rateDetail.shipmentDetails[0].handlingUnits"
DELIVERY_CITY = "rateDetail.routeInfo.stops[1].location.address.city"
ACCESSORIALS = "rateDetail.shippingDetails.accessorials"


async def test_rate_request_shows_every_problem_at_once_in_plain_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane, form = await new_rate_request(qtbot, session)
    await keys(qtbot, form.pickup.city, "Chicago")
    await keys(qtbot, form.pickup.state, "IL")
    form.check_carrier("NBFL")
    # A row the model refuses (a quantity in words, a two-way weight), a delivery with no
    # place, and a reefer service on the default dry van: all wrong on the first try.
    form.units.add_row()
    form.units.set_text(0, QTY, "two")
    form.units.set_text(0, WEIGHT, "1,500")
    form.accessorials.boxes["REFRIGERATED"].setChecked(True)
    temperatures = {form.accessorials.lowest: "34,5", form.accessorials.highest: "38"}
    delivery = await refusal(
        qtbot, temperatures, ok_button(form.buttons), form.errors, DELIVERY_CITY
    )
    assert delivery == "Enter a city, a postal code or a state"
    assert form.tabs.currentIndex() == 0
    form.tabs.setCurrentIndex(1)
    units = form.errors.message_for(UNITS)
    assert "Row 1, quantity: Enter a valid number, such as 1500 or 2.5" in units
    assert "Row 1, weight: 1,500 could be 1500 or 1.5: type one of those" in units
    assert form.errors.message_for(ACCESSORIALS) == (
        "Temperature control needs a reefer: choose Reefer as the trailer type"
    )
    assert "trailerType" not in form.errors.message_for(ACCESSORIALS)

    # Everything fixed at once; the decimal comma of the temperature reads as one.
    await keys(qtbot, form.delivery.city, "Dallas")
    await keys(qtbot, form.delivery.state, "TX")
    form.units.set_text(0, QTY, "2")
    form.units.set_text(0, WEIGHT, "1500")
    form.trailer_type.setCurrentIndex(form.trailer_type.findData("REEFER"))
    await click(qtbot, ok_button(form.buttons))
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.requests.rowCount() == 1)
    sent = tenant.http.get(f"{RATE_REQUESTS}/{pane.requests.items[0].id}").json()
    unit = sent["rateDetail"]["shipmentDetails"][0]["handlingUnits"][0]
    assert (unit["quantity"], unit["weight"]["value"]) == (2, 1500.0)
    (reefer,) = sent["rateDetail"]["shippingDetails"]["accessorials"]
    assert reefer["details"]["min"] == 34.5
    pane.shutdown()
    await settle(session)


async def test_a_negative_weight_typed_is_refused_in_plain_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The walkthrough's -5 typed as a unit's weight: the model's bound in the form's words
    beside the units ("Input should be greater than or equal to 0" before), nothing sent."""
    session, tenant = connected
    pane, form = await new_rate_request(qtbot, session)
    await keys(qtbot, form.pickup.city, "Chicago")
    await keys(qtbot, form.pickup.state, "IL")
    await keys(qtbot, form.delivery.city, "Dallas")
    await keys(qtbot, form.delivery.state, "TX")
    form.tabs.setCurrentIndex(1)
    await click(qtbot, form.units.add_button)
    table = form.units.table

    def type_cell(column: int, text: str) -> None:
        index = table.model().index(0, column)
        table.scrollTo(index)
        qtbot.mouseClick(
            table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center()
        )
        qtbot.keyClick(table, Qt.Key.Key_F2)
        (editor,) = [
            e
            for e in table.viewport().findChildren(QLineEdit)
            if e.isVisible() and not isinstance(e.parent(), QComboBox)
        ]
        qtbot.keyClicks(editor, text)
        qtbot.keyClick(editor, Qt.Key.Key_Return)

    for column, text in ((QTY, "2"), (WEIGHT, "-5")):
        await _from_loop(lambda column=column, text=text: type_cell(column, text))
        await wait_until(lambda column=column, text=text: form.units.text(0, column) == text)
    await click(qtbot, ok_button(form.buttons))
    await wait_until(lambda: bool(form.errors.message_for(UNITS)))
    said = form.errors.message_for(UNITS)
    assert said == "Row 1, weight: Enter 0 or more", said
    assert form.isVisible() and form.tabs.currentIndex() == 1
    assert leaks(form) == []
    assert tenant.http.get(RATE_REQUESTS).json()["results"] == []  # nothing sent
    form.reject()
    pane.shutdown()
    await settle(session)


async def test_stop_location_without_state_or_postal_code_in_plain_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    pane.new_item()
    form = shown_dialog(pane, StopLocationFormDialog)
    typed = {form.name: "Austin DC", form.lines[0]: "100 Congress Ave", form.city: "Austin"}
    assert await refusal(qtbot, typed, ok_button(form.buttons), form.errors, "address.state") == (
        "Enter a state or a postal code (or place the stop by coordinates)"
    )
    # Integrators keep the field path in the service's Error body.
    answer = tenant.http.post(
        "/api/v4/stoplocations",
        json={"name": "x", "address": {"addressLines": ["1 Main St"], "city": "Austin"}},
    )
    assert answer.status_code == 400
    assert "state or postalCode" in answer.text
    pane.shutdown()
    await settle(session)


async def test_a_header_without_a_name_says_so(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane, form = await new_webhook_form(qtbot, session)
    form.headers.add_row("", "dispatch")
    typed = {form.name: "ERP feed", form.url: "https://erp.example.com/hooks"}
    assert await refusal(qtbot, typed, ok_button(form.buttons), form.errors, "methodHeaders") == (
        "Enter a header name"
    )
    form.reject()
    pane.shutdown()


async def test_the_authentication_methods_say_their_problems_in_plain_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The methods' problems go through the same plain words as the form's other fields:
    the service's "is also used by authenticationMethods[0]" and pydantic's "Value error, ..."
    used to reach the dispatcher as they were."""
    session, _tenant = connected
    pane, form = await new_webhook_form(qtbot, session)
    await keys(qtbot, form.name, "ERP feed")
    await keys(qtbot, form.url, "https://erp.example.com/hooks")
    bar = form.tabs.tabBar()
    await _from_loop(
        lambda: qtbot.mouseClick(
            bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(TABS["auth"]).center()
        )
    )
    assert form.tabs.currentIndex() == TABS["auth"]
    # Two API keys in the default header: the service refuses the second.
    for key in ("k-1", "k-2"):
        await click(qtbot, form.auth.add_button)
        editor = form.auth.editors[-1]
        await keys(qtbot, editor.fields["apiKey"], key)  # type: ignore[arg-type]
    second = form.auth.editors[1]
    await click(qtbot, ok_button(form.buttons))
    await wait_until(lambda: bool(second.field_errors["headerName"].text()), 30)
    assert second.field_errors["headerName"].text() == (
        "Method 1 sends this header already: choose another name"
    )
    # A header name the form itself refuses, in the words of the headers table.
    await keys(qtbot, second.fields["headerName"], "X Team")  # type: ignore[arg-type]
    await click(qtbot, ok_button(form.buttons))
    assert second.field_errors["headerName"].text() == (
        "'X Team' cannot be a header name: use letters, digits and dashes"
    )
    assert form.tabs.currentIndex() == TABS["auth"]
    await keys(qtbot, second.fields["headerName"], "X-Team-Key")  # type: ignore[arg-type]
    await click(qtbot, ok_button(form.buttons))
    await wait_until(lambda: not form.isVisible(), 30)
    pane.shutdown()
    await settle(session)


def test_plain_words_keep_what_they_do_not_know() -> None:
    """Words no rule knows are said as a sentence, wire names in words."""
    assert plain_words("name", "is required") == "Required"
    assert plain_words("methodHeaders", "'X Team' is not a valid HTTP header name") == (
        "'X Team' cannot be a header name: use letters, digits and dashes"
    )
    # The rule holds for its field only: a message about another field is a sentence.
    assert plain_words("address.city", "state or postalCode x") == "State or postal code x"
    assert plain_words("files", "scan.pdf is empty") == "scan.pdf is empty"


def test_rows_gathered_under_their_table_are_in_plain_words_too() -> None:
    """A table's rows are gathered under its name ("Row 2, code: ..."): the plain words come
    first, while the field paths still say what the messages are about."""
    reefer = "Temperature control needs a reefer trailer (truck.trailerType REEFER)"
    shown = fold_rows(
        {"accessorials[1].code": reefer, "items[0].description": "Field required"},
        {"accessorials": ("accessorials", {"code": "code"}), "items": ("items", {})},
    )
    assert shown == {
        "accessorials": "Row 2, code: Temperature control needs a reefer: choose Reefer as the "
        "trailer type",
        "items": "Row 1: Fill this in",
    }
