"""A shipment the app lists, found by what a dispatcher knows it by: one of its identifiers (a
PRO, a bill of lading, a container or a tracking number), typed whole or in part. A booking's
parent shipment is chosen this way (the wire gets the shipment's id, which no one types), and
an upload's documents take the mode of the shipment their identifiers name."""

from __future__ import annotations

import uuid
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

from freightdesk.service.summary_rows import SummaryRow

if TYPE_CHECKING:
    from freightdesk.service.shipments import ShipmentList

# The shipments a completion offers at once: enough to choose among, few enough to read.
MATCHES = 20
VALUE = "\x1f"  # between a shipment's identifiers in the index (the unit separator)
ROW = "\x1e"  # between shipments (the record separator)


@dataclass(frozen=True)
class Found:
    row: SummaryRow
    kind: str  # the type of the identifier that matched what was typed
    value: str


class ShipmentIndex:
    """The identifiers of `rows` folded into one text, searched by `str.find` at each key
    typed: a list of 100,000 shipments took 100 ms a key with each value compared in Python
    (load 10, 2 cores). Each row is its values between `VALUE` marks; the rows are joined by
    `ROW`; `_starts` holds where each row begins."""

    def __init__(self, rows: Iterable[SummaryRow]) -> None:
        self._rows = list(rows)
        texts = [
            f"{VALUE}{VALUE.join(value for _kind, value in row.identifiers)}{VALUE}".casefold()
            for row in self._rows
        ]
        self._starts = list(accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
        self._text = ROW.join(texts)
        self._ids = {row.id for row in self._rows}

    def _rows_holding(self, pattern: str, limit: int) -> list[int]:
        """The rows whose text holds `pattern`, in the list's order, at most `limit`."""
        found: list[int] = []
        at = self._text.find(pattern)
        while at >= 0 and len(found) < limit:
            row = bisect_right(self._starts, at) - 1
            found.append(row)
            if row + 1 >= len(self._starts):
                break
            at = self._text.find(pattern, self._starts[row + 1])
        return found

    def find(self, typed: str, limit: int = MATCHES) -> list[Found]:
        """The shipments with an identifier holding `typed` (any case), at most `limit`:
        those it names whole first, then the others in the list's order."""
        key = _key(typed)
        if not key:
            return []
        whole = self._rows_holding(f"{VALUE}{key}{VALUE}", limit)
        named = set(whole)
        part = [r for r in self._rows_holding(key, limit + len(whole)) if r not in named]
        return [self._found(r, key) for r in [*whole, *part][:limit]]

    def named(self, typed: str) -> list[Found]:
        """The shipments with an identifier that is `typed` whole (any case)."""
        return self.named_any([typed])

    def named_any(self, values: Iterable[str]) -> list[Found]:
        """The shipments with an identifier that is one of `values` whole (any case, whatever
        its type), in the list's order."""
        found: dict[int, Found] = {}
        for key in {key for value in values if (key := _key(value))}:
            for row in self._rows_holding(f"{VALUE}{key}{VALUE}", len(self._rows)):
                found.setdefault(row, self._found(row, key))
        return [found[row] for row in sorted(found)]

    def _found(self, index: int, key: str) -> Found:
        row = self._rows[index]
        folded = [(kind, value, value.casefold()) for kind, value in row.identifiers]
        kind, value, _folded = next(
            (i for i in folded if i[2] == key), next((i for i in folded if key in i[2]), folded[0])
        )
        return Found(row, kind, value)

    def knows(self, shipment_id: str) -> bool:
        return shipment_id in self._ids


class ListedIndex:
    """The index of the shipments `listed()` gives (the session's list, as it is when asked),
    made again only when the list is another: it is replaced whole when it changes."""

    def __init__(self, listed: Callable[[], ShipmentList | None]) -> None:
        self.listed = listed
        self._index: ShipmentIndex | None = None
        self._indexed: object = None  # the summaries `_index` was made from

    def index(self) -> ShipmentIndex:
        listed = self.listed()
        summaries = listed.summaries if listed is not None else {}
        if self._index is None or self._indexed is not summaries:
            self._index = ShipmentIndex(summaries.values())
            self._indexed = summaries
        return self._index

    def row(self, shipment_id: str) -> SummaryRow | None:
        listed = self.listed()
        return listed.summaries.get(shipment_id) if listed is not None else None


def _key(typed: str) -> str:
    # The marks cannot be typed; taken out, a pasted one cannot match across values.
    return typed.strip().casefold().replace(VALUE, "").replace(ROW, "")


def as_shipment_id(text: str) -> str | None:
    """`text` as a shipment's id when it is one (pasted from another system), else None."""
    try:
        return str(uuid.UUID(text.strip()))
    except ValueError:
        return None
