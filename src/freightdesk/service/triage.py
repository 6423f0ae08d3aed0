"""Triage: which shipments need a dispatcher's attention, and why, in one set of rules.

A shipment is
- *late* when the latest ETA is after the end of the appointment window of the stop it is
  for (by how much);
- *at risk* when that ETA falls within a margin the user sets before the window's end;
- *silent* (no signal) when, while in transit, neither an event nor a position arrived for
  more hours than the user allows for its mode;
- *in exception* while it has open exceptions.

The list's summaries carry the ETA, the latest event's time, the open exceptions, the mode and
the state; the appointment window of the ETA's stop and the last position's time come only
with a shipment's history (`facts_from_history`), which `TriageFacts` gathers in the
background for the shipments that are still under way.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import IntEnum
from types import MappingProxyType
from typing import TYPE_CHECKING

from freightdesk.models.durations import duration_text
from freightdesk.models.enums import ShipmentStateType, TransportationMode
from freightdesk.service.summary_rows import SummaryRow

if TYPE_CHECKING:
    import asyncio

    from freightdesk.api.client import ApiClient
    from freightdesk.models.tracking import TrackingHistory
    from freightdesk.service.cache import Cache

log = logging.getLogger(__name__)


class Attention(IntEnum):
    """What a shipment needs, the worse the higher: a row shows its worst."""

    NONE = 0
    AT_RISK = 1
    NO_SIGNAL = 2
    EXCEPTION = 3
    LATE = 4


# The kinds a dispatcher filters by, in the order the list offers them.
KINDS = (Attention.LATE, Attention.AT_RISK, Attention.NO_SIGNAL, Attention.EXCEPTION)
KIND_NAMES = {
    Attention.LATE: "Late",
    Attention.AT_RISK: "At risk",
    Attention.NO_SIGNAL: "No signal",
    Attention.EXCEPTION: "Exception",
}

DEFAULT_MARGIN = timedelta(minutes=60)
# How long a shipment in transit may stay silent, by mode: trucks report often, ships rarely.
DEFAULT_SILENCE: Mapping[str, timedelta] = MappingProxyType(
    {
        TransportationMode.TL.value: timedelta(hours=4),
        TransportationMode.LTL.value: timedelta(hours=12),
        TransportationMode.VLTL.value: timedelta(hours=12),
        TransportationMode.PARCEL.value: timedelta(hours=24),
        TransportationMode.RAIL.value: timedelta(hours=24),
        TransportationMode.OCEAN.value: timedelta(hours=48),
        TransportationMode.AIR.value: timedelta(hours=8),
        TransportationMode.BARGE.value: timedelta(hours=48),
    }
)
# A shipment without a mode: the most patient land mode.
FALLBACK_SILENCE = timedelta(hours=24)
MAX_MARGIN_MINUTES = 24 * 60
MAX_SILENCE_HOURS = 24 * 30


@dataclass(frozen=True)
class TriageSettings:
    margin: timedelta = DEFAULT_MARGIN
    silence: Mapping[str, timedelta] = field(default_factory=lambda: DEFAULT_SILENCE)

    def silence_for(self, mode: str | None) -> timedelta:
        return self.silence.get(mode or "", FALLBACK_SILENCE)


def check_settings(margin_minutes: int, hours: Mapping[str, int]) -> dict[str, str]:
    """What is wrong with the numbers a user typed, by field ("margin" or a mode): empty
    when they can be kept."""
    errors: dict[str, str] = {}
    if not 0 <= margin_minutes <= MAX_MARGIN_MINUTES:
        errors["margin"] = f"Between 0 and {MAX_MARGIN_MINUTES} minutes"
    for mode, value in hours.items():
        if mode not in DEFAULT_SILENCE:
            errors[mode] = f"Unknown mode {mode}"
        elif not 1 <= value <= MAX_SILENCE_HOURS:
            errors[mode] = f"Between 1 and {MAX_SILENCE_HOURS} hours"
    return errors


def settings_of(margin_minutes: int, hours: Mapping[str, int]) -> TriageSettings:
    """Settings from checked numbers (`check_settings`); modes not given keep their default."""
    silence = dict(DEFAULT_SILENCE)
    silence.update({mode: timedelta(hours=value) for mode, value in hours.items()})
    return TriageSettings(timedelta(minutes=margin_minutes), MappingProxyType(silence))


@dataclass(frozen=True)
class Facts:
    """What a shipment's history adds to its summary for triage."""

    # (estimate, end of that stop's appointment window) of each ETA: the summary's next ETA
    # is one of them (which one is the service's choice), found by its value.
    etas: tuple[tuple[datetime, datetime | None], ...] = ()
    last_position: datetime | None = None
    # The summary's last change these facts were read at: a later change reads them again.
    read_at: datetime | None = None

    def appointment_end(self, eta: datetime) -> datetime | None:
        """The window's end of the stop `eta` is for (the latest ETA's when none matches:
        the summary was newer than the history)."""
        for estimate, end in self.etas:
            if estimate == eta:
                return end
        return max(self.etas)[1] if self.etas else None


