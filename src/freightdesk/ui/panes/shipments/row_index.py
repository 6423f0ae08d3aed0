"""What the shipments table model filters with, and the flat per-row index it filters and
sorts over (see model.py for why it is laid out this way): the filter and its result, the
per-row codes and prepared search text, and the C-level helpers that combine marks."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime
from itertools import compress
from typing import Any

from freightdesk.service.carrier_names import CARRIER_NAMES, code_key
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import Attention
from freightdesk.ui.panes.shipments.attention import column_values, never_late
from freightdesk.ui.panes.shipments.columns import SortValue

# A byte per row, 1 where the row passes a filter.
Marks = bytes | bytearray


@dataclass(frozen=True)
class ShipmentFilter:
    text: str = ""
    # Exact identifier values pasted by the user (upper-cased); None when no list is pasted.
    pasted: frozenset[str] | None = None
    modes: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    exceptions_only: bool = False
    # Ids allowed by a server-side filter (attributes); None when there is none.
    only_ids: frozenset[str] | None = None
    modified_from: datetime | None = None
    modified_to: datetime | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None
    # Rows needing any of these kinds of attention (service/triage.py); empty: any row.
    attention: frozenset[Attention] = frozenset()


@dataclass
class FilterResult:
    visible: list[int]
    mode_counts: Counter[str] = field(default_factory=Counter)
    state_counts: Counter[str] = field(default_factory=Counter)
    not_found: list[str] = field(default_factory=list)
    # Rows of each kind of attention among those the other filters show.
    attention_counts: Counter[Attention] = field(default_factory=Counter)


def parse_pasted(text: str) -> frozenset[str] | None:
    """A pasted list of identifiers (several values split by lines, commas, tabs or spaces)."""
    separators = "\n\r\t,; "
    if not any(sep in text.strip() for sep in "\n\r\t,;"):
        return None
    for sep in separators[1:]:
        text = text.replace(sep, "\n")
    values = frozenset(v.strip().upper() for v in text.split("\n") if v.strip())
    return values if len(values) > 1 else None


class Codes:
    """Small numbers for the few distinct values of a column (modes, states): one byte per
    row. Past 255 distinct values (not in the interface), the rest share the last code."""

    LAST = 255

    def __init__(self) -> None:
        self.names: list[str] = []
        self._code: dict[str, int] = {}

    def of(self, value: str) -> int:
        code = self._code.get(value)
        if code is None:
            code = min(len(self.names), self.LAST)
            if code < self.LAST or len(self.names) == self.LAST:
                self.names.append(value)
            self._code[value] = code
        return code

    def table(self, wanted: frozenset[str]) -> bytes:
        """For `bytes.translate`: 1 for the codes of `wanted` values, else 0."""
        flags = bytearray(256)
        for value in wanted:
            code = self._code.get(value)
            if code is not None:
                flags[code] = 1
        return bytes(flags)

    def has(self, value: str) -> bool:
        """Whether `value` was given a code (maybe the last one, shared)."""
        return value in self._code

    @property
    def overflowed(self) -> bool:
        """Whether values share the last code."""
        return len(self._code) > len(self.names)

    def counts(self, codes: bytes) -> Counter[str]:
        return Counter(
            {name: n for code, name in enumerate(self.names) if (n := codes.count(code))}
        )


@dataclass
class RowIndex:
    """What the model keeps per row, made from a list of rows. Making it touches nothing
    shared, so a whole list can be indexed in a worker thread (`ShipmentTableModel.load`)
    while the window stays responsive."""

    rows: list[SummaryRow]
    ids: list[str]
    position: dict[str, int]
    # The text a search looks in (identifiers, places, the carrier's code; casefolded). The
    # carrier's name is not in it (`named_marks`): names come after the rows, and change.
    blob: list[str]
    modes: Codes
    states: Codes
    mode_codes: bytearray
    state_codes: bytearray
    carriers: Codes
    carrier_codes: bytearray
    flags: bytearray  # the kinds of attention each row needs (`triage.attention_flags`)
    sort_values: dict[int, list[SortValue | None]]
    ordered: array[int] | None  # every position in sort order, when sorted already

    @classmethod
    def of(
        cls,
        rows: list[SummaryRow],
        sort: tuple[int, bool] | None = None,
        triage: Callable[[SummaryRow], int] | None = None,
        late: Callable[[SummaryRow], float] = never_late,
    ) -> RowIndex:
        """The index of `rows`, sorted by (column, descending) when given; `triage` gives a
        row's attention flags, `late` how late it is (seconds)."""
        ids = [r.id for r in rows]
        modes, states, carriers = Codes(), Codes(), Codes()
        mode_of, state_of, carrier_of = modes.of, states.of, carriers.of
        index = cls(
            rows,
            ids,
            {key: i for i, key in enumerate(ids)},
            [row_blob(r) for r in rows],
            modes,
            states,
            bytearray([mode_of(r.mode or "") for r in rows]),
            bytearray([state_of(r.current_state or "") for r in rows]),
            carriers,
            bytearray([carrier_of(carrier_key(r)) for r in rows]),
            bytearray(map(triage, rows)) if triage is not None else bytearray(len(rows)),
            {},
            None,
        )
        if sort is not None:
            column, descending = sort
            values = index.sort_values[column] = column_values(column, rows, index.flags, late)
            index.ordered = sorted_positions(array("i", range(len(rows))), values, descending)
        return index


