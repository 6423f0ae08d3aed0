"""What a sailing schedule search must keep, beyond its parameters' shapes: two different
ports, date windows given whole, in order and within reach, at least one window, carriers
named by SCAC.

The local service refuses a search with these problems (the first); the app runs the same
functions to show each problem beside its field before sending. Problems are `(query
parameter, message)` pairs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

Problems = list[tuple[str, str]]

SCAC = re.compile(r"^[A-Z]{2,4}$")
# Dates further than this from today are a typing mistake, not a schedule question.
DATE_REACH = timedelta(days=5 * 366)
_NO_WINDOW = "give a departure window or an arrival window (or both)"


def ports_problems(origin: str | None, destination: str | None) -> Problems:
    if origin is not None and origin == destination:
        return [("destination", "must differ from origin")]
    return []


def window_problems(
    start_name: str, start: date | None, end_name: str, end: date | None, today: date
) -> Problems:
    """A window is given whole (both days or neither), within reach of today, in order."""
    if start is None and end is None:
        return []
    if start is None:
        return [(start_name, f"is required together with {end_name}")]
    if end is None:
        return [(end_name, f"is required together with {start_name}")]
    problems: Problems = [
        (name, "must be within five years of today")
        for name, value in ((start_name, start), (end_name, end))
        if abs(value - today) > DATE_REACH
    ]
    if end < start:
        problems.append((end_name, f"must not be before {start_name}"))
    return problems


def any_window_problems(departure: object | None, arrival: object | None) -> Problems:
    if departure is None and arrival is None:
        return [("departureStartDate", _NO_WINDOW), ("arrivalStartDate", _NO_WINDOW)]
    return []


def scac_problems(codes: Sequence[str]) -> Problems:
    """Carriers named by SCAC (upper-cased): the first that is none is named."""
    for code in codes:
        if not SCAC.match(code):
            return [("carrierCodes", f"{code!r} is not a SCAC (two to four letters)")]
    return []
