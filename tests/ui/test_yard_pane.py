"""The Yard slots pane against the real local service, driven as a user: the first site's
slots shown as the pane opens, and again as the site or the window changes; pick a site,
search a window, see its free slots on the day timeline and a slot's doors; add a site, see a
refused input beside its field (the form's own check and the service's), remove a site."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from PySide6.QtCore import QDateTime, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDateTimeEdit, QLabel, QMessageBox
from pytestqt.qtbot import QtBot
from sqlalchemy import select

from freightdesk.server.db import transaction
from freightdesk.server.domain import yard
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.yard import YardSiteRow
from freightdesk.service.session import AppSession
from freightdesk.service.yard import REFERENCE, WINDOW
from freightdesk.ui.panes.yard.pane import YardPane
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import DAY, ZONE
from tests.ui.test_capacity_support import type_text
from tests.ui.test_carrier_profiles_pane import OFFSCREEN_POPUP, click_through_popup
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import answer, connected, message_box, proxied, shown_pane

__all__ = ["connected", "proxied"]

SITES = "/services/appointments/v1/sites"
SLOTS = "/services/appointments/v1/slots"
CHICAGO = ZoneInfo("America/Chicago")


def _monday() -> datetime:
    """A Monday well ahead, midnight in Chicago: no slot of it has started."""
    today = datetime.now(CHICAGO).date()
    monday = today + timedelta(days=14 - today.weekday())
    return datetime(monday.year, monday.month, monday.day, tzinfo=CHICAGO)


def _site(tenant: TenantHandle, code: str = "DOCK-1") -> dict[str, Any]:
    body = {
        "code": code,
        "name": "Joliet Dock",
        "timeZone": "America/Chicago",
        "dockDoorCount": 3,
        "openingHours": [{"days": ["MON", "TUE", "WED", "THU", "FRI"], "opens": "08:00",
                          "closes": "12:00"}],
    }  # fmt: skip
    response = tenant.http.post(SITES, json=body)
    assert response.status_code == 201, response.text
    site: dict[str, Any] = response.json()
    return site


def _book_first_hour(tenant: TenantHandle, code: str, monday: datetime) -> None:
    with transaction(tenant.service.context.sessions) as session:
        # The service is shared by the tests: the site of this tenant.
        row = session.scalar(
            select(YardSiteRow)
            .join(Tenant, Tenant.id == YardSiteRow.tenant_id)
            .where(Tenant.name == tenant.name, YardSiteRow.code == code)
        )
        assert row is not None
        for door in row.dock_doors:
            yard.book(session, row, door, monday + timedelta(hours=8), 60, f"FULL-{door}")


def _set_time(edit: Any, moment: datetime) -> None:
    edit.setDateTime(QDateTime.fromSecsSinceEpoch(int(moment.timestamp())))


async def _sites_listed(pane: YardPane, count: int) -> None:
    """The sites listed and the first one's slots, asked for as the pane opened, shown."""
    await wait_until(lambda: pane.site.count() == count and len(pane.sites) == count, 30)
    await wait_until(lambda: not pane.search_pending and pane.answer is not None, 30)