@dataclass(frozen=True)
class Verdict:
    worst: Attention = Attention.NONE
    kinds: frozenset[Attention] = frozenset()
    late_by: timedelta | None = None
    until_end: timedelta | None = None  # at risk: from the ETA to the window's end
    silent_for: timedelta | None = None
    exceptions: int = 0

    @property
    def text(self) -> str:
        """The worst, in words: "Late 2 h 10 min", "At risk", "No signal 6 h", "Exception"."""
        if self.worst is Attention.LATE and self.late_by is not None:
            return f"Late {duration_text(self.late_by)}"
        if self.worst is Attention.NO_SIGNAL and self.silent_for is not None:
            # Whole hours: silence is counted in hours (the tooltip has the minutes).
            hours = self.silent_for // timedelta(hours=1)
            return (
                f"No signal {duration_text(timedelta(hours=hours) if hours else self.silent_for)}"
            )
        return KIND_NAMES.get(self.worst, "")

    @property
    def explanation(self) -> str:
        """Every reason, one a line (the worst first), for a tooltip."""
        lines = []
        for kind in sorted(self.kinds, reverse=True):
            if kind is Attention.LATE and self.late_by is not None:
                lines.append(f"ETA {duration_text(self.late_by)} after the appointment window")
            elif kind is Attention.AT_RISK and self.until_end is not None:
                left = duration_text(self.until_end)
                lines.append(f"ETA {left} before the appointment window ends")
            elif kind is Attention.NO_SIGNAL:
                since = f" for {duration_text(self.silent_for)}" if self.silent_for else ""
                lines.append(f"No event or position{since} while in transit")
            elif kind is Attention.EXCEPTION:
                plural = "s" if self.exceptions != 1 else ""
                lines.append(f"{self.exceptions} open exception{plural}")
        return "\n".join(lines)


NOTHING = Verdict()


_DONE = ShipmentStateType.COMPLETED.value
# The only state in which time alone changes a triage (no signal).
MOVING = _MOVING = ShipmentStateType.IN_TRANSIT.value


def last_heard(row: SummaryRow, facts: Facts | None) -> datetime | None:
    """When a shipment was last heard of: its latest event or, when later, its last position
    (the facts'; the summary does not carry it)."""
    last = row.latest_event_time
    position = facts.last_position if facts is not None else None
    if position is not None and (last is None or position > last):
        return position
    return last


def is_silent(
    row: SummaryRow, facts: Facts | None, now: datetime, settings: TriageSettings
) -> bool:
    """The one rule of silence (the list's No signal, the Alerts' "has gone silent", `due_of`'s
    moment): in transit, and neither an event nor a position for its mode's hours. Without
    the facts it is judged on the events alone, so the Alerts announce it only once a
    shipment's facts were read (`service/alerts.py`)."""
    if row.current_state != _MOVING:
        return False
    last = last_heard(row, facts)
    return last is None or now - last >= settings.silence_for(row.mode)


