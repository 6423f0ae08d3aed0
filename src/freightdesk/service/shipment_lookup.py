"""A shipment the app lists, found by what a dispatcher knows it by: one of its identifiers (a
PRO, a bill of lading, a container or a tracking number), typed whole or in part. A booking's
parent shipment is chosen this way; the wire gets the shipment's id, which no one types."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from freightdesk.service.summary_rows import SummaryRow

# The shipments a completion offers at once: enough to choose among, few enough to read.
MATCHES = 20


@dataclass(frozen=True)
class Found:
    row: SummaryRow
    kind: str  # the type of the identifier that matched what was typed
    value: str


class ShipmentIndex:
    """The identifiers of `rows`, folded for matching once (a list of 100,000 shipments is
    searched at each key typed)."""

    def __init__(self, rows: Iterable[SummaryRow]) -> None:
        self._entries = [
            (row, tuple((kind, value, value.casefold()) for kind, value in row.identifiers))
            for row in rows
        ]
        self._ids = {row.id for row, _identifiers in self._entries}

    def find(self, typed: str, limit: int = MATCHES) -> list[Found]:
        """The shipments with an identifier holding `typed` (any case), at most `limit`:
        those it names whole first, then the others in the list's order."""
        key = typed.strip().casefold()
        if not key:
            return []
        whole: list[Found] = []
        part: list[Found] = []
        for row, identifiers in self._entries:
            named = _holding(identifiers, key, whole=True) or _holding(identifiers, key)
            if named is None:
                continue
            found = Found(row, named[0], named[1])
            if named[2] == key:
                whole.append(found)
            elif len(part) < limit:
                part.append(found)
        return (whole + part)[:limit]

    def named(self, typed: str) -> list[Found]:
        """The shipments with an identifier that is `typed` whole (any case)."""
        key = typed.strip().casefold()
        return [f for f in self.find(typed, len(self._entries)) if f.value.casefold() == key]

    def knows(self, shipment_id: str) -> bool:
        return shipment_id in self._ids


def _holding(
    identifiers: tuple[tuple[str, str, str], ...], key: str, *, whole: bool = False
) -> tuple[str, str, str] | None:
    for identifier in identifiers:
        if identifier[2] == key if whole else key in identifier[2]:
            return identifier
    return None


def as_shipment_id(text: str) -> str | None:
    """`text` as a shipment's id when it is one (pasted from another system), else None."""
    try:
        return str(uuid.UUID(text.strip()))
    except ValueError:
        return None
