"""The Available vehicles pane against the real local service and the demo's truck pool: a
search round a point and round an address, sorted by a header's click, refused inputs beside
their field (the app's checks and the service's), and a tenant outside the capacity co-op told
so in words instead of an empty table."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.vehicles.pane import CONTACT, VehiclesPane
from freightdesk.ui.widgets.forms import ErrorLabel
from tests.server.test_vehicles import CHICAGO
from tests.service.test_vehicles_service import demo_pool
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell, clock_text
from tests.ui.placeholders import text_whole
from tests.ui.test_capacity_support import type_text
from tests.ui.test_columns_fit import AT_1366, AT_1440, assert_columns_fit
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_maps import (
    OFFLINE_TILES,
    WEBENGINE_STARTUP,
    evaluate,
    webengine_survives_loop_exits,
)
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected", "webengine_survives_loop_exits"]
pytestmark = pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)
MILE = 1609.344


def _pane(session: AppSession) -> VehiclesPane:
    return VehiclesPane(session, tiles=OFFLINE_TILES)


async def _demo_pane(qtbot: QtBot, connected: tuple[AppSession, TenantHandle]) -> VehiclesPane:
    """The pane shown for a tenant in a co-op pool holding the demo's trucks."""
    session, tenant = connected
    demo_pool(tenant)
    return await shown_pane(qtbot, session, _pane)


async def _map_stats(pane: VehiclesPane) -> dict[str, object]:
    assert pane.map is not None
    if not pane.map.is_ready:
        return {}
    found = json.loads(
        await evaluate(pane.map, "JSON.stringify(FD.vehiclesStats ? FD.vehiclesStats() : {})")
    )
    assert isinstance(found, dict)
    return found


def _click_header(qtbot: QtBot, pane: VehiclesPane, column: int) -> None:
    header = pane.table.horizontalHeader()
    where = QPoint(header.sectionViewportPosition(column) + 10, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=where)


def _at_chicago(pane: VehiclesPane) -> None:
    pane.form.where.setCurrentIndex(pane.form.where.findData("point"))
    type_text(pane.form.point.edits["latitude"], f"{CHICAGO.latitude}")
    type_text(pane.form.point.edits["longitude"], f"{CHICAGO.longitude}")


async def test_finds_vehicles_and_sorts_by_a_header(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], qtmodeltester: object
) -> None:
    pane = await _demo_pane(qtbot, connected)
    keys = mnemonics(pane)  # Alt+letter: each once, none of the menus'
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys
    # The address does not apply to a search round a point: it looks disabled and says why.
    _at_chicago(pane)
    assert not pane.form.address.isEnabled() and "An address" in pane.form.address.toolTip()
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.model.rowCount() > 0 and not pane.run.running, 30)
    qtmodeltester.check(pane.model)  # type: ignore[attr-defined]
    miles = [v.distance.value for v in pane.model.items]
    assert miles == sorted(miles) and miles[-1] <= 25  # nearest first, the default radius
    assert pane.model.data(pane.model.index(0, 2)).endswith(" mi")
    assert clock_text(cell(pane.model, 0, "Ready"))  # the one clock, the zone named
    assert pane.table.horizontalHeader().sortIndicatorSection() == 2
    assert pane.page_bar.label.text().startswith("1\u2013")
    assert not pane.empty.isVisible()

    # A click on "Truck" asks the service for that order; a second click turns it round.
    _click_header(qtbot, pane, 1)
    assert pane.run.running  # asked at once
    await wait_until(lambda: not pane.run.running and _ascending(pane), 30)
    assert pane.sort[0].field.value == "truckType" and not pane.sort[0].descending
    assert pane.table.horizontalHeader().sortIndicatorSection() == 1
    assert pane.table.horizontalHeader().sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    _click_header(qtbot, pane, 1)
    await wait_until(lambda: not pane.run.running and _descending(pane), 30)
    order = pane.table.horizontalHeader().sortIndicatorOrder()
    assert order == Qt.SortOrder.DescendingOrder

    # Round an address, in kilometres, reefers only; Return in a field searches.
    pane.form.where.setCurrentIndex(pane.form.where.findData("address"))
    type_text(pane.form.street.edits["addressLines"], "233 S Wacker Dr")
    type_text(pane.form.place.edits["city"], "Chicago")
    type_text(pane.form.place.edits["state"], "IL")
    type_text(pane.form.place.edits["postalCode"], "60606")
    pane.form.unit.setCurrentIndex(pane.form.unit.findData("KM"))
    type_text(pane.form.radius, "80")
    pane.form.truck.setCurrentIndex(pane.form.truck.findData("REEFER"))
    qtbot.keyClick(pane.form.radius, Qt.Key.Key_Return)
    await wait_until(
        lambda: (
            not pane.run.running
            and pane.model.rowCount() > 0
            and {v.truck_type.value for v in pane.model.items} == {"REEFER"}
            and {v.distance.unit.value for v in pane.model.items} == {"KM"}
        ),
        30,
    )
    pane.shutdown()


