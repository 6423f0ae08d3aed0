"""The Rail pane against the real local service: a leg tracked from the form as typed, listed
with its equipment's statuses and history, the service's warning shown as given, a leg found
by its bill of lading, a leg deleted after one question; refused inputs beside their field,
the form kept as typed."""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC, datetime

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.rail.pane import RailPane, identifiers_text
from freightdesk.ui.widgets.forms import ErrorLabel
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import DAY
from tests.ui.conftest import close_session
from tests.ui.placeholders import placeholder_whole
from tests.ui.plain_words import leaks
from tests.ui.test_capacity_support import type_text
from tests.ui.test_columns_fit import AT_1366, AT_1440, AT_1920, assert_columns_fit
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_panes_support import answer, connected, message_box, proxied, shown_pane

__all__ = ["connected", "proxied"]

PATH = "/api/v4/rail/shipments"
BAD_CHECK_DIGIT = "MSKU1234560"  # ISO 6346 check digit should be 5: tracked, with a warning


def _click(qtbot: QtBot, widget: object) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)  # type: ignore[arg-type]


def _click_row(qtbot: QtBot, pane: RailPane, row: int) -> None:
    rect = pane.table.visualRect(pane.model.index(row, 0))
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


async def test_track_a_leg_look_one_up_see_statuses_and_delete(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], qtmodeltester: object
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, RailPane)
    keys = mnemonics(pane)  # Alt+letter: each once, none of the menus'
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys

    form = pane.form
    type_text(form.equipment, BAD_CHECK_DIGIT)
    type_text(form.bills, "BOL-UI-1")
    _click(qtbot, form.starts)  # loaded two days ago: statuses since then
    form.start.setDateTime(form.start.dateTime().addDays(-2))
    origin, destination = form.stops
    type_text(origin.place, "Vernon warehouse")
    type_text(origin.city, "Los Angeles")
    type_text(origin.state, "CA")
    type_text(origin.country, "US")
    _click(qtbot, origin.windowed)
    type_text(origin.zone, "America/Los_Angeles")
    type_text(destination.city, "Chicago")
    type_text(destination.state, "IL")
    _click(qtbot, pane.track_button)
    await wait_until(lambda: pane.model.rowCount() == 1 and pane.track_button.isEnabled(), 30)
    qtmodeltester.check(pane.model)  # type: ignore[attr-defined]
    leg = pane.model.items[0]
    assert leg.shipment.shipment_identifiers[0].value == "BOL-UI-1"
    # The service's warning, as it gave it, with the field it names.
    assert "Warning (equipment)" in pane.messages.text()
    assert "check digit" in pane.messages.text()
    assert f"Tracking {BAD_CHECK_DIGIT}" in pane.notice.text()
    # The new leg is picked: its equipment's statuses with their history, its stops' windows.
    await wait_until(lambda: "History (" in pane.detail.toPlainText(), 10)
    detail = pane.detail.toPlainText()
    assert "Origin: Vernon warehouse, appointment" in detail and " PST to " in detail
    # The stop's own time, its zone named (the one clock).
    assert re.search(rf"appointment {DAY} \d\d:\d\d PST to {DAY} \d\d:\d\d PST", detail)
    assert "Destination: Chicago, IL" in detail
    history = leg.equipment_statuses[0].status_updates or []
    assert history and all(u.description in detail for u in history)
    assert pane.model.data(pane.model.index(0, 2)) != ""  # a status in the list
    assert form.equipment.text() == BAD_CHECK_DIGIT  # the form stays as typed

    # A leg started elsewhere, found by its bill of lading: added to the list and shown.
    made = tenant.http.post(
        PATH,
        json={
            "equipmentIdentifiers": [{"type": "RAIL_CAR_ID", "value": "TTGX 123456"}],
            "shipmentIdentifiers": [{"type": "BILL_OF_LADING", "value": "BOL-ELSEWHERE"}],
            "trackingStartDateTime": datetime.now(UTC).isoformat(),
        },
    )
    assert made.status_code == 200, made.text
    other = made.json()["shipment"]["railLegId"]
    type_text(pane.lookup_value, "BOL-ELSEWHERE")
    _click(qtbot, pane.lookup_button)
    await wait_until(
        lambda: (
            pane.model.rowCount() == 2
            and (chosen := pane.table.selected()) is not None
            and str(chosen.shipment.rail_leg_id) == other
        ),
        30,
    )
    assert "TTGX123456" in pane.detail.toPlainText() and "History (" in pane.detail.toPlainText()
    assert "bill of lading BOL-ELSEWHERE is on TTGX123456" in pane.notice.text()

    # Deleted after one question: gone from the list and from the service.
    first_row = next(
        row for row, item in enumerate(pane.model.items) if str(item.shipment.rail_leg_id) == other
    )
    _click_row(qtbot, pane, first_row)
    _click(qtbot, pane.delete_button)
    assert message_box("confirmDelete") is not None
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: "Stopped tracking TTGX123456" in pane.notice.text(), 30)
    assert pane.model.rowCount() == 1
    assert str(pane.model.items[0].shipment.rail_leg_id) != other
    assert tenant.http.get(f"{PATH}/{other}/statuses").status_code == 404
    pane.shutdown()


