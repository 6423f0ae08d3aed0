"""Which pending messages to send next: the delivery worker's in-memory view of the outbox.

The database holds every message and its state; this holds just enough about the PENDING ones
(ids, order, when they are due) to pick the next ones without querying the whole backlog on
every cycle. It is rebuilt from the database when the worker starts and when an operator
queues a message again.

Messages of one configuration and one shipment form a chain, sent strictly one after another
in the order they were created: only a chain's head may be in flight or waiting for a retry.
Each configuration has its own heap of chain heads by due time, and its own concurrency, so a
slow receiver only ever holds its own slots.
"""

from __future__ import annotations

import heapq
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime


@dataclass
class Pending:
    message_id: int
    config_id: int
    payload_id: int
    # The shipment, or "#<message id>" for a message that belongs to no chain.
    chain: str
    event_id: str
    failed: int
    due_at: datetime
    # The row's `next_attempt_at` as this worker last read or wrote it (None: a new message).
    # Storing an outcome is guarded by it: a redelivery sets a new one, and an attempt begun
    # before it must not overwrite the message it queued again.
    stamp: datetime | None = None

    @property
    def key(self) -> tuple[int, str]:
        return (self.config_id, self.chain)


class Scheduler:
    def __init__(self) -> None:
        self._chains: dict[tuple[int, str], deque[Pending]] = {}
        self._ready: dict[int, list[tuple[datetime, int, Pending]]] = {}
        self._flying: Counter[int] = Counter()
        self._flying_ids: set[int] = set()
        self._order: deque[int] = deque()
        # Chains per configuration, so that `configs()` does not walk every chain.
        self._chains_of: Counter[int] = Counter()

    def __len__(self) -> int:
        return sum(len(chain) for chain in self._chains.values())

    @property
    def flying(self) -> int:
        return len(self._flying_ids)

    def configs(self) -> set[int]:
        return set(self._chains_of)

    def chains(self) -> set[tuple[int, str]]:
        """The keys of the chains with messages waiting or in flight."""
        return set(self._chains)

    def payloads(self) -> set[int]:
        return {p.payload_id for chain in self._chains.values() for p in chain}

    def _chain(self, key: tuple[int, str]) -> deque[Pending]:
        chain = self._chains.get(key)
        if chain is None:
            chain = self._chains[key] = deque()
            self._chains_of[key[0]] += 1
        return chain

    def add(self, pending: Pending) -> None:
        chain = self._chain(pending.key)
        chain.append(pending)
        if len(chain) == 1:
            self._push(pending)

    def rebuild(
        self,
        pending: Iterable[Pending],
        current: Iterable[Pending] = (),
        done: Iterable[int] = (),
    ) -> None:
        """Start over from the database's PENDING messages. `current` are this scheduler's
        own objects for messages it knows better than the database (in flight, or waiting
        for a retry not stored yet); `done` are messages whose outcome moved their chain on
        but is not stored yet."""
        known = {p.message_id: p for p in current}
        finished = set(done)
        self._chains.clear()
        self._chains_of.clear()
        self._ready.clear()
        self._order.clear()
        for item in sorted(pending, key=lambda p: p.message_id):
            if item.message_id in finished:
                continue
            mine = known.get(item.message_id, item)
            chain = self._chain(mine.key)
            chain.append(mine)
            if len(chain) == 1 and mine.message_id not in self._flying_ids:
                self._push(mine)

    def _push(self, pending: Pending) -> None:
        heap = self._ready.get(pending.config_id)
        if heap is None:
            heap = self._ready[pending.config_id] = []
            self._order.append(pending.config_id)
        heapq.heappush(heap, (pending.due_at, pending.message_id, pending))

    def take(
        self,
        now: datetime,
        *,
        per_config: int,
        limit: int,
        usable: Callable[[int], bool],
        only: int | None = None,
    ) -> list[Pending]:
        """Due chain heads, at most `per_config` in flight per configuration and `limit` in
        all; configurations take turns so that none waits behind another. `only` looks at
        one configuration (the one whose request just finished)."""
        taken: list[Pending] = []
        if only is not None:
            if usable(only):
                self._take_from(only, now, per_config, limit, taken)
            return taken
        for _ in range(len(self._order)):
            if len(taken) >= limit:
                break
            config = self._order[0]
            self._order.rotate(-1)
            if usable(config):
                self._take_from(config, now, per_config, limit, taken)
        self._drop_empty()
        return taken

    def _take_from(
        self, config: int, now: datetime, per_config: int, limit: int, taken: list[Pending]
    ) -> None:
        heap = self._ready.get(config)
        while heap and heap[0][0] <= now and self._flying[config] < per_config:
            if len(taken) >= limit:
                break
            _due, _id, pending = heapq.heappop(heap)
            self._flying[config] += 1
            self._flying_ids.add(pending.message_id)
            taken.append(pending)

    def release(self, pending: Pending) -> None:
        """Undo `take` for a message that could not be started: it waits as it was."""
        self._unfly(pending)
        self._push(pending)

    def _unfly(self, pending: Pending) -> None:
        if pending.message_id in self._flying_ids:
            self._flying_ids.discard(pending.message_id)
            self._flying[pending.config_id] -= 1
            if self._flying[pending.config_id] <= 0:
                del self._flying[pending.config_id]

    def settle(self, pending: Pending, next_due: datetime | None) -> None:
        """After an attempt: None moves the chain on (delivered or given up), a time retries
        the head then. Its outcome need not be stored yet: after a crash both it and the
        next message are sent again, in order."""
        if pending.message_id in self._flying_ids:
            self._flying_ids.discard(pending.message_id)
            self._flying[pending.config_id] -= 1
            if self._flying[pending.config_id] <= 0:
                del self._flying[pending.config_id]
        chain = self._chains.get(pending.key)
        if chain is None or not chain or chain[0].message_id != pending.message_id:
            return  # its configuration was forgotten meanwhile
        if next_due is not None:
            pending.due_at = pending.stamp = next_due
            pending.failed += 1
            self._push(pending)
            return
        chain.popleft()
        if chain:
            self._push(chain[0])
        else:
            del self._chains[pending.key]
            self._chains_of[pending.config_id] -= 1
            if self._chains_of[pending.config_id] <= 0:
                del self._chains_of[pending.config_id]

    def forget_chain(self, key: tuple[int, str]) -> None:
        """A chain this scheduler no longer sends (another instance took it over); a message
        of it in flight still settles, and moves nothing on."""
        chain = self._chains.pop(key, None)
        if chain is None:
            return
        self._chains_of[key[0]] -= 1
        if self._chains_of[key[0]] <= 0:
            del self._chains_of[key[0]]
        heap = self._ready.get(key[0])
        if heap:
            heap[:] = [entry for entry in heap if entry[2].key != key]
            heapq.heapify(heap)
        self._drop_empty()

    def forget_config(self, config_id: int) -> None:
        """A deleted configuration: its messages went with it."""
        for key in [key for key in self._chains if key[0] == config_id]:
            del self._chains[key]
        self._chains_of.pop(config_id, None)
        self._ready.pop(config_id, None)
        self._drop_empty()

    def next_due(self) -> datetime | None:
        tops = [heap[0][0] for heap in self._ready.values() if heap]
        return min(tops) if tops else None

    def _drop_empty(self) -> None:
        empty = [config for config, heap in self._ready.items() if not heap]
        for config in empty:
            del self._ready[config]
        if empty:
            gone = set(empty)
            self._order = deque(c for c in self._order if c not in gone)
