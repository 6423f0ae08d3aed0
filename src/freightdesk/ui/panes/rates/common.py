"""Pieces the Rate requests, Bookings and Packages panes share: money and countdowns in words,
codes in words (the editable row table is ui/widgets/row_table.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from freightdesk.models.common import Money
from freightdesk.ui.formatting import money_text

# The row table and its helpers moved to ui/widgets (the Volume LTL pane uses them too).
from freightdesk.ui.widgets.row_table import RowTable as RowTable
from freightdesk.ui.widgets.row_table import fold_rows as fold_rows
from freightdesk.ui.widgets.row_table import integer as integer
from freightdesk.ui.widgets.row_table import number as number


def amount_text(money: Money | None) -> str:
    return money_text(money.amount, money.currency.value) if money is not None else ""


def duration_text(seconds: float) -> str:
    """A span as a dispatcher says it: "2 d 4 h", "3 h 05 min", "4 min 09 s"."""
    whole = int(max(0, seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s"


def countdown_text(moment: datetime | None, now: datetime | None = None) -> str:
    """ "in 3 h 05 min", or "expired 4 min 09 s ago"."""
    if moment is None:
        return ""
    left = (moment - (now or datetime.now(UTC))).total_seconds()
    if left <= 0:
        return f"expired {duration_text(-left)} ago"
    return f"in {duration_text(left)}"


def words(code: str | None) -> str:
    """COST_NOT_AGREED -> "Cost not agreed"; short codes such as API or TL stay as they are."""
    if not code:
        return ""
    if "_" not in code and len(code) <= 3:
        return code
    return code.replace("_", " ").capitalize()
