"""How a span of time reads, in one style wherever the app says one: the attention column
("Late 3 h 05 min"), the overview, a quote's validity, a booking's countdown, a carrier's
response delay and the demo's incident descriptions.

Plain Python in `models/` so that the server's demo, the service layer and the UI all reach it.
"""

from __future__ import annotations

from datetime import timedelta

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR
# Up to two days a span reads in hours ("Late 30 h"): a dispatcher counts a day and a half of
# delay in hours; the Attention column rounds such delays to whole hours on that rule.
DAYS_FROM = timedelta(days=2)


def duration_text(span: timedelta) -> str:
    """A span as a dispatcher says it, rounded down, no unit of zero at its end: "under 1 min",
    "45 min", "22 h", "3 h 05 min", "47 h 59 min", then from two days "2 d", "3 d 4 h"
    (minutes no longer matter). A span of nothing or less is "0 min"."""
    seconds = int(span.total_seconds())
    if seconds <= 0:
        return "0 min"
    if seconds < _MINUTE:
        return "under 1 min"
    if span >= DAYS_FROM:
        days, rest = divmod(seconds, _DAY)
        hours = rest // _HOUR
        return f"{days} d {hours} h" if hours else f"{days} d"
    hours, rest = divmod(seconds, _HOUR)
    minutes = rest // _MINUTE
    if hours:
        return f"{hours} h {minutes:02d} min" if minutes else f"{hours} h"
    return f"{minutes} min"