def assess(
    row: SummaryRow, facts: Facts | None, now: datetime, settings: TriageSettings
) -> Verdict:
    """The triage of one shipment at `now`."""
    kinds: set[Attention] = set()
    late_by = until_end = silent_for = None
    eta = row.next_eta
    end = facts.appointment_end(eta) if facts is not None and eta is not None else None
    if row.current_state != _DONE and eta is not None and end is not None:
        if eta > end:
            kinds.add(Attention.LATE)
            late_by = eta - end
        elif end - eta <= settings.margin and settings.margin > timedelta(0):
            kinds.add(Attention.AT_RISK)
            until_end = end - eta
    if is_silent(row, facts, now, settings):
        kinds.add(Attention.NO_SIGNAL)
        last = last_heard(row, facts)
        silent_for = now - last if last is not None else None
    if row.open_exception_count > 0:
        kinds.add(Attention.EXCEPTION)
    if not kinds:
        return NOTHING
    return Verdict(
        max(kinds),
        frozenset(kinds),
        late_by,
        until_end,
        silent_for,
        row.open_exception_count,
    )


_LATE, _AT_RISK = 1 << Attention.LATE, 1 << Attention.AT_RISK
_NO_SIGNAL, _EXCEPTION = 1 << Attention.NO_SIGNAL, 1 << Attention.EXCEPTION


def flags_of(row: SummaryRow, facts: Facts | None, now: datetime, settings: TriageSettings) -> int:
    """`attention_flags(assess(...))` without making a verdict: a list of 100,000 rows is
    triaged in a tenth of the time (the tests hold both to the same answers)."""
    flags = _EXCEPTION if row.open_exception_count > 0 else 0
    state = row.current_state
    if state == _DONE:
        return flags
    eta = row.next_eta
    if eta is not None and facts is not None and facts.etas:
        end = facts.appointment_end(eta)
        if end is not None:
            if eta > end:
                flags |= _LATE
            elif end - eta <= settings.margin and settings.margin:
                flags |= _AT_RISK
    if state == _MOVING and is_silent(row, facts, now, settings):
        flags |= _NO_SIGNAL
    return flags


def late_seconds(row: SummaryRow, facts: Facts | None) -> float:
    """How late a shipment is (`assess`'s `late_by`) in seconds, 0 when it is not late: the
    list orders its late shipments by it, the latest first. Reads nothing shared."""
    eta = row.next_eta
    if row.current_state == _DONE or eta is None or facts is None or not facts.etas:
        return 0.0
    end = facts.appointment_end(eta)
    return (eta - end).total_seconds() if end is not None and eta > end else 0.0


def due_of(
    row: SummaryRow, facts: Facts | None, now: datetime, settings: TriageSettings
) -> datetime | None:
    """The moment after `now` from which time alone changes `flags_of` (the same row, facts
    and settings): when a shipment in transit, not silent yet, has been silent for its
    mode's hours. None when time alone never changes it (not in transit, or silent already:
    silence only grows). Late and at risk hold an ETA against a window, whatever the moment."""
    if row.current_state != _MOVING:
        return None
    last = last_heard(row, facts)
    if last is None:
        return None
    due = last + settings.silence_for(row.mode)
    return due if due > now else None


def attention_flags(verdict: Verdict) -> int:
    """A verdict's kinds as bits (1 << kind): one byte per row for the list's filters."""
    return sum(1 << kind for kind in verdict.kinds)


def worst_of(flags: int) -> Attention:
    return Attention(flags.bit_length() - 1) if flags else Attention.NONE


def facts_from_history(history: TrackingHistory, read_at: datetime | None = None) -> Facts:
    """Each ETA with the appointment window's end of its stop, and the last position's time."""
    route = history.shipment.route_info
    ends = {
        stop.id: stop.appointment_window.end_date_time if stop.appointment_window else None
        for stop in (route.stops if route is not None else [])
    }
    # Here, not at the top: the first paint imports this module and no pydantic (a history
    # has been read by now, so models.tracking is loaded).
    from freightdesk.models.tracking import is_open_estimate

    passed = history.passed_stops()
    etas = tuple(
        (e.estimate_date_time, ends.get(e.stop_id) if e.stop_id is not None else None)
        for e in history.events
        # The ETAs that can be the summary's next ETA only (`is_open_estimate`: not of a stop
        # reached, which an arrival ahead of its window would leave late); the second test is
        # the type checker's.
        if is_open_estimate(e, passed) and e.estimate_date_time is not None
    )
    positions = [p.date_time for p in history.positions]
    return Facts(etas, max(positions) if positions else None, read_at)


