"""The Stop locations pane and form against the real local service: create with the rules
checked beside each field, address validation, edit with a concurrent save (both shown, the
user chooses), the service failing, closing with unsaved changes, search and paging, the point
and geofence chosen on the map and saved."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QTableWidgetItem, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.maps import page
from freightdesk.ui.maps.picker import LocationPickerDialog
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.stop_locations.geofence import GeofenceInputs
from freightdesk.ui.panes.stop_locations.pane import StopLocationsPane
from tests.proxy import FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import emitted
from tests.ui.test_capacity_support import unplaced_error_labels
from tests.ui.test_location_picker import click_at, picker_until
from tests.ui.test_maps import OFFLINE_TILES, WEBENGINE_STARTUP, webengine_survives_loop_exits
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

__all__ = ["connected", "proxied", "webengine_survives_loop_exits"]

# The map picker brings QtWebEngine up (once per test session), with its start-up warnings.
pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)

PATH = "/api/v4/stoplocations"


def _body(name: str, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "address": {
            "addressLines": ["100 Congress Ave"],
            "city": "Austin",
            "state": "TX",
            "postalCode": "78701",
            "country": "US",
        },
        "openingHours": [
            {"appliesMonday": True, "appliesFriday": True, "opens": "07:00", "closes": "17:00"}
        ],
    }
    body.update(changes)
    return body


def _type(qtbot: QtBot, edit: Any, text: str) -> None:
    edit.clear()
    qtbot.keyClicks(edit, text)


async def test_create_with_rules_beside_fields_and_address_validation(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    form = await new_form(pane, StopLocationFormDialog, "No stop locations yet")
    assert "New location" in form.version.text()
    assert form.pick_on_map.isEnabled()  # the picker itself: tests/ui/test_location_picker.py
    assert unplaced_error_labels(form) == []  # none drawn over a tab's corner

    # Everything wrong at once: each message beside its field, the first tab shown.
    _type(qtbot, form.city, "austin")
    _type(qtbot, form.state, "texas")
    _type(qtbot, form.postal_code, "10001")
    form.hours.item(0, 7).setText("8:00")
    form.tabs.setCurrentIndex(1)
    form.save()
    assert form.errors.message_for("name")
    assert "not in TX" in form.errors.message_for("address.postalCode")
    assert form.tabs.currentIndex() == 0
    form.tabs.setCurrentIndex(1)
    assert "Row 1, opens" in form.errors.message_for("openingHours")
    form.tabs.setCurrentIndex(0)
    assert form.city.text() == "austin"  # nothing typed is lost

    # Validate: the service suggests the normalized address; the user takes it.
    _type(qtbot, form.postal_code, "787011234")
    _type(qtbot, form.lines[0], " 100  Congress Ave")
    qtbot.mouseClick(form.validate_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: form.accept_suggestion.isVisible())
    assert "Austin, TX 78701-1234, US" in form.validation.text()
    form.use_suggestion()
    assert (form.city.text(), form.state.text(), form.postal_code.text()) == (
        "Austin",
        "TX",
        "78701-1234",
    )

    _type(qtbot, form.name, "Austin DC")
    _type(qtbot, form.supplied_id, "WH-1")
    form.hours.item(0, 7).setText("07:30")
    form.add_special()
    for column in range(2, 9):
        form.special.item(0, column).setCheckState(Qt.CheckState.Checked)
    form.use_geofence.setChecked(True)
    form.geofence_type.setCurrentIndex(form.geofence_type.findData("DISTANCE"))
    form.geofence_units.setCurrentIndex(form.geofence_units.findData("MILES"))
    form.geofence_value.setValue(1.5)
    form.contacts.add_row("c-7", "DOCK_MANAGER")
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.rowCount() == 1)
    saved = tenant.http.get(PATH).json()["locations"][0]
    assert saved["name"] == "Austin DC" and saved["version"] == 1
    assert saved["address"]["postalCode"] == "78701-1234"
    assert saved["geofence"] == {"type": "DISTANCE", "units": "MILES", "value": 1.5}
    assert saved["specialOpeningHours"][0]["hours"]["appliesSunday"] is True
    assert "opens" not in saved["specialOpeningHours"][0]["hours"]  # closed that day
    assert saved["contacts"] == [{"contactId": "c-7", "type": "DOCK_MANAGER"}]
    assert "Saved Austin DC (version 1)" in pane.notice.text()

    # The service's own refusal (a supplied id in use) is shown beside its field.
    pane.new_item()
    form = shown_dialog(pane, StopLocationFormDialog)
    _type(qtbot, form.name, "Other")
    for edit, text in ((form.lines[0], "1 Main St"), (form.city, "Dallas"), (form.state, "TX")):
        _type(qtbot, edit, text)
    _type(qtbot, form.supplied_id, "WH-1")
    form.save()
    await wait_until(lambda: bool(form.errors.message_for("suppliedId")))
    assert "already has supplied id" in form.errors.message_for("suppliedId")
    # Closing with unsaved changes asks first.
    form.reject()
    assert form.isVisible()
    answer("unsavedChanges", QMessageBox.StandardButton.Cancel)
    assert form.isVisible()
    form.reject()
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    assert not form.isVisible()
    pane.shutdown()


async def test_concurrent_save_shows_both_and_the_user_chooses(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    created = tenant.http.post(PATH, json=_body("Shared dock")).json()
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.table.selectRow(0)
    pane.table.setFocus()
    qtbot.keyClick(pane.table, Qt.Key.Key_Return)
    form = shown_dialog(pane, StopLocationFormDialog)
    assert form.version.text().startswith("Version 1")
    _type(qtbot, form.name, "Shared dock (mine)")
    # Someone else saves meanwhile.
    theirs = tenant.http.put(f"{PATH}/{created['id']}", json=_body("Shared dock (theirs)"))
    assert theirs.status_code == 200
    form.save()
    await wait_until(lambda: form.conflict is not None and form.conflict.isVisible())
    conflict = form.conflict
    assert conflict is not None
    assert conflict.differences == ["Name"]
    assert conflict.table.item(0, 1).text() == "Shared dock (mine)"
    assert conflict.table.item(0, 2).text() == "Shared dock (theirs)"
    # Take theirs: the form now shows version 2, the user's edit set aside.
    conflict.take_button.click()
    assert form.name.text() == "Shared dock (theirs)" and form.version.text().startswith(
        "Version 2"
    )
    assert not form.dirty
    # Edit again; someone saves again; this time keep mine.
    _type(qtbot, form.name, "Shared dock (final)")
    tenant.http.put(f"{PATH}/{created['id']}", json=_body("Shared dock (again)"))
    form.save()
    await wait_until(lambda: form.conflict is not conflict and form.conflict is not None)
    assert form.conflict is not None
    form.conflict.keep_button.click()
    await wait_until(lambda: not form.isVisible())
    saved = tenant.http.get(f"{PATH}/{created['id']}").json()
    assert (saved["name"], saved["version"]) == ("Shared dock (final)", 4)
    await wait_until(lambda: pane.model.items[0].name == "Shared dock (final)")
    pane.shutdown()


async def test_a_failing_service_keeps_the_form(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, _tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    form = await new_form(pane, StopLocationFormDialog, "No stop locations yet")
    _type(qtbot, form.name, "Fort Worth yard")
    form.lines[0].setText("")
    form.city.setText("")
    form.state.setText("")
    form.latitude.setText("32.75")
    form.longitude.setText("-97.33")
    await saved_while_the_service_fails(form, proxy, PATH)
    assert form.name.text() == "Fort Worth yard"
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.shutdown()


async def test_search_and_paging(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> None:
    session, tenant = connected
    for n in range(55):
        city = "Houston" if n % 5 == 0 else "Austin"
        tenant.http.post(
            PATH,
            json=_body(
                f"Site {n:02d}",
                address={"addressLines": ["1 Main St"], "city": city, "state": "TX"},
            ),
        )
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    await wait_until(lambda: pane.model.rowCount() == 50)
    assert pane.page_bar.label.text() == "1\u201350 of 55 stop locations"
    assert pane.page_bar.next_button.isEnabled() and not pane.page_bar.previous_button.isEnabled()
    pane.page_bar.next_button.click()
    await wait_until(lambda: pane.model.rowCount() == 5)
    assert pane.model.items[0].name == "Site 50"
    pane.focus_search()
    qtbot.keyClicks(pane.search, "houston")
    qtbot.keyClick(pane.search, Qt.Key.Key_Return)
    await wait_until(lambda: pane.model.rowCount() == 11)
    assert pane.page_bar.label.text() == "1\u201311 of 11 stop locations"
    # Delete asks first.
    pane.table.selectRow(0)
    pane.confirm_delete()
    assert message_box("confirmDelete") is not None
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: pane.model.rowCount() == 10)
    pane.shutdown()


def test_table_cells_hold_the_hours(qtbot: QtBot, session: AppSession) -> None:
    form = StopLocationFormDialog(session, None)
    qtbot.addWidget(form)
    form.hours.setItem(0, 8, QTableWidgetItem("24:00"))
    wire = form.wire()
    assert wire["openingHours"][0]["closes"] == "24:00"
    assert wire["openingHours"][0]["appliesMonday"] is True
    assert wire["openingHours"][0]["appliesSunday"] is False


async def test_the_point_and_geofence_chosen_on_the_map_are_saved(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(page.CONFIG, "tiles", OFFLINE_TILES)
    session, tenant = connected
    created = tenant.http.post(
        PATH,
        json=_body(
            "Austin DC",
            coordinates={"latitude": 30.2672, "longitude": -97.7431},
            geofence={"type": "DISTANCE", "units": "METERS", "value": 300},
        ),
    ).json()
    pane = await shown_pane(qtbot, session, StopLocationsPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.table.selectRow(0)
    pane.edit_selected()
    form = shown_dialog(pane, StopLocationFormDialog)
    qtbot.mouseClick(form.pick_on_map, Qt.MouseButton.LeftButton)
    picker = form.picker
    assert isinstance(picker, LocationPickerDialog)
    found = await picker_until(picker.map, lambda s: s["fence"] is not None)
    assert found["center"] == pytest.approx([30.2672, -97.7431], abs=1e-4)
    assert found["fence"]["radius"] == pytest.approx(300)

    async with emitted(picker.map.picked, 10):
        await click_at(picker.map, 30.27, -97.75)
    picker.fence.units.setCurrentIndex(picker.fence.units.findData("FEET"))
    picker.fence.value.setValue(1000)
    await picker_until(picker.map, lambda s: s["fence"]["radius"] == pytest.approx(304.8))
    qtbot.keyClick(picker.latitude, Qt.Key.Key_Return)
    await wait_until(lambda: form.picker is None)
    assert (form.latitude.text(), form.longitude.text()) == ("30.270000", "-97.750000")

    form.save()
    await wait_until(lambda: not form.isVisible())
    saved = tenant.http.get(f"{PATH}/{created['id']}").json()
    assert saved["coordinates"] == {"latitude": 30.27, "longitude": -97.75}
    assert saved["geofence"] == {"type": "DISTANCE", "units": "FEET", "value": 1000}
    assert saved["version"] == 2
    pane.shutdown()


def test_geofence_kinds_read_as_plain_words(qtbot: QtBot) -> None:
    """The kinds read as words a dispatcher uses, not the interface's enum beside them."""
    holder = QWidget()
    qtbot.addWidget(holder)
    inputs = GeofenceInputs(holder)
    kinds = [inputs.type.itemText(i) for i in range(inputs.type.count())]
    assert kinds == ["Travel time", "Distance"]
