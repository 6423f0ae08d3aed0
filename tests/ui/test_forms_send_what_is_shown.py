"""Forms never save what the user did not enter (issue 14, point 9): for each list pane's form
that sends a body, a user types, switches options back and forth and saves, and what the real
local service stored (read back over the API) is exactly what the form showed (stop locations,
account groups, a new shipment). The webhook form's own test is in
tests/ui/test_webhooks_forms.py, the carrier profile form's in
tests/ui/test_carrier_profiles_pane.py, the booking answer's in
tests/ui/test_push_booking_answer.py and the rate request expiry's in
tests/ui/test_time_inputs_zone.py."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QDialogButtonBox,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.account_groups.pane import AccountGroupsPane
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from tests.server.test_tracking_support import SEARCH
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, day_parts, shown_day, type_parts
from tests.ui.new_shipment_form import combo_in, open_new_shipment
from tests.ui.test_panes_support import (
    connected,
    new_form,
    shown_pane,
)
from tests.ui.test_shipments_list import window

__all__ = ["connected", "window"]

LOCATIONS = "/api/v4/stoplocations"
GROUPS = "/api/v4/capacityprovideraccountgroups"


def _type(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    edit.clear()
    qtbot.keyClicks(edit, text)


def _choose(combo: QComboBox, value: str) -> None:
    """Pick an entry as a user does (the form sees `activated`)."""
    index = combo.findData(value)
    assert index >= 0, value
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def _toggle(table: QTableWidget, row: int, column: int) -> None:
    item = table.item(row, column)
    assert item is not None
    checked = item.checkState() == Qt.CheckState.Checked
    item.setCheckState(Qt.CheckState.Unchecked if checked else Qt.CheckState.Checked)


async def test_stop_location_switched_back_and_forth_saves_what_the_form_shows(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    form = await new_form(pane, StopLocationFormDialog, "No stop locations yet")
    _type(qtbot, form.name, "Dock 7")
    _type(qtbot, form.lines[0], "1 Main St")
    _type(qtbot, form.city, "Dallas")
    _type(qtbot, form.state, "TX")
    _type(qtbot, form.postal_code, "75201")
    # Coordinates typed, then taken out again: none are sent.
    _type(qtbot, form.latitude, "32.78")
    _type(qtbot, form.longitude, "-96.8")
    form.latitude.clear()
    form.longitude.clear()

    # Regular hours: Saturday on and off again, Monday off and on again, a later close.
    form.tabs.setCurrentIndex(1)
    for column in (5, 5, 0, 0):
        _toggle(form.hours, 0, column)
    form.hours.item(0, 8).setText("18:30")  # type: ignore[union-attr]
    # A holiday: its days typed by the keyboard, shown as the clock writes days ("Dec 3 2026").
    await click(qtbot, form.special_box.add_button)
    first, last = date.today() + timedelta(days=3), date.today() + timedelta(days=40)
    shown_days = []
    for column, day in ((0, first), (1, last)):
        edit = form.special.cellWidget(0, column)
        assert isinstance(edit, QDateEdit)
        await type_parts(qtbot, edit, day_parts(day, month_number=column == 1))
        shown_days.append(edit.text())
    assert shown_days == [shown_day(first), shown_day(last)]

    # The geofence: kilometres, then travel time, then back to distance: kilometres again.
    form.tabs.setCurrentIndex(2)
    form.use_geofence.click()
    _choose(form.geofence_type, "DISTANCE")
    _choose(form.geofence_units, "KILOMETERS")
    form.geofence_value.setValue(2.5)
    _choose(form.geofence_type, "TIME")
    assert form.geofence_units.currentData() == "MINUTES"
    _choose(form.geofence_type, "DISTANCE")
    assert form.geofence_units.currentData() == "KILOMETERS"
    # Off and on again: the choice is kept (and while off, the inputs are greyed).
    form.use_geofence.click()
    assert not form.geofence_units.isEnabled() and "geofence" not in form.wire()
    form.use_geofence.click()
    form.contacts.add_row("c-1", "DOCK_MANAGER")
    shown = form.wire()

    form.save()
    await wait_until(lambda: not form.isVisible())
    stored = tenant.http.get(LOCATIONS).json()["locations"]
    assert len(stored) == 1
    saved: dict[str, Any] = stored[0]
    assert saved["name"] == "Dock 7"
    assert {k: saved["address"].get(k) for k in shown["address"]} == {
        "addressLines": ["1 Main St"],
        "city": "Dallas",
        "state": "TX",
        "postalCode": "75201",
        "country": "US",
    }
    assert saved.get("coordinates") is None
    assert saved["openingHours"] == [
        {
            "appliesMonday": True,
            "appliesTuesday": True,
            "appliesWednesday": True,
            "appliesThursday": True,
            "appliesFriday": True,
            "appliesSaturday": False,
            "appliesSunday": False,
            "opens": "08:00",
            "closes": "18:30",
        }
    ]
    (holiday,) = saved["specialOpeningHours"]
    assert (holiday["validFrom"], holiday["validThrough"]) == (first.isoformat(), last.isoformat())
    assert saved["geofence"] == {"type": "DISTANCE", "units": "KILOMETERS", "value": 2.5}
    assert saved["contacts"] == [{"contactId": "c-1", "type": "DOCK_MANAGER"}]
    # And that is what the form showed.
    assert saved["openingHours"] == shown["openingHours"]
    assert shown["specialOpeningHours"][0]["validFrom"] == first.isoformat()
    assert saved["geofence"] == shown["geofence"] and saved["contacts"] == shown["contacts"]
    pane.shutdown()


async def test_account_group_retyped_after_a_refusal_saves_what_the_fields_show(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, AccountGroupsPane)
    await wait_until(lambda: pane.count_label.text() == "No account groups yet")
    # A name typed, then the code; refused while the name is empty, nothing sent.
    _type(qtbot, pane.name, "ACME Dallas")
    _type(qtbot, pane.code, "ACME-DAL")
    pane.name.clear()
    pane.add_button.click()
    assert pane.errors.message_for("name") and pane.code.text() == "ACME-DAL"
    assert tenant.http.get(GROUPS).json()["groups"] == []
    # Typed again with spaces around it; the code changed back and forth.
    _type(qtbot, pane.name, "  ACME Dallas DC ")
    _type(qtbot, pane.code, "ACME-HOU")
    _type(qtbot, pane.code, "ACME-DAL")
    qtbot.keyClick(pane.name, Qt.Key.Key_Return)
    await wait_until(lambda: "Added ACME-DAL" in pane.notice.text())
    stored = tenant.http.get(GROUPS).json()["groups"]
    assert [{k: g[k] for k in ("code", "name")} for g in stored] == [
        {"code": "ACME-DAL", "name": "ACME Dallas DC"}  # trimmed, as the field shows it
    ]
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.shutdown()


def _cell(table: QTableWidget, row: int, column: int, text: str) -> None:
    item = table.item(row, column)
    assert item is not None
    item.setText(text)


async def test_new_shipment_switched_between_modes_saves_what_the_form_shows(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], window: QWidget
) -> None:
    session, tenant = connected
    form = await open_new_shipment(qtbot, session, window)
    pro = f"PROSW{uuid.uuid4().hex[:6].upper()}"

    _choose(form.mode, "LTL")
    combo_in(form.identifiers, 0, 0).setCurrentText("PRO")
    _cell(form.identifiers, 0, 1, pro)
    # Parcel does not take a PRO; back to LTL: the PRO typed is still there, as typed.
    _choose(form.mode, "PARCEL")
    assert form.identifier_rows() == [("PRO", pro)]
    _choose(form.mode, "LTL")
    assert form.identifier_rows() == [("PRO", pro)]
    # An attribute of two values, and an empty row that is not sent.
    qtbot.mouseClick(_button(form, "Add", 1), Qt.MouseButton.LeftButton)
    _cell(form.attributes, 0, 0, "Priority")
    _cell(form.attributes, 0, 1, "High, Rush")
    qtbot.mouseClick(_button(form, "Add", 1), Qt.MouseButton.LeftButton)
    # Stops typed; the second's type switched to pickup and back.
    for row, (name, city) in enumerate((("Dock 7", "Dallas"), ("Store 12", "Austin"))):
        _cell(form.stops, row, 1, name)
        _cell(form.stops, row, 3, city)
        _cell(form.stops, row, 4, "TX")
    kind = combo_in(form.stops, 1, 0)
    kind.setCurrentText("Pickup")  # the type in words; its code is sent
    assert kind.currentData() == "PICKUP"
    kind.setCurrentText("Delivery")

    save = form.buttons.button(QDialogButtonBox.StandardButton.Save)
    qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not form.isVisible(), seconds=30)
    found = tenant.http.post(SEARCH, json={"text": pro}).json()["results"]
    assert len(found) == 1
    stored = tenant.http.get(f"/api/v4/shipments/{found[0]['id']}/tracking").json()
    assert stored["identifiers"] == [{"type": "PRO", "value": pro}]
    assert stored["plan"]["expectedTransportationModes"] == ["LTL"]
    assert [(a["name"], a["values"]) for a in stored["attributes"]] == [
        ("Priority", ["High", "Rush"])
    ]
    stops = stored["routeInfo"]["stops"]
    assert [(s["type"], s["name"], s["location"]["address"]) for s in stops] == [
        ("PICKUP", "Dock 7", {"addressLines": [], "city": "Dallas", "state": "TX",
                              "country": "US"}),
        ("DELIVERY", "Store 12", {"addressLines": [], "city": "Austin", "state": "TX",
                                  "country": "US"}),
    ]  # fmt: skip


def _button(form: QWidget, text: str, nth: int) -> QPushButton:
    """The `nth` (0-based) button of the form reading `text` (each table has its own Add)."""
    buttons = [b for b in form.findChildren(QPushButton) if b.text().replace("&", "") == text]
    return buttons[nth]