def needs_facts(row: SummaryRow, known: Facts | None) -> bool:
    """Whether a row's facts should be read (again): they can matter (it has an ETA to hold
    against an appointment, or it is in transit and may be silent) and it changed since."""
    if row.current_state == _DONE or (row.next_eta is None and row.current_state != _MOVING):
        return False
    return known is None or known.read_at != row.last_modified


# The cache's kind for the facts: a restart reads only those of shipments changed since.
FACTS = "shipment_triage_facts"
# Histories read before the list hears of their facts (the soonest ETAs first).
CHUNK = 48


def facts_json(key: str, facts: Facts) -> bytes:
    def text(at: datetime | None) -> str | None:
        return at.isoformat() if at is not None else None

    etas = [[text(estimate), text(end)] for estimate, end in facts.etas]
    return json.dumps([key, etas, text(facts.last_position), text(facts.read_at)]).encode()


def facts_from_json(body: bytes) -> tuple[str, Facts]:
    def time(value: str | None) -> datetime | None:
        return datetime.fromisoformat(value) if value is not None else None

    key, etas, position, read_at = json.loads(body)
    pairs = tuple((datetime.fromisoformat(estimate), time(end)) for estimate, end in etas)
    return str(key), Facts(pairs, time(position), time(read_at))


def cached_facts(cache: Cache) -> dict[str, Facts]:
    """The facts the cache keeps; an unreadable entry is skipped (read again when needed)."""
    return facts_of(cache.load(FACTS))


def facts_of(bodies: Iterable[bytes]) -> dict[str, Facts]:
    """The facts in cached `bodies` (`facts_json`), by shipment key; an unreadable one is
    skipped (read again when needed)."""
    found: dict[str, Facts] = {}
    for body in bodies:
        try:
            key, facts = facts_from_json(body)
        except (ValueError, TypeError):
            continue
        found[key] = facts
    return found