async def test_refused_inputs_are_shown_beside_their_field(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, _tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, RailPane)
    form = pane.form
    # Checked before sending by the models' rules: nothing is sent.
    type_text(form.equipment, "ABC")
    type_text(form.stops[1].city, "Chicago")
    _click(qtbot, pane.track_button)
    assert "ISO 6346" in pane.errors.message_for("equipmentIdentifiers")
    assert pane.errors.message_for("trackingStartDateTime") == (
        "Tick Start tracking at, or enter a bill of lading or a waybill"
    )
    assert "Give both stops" in pane.errors.message_for("shipmentStops")
    type_text(form.equipment, "CSQU3054383")
    type_text(form.waybills, "WB-1, WB-1")
    _click(qtbot, form.stops[0].windowed)
    type_text(form.stops[0].zone, "Mars/Olympus")
    type_text(form.stops[0].city, "Denver")
    _click(qtbot, pane.track_button)
    assert "repeated" in pane.errors.message_for("billsOfLading")
    assert "IANA time zone" in pane.errors.message_for(
        "shipmentStops[0].appointmentWindow.localTimeZoneIdentifier"
    )
    assert not pane.errors.message_for("equipmentIdentifiers")
    # A folder of the tz database, not a zone: said the same (it raised IsADirectoryError).
    type_text(form.stops[0].zone, "America/Indiana")
    _click(qtbot, pane.track_button)
    assert "IANA time zone" in pane.errors.message_for(
        "shipmentStops[0].appointmentWindow.localTimeZoneIdentifier"
    )
    assert pane.model.rowCount() == 0 and pane.track_button.isEnabled()

    # Refused by the service: said beside the field it names; the form stays as typed.
    type_text(form.waybills, "WB-1, WB-2")
    type_text(form.stops[0].zone, "America/Denver")
    refusal = {
        "httpStatusCode": 400,
        "httpMessage": "Bad Request",
        "errorMessage": "The request is not valid",
        "errors": [
            {
                "severity": "ERROR",
                "message": "is not a waybill the railroad issued",
                "diagnostic": "",
                "source": "shipmentIdentifiers[1].value",
            }
        ],
        "supportReferenceId": "test",
    }
    proxy.inject(
        Fault(
            status=400,
            body=json.dumps(refusal).encode(),
            path_prefix=PATH,
            method="POST",
            forward=False,
            headers={"content-type": "application/json"},
        ),
        times=1,
    )
    _click(qtbot, pane.track_button)
    await wait_until(lambda: bool(pane.errors.message_for("waybills")), 30)
    assert pane.errors.message_for("waybills") == "Is not a waybill the railroad issued"
    assert form.waybills.text() == "WB-1, WB-2" and form.stops[0].zone.text() == "America/Denver"
    assert pane.track_button.isEnabled() and pane.model.rowCount() == 0

    # Look up with nothing typed: said in words (it said "String should have at least 1
    # character"), nothing sent, the cursor in the field.
    _click(qtbot, pane.lookup_button)
    said = [e.text() for e in pane.findChildren(ErrorLabel) if e.isVisible() and e.text()]
    assert "Enter the bill of lading number to look up" in said, said
    assert not any("String should" in text for text in said), said
    assert pane.lookup_value.hasFocus() and pane.lookup_button.isEnabled()
    # Typing a number takes the words away (they stayed under it).
    type_text(pane.lookup_value, "B")
    said = [e.text() for e in pane.findChildren(ErrorLabel) if e.isVisible() and e.text()]
    assert "Enter the bill of lading number to look up" not in said, said

    # A bill of lading no leg carries: said under the look-up, the number kept.
    type_text(pane.lookup_value, "BOL-NOBODY")
    _click(qtbot, pane.lookup_button)
    await wait_until(lambda: pane.lookup_errors.general.isVisible(), 30)
    assert "BOL-NOBODY" in pane.lookup_errors.general.text()
    assert pane.lookup_value.text() == "BOL-NOBODY"
    pane.shutdown()


