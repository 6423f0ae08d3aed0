"""The days of the week as the wire names them (MON to SUN), and how a choice of them reads:
days in a row as a range, which may wrap the week (FRI-MON is Friday to Monday). One reading
for the yard sites' hours (the CLI's words and the app's) and the stop locations' (the app's,
`ui.formatting.days_text`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum

# The days' short names as the app writes them, Monday first as `date.weekday()` counts: the
# clock's days ("Tue Dec 1"), the day ranges ("Mon-Fri") and the hours grids' columns.
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class Weekday(StrEnum):
    MON = "MON"
    TUE = "TUE"
    WED = "WED"
    THU = "THU"
    FRI = "FRI"
    SAT = "SAT"
    SUN = "SUN"


def day_runs(days: Iterable[str]) -> list[list[Weekday]]:
    """`days` as runs of days in a row, in the order of their first days; a run may wrap
    the week (FRI, SAT, SUN, MON is one, from Friday), all seven days are MON to SUN."""
    week = list(Weekday)
    on = {Weekday(day) for day in days}
    if len(on) == len(week):
        return [week]
    runs = []
    for start, day in enumerate(week):
        if day in on and week[start - 1] not in on:  # MON's day before is SUN
            run = [week[(start + n) % len(week)] for n in range(len(week))]
            runs.append(run[: next(n for n, d in enumerate(run) if d not in on)])
    return runs


def days_named(
    days: Iterable[str], name: Callable[[Weekday], str] = str, dash: str = "-", comma: str = ","
) -> str:
    """`MON-WED,FRI` (three days in a row or more as a range, which may wrap the week:
    `FRI-MON`), in the form `yard.parse_opening_hours` reads; the app's own words by `name`,
    `dash` and `comma` (Mon, en dash, Wed, comma and space, Fri). Parts read in the order of
    their first days, two days across the weekend as the week orders them (`MON,SUN`)."""
    week = list(Weekday)
    parts: list[tuple[int, str]] = []
    for run in day_runs(days):
        if len(run) > 2:
            parts.append((week.index(run[0]), f"{name(run[0])}{dash}{name(run[-1])}"))
        else:
            parts.extend((week.index(day), name(day)) for day in run)
    return comma.join(text for _, text in sorted(parts))
