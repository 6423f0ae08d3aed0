"""The tracking state machine of a shipment (values and transitions are not shown by the
interface; see docs/spec-gaps.md).

    SCHEDULED -> IN_TRANSIT -> AT_STOP -> IN_TRANSIT -> ... -> COMPLETED

A shipment starts SCHEDULED. It may arrive at its first stop straight from SCHEDULED (the truck
was already there), move between stops without an IN_TRANSIT in between (reports are often
coarse), and complete from any state but SCHEDULED. COMPLETED is final.
"""

from __future__ import annotations

from freightdesk.models.tracking import ShipmentStateType as S

TRANSITIONS: dict[S | None, frozenset[S]] = {
    None: frozenset({S.SCHEDULED, S.IN_TRANSIT, S.AT_STOP}),
    S.SCHEDULED: frozenset({S.IN_TRANSIT, S.AT_STOP}),
    S.IN_TRANSIT: frozenset({S.AT_STOP, S.COMPLETED}),
    S.AT_STOP: frozenset({S.IN_TRANSIT, S.AT_STOP, S.COMPLETED}),
    S.COMPLETED: frozenset(),
}


def can_move(current: S | None, target: S) -> bool:
    return target in TRANSITIONS[current]


def transition_problem(current: S | None, target: S) -> str | None:
    """Why the move is refused, or None when it is allowed."""
    if can_move(current, target):
        return None
    if current is S.COMPLETED:
        return f"the shipment is COMPLETED; it cannot move to {target}"
    allowed = ", ".join(sorted(TRANSITIONS[current])) or "nothing"
    return f"a shipment {current or 'without a state'} can move to {allowed}, not {target}"
