"""The Available vehicles pane against the real local service and the demo's truck pool: a
search round a point and round an address, sorted by a header's click, refused inputs beside
their field (the app's checks and the service's), and a tenant outside the capacity co-op told
so in words instead of an empty table."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.vehicles.pane import VehiclesPane
from tests.server.test_vehicles import CHICAGO
from tests.service.test_vehicles_service import demo_pool
from tests.support import TenantHandle, wait_until
from tests.ui.test_capacity_support import type_text
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]


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
    session, tenant = connected
    demo_pool(tenant)
    pane = await shown_pane(qtbot, session, VehiclesPane)
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
    session, tenant = connected
    demo_pool(tenant)
    pane = await shown_pane(qtbot, session, VehiclesPane)
    # The app's checks, before sending: the radius's bounds in its unit, the missing state.
    type_text(pane.form.street.edits["addressLines"], "1 Main St")
    type_text(pane.form.place.edits["city"], "Chicago")
    type_text(pane.form.place.edits["postalCode"], "60606")
    type_text(pane.form.radius, "60")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert pane.errors.message_for("radius") == "must be from 10 to 50 MI"
    state = pane.errors.message_for("address.state")
    assert state == "State: is required for an address in US"
    assert not pane.run.running  # nothing was sent
    # Typed text is kept, and a number that is not one is refused beside its field.
    assert pane.form.place.edits["city"].text() == "Chicago"
    type_text(pane.form.radius, "far")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    assert "integer" in pane.errors.message_for("radius")

    # The service's refusal, beside the field it names: an address it cannot locate.
    type_text(pane.form.radius, "")
    type_text(pane.form.place.edits["city"], "Nowhere")
    type_text(pane.form.place.edits["state"], "IL")
    type_text(pane.form.place.edits["postalCode"], "00000")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: "cannot be located" in pane.errors.message_for("address"), 30)
    assert pane.form.place.edits["city"].text() == "Nowhere"
    pane.shutdown()


async def test_a_tenant_outside_the_coop_is_told_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, VehiclesPane)
    _at_chicago(pane)
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.empty.isVisible() and not pane.run.running, 30)
    text = pane.empty.text()
    assert text.startswith("Your organisation has not opted into a capacity co-op")
    assert "freightdesk tenant feature" in text  # the service's own words, how to opt in
    assert not pane.table.isVisible() and not pane.page_bar.isVisible()
    assert pane.errors.general.isHidden()  # an answer, not a failure
    pane.shutdown()
