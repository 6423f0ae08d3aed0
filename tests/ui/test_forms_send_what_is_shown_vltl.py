"""Forms never save what the user did not enter (issue 14, point 9), the Volume LTL quote form:
a user types a quote request, ticks the delivery window and unticks it, switches the units,
the service level, an accessorial and the account group away and back, leaves an added line
item as it came, and the body the service received (caught by the test proxy in front of it)
is exactly what the form showed. The other list panes' forms are in
tests/ui/test_forms_send_what_is_shown.py."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from freightdesk.api.vltl import V3_QUOTES_PATH
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.vltl.form import (
    CLASS,
    HAZARD,
    HEIGHT,
    LENGTH,
    PIECES,
    TEXT,
    UN,
    WEIGHT,
    WIDTH,
)
from freightdesk.ui.panes.vltl.pane import VltlPane
from tests.proxy import FaultyProxy
from tests.server.test_rating_support import account_group
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys
from tests.ui.test_forms_send_what_is_shown import _choose
from tests.ui.test_panes_support import proxied, shown_pane

__all__ = ["proxied"]


def _choose_text(combo: QComboBox, text: str) -> None:
    """Pick an entry by its text as a user does (the form sees `activated`)."""
    index = combo.findText(text)
    assert index >= 0, text
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def _tick(pane: VltlPane, code: str, on: bool) -> None:
    accessorials = pane.form.accessorials
    for row in range(accessorials.count()):
        item = accessorials.item(row)
        if item.data(Qt.ItemDataRole.UserRole) == code:
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            return
    raise AssertionError(code)


async def test_volume_ltl_quote_switched_back_and_forth_sends_what_the_form_shows(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    account_group(tenant, "VLTL-WEST")
    pane = await shown_pane(qtbot, session, VltlPane)
    form = pane.form
    await wait_until(lambda: bool(pane.carriers) and form.group.findData("VLTL-WEST") > 0, 30)

    for key, text in (("city", "Chicago"), ("state", "IL"), ("postalCode", "60607")):
        await keys(qtbot, form.origin.edits[key], text)
    for key, text in (("addressLines", "9 Elm St"), ("city", "Dallas"), ("state", "TX"),
                      ("postalCode", "75201")):  # fmt: skip
        await keys(qtbot, form.destination.edits[key], text)
    await keys(qtbot, form.pickup.start, "08:00")
    await keys(qtbot, form.pickup.end, "12:00")
    pickup_day = form.pickup.day.date().toString("yyyy-MM-dd")
    # Shown as the clock writes days ("Dec 1 2026"), sent as the wire's 2026-12-01.
    shown_day = form.pickup.day.text()
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2} \d{4}", shown_day), shown_day
    # A delivery window ticked, typed and unticked again: not sent.
    form.delivery_wanted.click()
    await keys(qtbot, form.delivery.start, "09:00")
    form.delivery_wanted.click()
    assert not form.delivery.isEnabled()
    # Units: kilograms and centimetres, then pounds and inches again.
    _choose_text(form.weight_unit, "Kilograms")  # the units in words, their codes sent
    _choose_text(form.length_unit, "Centimeters")
    _choose_text(form.weight_unit, "Pounds")
    _choose_text(form.length_unit, "Inches")
    # The line the form starts with typed into; hazmat typed into it and taken out; a second
    # line added and left as it came.
    assert form.items.rows() == 1
    form.hazmat.click()  # the hazmat columns shown
    for column, text in ((PIECES, "6"), (WEIGHT, "6000"), (LENGTH, "48"), (WIDTH, "40"),
                         (HEIGHT, "50"), (CLASS, "70"), (TEXT, "Canned goods"), (UN, "UN1203"),
                         (HAZARD, "3")):  # fmt: skip
        form.items.set_text(0, column, text)
    form.items.set_text(0, UN, "")
    form.items.set_text(0, HAZARD, "")
    await click(qtbot, form.items.add_button)
    assert form.items.rows() == 2
    # Guaranteed service chosen, then standard again; liftgate ticked and unticked.
    _choose(form.service, "GUR")
    form.service.setCurrentIndex(0)
    form.service.activated.emit(0)
    _tick(pane, "LGPU", True)
    _tick(pane, "LGDEL", True)
    _tick(pane, "LGPU", False)
    # The account group chosen, then all carriers again, then the group.
    _choose(form.group, "VLTL-WEST")
    form.group.setCurrentIndex(0)
    form.group.activated.emit(0)
    _choose(form.group, "VLTL-WEST")

    await click(qtbot, pane.quote_button)
    await wait_until(lambda: not pane.running and proxy.count("POST", V3_QUOTES_PATH) == 1, 30)
    (sent,) = proxy.sent("POST", V3_QUOTES_PATH)
    # The country is the one the field's hint names ("US unless given"); the empty lists are
    # the interface's defaults.
    assert sent == {
        "originAddress": {"addressLines": [], "city": "Chicago", "state": "IL",
                          "postalCode": "60607", "country": "US"},
        "destinationAddress": {"addressLines": ["9 Elm St"], "city": "Dallas", "state": "TX",
                               "postalCode": "75201", "country": "US"},
        "pickupWindow": {"date": pickup_day, "startTime": "08:00", "endTime": "12:00"},
        "weightUnit": "LB",
        "lengthUnit": "IN",
        "lineItems": [
            {"stackable": False, "totalPackages": 6, "totalWeight": 6000, "freightClass": "70",
             "description": "Canned goods",
             "packageDimensions": {"length": 48, "width": 40, "height": 50}},
        ],
        "enhancedHandlingUnits": [],
        "accessorialServices": [{"code": "LGDEL"}],
        "capacityProviderAccountGroup": {"code": "VLTL-WEST", "accounts": []},
    }  # fmt: skip
    pane.shutdown()
