"""The simulated world: which demo shipments exist, their scripts, and what falls due next.

The world is a pure function of the demo's seed and anchor (the hour it was seeded): the
seeded shipments (`portfolio.iter_plans`), the shipments booked since (`arrivals`), and for
benchmarks an optional fleet of extra shipments under way at the anchor. `due(until)` pops the
items of every shipment that fall due by `until`, in time order, so that a world rebuilt after
a restart and advanced from the same moment yields the same items.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.arrivals import (
    LONGEST_LIFE,
    booked_kind,
    booking_time,
    moving_fleet,
    plan_booking,
)
from freightdesk.server.demo.portfolio import iter_plans
from freightdesk.server.simulator.script import Closing, Item, Script

# How often a moving shipment reports its position (the scenarios' reporting intervals), to
# estimate how many reports a second the world makes at a given speed.
REPORT_MINUTES: dict[Mode, float] = {
    Mode.TL: 5,
    Mode.LTL: 15,
    Mode.RAIL: 30,
    Mode.OCEAN: 180,
    Mode.AIR: 15,
}


# Every seeded shipment is over this long after the anchor (ocean containers last about five
# weeks); a world loaded later does not plan them again.
SEEDED_HORIZON = timedelta(days=70)


class Halted(Exception):
    """The service is stopping: planning was abandoned half-way."""


@dataclass(frozen=True)
class WorldSpec:
    seed: int
    # The hour the demo was seeded around (`seed_demo`'s rounded `now`).
    anchor: datetime
    # The demo tenant's uuid: the customer account the carriers push for.
    account: str
    # False when the database's shipments are not the seeded plans of (seed, anchor) (another
    # seed, or a database not seeded by the demo): only booked shipments are simulated.
    seeded: bool = True
    # Extra shipments under way at the anchor (benchmarks; seeded by them).
    fleet: int = 0

    @property
    def key(self) -> str:
        """Names the world in derived ids (ingestions, events, exceptions)."""
        return f"{self.seed}/{self.anchor:%Y-%m-%dT%H}Z"


@dataclass(eq=False)
class Live:
    """A shipment of the world that still has items to come."""

    script: Script
    items: Iterator[Item]
    next: Item
    # The tracked shipment's id once known (found by its primary identifier, or created).
    shipment_id: str | None = None
    # Deleted by a user (or never created): its items are dropped.
    gone: bool = False

    @property
    def mode(self) -> Mode:
        return self.script.plan.mode

    @property
    def primary(self) -> tuple[str, str]:
        return self.script.plan.identifiers[0]


@dataclass
class World:
    spec: WorldSpec
    halted: Callable[[], bool] = lambda: False
    lives: dict[int, Live] = field(default_factory=dict)
    _heap: list[tuple[datetime, int, int, int]] = field(default_factory=list)
    _keys: Iterator[int] = field(default_factory=itertools.count)
    _next_booking: int = 1

    def load(self, after: datetime) -> None:
        """Every shipment with items due after `after`, ready to run from there."""
        spec = self.spec
        if spec.seeded and after < spec.anchor + SEEDED_HORIZON:
            for plan in iter_plans(spec.seed, spec.anchor):
                self._check()
                self._add(Script(plan, spec.key, spec.account), max(after, spec.anchor))
        if spec.fleet:
            for plan in moving_fleet(spec.seed, spec.anchor, spec.fleet):
                self._add(Script(plan, spec.key, spec.account), max(after, spec.anchor))
        # Bookings over long ago are skipped unplanned (their mode bounds their life).
        while True:
            k = self._next_booking
            booked = booking_time(spec.anchor, k)
            if booked > after:
                break
            self._next_booking += 1
            if booked + LONGEST_LIFE[booked_kind(spec.seed, k)[0]] > after:
                self._check()
                self._book(k, after)
        self.book_until(after)

    def book_until(self, until: datetime) -> None:
        """Plan the shipments booked by `until` not planned yet."""
        while (booked := booking_time(self.spec.anchor, self._next_booking)) <= until:
            # Every item of a booked shipment is due at its booking or later.
            self._book(self._next_booking, booked - timedelta(seconds=1))
            self._next_booking += 1

    def due(self, until: datetime, limit: int, stride: int) -> list[tuple[Live, Item]]:
        """Pop the items due by `until` in order (at most `limit`); of the routine reports
        (positions, hourly ETAs) only every `stride`-th is kept."""
        found: list[tuple[Live, Item]] = []
        heap = self._heap
        while heap and heap[0][0] <= until and len(found) < limit:
            _due, _number, _seq, key = heapq.heappop(heap)
            live = self.lives[key]
            item = live.next
            following = next(live.items, None)
            if following is None:
                del self.lives[key]
            else:
                live.next = following
                self._schedule(key, live)
            if live.gone:
                continue
            if item.routine is not None and item.routine % stride:
                continue
            found.append((live, item))
        return found

    def reports_per_hour(self, at: datetime) -> float:
        """Position reports the moving shipments make per hour of simulated time at `at`."""
        total = 0.0
        for live in self.lives.values():
            minutes = REPORT_MINUTES.get(live.mode)
            began, ended = live.script.moving_span
            if minutes and not live.gone and began <= at < ended:
                total += 60 / minutes
        return total

    def closings(self, since: datetime, until: datetime) -> list[tuple[Live, Closing]]:
        """The incidents that ended between `since` and `until` (to close what a service
        stopped before it could)."""
        found = []
        for live in self.lives.values():
            for item in live.script.closings():
                if since < item.due <= until and isinstance(item.action, Closing):
                    found.append((live, item.action))
        return found

    # --- internals ------------------------------------------------------------------------

    def _book(self, k: int, after: datetime) -> None:
        spec = self.spec
        plan = plan_booking(spec.seed, spec.anchor, k)
        booked = booking_time(spec.anchor, k)
        self._add(Script(plan, spec.key, spec.account, booked_at=booked), after)

    def _add(self, script: Script, after: datetime) -> None:
        if script.ends <= after:
            return
        items = script.items(after)
        first = next(items, None)
        if first is None:
            return
        key = next(self._keys)
        live = Live(script, items, first)
        self.lives[key] = live
        self._schedule(key, live)

    def _schedule(self, key: int, live: Live) -> None:
        item = live.next
        heapq.heappush(self._heap, (item.due, live.script.number, item.seq, key))

    def _check(self) -> None:
        if self.halted():
            raise Halted
