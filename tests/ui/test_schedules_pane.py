"""The Sailing schedules pane against the real local service: find sailings between two ports,
page through them, pick ports by name (the world's ports from the start, and as the service
names them), refused inputs beside
their field, the answer kept (with its age) when the service goes away."""

from __future__ import annotations

import re
from datetime import date, timedelta

from PySide6.QtCore import QDate, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.schedules.pane import SchedulesPane
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import DAY, cell
from tests.ui.conftest import close_session
from tests.ui.test_capacity_support import type_text
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import connected, proxied, shown_pane

__all__ = ["connected", "proxied"]

ROUTES = "/services/advanced-sailing-schedules/v1/point-to-point-routes"


def _qdate(value: date) -> QDate:
    return QDate(value.year, value.month, value.day)


async def _searched(pane: SchedulesPane, qtbot: QtBot, origin: str, destination: str) -> None:
    type_text(pane.origin, origin)
    type_text(pane.destination, destination)
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.run.running and pane.model.rowCount() > 0, 30)


async def test_finds_sailings_pages_and_learns_port_names(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], qtmodeltester: object
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane)
    # Ten weeks of weekly loops: more sailings than one page holds.
    today = date.today()
    pane.departure.end.setDate(_qdate(today + timedelta(days=70)))
    await _searched(pane, qtbot, "cnsha", "NLRTM")
    qtmodeltester.check(pane.model)  # type: ignore[attr-defined]
    keys = mnemonics(pane)  # Alt+letter: each once, none of the menus'
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys

    label = pane.page_bar.label.text()
    assert label.startswith("1\u201325 of ") and label.endswith(" sailings"), label
    routes = list(pane.model.items)
    assert all(r.departure.locode == "CNSHA" and r.arrival.locode == "NLRTM" for r in routes)
    departures = [r.departure.date_time for r in routes]
    assert departures == sorted(departures)
    # The route line reads the legs in order, by the ports' names (a dispatcher reads
    # "Rotterdam", not NLRTM), with each vessel and its days at sea.
    line = pane.model.data(pane.model.index(0, 5))
    legs = routes[0].legs
    assert line.startswith("Shanghai \u2192 [") and line.endswith("] \u2192 Rotterdam"), line
    assert all(f"{leg.vessel_name} {leg.voyage_number}" in line for leg in legs)
    assert f"{legs[0].transit_time_days} day" in line
    # The port's own time, its zone named as the Shipments pane names zones (the one clock):
    # Rotterdam's CET or CEST, not "UTC+01"; Shanghai's by its offset, as its "CST" (China
    # Standard Time) read as US Central to a dispatcher.
    for row in range(pane.model.rowCount()):
        assert re.fullmatch(rf"{DAY} \d\d:\d\d UTC\+08", cell(pane.model, row, "Departs"))
        assert re.fullmatch(rf"{DAY} \d\d:\d\d CES?T", cell(pane.model, row, "Arrives"))
    # A hub by its name in the list; said whole with its code in the tooltips.
    via = next(r for r, route in enumerate(routes) if route.transshipments)
    hub = routes[via].transshipments[0]
    assert cell(pane.model, via, "Stops") == f"Via {hub.port_name}"
    tip = pane.model.index(via, 4).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == f"1 transshipment: {hub.port_name}, {hub.country} ({hub.locode})", tip
    detail = pane.model.index(via, 5).data(Qt.ItemDataRole.ToolTipRole)
    assert f"\u2192 {hub.port_name}, {hub.country} ({hub.locode}) " in detail, detail
    pane.table.selectRow(0)
    assert "cargo cut-off" in pane.detail.text()
    assert pane.run.age.text() == "Sailings as of just now"

    assert pane.page_bar.next_button.isEnabled()
    qtbot.mouseClick(pane.page_bar.next_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: pane.page_bar.label.text().startswith("26\u2013"), 30)
    assert pane.page_bar.previous_button.isEnabled()
    assert {r.route_id for r in pane.model.items}.isdisjoint(r.route_id for r in routes)

    # The ports the service named are offered by name; a name picks the port.
    names = pane.port_names.stringList()
    assert "Shanghai, CN (CNSHA)" in names and "Rotterdam, NL (NLRTM)" in names
    pane.transshipments.setCurrentIndex(pane.transshipments.findData(0))  # direct only
    type_text(pane.origin, "Rotterdam")
    type_text(pane.destination, "Shanghai, CN (CNSHA)")
    qtbot.keyClick(pane.destination, Qt.Key.Key_Return)
    await wait_until(
        lambda: (
            not pane.run.running
            and bool(pane.model.items)
            and pane.model.items[0].departure.locode == "NLRTM"
        ),
        30,
    )
    assert all(r.transshipment_count == 0 for r in pane.model.items)
    assert pane.page_bar.label.text().startswith("1\u2013")
    pane.shutdown()


