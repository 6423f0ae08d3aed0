"""How a date and time editor reads: in the zone it is typed in, named (`2026-03-04 14:05 CST`,
following daylight saving with the date shown), so a typed time is never a guess (the one
clock's rule for forms, docs/developing.md "Times").

A time without a place (a request's expiry, a vehicle's ready time, a slot search's window)
is typed in the user's zone: View > Times without a place, local or UTC (`UserTimeEdit`)."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QDateTime, QTimeZone
from PySide6.QtWidgets import QApplication, QDateTimeEdit, QWidget

from freightdesk.service.clock import UserZone, user_zone

DATE_TIME_FORMAT = "yyyy-MM-dd HH:mm"


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
        self._name_zone()
        # The abbreviation of the date shown: CST in January, CDT in July.
        self.dateTimeChanged.connect(self._name_zone)
        if value is not None:
            self.set_value(value)
        self.setToolTip(f"{user_zone_hint()} {self.note}".strip())

    def _name_zone(self) -> None:
        wanted = zoned_format(self.timeZone().abbreviation(self.dateTime()))
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