async def test_pick_a_site_search_and_see_free_slots(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _site(tenant, "ATL-1")
    _site(tenant, "DOCK-1")
    monday = _monday()
    _book_first_hour(tenant, "DOCK-1", monday)
    pane = await shown_pane(qtbot, session, YardPane)
    await _sites_listed(pane, 2)
    assert pane.site_model.rowCount() == 2
    keys = mnemonics(pane)  # Alt+letter: each once, none of the menus'
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys

    pane.site.setCurrentIndex(pane.site.findData("DOCK-1"))
    _set_time(pane.start, monday)
    _set_time(pane.end, monday + timedelta(days=1))
    # The editors write the day as the clock does and say their zone (this computer's), as
    # every time in the app does: "Dec 1 2026 00:00 CST", not "2026-12-01 00:00 CST".
    shown = pane.start.text()
    assert re.fullmatch(rf"[A-Z][a-z]{{2}} \d{{1,2}} \d{{4}} \d\d:\d\d {ZONE}", shown), shown
    type_text(pane.reference, "SHP-1")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.searching and _answered(pane, "DOCK-1"), 30)
    assert pane.errors.message_for(REFERENCE) == ""
    days = pane.timeline.days
    assert len(days) == 1 and days[0][0] == monday.date()
    # The row's day as the clock's days read ("Mon Dec 1"), not "Mon 01 Dec".
    assert re.fullmatch(rf"Mon {DAY}", pane.timeline.row_label(0)), pane.timeline.row_label(0)
    slots = days[0][1]
    assert [s.start_date_time.strftime("%H:%M") for s in slots] == [
        "08:00", "09:00", "10:00", "11:00"
    ]  # fmt: skip
    assert [s.available for s in slots] == [False, True, True, True]
    assert pane.summary.text().startswith("3 free slots on 1 day")

    # A click on the 09:00 bar tells its doors.
    await wait_until(lambda: pane.timeline.isVisible() and pane.timeline.width() > 200, 10)
    center = pane.timeline.slot_rect(0, slots[1]).center().toPoint()
    qtbot.mouseClick(pane.timeline, Qt.MouseButton.LeftButton, pos=center)
    # The site's own time with its offset named (the one clock's span).
    assert re.fullmatch(
        rf"{DAY} 09:00-10:00 C[SD]T: 3 of 3 doors free \(D01, D02, D03\)", pane.detail.text()
    ), pane.detail.text()
    # The app books no slot (the interface only looks them up): the legend promises none, and
    # the picked slot copies as one line to book it with the site, by Ctrl+C or the button.
    assert "bookable" not in pane.findChild(QLabel, "slotLegend").text().lower()
    clipboard = QGuiApplication.clipboard()
    clipboard.clear()
    qtbot.keyClick(pane.timeline, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert re.fullmatch(
        rf"DOCK-1 Joliet Dock, Mon {DAY} 09:00-10:00 C[SD]T \(America/Chicago\), "
        r"3 of 3 doors free \(D01, D02, D03\), shipment SHP-1",
        clipboard.text(),
    ), clipboard.text()
    assert pane.detail.text().endswith("\nCopied: book it with the site by phone or email.")
    clipboard.clear()
    qtbot.mouseClick(pane.copy_button, Qt.MouseButton.LeftButton)
    assert clipboard.text().startswith("DOCK-1 Joliet Dock, ")
    full = pane.timeline.slot_rect(0, slots[0]).center().toPoint()
    qtbot.mouseClick(pane.timeline, Qt.MouseButton.LeftButton, pos=full)
    assert re.search(r"08:00-09:00 C[SD]T: fully booked$", pane.detail.text())
    assert "Slots as of just now." in pane.summary.text()

    # The pane made again (the next start) shows the last answer and its search from the
    # cache, before anything is asked.
    again = YardPane(session)
    qtbot.addWidget(again)
    await wait_until(lambda: again.answer is not None and again.site.count() == 2, 30)
    assert again.reference.text() == "SHP-1" and again.site.currentData() == "DOCK-1"
    assert [s.slot_id for s in again.timeline.days[0][1]] == [s.slot_id for s in slots]
    assert "Slots as of just now." in again.summary.text()
    again.shutdown()
    pane.shutdown()


def _answered(pane: YardPane, code: str) -> bool:
    """The pane shows the slots of the site `code`."""
    return pane.answer is not None and all(s.site_code == code for s in pane.answer.results)


def _asked(proxy: FaultyProxy) -> list[str]:
    """The site of each slot search the service received, oldest first."""
    return [body["identifiers"]["siteCode"] for body in proxy.sent("POST", SLOTS)]


async def test_free_slots_show_as_the_pane_opens_and_follow_the_choice(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    """No Search pressed: the first site's slots for the window already chosen, progress
    shown while they load; a site picked with the keys and a window changed are searched
    again after a pause, a window the service would refuse explained beside it."""
    session, tenant, proxy = proxied
    _site(tenant, "ATL-1")
    _site(tenant, "DOCK-1")
    proxy.inject(Fault(delay=1.5, path_prefix=SLOTS))
    pane = await shown_pane(qtbot, session, YardPane)
    await wait_until(lambda: pane.searching, 30)
    assert pane.summary.text() == "Finding slots…" and not pane.search_button.isEnabled()
    assert pane.timeline.empty_text == "Finding free slots…"
    await wait_until(lambda: not pane.searching and pane.answer is not None, 30)
    assert pane.search_button.isEnabled() and pane.summary.text() != "Finding slots…"
    # Availability alone: no shipment is named until the user types one.
    (first,) = proxy.sent("POST", SLOTS)
    assert first["identifiers"] == {"siteCode": "ATL-1"}
    assert pane.summary.text()

    # Two sites passed over with the keys in a moment: the one stopped at is asked for once.
    pane.site.setFocus()
    qtbot.keyClick(pane.site, Qt.Key.Key_Down)
    qtbot.keyClick(pane.site, Qt.Key.Key_Up)
    qtbot.keyClick(pane.site, Qt.Key.Key_Down)
    await wait_until(lambda: not pane.searching and len(_asked(proxy)) == 2, 30)
    assert _asked(proxy) == ["ATL-1", "DOCK-1"]
    await wait_until(lambda: _answered(pane, "DOCK-1"), 30)

    # The window's end a year on: refused beside the window before anything is sent.
    pane.end.setFocus()
    pane.end.setSelectedSection(QDateTimeEdit.Section.YearSection)  # no longer the first
    qtbot.keyClick(pane.end, Qt.Key.Key_Up)
    await wait_until(lambda: bool(pane.errors.message_for(WINDOW)), 30)
    assert "at most 14 days" in pane.errors.message_for(WINDOW)
    qtbot.keyClick(pane.end, Qt.Key.Key_Down)
    await wait_until(lambda: not pane.searching and len(_asked(proxy)) == 3, 30)
    assert pane.errors.message_for(WINDOW) == ""
    pane.shutdown()


async def test_a_failed_first_search_is_explained(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    """The service failing the search the pane makes itself: said in words under the form
    and on the empty timeline; Search tries again."""
    session, tenant, proxy = proxied
    _site(tenant, "DOCK-1")
    proxy.inject(Fault(status=503, path_prefix=SLOTS, forward=False), times=10)
    pane = await shown_pane(qtbot, session, YardPane)
    await wait_until(lambda: pane.errors.general.isVisible() and not pane.searching, 60)
    assert pane.errors.general.text() and pane.answer is None
    assert "search failed" in pane.timeline.empty_text
    proxy.clear()
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.searching and pane.answer is not None, 30)
    assert not pane.errors.general.isVisible()
    pane.shutdown()


async def test_the_answer_stays_when_the_service_goes_away(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    _site(tenant, "DOCK-1")
    monday = _monday()
    pane = await shown_pane(qtbot, session, YardPane)
    await _sites_listed(pane, 1)
    _set_time(pane.start, monday)
    _set_time(pane.end, monday + timedelta(days=2))
    type_text(pane.reference, "SHP-9")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.searching and pane.answer is not None, 30)
    shown = [s.slot_id for _day, slots in pane.timeline.days for s in slots]
    assert len(shown) == 8  # Monday and Tuesday, four slots each

    proxy.inject(Fault(status=503, path_prefix=SLOTS, forward=False), times=10)
    type_text(pane.reference, "SHP-10")
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.searching and pane.errors.general.isVisible(), 60)
    assert pane.errors.general.text()
    assert pane.reference.text() == "SHP-10"  # what was typed stays for the next try
    assert [s.slot_id for _day, slots in pane.timeline.days for s in slots] == shown
    assert "Slots as of just now." in pane.summary.text()
    proxy.clear()
    qtbot.mouseClick(pane.search_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: not pane.searching and not pane.errors.general.isVisible(), 30)
    pane.shutdown()


async def test_add_and_remove_a_site_with_refusals_by_their_field(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _site(tenant, "DOCK-1")
    pane = await shown_pane(qtbot, session, YardPane)
    await _sites_listed(pane, 1)
    # The hours start as the sites' list says hours (the form reads them back).
    assert pane.hours.text() == "Mon\u2013Fri 06:00\u201322:00"

    # The form's own check: an unknown zone, hours it cannot read.
    type_text(pane.code, "den-xd")
    type_text(pane.name, "Denver Cross-Dock")
    type_text(pane.time_zone, "Mars/Olympus")
    type_text(pane.hours, "weekdays 8-5")
    qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    assert "not an IANA time zone" in pane.site_errors.message_for("timeZone")
    assert "WEEKDAYS" in pane.site_errors.message_for("openingHours")
    # A day run together with the next: the days said as the list says them.
    type_text(pane.hours, "MONFRI 06:00-22:00")
    qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    assert pane.site_errors.message_for("openingHours") == (
        "'MONFRI' is not a day or a range of days (Mon to Sun, e.g. Mon\u2013Fri)"
    )
    assert pane.code.text() == "den-xd"  # nothing typed is lost

    # The service's refusal: the code is taken; shown beside the code.
    type_text(pane.code, "dock-1")
    type_text(pane.time_zone, "America/Denver")
    # The hours as the sites' list shows them (en dashes), one typed with spaces round it.
    type_text(pane.hours, "Mon\u2013Fri 06:00\u201314:00; Sat 08:00 \u2013 12:00")
    qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: bool(pane.site_errors.message_for("code")), 30)
    assert "already has a site" in pane.site_errors.message_for("code")
    assert pane.site_errors.message_for("timeZone") == ""

    type_text(pane.code, "den-xd")
    qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    await _sites_listed(pane, 2)
    added = next(s for s in pane.sites if s.code == "DEN-XD")
    assert added.time_zone == "America/Denver" and len(added.dock_doors) == 4
    assert pane.site_model.data(pane.site_model.index(0, 5)) == (
        "Mon\u2013Fri 06:00\u201314:00\nSat 08:00\u201312:00"  # as Stop locations say hours
    )
    assert pane.site.findData("DEN-XD") >= 0 and pane.code.text() == ""
    assert tenant.http.get(SITES).json()["sites"][0]["code"] == "DEN-XD"
    # The next one refused: the screen no longer says the last one was added.
    assert "Added site DEN-XD" in pane.notice.text()
    type_text(pane.code, "dock-1")
    type_text(pane.name, "Dock one again")
    qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: bool(pane.site_errors.message_for("code")), 30)
    assert not pane.notice.isVisible(), pane.notice.text()
    pane.code.clear()

    # Remove it: the pane asks first.
    assert pane.site_table.selected() is not None and pane.site_table.selected().code == "DEN-XD"
    qtbot.mouseClick(pane.remove_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: message_box("confirmDelete") is not None, 10)
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await _sites_listed(pane, 1)
    assert [s["code"] for s in tenant.http.get(SITES).json()["sites"]] == ["DOCK-1"]
    pane.shutdown()