class TriageFacts:
    """The facts (`facts_from_history`) of the shipments under way, read in the background a
    few at a time, for the shipments whose summary changed since their facts were read, and
    kept in the cache. `listen` hears the ids whose facts changed. Facts that could not be
    read (offline, the service restarting) are read again by `retry`: a shipment that does
    not change (a silent truck) is never wanted again otherwise."""

    def __init__(
        self,
        client: Callable[[], ApiClient],
        cache: Cache | None = None,
        *,
        concurrency: int = 3,
        known: Mapping[str, Facts] | None = None,
    ) -> None:
        """`known`: facts of `cache` read already (the first screen's, read with its rows):
        the list is triaged with them until the rest are read from the cache."""
        self._client = client
        self._cache = cache
        self._loaded = cache is None
        self.facts: dict[str, Facts] = dict(known or {})
        self._wanted: dict[str, SummaryRow] = {}  # the rows to read the facts of
        # The rows whose facts could not be read, the longest waiting first (`retry`).
        self._unread: dict[str, SummaryRow] = {}
        self._listeners: list[Callable[[frozenset[str]], None]] = []
        self._concurrency = concurrency
        self._task: asyncio.Task[None] | None = None

    def listen(self, listener: Callable[[frozenset[str]], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    @property
    def unread(self) -> int:
        """How many shipments' facts wait to be read again (`retry`)."""
        return len(self._unread)

    def want(self, rows: Iterable[SummaryRow]) -> None:
        """Read the facts of those of `rows` that need it (`needs_facts`)."""
        facts = self.facts
        for row in rows:
            if needs_facts(row, facts.get(row.id)):
                self._wanted[row.id] = row
                self._unread.pop(row.id, None)
        if self._wanted and not self._reading():
            self._start(None)

    def retry(self) -> None:
        """Read again the facts that could not be read (call it at most once a minute, and
        when the service answers again). The one waiting longest is asked first, alone, and
        the others only once it was read: a service still down is asked once, not once per
        shipment, and a shipment whose history fails each time does not keep the others
        waiting (it goes last)."""
        if not self._unread or self._reading():
            return
        unread, self._unread = self._unread, {}
        self._wanted = {**unread, **self._wanted}
        self._start(next(iter(unread.values())))

    def _reading(self) -> bool:
        return self._task is not None and not self._task.done()

    def _start(self, first: SummaryRow | None) -> None:
        import asyncio  # not at start-up: the list is painted before asyncio is loaded

        reading = self._read(first)
        self._task = asyncio.get_event_loop().create_task(reading, name="triage-facts")

    async def _read(self, first: SummaryRow | None) -> None:
        import asyncio

        if not self._loaded and self._cache is not None:
            try:
                kept = await asyncio.to_thread(cached_facts, self._cache)
            except sqlite3.Error as exc:
                log.info("triage: cached facts not read (%s)", exc)
                kept = {}
            self._loaded = True
            self._record({k: f for k, f in kept.items() if k not in self.facts})
        semaphore = asyncio.Semaphore(self._concurrency)
        if first is not None:  # a retry: that one alone first
            first = self._wanted.pop(first.id, first)  # as last changed
            wanted = needs_facts(first, self.facts.get(first.id))
            if wanted and not await self._read_some([first], semaphore):
                return
        while self._wanted:
            pending = [r for r in self._wanted.values() if needs_facts(r, self.facts.get(r.id))]
            pending.sort(key=_soonest)
            chunk = pending[:CHUNK]
            self._wanted = {r.id: r for r in pending[CHUNK:]}
            if not await self._read_some(chunk, semaphore):
                return

    async def _read_some(self, rows: list[SummaryRow], semaphore: asyncio.Semaphore) -> bool:
        """Read the facts of `rows`; those that could not be read wait for `retry`. False
        when none could be read (offline, signed out, the service in trouble): the rows
        still wanted then wait for `retry` too, rather than being asked of a service that
        does not answer."""
        import asyncio

        from freightdesk.api.errors import FreightDeskError, NotFound

        errors: list[BaseException] = []

        async def one(row: SummaryRow) -> tuple[SummaryRow, Facts | None, bool]:
            """The row, its facts (None: gone) and whether they were read."""
            async with semaphore:
                try:
                    history = await self._client().tracking.history(row.id)
                except NotFound:
                    return row, None, True
                except (FreightDeskError, OSError, RuntimeError) as exc:
                    errors.append(exc)
                    return row, None, False
                return row, facts_from_history(history, row.last_modified), True

        answers = await asyncio.gather(*(one(row) for row in rows))
        failed = [row for row, _facts, read in answers if not read]
        if failed:
            log.info("triage: facts of %d shipments not read (%s)", len(failed), errors[0])
        for row in failed:
            self._unread.pop(row.id, None)
            self._unread[row.id] = row  # after those waiting longer
        found = {row.id: f for row, f, _answered in answers if f is not None}
        self._record(found)
        if self._cache is not None and found:
            # In a worker thread: the cache may be busy keeping a whole list. Shielded: a
            # close meanwhile (the pane closing) cancels this task, and a cancelled call still
            # queued for a thread (for seconds on a busy machine) would never run: facts read
            # would not be kept.
            items = [(k, facts_json(k, f)) for k, f in found.items()]
            await asyncio.shield(asyncio.to_thread(_keep, self._cache, items))
        if not failed or len(failed) < len(rows):
            return True
        self._unread = {**self._wanted, **self._unread}
        self._wanted = {}
        return False

    def _record(self, found: dict[str, Facts]) -> None:
        changed = frozenset(k for k, f in found.items() if self.facts.get(k) != f)
        self.facts.update(found)
        if changed:
            for listener in list(self._listeners):
                listener(changed)

    def close(self) -> None:
        """Stop reading; the reading in progress is cancelled (facts already read are still
        kept in the cache)."""
        task, self._task = self._task, None
        self._wanted.clear()
        self._unread.clear()
        self._listeners.clear()
        if task is not None and not task.done():
            task.cancel()


def _keep(cache: Cache, items: list[tuple[str, bytes]]) -> None:
    try:
        cache.put_many(FACTS, items)
    except sqlite3.Error as exc:  # only a quicker next start is lost (or the cache closed)
        log.info("triage: facts not kept (%s)", exc)


def _soonest(row: SummaryRow) -> float:
    return row.next_eta.timestamp() if row.next_eta is not None else float("inf")