def _trucks(pane: VehiclesPane) -> list[str]:
    return [v.truck_type.value for v in pane.model.items]


def _ascending(pane: VehiclesPane) -> bool:
    trucks = _trucks(pane)
    return len(set(trucks)) > 1 and trucks == sorted(trucks)


def _descending(pane: VehiclesPane) -> bool:
    trucks = _trucks(pane)
    return len(set(trucks)) > 1 and trucks == sorted(trucks, reverse=True)


async def test_refused_inputs_are_shown_beside_their_field(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    pane = await _demo_pane(qtbot, connected)
    # The app's checks, before sending: the radius's bounds in its unit, the missing state.
    type_text(pane.form.street.edits["addressLines"], "1 Main St")
    type_text(pane.form.place.edits["city"], "Chicago")
    type_text(pane.form.place.edits["postalCode"], "60606")
    type_text(pane.form.radius, "60")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("radius") == "Enter from 10 to 50 miles"
    # Its unit as the app names units everywhere ("Kilometers", not "kilometres").
    pane.form.unit.setFocus()
    qtbot.keyClicks(pane.form.unit, "K")
    assert pane.form.unit.currentText() == "Kilometers"
    assert pane.form.radius.toolTip() == "From 16 to 80 kilometers; 40 when left empty."
    type_text(pane.form.radius, "90")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("radius") == "Enter from 16 to 80 kilometers"
    state = pane.errors.message_for("address.state")
    assert state == "State: Required for an address in US"
    assert not pane.run.running  # nothing was sent
    # Typed text is kept, and a number that is not one is refused beside its field.
    assert pane.form.place.edits["city"].text() == "Chicago"
    type_text(pane.form.radius, "far")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("radius") == "Enter a whole number, such as 15"

    # The service's refusal, beside the field it names: an address it cannot locate.
    type_text(pane.form.radius, "")
    type_text(pane.form.place.edits["city"], "Nowhere")
    type_text(pane.form.place.edits["state"], "IL")
    type_text(pane.form.place.edits["postalCode"], "00000")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: "Cannot be located" in pane.errors.message_for("address"), 30)
    assert pane.form.place.edits["city"].text() == "Nowhere"
    pane.shutdown()


async def test_a_tenant_outside_the_coop_is_told_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, _pane)
    _at_chicago(pane)
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.empty.isVisible() and not pane.run.running, 30)
    text = pane.empty.text()
    assert text.startswith("Your organisation has not opted into a capacity co-op")
    assert "freightdesk tenant feature" in text  # the service's own words, how to opt in
    assert not pane.table.isVisible() and not pane.page_bar.isVisible()
    assert pane.map is not None and not pane.map.isVisible()
    assert pane.errors.general.isHidden()  # an answer, not a failure
    pane.shutdown()


