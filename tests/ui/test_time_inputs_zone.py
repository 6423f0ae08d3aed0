"""A time without a place is typed in the user's zone (issue 14, point 4: one clock, forms too):
on a computer set to Tokyo's time, the rate request form's expiry reads and is typed in Tokyo
time, or in UTC when View > Times without a place says UTC; its label names the zone, and the
request the local service stores expires at exactly the instant typed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QLocale, QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDateTimeEdit, QLineEdit
from pytestqt.qtbot import QtBot

from freightdesk.service.clock import UserZone, set_user_zone, user_now
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.rates.pane import RatesPane
from freightdesk.ui.widgets.time_edit import UserTimeEdit, follow_user_zone
from tests.server.test_rating_support import RATE_REQUESTS
from tests.support import TenantHandle, machine_zone, wait_until
from tests.ui.forms_keys import shown_day
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
        (UserZone.LOCAL, "UTC+09", "+09:00", UserZone.UTC, "UTC"),
        (UserZone.UTC, "UTC", "+00:00", UserZone.LOCAL, "UTC+09"),
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
    assert form.expiration.text() == f"{shown_day(day)} 14:05 {label}"
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
    [
        ("Asia/Tokyo", "UTC+09", "UTC+09"),
        ("Asia/Shanghai", "UTC+08", "UTC+08"),  # Qt calls it CST, Chicago's letters
        ("America/Chicago", "CST", "CDT"),
        ("UTC", "UTC", "UTC"),
    ],
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
        assert edit.text().startswith("Jan 10 2031 ") and edit.text().endswith(f" {winter}")
        _type(edit, Section.MonthSection, "07")
        _type(edit, Section.HourSection, "09")
        # The zone's name follows the date shown: summer time in July.
        assert edit.text() == f"Jul 10 2031 09:{edit.text()[15:17]} {summer}"
        assert edit.value().year == 2031 and edit.value().month == 7
        assert edit.value().hour == 9
    set_user_zone(UserZone.LOCAL)


def test_a_time_reads_as_the_clock_writes_days_and_is_typed_by_month_name_or_number(
    qtbot: QtBot,
) -> None:
    """ "Dec 1 2026 00:00 UTC" as the lists write days ("Dec 1"), not "2026-12-01 00:00 UTC";
    in English as the clock is, whatever the computer's language; the month typed by its name
    or, as before, its number, the other parts by their digits."""
    set_user_zone(UserZone.UTC)
    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    try:
        edit = UserTimeEdit(None, datetime(2026, 12, 1, 0, 0, tzinfo=UTC))
        qtbot.addWidget(edit)
        edit.show()
        assert edit.text() == "Dec 1 2026 00:00 UTC"
        _type(edit, Section.MonthSection, "Jul")
        _type(edit, Section.DaySection, "4")
        _type(edit, Section.YearSection, "2027")
        _type(edit, Section.HourSection, "14")
        _type(edit, Section.MinuteSection, "05")
        assert edit.text() == "Jul 4 2027 14:05 UTC"
        assert edit.value() == datetime(2027, 7, 4, 14, 5, tzinfo=UTC)
        _type(edit, Section.MonthSection, "1")  # January, or 10 to 12 to come
        assert edit.text() == "Jan 4 2027 14:05 UTC"
        QTest.keyClicks(edit, "1")
        assert edit.text() == "Nov 4 2027 14:05 UTC"
        _type(edit, Section.MonthSection, "3")
        assert edit.value() == datetime(2027, 3, 4, 14, 5, tzinfo=UTC)
        _type(edit, Section.DaySection, "31")
        _type(edit, Section.MonthSection, "02")  # the day kept within the month
        assert edit.text() == "Feb 28 2027 14:05 UTC"
        QTest.keyClick(edit, Qt.Key.Key_Up)
        assert edit.text() == "Mar 28 2027 14:05 UTC"
        # A click inside the month leaves the cursor there: the name typed replaces it.
        inside = edit.findChild(QLineEdit)
        assert isinstance(inside, QLineEdit)
        between = inside.cursorRect().height() // 2
        QTest.mouseClick(inside, Qt.MouseButton.LeftButton, pos=QPoint(8, between + 2))
        assert edit.currentSection() == Section.MonthSection
        QTest.keyClicks(edit, "nov")
        assert edit.text() == "Nov 28 2027 14:05 UTC"
    finally:
        QLocale.setDefault(before)
        set_user_zone(UserZone.LOCAL)