async def test_a_first_search_by_the_ports_names(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user types the ports' names, as the placeholder suggests ("e.g. Shanghai"): no
    search has named a port yet, and the interface has no port lookup."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane)
    await wait_until(lambda: "Shanghai, CN (CNSHA)" in pane.port_names.stringList(), 10)
    await _searched(pane, qtbot, "Shanghai", "rotterdam")
    routes = list(pane.model.items)
    assert all(r.departure.locode == "CNSHA" and r.arrival.locode == "NLRTM" for r in routes)
    pane.shutdown()


async def test_a_click_on_search_while_the_ports_list_is_open_searches(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The completer's list open under a port typed in part: the first click on Search is
    not spent closing it; the one port it offers is the one searched."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane)
    await wait_until(lambda: "Rotterdam, NL (NLRTM)" in pane.port_names.stringList(), 10)
    type_text(pane.origin, "Shanghai")
    pane.activateWindow()
    pane.destination.setFocus()
    await _from_loop(lambda: qtbot.keyClicks(pane.destination, "rotterd"))
    popup = pane.destination.completer().popup()
    assert popup is not None
    await wait_until(popup.isVisible)
    # The press goes to the open popup, as the window system gives it the mouse.
    spot = popup.mapFromGlobal(pane.search_button.mapToGlobal(pane.search_button.rect().center()))
    await _from_loop(lambda: qtbot.mouseClick(popup, Qt.MouseButton.LeftButton, pos=spot))
    assert not popup.isVisible()
    assert pane.destination.text() == "Rotterdam, NL (NLRTM)"
    await wait_until(lambda: not pane.run.running and pane.model.rowCount() > 0, 30)
    assert all(r.arrival.locode == "NLRTM" for r in pane.model.items)
    pane.shutdown()


async def test_refused_inputs_are_shown_beside_their_field(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane)
    # Checked before sending: no port, an end before the start, no window at all.
    type_text(pane.destination, "NLRTM")
    pane.departure.end.setDate(_qdate(date.today() - timedelta(days=3)))
    pane.search()
    assert "Enter a port" in pane.errors.message_for("origin")
    assert pane.errors.message_for("departureStartDate") == (
        "Must not be before the first departure day"
    )
    assert pane.origin.hasFocus() or not pane.isActiveWindow()
    pane.departure.enabled.setChecked(False)
    type_text(pane.origin, "Atlantis")
    pane.search()
    assert "not a port FreightDesk knows" in pane.errors.message_for("origin")
    assert "departure window or an arrival window" in pane.errors.message_for("departureStartDate")
    assert pane.model.rowCount() == 0 and not pane.run.running

    # Refused by the service (a UN/LOCODE no carrier calls at): said beside the port, the
    # form as typed.
    pane.arrival.enabled.setChecked(True)
    type_text(pane.origin, "ZZZZZ")
    type_text(pane.carrier_codes, "HOCS")
    pane.search()
    await wait_until(lambda: bool(pane.errors.message_for("origin")), 30)
    assert "not a port that any live carrier calls at" in pane.errors.message_for("origin")
    assert pane.origin.text() == "ZZZZZ" and pane.carrier_codes.text() == "HOCS"
    assert pane.arrival.enabled.isChecked() and pane.search_button.isEnabled()

    # A carrier that is not live: beside the carriers.
    type_text(pane.origin, "CNSHA")
    type_text(pane.carrier_codes, "HOCS, QQQ")
    pane.search()
    await wait_until(lambda: bool(pane.errors.message_for("carrierCodes")), 30)
    assert "QQQ is not a live carrier" in pane.errors.message_for("carrierCodes")
    assert not pane.errors.message_for("origin")
    pane.shutdown()


async def test_the_answer_stays_with_its_age_when_the_service_goes_away(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, _tenant, proxy = proxied
    pane = await shown_pane(qtbot, session, SchedulesPane)
    await _searched(pane, qtbot, "SGSIN", "USLAX")
    shown = [r.route_id for r in pane.model.items]

    proxy.inject(Fault(status=503, path_prefix=ROUTES, forward=False), times=10)
    pane.refresh()
    await wait_until(lambda: "Showing the last known list" in pane.notice.text(), 30)
    assert [r.route_id for r in pane.model.items] == shown
    assert "not current" in pane.run.age.text()

    # A search meanwhile fails under the form; what was typed stays for the next try.
    type_text(pane.destination, "NLRTM")
    pane.search()
    await wait_until(lambda: pane.errors.general.isVisible(), 30)
    assert pane.destination.text() == "NLRTM"
    assert [r.route_id for r in pane.model.items] == shown
    proxy.clear()
    pane.search()
    await wait_until(
        lambda: bool(pane.model.items) and pane.model.items[0].arrival.locode == "NLRTM", 30
    )
    assert not pane.errors.general.isVisible() and not pane.notice.isVisible()
    assert pane.run.age.text() == "Sailings as of just now"
    pane.shutdown()


async def test_opens_with_the_last_answer_and_its_search(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane)
    pane.sort.setCurrentIndex(pane.sort.findData("TRANSIT_TIME"))
    await _searched(pane, qtbot, "CNSHA", "DEHAM")
    count = pane.model.rowCount()
    pane.shutdown()
    await close_session(session)
    # A new pane on the same profile, without the service: the answer, its search and age.
    again = SchedulesPane(session)
    qtbot.addWidget(again)
    await wait_until(lambda: again.model.rowCount() == count and bool(again.origin.text()))
    assert again.origin.text() == "Shanghai, CN (CNSHA)"
    assert again.destination.text() == "Hamburg, DE (DEHAM)"
    assert again.sort.currentData() == "TRANSIT_TIME"
    assert again.departure.enabled.isChecked() and not again.arrival.enabled.isChecked()
    assert again.run.age.text().startswith("Sailings as of just now (not current")
    again.shutdown()


async def test_the_last_search_never_overwrites_what_the_user_typed_meanwhile(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, SchedulesPane)
    await _searched(pane, qtbot, "CNSHA", "DEHAM")
    count = pane.model.rowCount()
    pane.shutdown()
    # A new pane on the profile: the user types before the last search is put back.
    again = SchedulesPane(session)
    qtbot.addWidget(again)
    type_text(again.destination, "NLRTM")
    # The last answer shown and the ports read (the moment the search would be put back).
    await wait_until(lambda: again.model.rowCount() == count and bool(again.ports))
    assert again.destination.text() == "NLRTM"
    assert again.origin.text() == ""
    again.shutdown()
