"""The Carrier capacity pane against the real local service: the tenant's carriers ranked by
their tracked truckloads, sorted by a header's click, a lane, the figures explained, refused
inputs beside their field, the answer kept (with its age) when the service goes away."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from freightdesk.models.numbers import NOT_A_NUMBER, NOT_WHOLE
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.capacity.pane import CapacityPane
from tests.proxy import Fault, FaultyProxy
from tests.server.test_capacity import TORONTO, truckload
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell, clock_text
from tests.ui.conftest import close_session
from tests.ui.forms_keys import click, keys, refusal
from tests.ui.plain_words import leaks
from tests.ui.sort_arrows import arrow_of
from tests.ui.test_capacity_support import type_text
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_panes_support import connected, proxied, shown_pane

__all__ = ["connected", "proxied"]

CARRIERS = "/api/v4/tl/connected-capacity/carriers/search"


def _carriers(tenant: TenantHandle) -> None:
    """ABCD: three truckloads, one of them tracked, all on time; WXYZ: one, late, tracked."""
    truckload(tenant, "ABCD", tracked=True)
    truckload(tenant, "ABCD")
    truckload(tenant, "ABCD", days_ago=200)
    truckload(tenant, "WXYZ", pickup_late_hours=5, delivery_late_hours=5, tracked=True)


def _scacs(pane: CapacityPane) -> list[str]:
    return [c.carrier_identifier.value for c in pane.model.items]


def _click_header(qtbot: QtBot, pane: CapacityPane, column: int) -> None:
    header = pane.table.horizontalHeader()
    where = QPoint(header.sectionViewportPosition(column) + 10, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=where)


async def test_ranks_sorts_by_a_header_and_explains_the_figures(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], qtmodeltester: object
) -> None:
    session, tenant = connected
    _carriers(tenant)
    pane = await shown_pane(qtbot, session, CapacityPane)
    # Every carrier at once, by volume (the interface's default order).
    await wait_until(lambda: _scacs(pane) == ["ABCD", "WXYZ"], 30)
    qtmodeltester.check(pane.model)  # type: ignore[attr-defined]
    keys = mnemonics(pane)  # Alt+letter: each once, none of the menus'
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys
    assert pane.count_label.text() == "2 carriers" and not pane.empty.isVisible()
    # "Highest first": the arrow on Shipments points down, as the rows go.
    assert pane.direction.currentText() == "Highest first"
    assert (
        pane.table.horizontalHeader().sortIndicatorSection() == 1 and arrow_of(pane.table) == "down"
    )
    model = pane.model
    assert model.data(model.index(0, 1)) == "3" and model.data(model.index(1, 3)) == "0%"
    assert clock_text(cell(model, 0, "Last shipment"))  # the one clock, the zone named

    header_tip = model.headerData(3, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "365 days" in header_tip and "within 2 hours" in header_tip
    cell_tip = model.data(model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
    assert cell_tip.startswith("100% of 3 deliveries measured in the past 365 days")
    assert "2 hours" in cell_tip
    tracked_tip = model.data(model.index(0, 5), Qt.ItemDataRole.ToolTipRole)
    assert (
        tracked_tip == "33% of 3 shipments in the past 365 days had at least one tracking update."
    )

    # A click on "Tracked" asks the service for that order; a second click turns it round.
    _click_header(qtbot, pane, 5)
    await wait_until(lambda: _scacs(pane) == ["WXYZ", "ABCD"], 30)
    assert pane.sort_by.currentData() == "PERCENT_TRACKED"
    assert pane.table.horizontalHeader().sortIndicatorSection() == 5
    _click_header(qtbot, pane, 5)
    await wait_until(lambda: _scacs(pane) == ["ABCD", "WXYZ"] and not pane.run.running, 30)
    assert pane.direction.currentData() == "ASC"
    order = pane.table.horizontalHeader().sortIndicatorOrder()
    assert order == Qt.SortOrder.AscendingOrder and arrow_of(pane.table) == "up"
    # A long carrier name cut in its cell is told whole in the tooltip.
    carrier = model.data(model.index(0, 0))
    assert model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole) == carrier

    # A filter: deliveries on schedule above 50% keeps the punctual carrier.
    type_text(pane.minimums["minimumDeliveryScheduleReliability"], "50")
    qtbot.keyClick(pane.minimums["minimumDeliveryScheduleReliability"], Qt.Key.Key_Return)
    await wait_until(lambda: _scacs(pane) == ["ABCD"] and not pane.run.running, 30)
    assert pane.count_label.text() == "1 carrier"
    pane.shutdown()


async def test_a_lane_and_an_empty_answer_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _carriers(tenant)
    truckload(tenant, "LNCR", destination=TORONTO)
    pane = await shown_pane(qtbot, session, CapacityPane)
    await wait_until(lambda: len(_scacs(pane)) == 3, 30)
    assert not pane.origin.isEnabled()

    qtbot.mouseClick(pane.lane, Qt.MouseButton.LeftButton)
    assert pane.origin.isEnabled()
    type_text(pane.origin.parts["postalCode"], "606")  # a 3-digit ZIP lane
    type_text(pane.destination.parts["country"], "CA")
    pane.search()
    await wait_until(lambda: _scacs(pane) == ["LNCR"] and not pane.run.running, 30)

    type_text(pane.destination.parts["country"], "MX")
    pane.search()
    await wait_until(lambda: pane.model.rowCount() == 0 and not pane.run.running, 30)
    assert pane.empty.isVisible()
    assert pane.empty.text().startswith(
        "No carrier on this lane has tracked truckloads of yours in the past 365 days."
    )
    pane.shutdown()


async def test_refused_inputs_are_shown_beside_their_field(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _carriers(tenant)
    pane = await shown_pane(qtbot, session, CapacityPane)
    await wait_until(lambda: len(_scacs(pane)) == 2, 30)
    type_text(pane.minimums["minimumTrackingPercentage"], "150")
    type_text(pane.minimums["minimumPickupScheduleReliability"], "half")
    type_text(pane.carrier, "A1")
    pane.lane.setChecked(True)
    type_text(pane.destination.parts["city"], "Dallas")
    pane.search()
    message = pane.errors.message_for("minimumTrackingPercentage")
    assert message == "Enter a percentage from 0 to 100", message
    assert pane.errors.message_for("minimumPickupScheduleReliability") == NOT_A_NUMBER
    message = pane.errors.message_for("carrierIdentifier")
    assert message == "'A1' is not a SCAC (2 to 4 letters)", message
    assert "Name at least one of city" in pane.errors.message_for("origin")
    assert not pane.run.running and len(_scacs(pane)) == 2  # nothing was sent
    assert pane.minimums["minimumTrackingPercentage"].text() == "150"
    assert leaks(pane) == []  # no validator's words, as a new user read beside the carrier
    pane.shutdown()


async def test_a_minimum_is_read_by_the_one_number_rule(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """As in every form: a two-way 1,500 and "nan" are refused beside the field in the other
    forms' words, 1,5 is a number but not a whole one, and 50,0 is 50."""
    session, tenant = connected
    _carriers(tenant)
    pane = await shown_pane(qtbot, session, CapacityPane)
    await wait_until(lambda: len(_scacs(pane)) == 2 and not pane.run.running, 30)
    name = "minimumDeliveryScheduleReliability"
    edit = pane.minimums[name]
    for typed, words in (
        ("1,500", "1,500 could be 1500 or 1.5: type one of those"),
        ("nan", NOT_A_NUMBER),
        ("1,5", NOT_WHOLE),
    ):
        said = await refusal(qtbot, {edit: typed}, pane.search_button, pane.errors, name)
        assert said == words, typed
        assert edit.text() == typed and not pane.run.running  # kept; nothing asked
    await keys(qtbot, edit, "50,0")
    await click(qtbot, pane.search_button)
    await wait_until(lambda: _scacs(pane) == ["ABCD"] and not pane.run.running, 30)
    assert pane.errors.message_for(name) == ""
    pane.shutdown()