@pytest.mark.qt_log_ignore(OFFSCREEN_POPUP)
async def test_a_click_on_add_site_while_the_zones_list_is_open_adds_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """The first click on Add site is not spent closing the time zone's completion list."""
    session, tenant = connected
    _site(tenant, "DOCK-1")
    pane = await shown_pane(qtbot, session, YardPane)
    await _sites_listed(pane, 1)
    type_text(pane.code, "den-xd")
    type_text(pane.name, "Denver Cross-Dock")
    type_text(pane.hours, "MON-FRI 06:00-14:00")
    pane.activateWindow()
    pane.time_zone.setFocus()
    await _from_loop(lambda: qtbot.keyClicks(pane.time_zone, "America/Denver"))
    await click_through_popup(qtbot, pane.time_zone, pane.add_button)
    await _sites_listed(pane, 2)
    added = next(s for s in pane.sites if s.code == "DEN-XD")
    assert added.time_zone == "America/Denver"
    pane.shutdown()


async def test_hours_that_wrap_the_week_are_saved_and_shown_as_typed(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A dispatcher's FRI-MON is Friday to Monday: saved so, and listed as typed; hours the
    form cannot take are said beside the field in plain words with an example."""
    session, tenant = connected
    _site(tenant, "DOCK-1")
    pane = await shown_pane(qtbot, session, YardPane)
    await _sites_listed(pane, 1)
    type_text(pane.code, "wknd")
    type_text(pane.name, "Weekend Dock")
    type_text(pane.time_zone, "America/Chicago")
    type_text(pane.hours, "Fri-Mon 22:00-06:00")
    qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    said = pane.site_errors.message_for("openingHours")
    assert said.startswith("22:00-06:00 closes before it opens"), said
    assert "e.g. Mon-Fri 22:00-24:00; Tue-Sat 00:00-06:00" in said

    type_text(pane.hours, "Fri-Mon 06:00-22:00")
    qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    await _sites_listed(pane, 2)
    saved = next(s for s in tenant.http.get(SITES).json()["sites"] if s["code"] == "WKND")
    assert saved["openingHours"][0]["days"] == ["FRI", "SAT", "SUN", "MON"]
    row = next(r for r in range(pane.site_model.rowCount()) if pane.sites[r].code == "WKND")
    assert pane.site_model.data(pane.site_model.index(row, 5)) == "Fri\u2013Mon 06:00\u201322:00"
    pane.shutdown()
