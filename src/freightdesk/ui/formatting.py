"""How times, states and amounts read in the app."""

from __future__ import annotations

from datetime import datetime, tzinfo

from freightdesk.models.enums import ShipmentStateType

_STATE_TEXT = {
    ShipmentStateType.SCHEDULED: "Scheduled",
    ShipmentStateType.IN_TRANSIT: "In transit",
    ShipmentStateType.AT_STOP: "At stop",
    ShipmentStateType.COMPLETED: "Completed",
}


def state_text(state: ShipmentStateType | None) -> str:
    return _STATE_TEXT.get(state, state.value.title()) if state else ""


def local_time_text(value: datetime | None, zone: str | None = None) -> str:
    """A time in the stop's zone when known (with the zone named), else the user's own."""
    if value is None:
        return ""
    target: tzinfo | None = None
    if zone:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # the list's times need none

        try:
            target = ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            target = None
    local = value.astimezone(target)
    text = local.strftime("%Y-%m-%d %H:%M")
    if target is not None:
        return f"{text} {local.tzname() or zone}"
    return text


def money_text(amount: float, currency: str) -> str:
    return f"{amount:,.2f} {currency}"
