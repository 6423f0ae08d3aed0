"""A time without a place is typed in the user's zone (issue 14, point 4: one clock, forms too):
on a computer set to Tokyo's time, the rate request form's expiry reads and is typed in Tokyo
time, or in UTC when View > Times without a place says UTC; its label names the zone, and the
request the local service stores expires at exactly the instant typed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDateTimeEdit
from pytestqt.qtbot import QtBot

from freightdesk.service.clock import UserZone, set_user_zone, user_now
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.rates.pane import RatesPane
from freightdesk.ui.widgets.time_edit import UserTimeEdit, follow_user_zone
from tests.server.test_rating_support import RATE_REQUESTS
from tests.support import TenantHandle, machine_zone, wait_until
from tests.ui.test_panes_support import connected, shown_pane
from tests.ui.test_rates_pane import _fill, _form

__all__ = ["connected"]

TOKYO = timedelta(hours=9)
Section = QDateTimeEdit.Section


@pytest.fixture
def in_tokyo() -> Iterator[None]:
    with machine_zone("Asia/Tokyo"):
        yield
    set_user_zone(UserZone.LOCAL)


def _type(edit: QDateTimeEdit, section: Section, digits: str) -> None:
    """Type into one part of the field, as a user who clicked on it does."""
    edit.setFocus()
    edit.setSelectedSection(section)
    QTest.keyClicks(edit, digits)


@pytest.mark.parametrize(
    ("choice", "label", "offset", "other", "other_label"),
    [
        (UserZone.LOCAL, "JST", "+09:00", UserZone.UTC, "UTC"),
        (UserZone.UTC, "UTC", "+00:00", UserZone.LOCAL, "JST"),
    ],
    ids=["local", "utc"],
)
async def test_the_expiry_typed_is_the_instant_sent_and_stored(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    in_tokyo: None,
    choice: UserZone,
    label: str,
    offset: str,
    other: UserZone,
    other_label: str,
) -> None:
    session, tenant = connected
    set_user_zone(choice)
    pane = await shown_pane(qtbot, session, RatesPane)
    form = await _form(pane)
    _fill(qtbot, form, "PRLF")
    qtbot.mouseClick(form.expires, Qt.MouseButton.LeftButton)
    assert form.expiration.isEnabled()
    # The label names the zone the time is typed in; the tooltip says where it is chosen.
    assert form.expiration.text().endswith(f" {label}")
    assert "View > Times without a place" in form.expiration.toolTip()

    day = (user_now() + timedelta(days=4)).date()
    for section, digits in (
        (Section.YearSection, f"{day.year}"),
        (Section.MonthSection, f"{day.month:02d}"),
        (Section.DaySection, f"{day.day:02d}"),
        (Section.HourSection, "14"),
        (Section.MinuteSection, "05"),
    ):
        _type(form.expiration, section, digits)
    assert form.expiration.text() == f"{day:%Y-%m-%d} 14:05 {label}"
    typed = f"{day:%Y-%m-%d}T14:05:00{offset}"
    assert form.wire()["expirationDateTime"] == typed  # in the zone shown, to the minute

    # The user picks the other zone with the form open: the same instant, shown in it.
    set_user_zone(other)
    follow_user_zone()
    instant = datetime.fromisoformat(typed)
    assert form.expiration.text().endswith(f" {other_label}")
    assert datetime.fromisoformat(form.wire()["expirationDateTime"]) == instant

    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.requests.rowCount() == 1)
    sent = tenant.http.get(f"{RATE_REQUESTS}/{pane.requests.items[0].id}").json()
    assert datetime.fromisoformat(sent["expirationDateTime"]) == instant.astimezone(UTC)
    pane.shutdown()


@pytest.mark.parametrize(
    ("zone", "winter", "summer"),
    [("Asia/Tokyo", "JST", "JST"), ("America/Chicago", "CST", "CDT"), ("UTC", "UTC", "UTC")],
)
def test_every_part_of_a_time_can_be_typed_whatever_the_zone_is_called(
    qtbot: QtBot, zone: str, winter: str, summer: str
) -> None:
    # Zones whose abbreviation several zones share (JST, CST) once refused a typed year.
    with machine_zone(zone):
        edit = UserTimeEdit(None, datetime(2026, 1, 10, 12, 0, tzinfo=UTC))
        qtbot.addWidget(edit)
        edit.show()
        _type(edit, Section.YearSection, "2031")
        assert edit.text().startswith("2031-01-10 ") and edit.text().endswith(f" {winter}")
        _type(edit, Section.MonthSection, "07")
        _type(edit, Section.HourSection, "09")
        # The zone's name follows the date shown: summer time in July.
        assert edit.text() == f"2031-07-10 09:{edit.text()[14:16]} {summer}"
        assert edit.value().year == 2031 and edit.value().month == 7
        assert edit.value().hour == 9
    set_user_zone(UserZone.LOCAL)
