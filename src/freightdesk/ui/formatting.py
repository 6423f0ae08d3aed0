"""How states, amounts, codes and places read in the app, in every pane that shows them
(times: `service/clock.py`, the one clock)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from freightdesk.models.code_words import code_text
from freightdesk.models.durations import duration_text
from freightdesk.models.enums import ShipmentStateType
from freightdesk.models.weekdays import DAY_NAMES, Weekday, days_named
from freightdesk.service.clock import user_time

if TYPE_CHECKING:  # the Shipments list's first paint loads no pydantic (docs/developing.md)
    from freightdesk.models.common import Address, Money
    from freightdesk.models.rating import RateStopLocation

DASH = "\u2013"  # an en dash, as in "Mon-Fri" typeset
_DAY_WORDS = dict(zip(Weekday, DAY_NAMES, strict=True))


_STATE_TEXT = {
    ShipmentStateType.SCHEDULED: "Scheduled",
    ShipmentStateType.IN_TRANSIT: "In transit",
    ShipmentStateType.AT_STOP: "At stop",
    ShipmentStateType.COMPLETED: "Completed",
}


def state_text(state: ShipmentStateType | None) -> str:
    return _STATE_TEXT.get(state, state.value.title()) if state else ""


def money_text(amount: float, currency: str) -> str:
    return f"{amount:,.2f} {currency}"


def amount_text(money: Money | None) -> str:
    return money_text(money.amount, money.currency.value) if money is not None else ""


def _left(moment: datetime, now: datetime | None) -> timedelta:
    """How long until `moment` (negative once past)."""
    return moment - (now or datetime.now(UTC))


def countdown_text(moment: datetime | None, now: datetime | None = None) -> str:
    """ "in 3 h 05 min", or "expired 4 min ago"."""
    if moment is None:
        return ""
    left = _left(moment, now)
    if left <= timedelta(0):
        return f"expired {duration_text(-left)} ago"
    return f"in {duration_text(left)}"


def valid_for_text(moment: datetime | None, now: datetime | None = None) -> str:
    """How long a quote can still be booked, under a "Valid for" header: "22 h", "3 h 05 min",
    "2 d 4 h"; "expired" once past (a column of countdowns reads shorter without "in")."""
    if moment is None:
        return ""
    left = _left(moment, now)
    return duration_text(left) if left > timedelta(0) else "expired"


def valid_until_text(moment: datetime | None, now: datetime | None = None) -> str:
    """Until when, by the one clock, and how long: "valid until Dec 1 14:30 UTC (22 h more)",
    "expired Dec 1 14:30 UTC"."""
    if moment is None:
        return ""
    left = _left(moment, now)
    if left <= timedelta(0):
        return f"expired {user_time(moment, now=now)}"
    return f"valid until {user_time(moment, now=now)} ({duration_text(left)} more)"


def free_code_text(value: str | None) -> str:
    """A free-text field whose usual values are codes (a cost's type or tier): a code said in
    words ("Bunker surcharge"), anything else as the user wrote it."""
    if value and value.replace("_", "").isalnum() and value.isupper():
        return code_text(value)
    return value or ""


def address_text(address: Address) -> str:
    place = " ".join(p for p in (address.state, address.postal_code) if p)
    parts = [*address.address_lines, address.city or "", place, address.country]
    return ", ".join(p for p in parts if p)


def place_text(location: RateStopLocation | None) -> str:
    if location is None:
        return ""
    address = location.address
    place = ", ".join(p for p in ((address.city, address.state) if address else ()) if p)
    if location.name and place and place not in location.name:
        return f"{location.name} ({place})"
    return location.name or place


def days_text(days: tuple[bool, ...]) -> str:
    """Monday to Sunday, applying or not (a stop location's hours): (True, True, True,
    False, True, False, False) -> "Mon-Wed, Fri" (an en dash), as `weekdays_text` says them."""
    return weekdays_text(day for day, applies in zip(Weekday, days, strict=True) if applies)


def weekdays_text(days: Iterable[str]) -> str:
    """Days of the week in the app's words: "Mon-Wed, Fri"; a range may wrap the week,
    Saturday to Monday -> "Sat-Mon"; "no day" for none."""
    return days_named(days, _DAY_WORDS.__getitem__, DASH, ", ") or "no day"