async def test_the_answer_stays_with_its_age_when_the_service_goes_away(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    _carriers(tenant)
    pane = await shown_pane(qtbot, session, CapacityPane)
    await wait_until(lambda: len(_scacs(pane)) == 2, 30)
    assert pane.run.age.text() == "Figures as of just now"

    proxy.inject(Fault(status=503, path_prefix=CARRIERS, forward=False), times=10)
    pane.refresh()
    await wait_until(lambda: "Showing the last known list" in pane.notice.text(), 30)
    assert _scacs(pane) == ["ABCD", "WXYZ"] and "not current" in pane.run.age.text()
    # A search meanwhile says why under the form and keeps what was typed.
    type_text(pane.carrier, "WXYZ")
    pane.search()
    await wait_until(lambda: pane.errors.general.isVisible(), 30)
    assert pane.carrier.text() == "WXYZ" and _scacs(pane) == ["ABCD", "WXYZ"]
    proxy.clear()
    pane.search()
    await wait_until(lambda: _scacs(pane) == ["WXYZ"], 30)
    assert not pane.errors.general.isVisible()
    pane.shutdown()
    await close_session(session)

    # A new pane without the service: the last answer, its search and its age.
    again = CapacityPane(session)
    qtbot.addWidget(again)
    await wait_until(lambda: _scacs(again) == ["WXYZ"] and again.carrier.text() == "WXYZ")
    assert again.run.age.text().startswith("Figures as of just now (not current")
    again.shutdown()


async def test_a_carrier_is_found_by_its_name_and_asked_for_by_its_scac(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    """The walkthrough's 'Blue Mesa' typed in the Carrier filter: offered as the carrier the
    app knows, sent as its SCAC; a name the app does not know is said so beside the field."""
    session, tenant, proxy = proxied
    _carriers(tenant)
    truckload(tenant, "BMFL", tracked=True)
    pane = await shown_pane(qtbot, session, CapacityPane)
    await wait_until(lambda: len(_scacs(pane)) == 3, 30)
    shown = [cell(pane.model, row, "Carrier") for row in range(3)]
    assert "Blue Mesa Freight Lines (BMFL)" in shown, shown

    await keys(qtbot, pane.carrier, "Mesa")
    completer = pane.carrier.completer()
    assert completer is not None and completer.currentCompletion() == (
        "Blue Mesa Freight Lines (BMFL)"
    )
    await keys(qtbot, pane.carrier, "blue mesa")
    before = len(proxy.sent("POST", CARRIERS))
    await click(qtbot, pane.search_button)
    await wait_until(lambda: _scacs(pane) == ["BMFL"], 30)
    asked = [body.get("carrierIdentifier") for body in proxy.sent("POST", CARRIERS)[before:]]
    assert asked == [{"type": "SCAC", "value": "BMFL"}], asked
    assert pane.errors.message_for("carrierIdentifier") == ""

    await keys(qtbot, pane.carrier, "Blu Mesa")
    await click(qtbot, pane.search_button)
    message = pane.errors.message_for("carrierIdentifier")
    assert message == "No carrier the app knows is named 'Blu Mesa'; type its SCAC", message
    assert _scacs(pane) == ["BMFL"] and len(proxy.sent("POST", CARRIERS)) == before + 1
    pane.shutdown()