@pytest.mark.parametrize("room", [AT_1366, AT_1440, AT_1920], ids=["1366", "1440", "1920"])
async def test_legs_fit_the_window(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """A leg as the demo's, at the CPKC ramp of Monterrey: at 1366x768 and 1440x900 its bill
    of lading and waybill, status, where it is ("CPKC Monterrey (San Nicolas de los Garza,
    NL)") and arrival are read whole, its ramps in view (elided in the middle, whole in the
    tooltip); at 1920x1080 nothing is cut."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, RailPane, room)
    size = room[0]  # the legs of each size their own (the service keeps those tracked before)
    type_text(pane.form.equipment, f"TTGX {size}1")
    pane.form.equipment_type.setCurrentIndex(pane.form.equipment_type.findData("RAIL_CAR_ID"))
    type_text(pane.form.bills, f"061414158{size:04}0001")  # 17 digits, as the demo's
    type_text(pane.form.waybills, f"{size}1")
    _click(qtbot, pane.form.starts)
    pane.form.start.setDateTime(pane.form.start.dateTime().addDays(-1))
    master = pane.form.master.lineEdit()
    assert master is not None and placeholder_whole(master), master.placeholderText()
    origin, destination = pane.form.stops
    type_text(origin.city, "Monterrey")
    type_text(origin.state, "NL")
    type_text(origin.country, "MX")
    type_text(destination.city, "Chicago")
    type_text(destination.state, "IL")
    # The Track leg button is in sight without scrolling the form.
    button = pane.track_button
    assert button.mapTo(pane, button.rect().bottomLeft()).y() <= pane.height()
    assert button.visibleRegion().boundingRect().size() == button.size()
    _click(qtbot, pane.track_button)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    # A second leg between the longest ramps' names, Chicago's and Seattle's.
    second = [
        (pane.form.equipment, f"TTGX {size}2"),
        (pane.form.bills, f"061414158{size:04}0002"),
        (pane.form.waybills, f"{size}2"),
        (origin.city, "Chicago"),
        (origin.state, "IL"),
        (origin.country, "US"),
        (destination.city, "Seattle"),
        (destination.state, "WA"),
    ]
    for edit, text in second:
        edit.clear()
        type_text(edit, text)
    # Return in the equipment's field tracks it (a click may only close the city's
    # suggestions).
    pane.form.equipment.setFocus()
    qtbot.keyClick(pane.form.equipment, Qt.Key.Key_Return)
    await wait_until(lambda: f"TTGX{size}2" in pane.notice.text(), 30)
    # The list may have been fetching as the leg was made: asked again, as a user would.
    _click(qtbot, pane.refresh_button)
    await wait_until(lambda: pane.model.rowCount() == 2, 30)
    wheres = {str(pane.model.data(pane.model.index(r, 3))) for r in range(2)}
    assert any(w.startswith("CPKC Monterrey (San Nicolas de los Garza, NL") for w in wheres)
    columns = ["Equipment", "BOL / waybill", "Status", "Where", "Arrival expected", "Ramps"]
    whole = columns if room == AT_1920 else columns[:-1]
    assert_columns_fit(pane.table, pane, columns, whole=whole)
    tips = [
        str(pane.model.data(pane.model.index(r, 5), Qt.ItemDataRole.ToolTipRole)) for r in (0, 1)
    ]
    assert any("(San Nicolas de los Garza, NL" in tip for tip in tips), tips
    assert any("BNSF Seattle International Gateway (Seattle, WA)" in tip for tip in tips), tips
    pane.shutdown()


async def test_legs_stay_shown_when_the_service_goes_away_and_at_the_next_start(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, _tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, RailPane)
    type_text(pane.form.equipment, "CSQU3054383")
    type_text(pane.form.bills, "BOL-STAYS")
    _click(qtbot, pane.track_button)
    await wait_until(
        lambda: pane.model.rowCount() == 1 and "History (" in pane.detail.toPlainText(), 30
    )
    shown = pane.detail.toPlainText()

    proxy.inject(Fault(status=503, path_prefix=PATH, forward=False), times=20)
    pane.refresh()
    await wait_until(lambda: "Showing the last known list" in pane.notice.text(), 30)
    assert pane.model.rowCount() == 1 and pane.detail.toPlainText() == shown
    proxy.clear()
    pane.shutdown()
    await close_session(session)

    # The app opened again without the service: the leg and its statuses from the cache.
    again = RailPane(session)
    qtbot.addWidget(again)
    await wait_until(lambda: again.model.rowCount() == 1)
    assert identifiers_text(again.model.items[0]) == "BOL-STAYS"
    again.shutdown()


async def test_a_leg_tracked_while_the_list_is_fetched_shows_at_once(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    """The list's answer asked for before the leg was made arrives after it: the leg is
    listed as soon as it is made, and stays, without a refresh."""
    session, _tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, RailPane)
    assert session.rail is not None
    coordinator = session.rail.coordinator
    await wait_until(lambda: proxy.count("GET", PATH) >= 1 and not coordinator.status.fetching, 30)
    listed = proxy.count("GET", PATH)
    # The next list answer is held back, once the service gave it, until the leg is shown.
    held = threading.Event()
    proxy.inject(Fault(hold=held, path_prefix=PATH, method="GET"), times=1)
    _click(qtbot, pane.refresh_button)
    await wait_until(lambda: proxy.count("GET", PATH) > listed, 10)
    type_text(pane.form.equipment, "CSQU3054383")
    type_text(pane.form.bills, "BOL-WHILE-FETCHING")
    _click(qtbot, pane.track_button)
    await wait_until(lambda: pane.track_button.isEnabled(), 30)
    assert coordinator.status.fetching  # the held answer has not arrived yet
    assert proxy.answered("GET", PATH) == listed

    def shown() -> bool:
        return [identifiers_text(item) for item in pane.model.items] == ["BOL-WHILE-FETCHING"]

    assert shown()
    # The held answer arrives (without the leg); the leg stays, no refresh asked for.
    held.set()
    await wait_until(lambda: not coordinator.status.fetching, 30)
    assert shown(), [identifiers_text(item) for item in pane.model.items]
    pane.shutdown()


async def test_a_second_leg_joins_the_first_ones_move_named_by_its_equipment(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user read "the uuid of a leg's master shipment": the form offers the legs listed
    by their equipment and bill of lading, and the leg chosen links the new one to its move."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, RailPane)
    form = pane.form
    assert leaks(form) == []
    type_text(form.equipment, "CSQU3054383")
    type_text(form.bills, "BOL-FIRST")
    _click(qtbot, pane.track_button)
    await wait_until(lambda: pane.model.rowCount() == 1 and pane.track_button.isEnabled(), 30)
    assert pane.notice.text() == "Tracking CSQU3054383"
    first = pane.model.items[0].shipment.master_shipment_id
    offered = [form.master.itemText(i) for i in range(form.master.count())]
    assert offered == ["", "CSQU3054383 (BOL-FIRST)"]
    assert leaks(pane) == []
    # Chosen by the keyboard: the box focused, Down picks the first leg offered.
    form.master.setFocus()
    qtbot.keyClick(form.master, Qt.Key.Key_Down)
    assert form.master.currentText() == "CSQU3054383 (BOL-FIRST)"
    type_text(form.equipment, "MSKU1234565")
    type_text(form.bills, "BOL-SECOND")
    _click(qtbot, pane.track_button)
    await wait_until(lambda: pane.model.rowCount() == 2 and pane.track_button.isEnabled(), 30)
    # As the service listed them back.
    stored = {identifiers_text(leg): leg.shipment.master_shipment_id for leg in pane.model.items}
    assert stored == {"BOL-FIRST": first, "BOL-SECOND": first}
    # The move stays named by its first leg, newest listed first or not: the new leg is not
    # offered as the same move as itself.
    assert form.equipment.text() == "MSKU1234565"
    assert form.master.currentText() == "CSQU3054383 (BOL-FIRST)"
    offered = [form.master.itemText(i) for i in range(form.master.count())]
    assert offered == ["", "CSQU3054383 (BOL-FIRST)"]
    # The new leg picked: its detail names the other leg of its move, not the uuids.
    await wait_until(lambda: "Same move as" in pane.detail.toPlainText(), 10)
    assert "Same move as CSQU3054383 (BOL-FIRST)" in pane.detail.toPlainText()
    # The service's own messages are shown as it gave them (their field named in words), but
    # the move they link to is named as the form names it, not by its uuid.
    said = pane.messages.text()
    assert "Info (same move as): Linked to the move of CSQU3054383 (BOL-FIRST) as leg 2" in said
    assert str(first) not in said and str(first) not in pane.detail.toPlainText()
    assert "Info: No stops were given" in said  # not the request's "shipmentStops"
    assert leaks(pane) == []
    pane.shutdown()
