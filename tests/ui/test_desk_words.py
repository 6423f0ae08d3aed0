"""Rate requests, Packages and Volume LTL say what a dispatcher reads in words
(`plain_words.leaks`: no codes, uuids, ISO times or validators' words), their units too
("Pounds", not LB), and the wire keeps the codes. Against the real local service, with
clicks and keys."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.panes.packages.form import PackageFormDialog
from freightdesk.ui.panes.packages.pane import PackagesPane
from freightdesk.ui.panes.rates.handling_units import SIZE_UNIT, WEIGHT, WEIGHT_UNIT
from tests.server.test_rating_support import RATE_REQUESTS
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell
from tests.ui.plain_words import leaks
from tests.ui.test_capacity_support import settle
from tests.ui.test_packages_pane import PATH as PACKAGES
from tests.ui.test_packages_pane import _package
from tests.ui.test_panes_support import connected, shown_dialog, shown_pane
from tests.ui.test_rates_pane import _fill, new_rate_request
from tests.ui.test_vltl_pane import _fill_quote, _open_dispatch, _pick, _quoted, _shown

__all__ = ["connected"]


def _tabs_leak(form: BookingFormDialog | PackageFormDialog) -> dict[int, list[str]]:
    """What each tab of `form` shows that is not in words, by tab."""
    found: dict[int, list[str]] = {}
    for tab in range(form.tabs.count()):
        form.tabs.setCurrentIndex(tab)
        said = leaks(form)
        if said:
            found[tab] = said
    return found


async def test_a_rate_request_and_its_booking_say_units_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The handling unit's weight and sizes and the trailer's length offered as Pounds,
    Inches and Feet (they read LB, IN and FT), sent as their codes; the quote booked, the
    booking form says the freight and its own codes in words too."""
    session, tenant = connected
    pane, form = await new_rate_request(qtbot, session)
    _fill(qtbot, form, "PRLF")
    form.tabs.setCurrentIndex(1)
    qtbot.mouseClick(form.units.add_button, Qt.MouseButton.LeftButton)
    form.units.set_text(0, WEIGHT, "500")
    weight = form.units.table.cellWidget(0, WEIGHT_UNIT)
    size = form.units.table.cellWidget(0, SIZE_UNIT)
    assert isinstance(weight, QComboBox) and isinstance(size, QComboBox)
    assert (weight.currentText(), size.currentText()) == ("Pounds", "Inches")
    assert [weight.itemText(i) for i in range(weight.count())] == ["Pounds", "Kilograms"]
    assert form.length_unit.currentText() == "Feet"
    form.trailer_length.setValue(53)
    for tab in range(form.tabs.count()):
        form.tabs.setCurrentIndex(tab)
        assert leaks(form) == [], tab
    form.save()
    await wait_until(lambda: pane.requests.rowCount() == 1, 30)
    sent = tenant.http.get(f"{RATE_REQUESTS}/{pane.requests.items[0].id}").json()
    detail = sent["rateDetail"]
    assert detail["shipmentDetails"][0]["handlingUnits"][0]["weight"]["unit"] == "LB"
    assert detail["shippingDetails"]["truck"]["trailerLength"] == {"value": 53.0, "unit": "FT"}
    await wait_until(lambda: pane.quotes.rowCount() > 0, 30)
    assert leaks(pane) == []
    pane.quote_table.selectRow(0)
    qtbot.mouseClick(pane.book_button, Qt.MouseButton.LeftButton)
    booking = shown_dialog(pane, BookingFormDialog)
    assert "500 pounds each" in booking.freight.text(), booking.freight.text()
    assert "53 feet" in booking.freight.text(), booking.freight.text()
    assert _tabs_leak(booking) == {}
    booking.reject()
    pane.shutdown()
    await settle(session)


async def test_a_package_says_its_units_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The list says "300 lb" (it said "300 LB"); the form offers Pounds and Inches and sends
    their codes."""
    session, tenant = connected
    tenant.http.post(PACKAGES, json=_package(1)).raise_for_status()
    pane = await shown_pane(qtbot, session, PackagesPane)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    assert cell(pane.model, 0, "Weight") == "300 lb"
    assert leaks(pane) == []
    pane.table.selectRow(0)
    qtbot.mouseClick(pane.edit_button, Qt.MouseButton.LeftButton)
    form = shown_dialog(pane, PackageFormDialog)
    assert (form.weight_unit.currentText(), form.length_unit.currentText()) == (
        "Pounds",
        "Inches",
    )
    assert _tabs_leak(form) == {}
    form.length_unit.setCurrentIndex(form.length_unit.findText("Centimeters"))
    for edit, size in zip(form.lengths, ("120", "80", "100"), strict=True):
        edit.setText(size)
    package = form.wire()["package"]
    assert package["weight"]["unit"] == "LB" and package["dimensions"]["unit"] == "CM"
    form.mark_clean()
    form.reject()
    pane.shutdown()
    await settle(session)


async def test_volume_ltl_says_units_and_services_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The quote form's units read Pounds and Inches (they read LB and IN); the dispatch
    dialog says the freight's weight and the services asked for in words ("Liftgate at
    delivery", not LGDEL)."""
    session, _tenant = connected
    pane = await _shown(qtbot, session)
    form = pane.form
    assert (form.weight_unit.currentText(), form.length_unit.currentText()) == (
        "Pounds",
        "Inches",
    )
    _fill_quote(qtbot, pane)
    form.check_accessorials(["LGDEL"])
    assert form.wire({})["weightUnit"] == "LB" and form.wire({})["lengthUnit"] == "IN"
    await _quoted(qtbot, pane)
    _pick(pane, "RDRN")
    dialog = _open_dispatch(qtbot, pane)
    assert dialog.freight.text().startswith("1 line item, 6000 pounds"), dialog.freight.text()
    assert dialog.accessorials.text() == "Liftgate at delivery"
    dialog.mark_clean()
    dialog.reject()
    pane.shutdown()
    await settle(session)