def row_blob(summary: SummaryRow) -> str:
    parts = [value for _kind, value in summary.identifiers]
    parts += [summary.origin_name or "", summary.destination_name or "", summary.carrier or ""]
    return "\n".join(parts).casefold()


def carrier_key(row: SummaryRow) -> str:
    """The row's carrier code as the carrier names know it."""
    return code_key(row.carrier or "")


def or_named(
    marks: Marks, needle: str, carriers: Codes, codes: bytearray, rows: list[SummaryRow]
) -> Marks:
    """`marks` (a search's, of the rows' text) and the rows whose carrier's name holds
    `needle` (casefolded). The names are not in the rows' text: they come after the rows, and
    change. A pass over the few names known and one C-level pass over the rows' carrier
    codes, as a mode filter is."""
    wanted = frozenset(c for c in CARRIER_NAMES.matching(needle) if carriers.has(c))
    if not wanted:
        return marks
    found: Marks = codes.translate(carriers.table(wanted))
    if carriers.overflowed:
        # Past 255 carriers the rest share the last code: those rows are read one by one.
        last = bytearray(256)
        last[Codes.LAST] = 1
        exact = bytearray(found)
        for position in compress(range(len(codes)), codes.translate(last)):
            exact[position] = carrier_key(rows[position]) in wanted
        found = exact
    count = len(codes)
    either = int.from_bytes(marks, "little") | int.from_bytes(found, "little")
    return either.to_bytes(count, "little")


def sorted_positions(
    positions: array[int], values: list[SortValue | None], descending: bool
) -> array[int]:
    """`positions` ordered by their values: rows without one last in ascending order (first
    in descending); ties keep their order in `positions`."""
    if values.count(None):
        has_value = bytes([v is not None for v in values])
        in_order = bytes(map(has_value.__getitem__, positions))
        present = list(compress(positions, in_order))
        absent = list(compress(positions, in_order.translate(FLIP)))
    else:
        present, absent = positions.tolist(), []
    # Plain values of one type: the sort compares them without the generic protocol.
    present.sort(key=values.__getitem__, reverse=descending)  # type: ignore[arg-type]
    return array("i", absent + present if descending else present + absent)


# For `bytes.translate`: turns marks (0 or 1) into their opposite.
FLIP = bytes([1, 0]) + bytes(254)

# Past one moved row in this many, sorting every row again is quicker than moving them.
MOVE_SHARE = 32


def moved_in_order(
    ordered: array[int], moved: Collection[int], values: list[SortValue | None], descending: bool
) -> array[int] | None:
    """`ordered` (every position, as `sorted_positions` orders them by `values`) with the
    positions `moved`, whose values changed, taken out and put back where their values go
    now, after their equals: a bisect each, where sorting 100,000 rows again takes some 30 ms.
    None when too many moved for that to pay, or a row has no value (sort them all then)."""
    if len(moved) * MOVE_SHARE > len(ordered) or values.count(None):
        return None
    marks = bytearray(len(values))
    for position in moved:
        marks[position] = 1
    rest = list(compress(ordered, bytes(map(marks.__getitem__, ordered)).translate(FLIP)))
    # Bisected from the low end: a descending order is read backwards.
    ascending = rest[::-1] if descending else rest
    # Plain values of one type, none missing: they compare.
    key: Callable[[int], Any] = values.__getitem__
    merged: list[int] = []
    start = 0
    # In the order's direction, so that their places only grow.
    for position in sorted(set(moved), key=key, reverse=descending):
        value = key(position)
        if descending:
            place = len(rest) - bisect_left(ascending, value, key=key)
        else:
            place = bisect_right(ascending, value, key=key)
        merged += rest[start:place]
        merged.append(position)
        start = place
    merged += rest[start:]
    return array("i", merged)


def visible_rows(visible: list[int], positions: set[int]) -> dict[int, int]:
    """Row in `visible` of each of `positions` that is shown. A few (the current row, a
    selected one) are looked up with C-level scans; many with one pass."""
    if len(positions) > 8:
        return {p: r for r, p in enumerate(visible) if p in positions}
    rows = {}
    for position in positions:
        try:
            rows[position] = visible.index(position)
        except ValueError:
            continue
    return rows


def both_marks(first: Marks | None, second: Marks | None, count: int) -> Marks | None:
    """Marks passing both (None passes everything): one AND of two big integers."""
    if first is None or second is None:
        return second if first is None else first
    return (int.from_bytes(first, "little") & int.from_bytes(second, "little")).to_bytes(
        count, "little"
    )


def kept_codes(codes: bytearray, passing: Marks | None) -> bytes:
    return bytes(codes) if passing is None else bytes(compress(codes, passing))


def moved_positions(ordered: array[int], gone: set[int], moved: dict[int, int]) -> array[int]:
    """`ordered` without the positions `gone`, those of `moved` renamed (old -> new, the
    new ones among those gone), in the same order. A few are found with C-level scans."""
    if len(gone) + len(moved) <= 32:
        for p in gone:
            del ordered[ordered.index(p)]
        for was, p in moved.items():
            ordered[ordered.index(was)] = p
        return ordered
    return array("i", [moved.get(q, q) for q in ordered if q not in gone])