async def test_the_map_shows_the_vehicles_and_the_search_circle(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    pane = await _demo_pane(qtbot, connected)
    _at_chicago(pane)
    type_text(pane.form.radius, "30")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.model.rowCount() > 0 and not pane.run.running, 30)
    assert pane.map is not None
    rows = pane.model.rowCount()
    stats: dict[str, object] = {}

    async def drawn() -> bool:
        nonlocal stats
        stats = await _map_stats(pane)
        return stats.get("vehicles") == rows

    await _until(drawn, "the page's vehicles on the map")
    assert stats["circle"] == pytest.approx(30 * MILE)
    assert stats["centre"] == pytest.approx([CHICAGO.latitude, CHICAGO.longitude])

    # A vehicle clicked on the map is the row selected; the row selected is marked on it.
    second = pane.model.items[1]
    key = str(second.vehicle_id)
    await evaluate(pane.map, f"FD._bridge().itemClicked('vehicle:{key}')")
    await wait_until(lambda: pane.table.selected() == second, 15)

    async def marked() -> bool:
        return (await _map_stats(pane)).get("selected") == key

    await _until(marked, "the selected vehicle marked")

    # A point clicked on the map is the next search's centre.
    await evaluate(pane.map, "FD._bridge().itemClicked('pick:41.5,-88.1')")
    await wait_until(
        lambda: pane.form.point.edits["latitude"].text() == "41.50000" and not pane.run.running,
        30,
    )

    async def moved() -> bool:
        return (await _map_stats(pane)).get("centre") == [41.5, -88.1]

    await _until(moved, "the circle round the point clicked")
    assert pane.map.map_page.console_errors == []
    pane.shutdown()


async def _until(check: Callable[[], Awaitable[bool]], what: str, seconds: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await check():
        assert loop.time() < deadline, f"not seen in {seconds} s: {what}"
        await asyncio.sleep(0.1)


async def test_an_empty_list_says_how_to_fill_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, _pane, AT_1366)
    await wait_until(lambda: pane.hint.isVisible() and pane.form.start.isVisible(), 30)
    assert "then Search" in pane.hint.text()
    # The window's times are read whole in the narrow form beside the list at 1366.
    for edit in (pane.form.start, pane.form.end):
        assert edit.width() >= edit.sizeHint().width(), (edit.text(), edit.width())
    pane.shutdown()


