"""One operation over many shipments: set or remove an attribute, stop tracking.

Plain Python for the Shipments pane's bulk actions. Each shipment goes through the same calls
the app makes for one (`ShipmentsService.current`, `save`, `delete`), a few at a time
(`CONCURRENCY`), so that a list of hundreds neither floods the service nor takes a request's
time per shipment. Progress (done, total) is told after each shipment; a cancel is looked at
between shipments, so none is left half-done: a shipment is either done, failed with a reason,
or not started. Every shipment gets its outcome in the result, in the order given, so nothing
fails silently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from freightdesk.models.common import CustomAttribute
from freightdesk.models.tracking import (
    MAX_ATTRIBUTE_NAME,
    MAX_ATTRIBUTE_VALUE,
    MAX_ATTRIBUTES,
)
from freightdesk.service.messages import explain
from freightdesk.service.shipments import ShipmentsService, with_attributes

# Shipments worked on at the same time: the service answers each in a few milliseconds, and
# the app's own polling keeps going beside them.
CONCURRENCY = 4

NOT_STARTED = "Not done: cancelled before it was started."

Progress = Callable[[int, int], None]  # (shipments finished, total)
Operation = Callable[[str], Awaitable[None]]


class Outcome(StrEnum):
    OK = "ok"
    FAILED = "failed"
    NOT_STARTED = "not started"


@dataclass(frozen=True)
class ItemResult:
    shipment_id: str
    outcome: Outcome
    reason: str = ""  # the error in words, for a failed or not started shipment

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK


@dataclass(frozen=True)
class BulkResult:
    items: list[ItemResult] = field(default_factory=list)

    @property
    def succeeded(self) -> list[ItemResult]:
        return [i for i in self.items if i.ok]

    @property
    def problems(self) -> list[ItemResult]:
        """Failed and not started shipments, in the order given."""
        return [i for i in self.items if not i.ok]

    @property
    def cancelled(self) -> bool:
        return any(i.outcome is Outcome.NOT_STARTED for i in self.items)


class Cancel:
    """Asked between shipments: once set, no further shipment is started."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


async def run_bulk(
    shipment_ids: Sequence[str],
    operation: Operation,
    *,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    concurrency: int = CONCURRENCY,
) -> BulkResult:
    """Run `operation` for each shipment, at most `concurrency` at a time."""
    total = len(shipment_ids)
    outcomes: dict[int, ItemResult] = {}
    queue = list(enumerate(shipment_ids))
    queue.reverse()  # popped from the end: the shipments start in the order given
    finished = 0

    async def work() -> None:
        nonlocal finished
        while queue:
            if cancel is not None and cancel.is_set():
                return
            index, shipment_id = queue.pop()
            try:
                await operation(shipment_id)
            except Exception as error:  # any failure: the user reads it beside the shipment
                outcomes[index] = ItemResult(shipment_id, Outcome.FAILED, explain(error))
            else:
                outcomes[index] = ItemResult(shipment_id, Outcome.OK)
            finished += 1
            if progress is not None:
                progress(finished, total)

    await asyncio.gather(*(work() for _ in range(max(1, min(concurrency, total)))))
    return BulkResult(
        [
            outcomes.get(index) or ItemResult(shipment_id, Outcome.NOT_STARTED, NOT_STARTED)
            for index, shipment_id in enumerate(shipment_ids)
        ]
    )


# --- the operations ----------------------------------------------------------------------------


def attribute_problems(name: str, value: str) -> dict[str, str]:
    """What is wrong with an attribute the user typed, by field ("name", "value")."""
    problems: dict[str, str] = {}
    if not name.strip():
        problems["name"] = "Give the attribute a name."
    elif len(name.strip()) > MAX_ATTRIBUTE_NAME:
        problems["name"] = f"At most {MAX_ATTRIBUTE_NAME} characters."
    if len(value) > MAX_ATTRIBUTE_VALUE:
        problems["value"] = f"At most {MAX_ATTRIBUTE_VALUE} characters."
    return problems


class AttributeLimitReached(Exception):
    """The shipment has as many attributes as it may have; a new one would be refused."""


def _same_name(attribute: CustomAttribute, name: str) -> bool:
    # The service tells attribute names apart regardless of case.
    return attribute.name.strip().casefold() == name.strip().casefold()


def set_attribute(service: ShipmentsService, name: str, value: str) -> Operation:
    """Give each shipment the attribute `name` = `value` (replacing one of that name)."""
    name = name.strip()

    async def run(shipment_id: str) -> None:
        shipment = await service.current(shipment_id)
        others = [a for a in shipment.attributes if not _same_name(a, name)]
        if len(others) >= MAX_ATTRIBUTES:
            raise AttributeLimitReached(
                f"It has {MAX_ATTRIBUTES} attributes already, the most a shipment may have."
            )
        attribute = CustomAttribute(name=name, value=value, values=[value])
        await service.save(with_attributes(shipment, [*others, attribute]))

    return run


def remove_attribute(service: ShipmentsService, name: str) -> Operation:
    """Take the attribute `name` off each shipment (one without it is left as it is)."""

    async def run(shipment_id: str) -> None:
        shipment = await service.current(shipment_id)
        kept = [a for a in shipment.attributes if not _same_name(a, name)]
        if len(kept) != len(shipment.attributes):
            await service.save(with_attributes(shipment, kept))

    return run


def stop_tracking(service: ShipmentsService) -> Operation:
    """Stop tracking each shipment (the service deletes it; the list drops it)."""

    async def run(shipment_id: str) -> None:
        await service.delete(shipment_id)

    return run
