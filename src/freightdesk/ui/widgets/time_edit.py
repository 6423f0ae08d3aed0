"""How a date and time editor reads: its day as the one clock writes days (`Mar 4 2026`, the
year always there to be typed), in the zone it is typed in, named (`Mar 4 2026 14:05 CST`,
following daylight saving with the date shown), so a typed time is never a guess (the one
clock's rule for forms, docs/developing.md "Times").

A time without a place (a request's expiry, a vehicle's ready time, a slot search's window)
is typed in the user's zone: View > Times without a place, local or UTC (`UserTimeEdit`)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from PySide6.QtCore import QDate, QDateTime, QEvent, QLocale, QObject, QTimeZone
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QDateEdit, QDateTimeEdit, QLineEdit, QWidget

from freightdesk.service.clock import UserZone, user_zone, user_zone_name

# The clock's `Dec 1` (service/clock.day_text), with the year: "2026-12-01" read as a code
# beside the lists' "Dec 1". The month names are English as the clock's are, whatever the
# computer's language.
DAY_FORMAT = "MMM d yyyy"
DATE_TIME_FORMAT = f"{DAY_FORMAT} HH:mm"
_CLOCK_LOCALE = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)


def clock_days(edit: QDateTimeEdit, display_format: str = DAY_FORMAT) -> None:
    """`edit` (a QDateEdit too) shows its day as the clock writes one and takes a month
    typed by its name ("Jul") or, as before, by its number ("7", "07")."""
    edit.setLocale(_CLOCK_LOCALE)
    edit.setDisplayFormat(display_format)
    edit.installEventFilter(_MonthDigits(edit))


def day_edit(parent: QWidget | None, day: date | None = None) -> QDateEdit:
    """A day without a time (a pickup day, a window's first day) typed as the clock writes
    days (`clock_days`), its calendar a click away; `day`, else today."""
    edit = QDateEdit(parent)
    edit.setCalendarPopup(True)
    clock_days(edit)
    day = day or date.today()
    edit.setDate(QDate(day.year, day.month, day.day))
    return edit


class _MonthDigits(QObject):
    """A month typed into a month shown by name. Qt's parser reads only names, and a name
    typed where a click left the cursor (inside "Dec") was refused: the first letter now
    replaces the month, the next ones spell on. Digits go on as in a number section: "1"
    waits for a second digit (10 to 12), "0" too, "3" or "12" is the month."""

    def __init__(self, edit: QDateTimeEdit) -> None:
        super().__init__(edit)
        self._edit = edit
        self._typed = ""
        self._spelling = False
        for inside in edit.findChildren(QLineEdit):  # where the clicks go
            inside.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.MouseButtonPress:
            self._typed, self._spelling = "", False
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        text = event.text()
        in_month = self._edit.currentSection() == QDateTimeEdit.Section.MonthSection
        if in_month and len(text) == 1 and text.isalpha():
            if not self._spelling:
                self._edit.setSelectedSection(QDateTimeEdit.Section.MonthSection)
            self._typed, self._spelling = "", True
            return False
        self._spelling = False
        if not (in_month and len(text) == 1 and text.isdigit()):
            self._typed = ""
            return False
        typed = self._typed + text if int(self._typed + text) <= 12 else text
        self._typed = typed if len(typed) < 2 and int(typed) * 10 <= 12 else ""
        if int(typed) > 0:
            day = self._edit.date()
            first = QDate(day.year(), int(typed), 1)
            self._edit.setDate(first.addDays(min(day.day(), first.daysInMonth()) - 1))
            self._edit.setSelectedSection(QDateTimeEdit.Section.MonthSection)
        return True


def zoned_format(abbreviation: str) -> str:
    """The format naming the zone as quoted text. Qt's own `t` names it too, but its parser
    cannot read back an abbreviation that several zones share (CST, JST, IST): typing a year
    in Tokyo or Chicago then left the field as it was. Quoted text is shown, not parsed."""
    return f"{DATE_TIME_FORMAT} '{abbreviation.replace(chr(39), '')}'"


def _user_qzone() -> QTimeZone:
    return QTimeZone.utc() if user_zone() is UserZone.UTC else QTimeZone.systemTimeZone()


def user_zone_hint() -> str:
    """Words for a tooltip: which zone a time without a place is typed in, and where to
    change it."""
    which = "UTC" if user_zone() is UserZone.UTC else "this computer's time"
    return f"In {which} (View > Times without a place)."


class UserTimeEdit(QDateTimeEdit):
    """A date and time without a place, typed in the user's zone, its zone in the text.

    `value()` is the instant with the user's offset; never `dateTime().toPython()`, which
    drops the zone (a UTC edit's 20:05 would be sent as 20:05 local)."""

    def __init__(
        self, parent: QWidget | None = None, value: datetime | None = None, note: str = ""
    ) -> None:
        super().__init__(parent)
        self.note = note  # said after the zone in the tooltip
        self.setCalendarPopup(True)
        self.setTimeZone(_user_qzone())
        clock_days(self, DATE_TIME_FORMAT)
        self._name_zone()
        # The abbreviation of the date shown: CST in January, CDT in July.
        self.dateTimeChanged.connect(self._name_zone)
        if value is not None:
            self.set_value(value)
        self.setToolTip(f"{user_zone_hint()} {self.note}".strip())

    def _name_zone(self) -> None:
        # The clock names the zone, as every time shown reads: Qt's name for Shanghai's
        # time is `CST`, which a dispatcher reads as Chicago's.
        shown = datetime.fromtimestamp(self.dateTime().toSecsSinceEpoch(), UTC)
        wanted = zoned_format(user_zone_name(shown))
        if self.displayFormat() != wanted:
            self.setDisplayFormat(wanted)

    def value(self) -> datetime:
        """The time shown, as an aware datetime in the user's zone: the minute shown (the
        seconds the edit may hold are not on screen, so they are not sent)."""
        seconds = self.dateTime().toSecsSinceEpoch()
        instant = datetime.fromtimestamp(seconds - seconds % 60, UTC)
        return instant if user_zone() is UserZone.UTC else instant.astimezone()

    def set_value(self, value: datetime) -> None:
        """Show `value` (aware; naive is taken as the user's zone) in the user's zone."""
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC) if user_zone() is UserZone.UTC else value.astimezone()
        moment = QDateTime.fromSecsSinceEpoch(int(value.timestamp()), _user_qzone())
        self.setDateTime(moment)

    def follow_user_zone(self) -> None:
        """The user chose another zone: the same instant, shown and named in it."""
        instant = self.value()
        self.setTimeZone(_user_qzone())
        # Qt converts its value to the new zone but leaves the old text; setting it redraws.
        self.set_value(instant)
        self._name_zone()
        self.setToolTip(f"{user_zone_hint()} {self.note}".strip())


def follow_user_zone() -> None:
    """Every open time editor shows its instant in the zone the user now chose."""
    for widget in QApplication.allWidgets():
        if isinstance(widget, UserTimeEdit):
            widget.follow_user_zone()