async def test_every_problem_of_a_point_shows_at_the_first_search(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """Latitude 999 and longitude "abc": only the longitude's problem showed, the latitude's
    (and a radius out of bounds) at the next search once the longitude was fixed."""
    pane = await _demo_pane(qtbot, connected)
    form = pane.form
    form.where.setFocus()
    qtbot.keyClick(form.where, Qt.Key.Key_Down)  # "A point (latitude, longitude)"
    latitude, longitude = form.point.edits["latitude"], form.point.edits["longitude"]
    type_text(latitude, "999")
    type_text(longitude, "abc")
    type_text(form.radius, "60")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    # In the words of the one coordinate rule (Stop locations say the same), not named twice.
    assert pane.errors.message_for("geoCoordinates.latitude") == "Latitude is between -90 and 90"
    assert pane.errors.message_for("geoCoordinates.longitude") == (
        "Longitude is between -180 and 180"
    )
    assert pane.errors.message_for("radius") == "Enter from 10 to 50 miles"
    # Each under its own box, read whole (the longitude's was under the latitude box).
    for box, message in zip(form.point.edits.values(), form.point.messages, strict=True):
        assert message.isVisible()
        at, under = box.mapTo(form, QPoint(0, 0)), message.mapTo(form, QPoint(0, 0))
        assert under.x() == at.x() and under.y() > at.y(), (message.text(), under, at)
        assert message.height() >= message.heightForWidth(message.width())
    assert form.window().focusWidget() is latitude  # the first one top to bottom
    assert not pane.run.running  # nothing was sent

    # The longitude fixed: its problem goes, the others stay; an emptied box is asked for.
    type_text(longitude, "-87.63")
    type_text(latitude, "")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("geoCoordinates.longitude") == ""
    assert pane.errors.message_for("geoCoordinates.latitude") == "Enter the latitude too"
    assert pane.errors.message_for("radius") == "Enter from 10 to 50 miles"
    assert not pane.run.running

    # A decimal comma reads as in every other number box (41,88 is 41.88); a two-way one
    # says so.
    type_text(latitude, "41,500")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("geoCoordinates.latitude") == (
        "Latitude: 41,500 could be 41500 or 41.5: type one of those"
    )
    type_text(latitude, "41,88")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("geoCoordinates.latitude") == ""
    assert pane.errors.message_for("radius") == "Enter from 10 to 50 miles"
    pane.shutdown()


async def test_problems_of_what_no_longer_applies_go(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user saw "Longitude: …" stay under the greyed point after choosing "An address"
    again, and after the next search."""
    pane = await _demo_pane(qtbot, connected)
    form = pane.form
    form.where.setFocus()
    qtbot.keyClick(form.where, Qt.Key.Key_Down)  # "A point (latitude, longitude)"
    assert form.point.isEnabled()
    type_text(form.point.edits["latitude"], "999")
    type_text(form.point.edits["longitude"], "abc")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("geoCoordinates.longitude").startswith("Longitude ")
    assert not pane.run.running  # nothing was sent
    # Back to an address: the point is greyed and says nothing any more.
    form.where.setFocus()
    qtbot.keyClick(form.where, Qt.Key.Key_Up)
    assert not form.point.isEnabled()
    assert not pane.errors.message_for("geoCoordinates.longitude")
    assert not pane.errors.message_for("geoCoordinates.latitude")
    # An address problem goes too once the point is chosen again.
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("address.city")
    form.where.setFocus()
    qtbot.keyClick(form.where, Qt.Key.Key_Down)
    assert not pane.errors.message_for("address.city")
    # The next search clears the old problems, whatever answers it.
    form.where.setFocus()
    qtbot.keyClick(form.where, Qt.Key.Key_Up)
    type_text(form.street.edits["addressLines"], "233 S Wacker Dr")
    type_text(form.place.edits["city"], "Chicago")
    type_text(form.place.edits["state"], "IL")
    type_text(form.place.edits["postalCode"], "60606")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.run.running and pane.model.rowCount() > 0, 30)
    shown = [e.text() for e in form.findChildren(ErrorLabel) if not e.isHidden()]
    assert shown == []
    pane.shutdown()


def _shown_contact(pane: VehiclesPane, row: int) -> tuple[str, bool]:
    """The contact as the row shows it (maybe a shorter form), and whether it reads whole."""
    table, index = pane.table, pane.model.index(row, CONTACT)
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.rect = table.visualRect(index)
    delegate = table.itemDelegateForIndex(index)
    delegate.initStyleOption(option, index)  # type: ignore[attr-defined]
    style = table.style()
    room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, table).width()
    room -= 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    shown = option.text
    return shown, option.fontMetrics.elidedText(shown, Qt.TextElideMode.ElideRight, room) == shown


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_contacts_phone_numbers_read_whole(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """The demo's trucks round Chicago: every contact's phone number reads whole (they were
    cut, "+1-800-555-01…"); at 1440x900 every column whole, names too."""
    session, tenant = connected
    demo_pool(tenant)
    pane = await shown_pane(qtbot, session, _pane, room)
    _at_chicago(pane)
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.model.rowCount() > 0 and not pane.run.running, 30)
    for row, vehicle in enumerate(pane.model.items):
        phone = vehicle.carrier_contact.phone_number
        shown, whole = _shown_contact(pane, row)
        assert whole and (not phone or phone in shown), (shown, phone)
    titles = [str(c.title) for c in pane.model.columns]
    assert_columns_fit(pane.table, pane, titles, whole=titles if room == AT_1440 else ())
    pane.shutdown()


@pytest.mark.parametrize("room", [AT_1366, AT_1440], ids=["1366", "1440"])
async def test_a_zip_code_reads_whole(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    """A five-digit ZIP typed in the address's ZIP box reads whole (the box was as wide as
    its hint "ZIP": "60436" showed as "6043")."""
    pane = await shown_pane(qtbot, connected[0], _pane, room)
    zip_box = pane.form.place.edits["postalCode"]
    qtbot.mouseClick(zip_box, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(zip_box, "60436")
    assert zip_box.text() == "60436" and text_whole(zip_box), zip_box.width()
    pane.shutdown()
