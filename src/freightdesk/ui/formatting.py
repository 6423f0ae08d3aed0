"""How states and amounts read in the app (times: `service/clock.py`, the one clock)."""

from __future__ import annotations

from freightdesk.models.enums import ShipmentStateType

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
