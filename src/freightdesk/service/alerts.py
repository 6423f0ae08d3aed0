"""The Alerts inbox: what happened in the background that a dispatcher should see.

New exceptions, shipments turning late, at risk or silent (triage's rules, `service/triage.py`),
bookings the carrier answered and webhook deliveries that failed, each with its kind, time,
words and the object it opens. Alerts and whether they were read are kept in the profile's
cache, so a restart shows the same inbox.

De-duplication: a shipment's condition (late, at risk, no signal) alerts when it begins; it
alerts again only after the shipment recovered. The conditions last judged are kept too, so a
restart does not announce again what was announced before. The first list ever judged is
taken as it is (nothing announced), and a shipment's late or at-risk condition is announced
only once its facts had been read before (the first facts read say what is, not what changed).
Silence (`triage.is_silent`, the list's rule) is announced only as the facts' position says it:
judged on the events alone it is not announced, nor kept as known, so it is announced once the
facts are read and still say it (a position can only make a shipment less silent, so silence
with the facts is silence begun since the list was noted).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import MOVING, Attention, Facts, TriageSettings, assess, flags_of

if TYPE_CHECKING:
    from freightdesk.models.webhooks import Delivery
    from freightdesk.service.bookings import StatusChange
    from freightdesk.service.cache import Cache
    from freightdesk.service.coordinator import Coordinator
    from freightdesk.service.webhooks import WebhooksService

log = logging.getLogger(__name__)


class AlertKind(StrEnum):
    EXCEPTION = "exception"
    LATE = "late"
    AT_RISK = "at_risk"
    NO_SIGNAL = "no_signal"
    BOOKING = "booking"
    WEBHOOK = "webhook"


KIND_NAMES = {
    AlertKind.EXCEPTION: "New exception",
    AlertKind.LATE: "Late",
    AlertKind.AT_RISK: "At risk",
    AlertKind.NO_SIGNAL: "No signal",
    AlertKind.BOOKING: "Booking answered",
    AlertKind.WEBHOOK: "Webhook delivery failed",
}


class Opens(StrEnum):
    """What an alert opens."""

    SHIPMENT = "shipment"
    BOOKING = "booking"
    WEBHOOK = "webhook"


@dataclass(frozen=True)
class Alert:
    key: str  # unique; also what de-duplicates bookings' and deliveries' alerts
    kind: AlertKind
    at: datetime
    text: str
    opens: Opens
    target: str  # the shipment, booking or webhook id
    read: bool = False


@dataclass(frozen=True)
class AlertsChange:
    added: tuple[Alert, ...] = ()
    unread: int = 0


# The cache's kinds: the alerts, and each shipment's conditions as last judged.
ALERTS = "alerts"
CONDITIONS = "alert_conditions"
BASELINE = "alerts:baseline"  # meta: the first list was judged
WEBHOOKS_BASELINE = "alerts:webhooks_baseline"
# The oldest alerts are dropped past this many (read ones first).
MAX_ALERTS = 1000
# The conditions that alert when they begin (an exception alerts when the count grows).
_CONDITIONS = {
    Attention.LATE: AlertKind.LATE,
    Attention.AT_RISK: AlertKind.AT_RISK,
    Attention.NO_SIGNAL: AlertKind.NO_SIGNAL,
}


@dataclass(frozen=True)
class Condition:
    """A shipment as last judged: its conditions, open exceptions, whether facts were known."""

    kinds: frozenset[Attention] = frozenset()
    exceptions: int = 0
    with_facts: bool = False

    @property
    def flags(self) -> int:
        return sum(1 << k for k in self.kinds)


_CALM = Condition()
_CONDITION_FLAGS = sum(1 << k for k in _CONDITIONS)
_SILENT = 1 << Attention.NO_SIGNAL


def shipment_name(row: SummaryRow) -> str:
    if row.primary_identifier:
        return row.primary_identifier
    if row.identifiers:
        return row.identifiers[0][1]
    return f"Shipment {row.id[:8]}"


def shipment_alerts(
    row: SummaryRow,
    before: Condition,
    now: datetime,
    verdict_kinds: frozenset[Attention],
    with_facts: bool,
) -> tuple[list[Alert], Condition]:
    """The alerts one shipment raises from `before` to now (judged `verdict_kinds`, its
    history's facts read or not), and its condition now."""
    after = Condition(
        frozenset(k for k in verdict_kinds if k in _CONDITIONS),
        row.open_exception_count,
        before.with_facts or with_facts,
    )
    name = shipment_name(row)
    stamp = now.isoformat()
    alerts = []
    if row.open_exception_count > before.exceptions:
        count = row.open_exception_count - before.exceptions
        what = "a new exception" if count == 1 else f"{count} new exceptions"
        detail = f": {row.latest_event_description}" if row.latest_event_description else ""
        alerts.append(
            _shipment_alert(AlertKind.EXCEPTION, row, f"{name} has {what}{detail}", stamp)
        )
    for kind in sorted(after.kinds - before.kinds, reverse=True):
        if kind is Attention.AT_RISK and Attention.LATE in before.kinds:
            continue  # late, now only at risk: better, not news
        if kind is not Attention.NO_SIGNAL and not before.with_facts:
            continue  # the first facts read say what is, not what changed
        text = {
            Attention.LATE: f"{name} is now late against its appointment",
            Attention.AT_RISK: f"{name} is at risk of missing its appointment",
            Attention.NO_SIGNAL: f"{name} has gone silent (no event or position)",
        }[kind]
        alerts.append(_shipment_alert(_CONDITIONS[kind], row, text, stamp))
    return alerts, after


def _shipment_alert(kind: AlertKind, row: SummaryRow, text: str, stamp: str) -> Alert:
    return Alert(
        f"{kind}:{row.id}:{stamp}",
        kind,
        datetime.fromisoformat(stamp),
        text,
        Opens.SHIPMENT,
        row.id,
    )


def booking_alert(change: StatusChange, now: datetime) -> Alert:
    booking = change.booking
    status = booking.status.value
    return Alert(
        f"booking:{booking.id}:{status}",
        AlertKind.BOOKING,
        now,
        change.text,
        Opens.BOOKING,
        str(booking.id),
    )


def delivery_alert(webhook_id: int, name: str, delivery: Delivery) -> Alert:
    error = next((a.error for a in delivery.attempts if a.error), None)
    why = f": {error}" if error else ""
    text = (
        f"Webhook {name!r} could not deliver {delivery.event_type}"
        f" (message {delivery.message_id}){why}"
    )
    at = (
        delivery.attempts[0].attempted_date_time
        if delivery.attempts
        else delivery.created_date_time
    )
    return Alert(
        f"webhook:{webhook_id}:{delivery.message_id}",
        AlertKind.WEBHOOK,
        at,
        text,
        Opens.WEBHOOK,
        str(webhook_id),
    )


def alert_json(alert: Alert) -> bytes:
    return json.dumps(
        [
            alert.key,
            alert.kind.value,
            alert.at.isoformat(),
            alert.text,
            alert.opens.value,
            alert.target,
            alert.read,
        ]
    ).encode()


def alert_from_json(body: bytes) -> Alert:
    key, kind, at, text, opens, target, read = json.loads(body)
    return Alert(
        str(key),
        AlertKind(kind),
        datetime.fromisoformat(at),
        str(text),
        Opens(opens),
        str(target),
        bool(read),
    )


def condition_json(key: str, condition: Condition) -> bytes:
    """A shipment's condition with its id first (the cache's `load` gives only bodies)."""
    kinds = sorted(int(k) for k in condition.kinds)
    return json.dumps([key, kinds, condition.exceptions, condition.with_facts]).encode()


def condition_from_json(body: bytes) -> tuple[str, Condition]:
    key, kinds, exceptions, with_facts = json.loads(body)
    condition = Condition(frozenset(Attention(k) for k in kinds), int(exceptions), bool(with_facts))
    return str(key), condition


class AlertsInbox:
    """The inbox of one profile's cache. `listen` hears each change (alerts added, read)."""

    def __init__(self, cache: Cache, *, clock: Callable[[], datetime] | None = None) -> None:
        self._cache = cache
        self._clock = clock or (lambda: datetime.now(UTC))
        self._listeners: list[Callable[[AlertsChange], None]] = []
        self._alerts: dict[str, Alert] = {}
        # Read at the first judging, not when the cache opens (the window's first paint).
        self._conditions: dict[str, Condition] | None = None
        self._baselined = cache.meta(BASELINE) is not None
        self._webhook_poll: Coordinator[dict[str, Alert], list[Alert]] | None = None
        self._unlisten: list[Callable[[], None]] = []
        for body in cache.load(ALERTS):
            try:
                alert = alert_from_json(body)
            except (ValueError, TypeError):
                continue  # an unreadable entry: only that alert is lost
            self._alerts[alert.key] = alert

    def _known_conditions(self) -> dict[str, Condition]:
        if self._conditions is None:
            self._conditions = {}
            for body in self._cache.load(CONDITIONS):
                try:
                    key, condition = condition_from_json(body)
                except (ValueError, TypeError):
                    continue
                self._conditions[key] = condition
        return self._conditions

    # --- reading ---------------------------------------------------------------------------

    @property
    def alerts(self) -> list[Alert]:
        """Newest first."""
        return sorted(self._alerts.values(), key=lambda a: (a.at, a.key), reverse=True)

    @property
    def unread(self) -> int:
        return sum(1 for a in self._alerts.values() if not a.read)

    @property
    def baselined(self) -> bool:
        """Whether a whole list was judged (since then changes are announced)."""
        return self._baselined

    def get(self, key: str) -> Alert | None:
        return self._alerts.get(key)

    def listen(self, listener: Callable[[AlertsChange], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # --- read state ------------------------------------------------------------------------

    def mark_read(self, keys: Iterable[str], read: bool = True) -> None:
        changed = [
            replace(a, read=read)
            for k in keys
            if (a := self._alerts.get(k)) is not None and a.read is not read
        ]
        if changed:
            self._store(changed)
            self._tell(())

    def mark_all_read(self) -> None:
        self.mark_read([k for k, a in self._alerts.items() if not a.read])

    # --- rules -----------------------------------------------------------------------------

    def judge_shipments(
        self,
        rows: Iterable[SummaryRow],
        facts: Mapping[str, Facts],
        settings: TriageSettings,
        *,
        removed: Iterable[str] = (),
        whole: bool = False,
        announce: bool = True,
    ) -> list[Alert]:
        """Judge `rows` against their last conditions. Nothing is announced before a `whole`
        list that was not empty has been judged (the first one is only noted), nor when
        `announce` is false (the demo being written: its shipments are not news)."""
        now = self._clock()
        announcing = announce and self._baselined
        judged = 0
        alerts: list[Alert] = []
        changed: dict[str, Condition] = {}
        known = self._known_conditions()
        for row in rows:
            judged += 1
            # The quick test first (`flags_of`): nearly every row of a long list is as it was.
            flags = flags_of(row, facts.get(row.id), now, settings) & _CONDITION_FLAGS
            exceptions, with_facts = row.open_exception_count, row.id in facts
            before = known.get(row.id)
            # Silence on the events alone, no facts read yet: a position they bring may say it
            # was heard (a shipment shared with the user was announced silent while its list
            # row was not). Neither announced nor kept as known: announced once the facts say
            # it (kept, a silence begun while they could not be read went unsaid for good).
            # A silence known already (the first list's, taken as it is) stays known.
            hearsay = (
                announcing
                and not with_facts
                and (before is None or not (before.with_facts or before.flags & _SILENT))
            )
            if hearsay:
                flags &= ~_SILENT
            if before is None:
                if not (flags or exceptions or with_facts):
                    continue
                before = _CALM
            elif (
                before.flags == flags
                and before.exceptions == exceptions
                and (before.with_facts or not with_facts)
            ):
                continue
            kinds = assess(row, facts.get(row.id), now, settings).kinds
            if hearsay:
                kinds -= {Attention.NO_SIGNAL}
            raised, after = shipment_alerts(row, before, now, kinds, with_facts)
            if after != before:
                changed[row.id] = after
            if announcing:
                alerts.extend(raised)
        gone = [k for k in removed if k in known]
        self._keep_conditions(changed, gone)
        if not self._baselined and whole and judged:
            self._baselined = True
            self._cache.set_meta(BASELINE, now.isoformat())
        self._add(alerts)
        return alerts

    def judge_moving(
        self, rows: Iterable[SummaryRow], facts: Mapping[str, Facts], settings: TriageSettings
    ) -> list[Alert]:
        """Judge again, at a new moment, the shipments time alone can change (in transit)."""
        return self.judge_shipments((r for r in rows if r.current_state == MOVING), facts, settings)

    def bookings_answered(self, changes: Sequence[StatusChange]) -> list[Alert]:
        now = self._clock()
        return self._add(
            [a for c in changes if (a := booking_alert(c, now)).key not in self._alerts]
        )

    def deliveries_failed(self, alerts: Sequence[Alert]) -> list[Alert]:
        """Failed deliveries' alerts (`delivery_alert`); those known already are skipped. The
        first look ever keeps them as read: old failures, not news."""
        fresh = [a for a in alerts if a.key not in self._alerts]
        if self._cache.meta(WEBHOOKS_BASELINE) is None:
            self._cache.set_meta(WEBHOOKS_BASELINE, self._clock().isoformat())
            fresh = [replace(a, read=True) for a in fresh]
        return self._add(fresh)

    # --- following the services ------------------------------------------------------------

    def follow_webhooks(self, service: WebhooksService, *, interval: float = 60.0) -> None:
        """Look at the failed deliveries of every configuration now and then (where the
        service keeps a delivery log)."""
        from freightdesk.service.coordinator import Coordinator

        async def fetch(_previous: dict[str, Alert] | None) -> dict[str, Alert]:
            from freightdesk.models.webhooks import DeliveryStatus

            if not (await service.extensions()).delivery_log:
                return {}
            found: dict[str, Alert] = {}
            configurations, _total = await service.fetch_items({})
            for configuration in configurations:
                if configuration.id is None:
                    continue
                page = await service.deliveries(
                    int(configuration.id), status=DeliveryStatus.FAILED, page_size=50
                )
                for delivery in page.deliveries:
                    alert = delivery_alert(
                        int(configuration.id), configuration.config_name, delivery
                    )
                    found[alert.key] = alert
            return found

        def diff(_old: dict[str, Alert] | None, new: dict[str, Alert]) -> list[Alert] | None:
            fresh = [a for k, a in new.items() if k not in self._alerts]
            return fresh or None

        if self._webhook_poll is None:
            self._webhook_poll = Coordinator("webhook-failures", fetch, diff, interval=interval)
            self._unlisten.append(self._webhook_poll.listen(self._failed))

    def look_again(self) -> None:
        """Look at the delivery logs now (the user asked to refresh)."""
        if self._webhook_poll is not None:
            self._webhook_poll.poke()

    def _failed(self, fresh: list[Alert]) -> None:
        self.deliveries_failed(fresh)

    def follow(self, unsubscribe: Callable[[], None]) -> None:
        """Keep a subscription to end when the inbox closes."""
        self._unlisten.append(unsubscribe)

    async def aclose(self) -> None:
        for unsubscribe in self._unlisten:
            unsubscribe()
        self._unlisten.clear()
        if self._webhook_poll is not None:
            await self._webhook_poll.aclose()
            self._webhook_poll = None
        self._listeners.clear()

    # --- keeping ---------------------------------------------------------------------------

    def _add(self, alerts: Sequence[Alert]) -> list[Alert]:
        if not alerts:
            return []
        self._store(alerts)
        self._prune()
        self._tell(tuple(alerts))
        return list(alerts)

    def _store(self, alerts: Sequence[Alert]) -> None:
        for alert in alerts:
            self._alerts[alert.key] = alert
        try:
            self._cache.put_many(ALERTS, [(a.key, alert_json(a)) for a in alerts])
        except sqlite3.Error as exc:  # shown this session; only the next start loses them
            log.warning("alerts not kept (%s)", exc)

    def _prune(self) -> None:
        extra = len(self._alerts) - MAX_ALERTS
        if extra <= 0:
            return
        oldest = sorted(self._alerts.values(), key=lambda a: (not a.read, a.at))[:extra]
        for alert in oldest:
            del self._alerts[alert.key]
        self._delete(ALERTS, [a.key for a in oldest])

    def _keep_conditions(self, changed: dict[str, Condition], gone: list[str]) -> None:
        calm = [k for k, c in changed.items() if c == _CALM]
        kept = {k: c for k, c in changed.items() if c != _CALM}
        known = self._known_conditions()
        known.update(kept)
        for key in (*calm, *gone):
            known.pop(key, None)
        try:
            if kept:
                self._cache.put_many(
                    CONDITIONS,
                    [(k, condition_json(k, c)) for k, c in kept.items()],
                )
        except sqlite3.Error as exc:
            log.info("alert conditions not kept (%s)", exc)
        self._delete(CONDITIONS, [*calm, *gone])

    def _delete(self, kind: str, keys: list[str]) -> None:
        if not keys:
            return
        try:
            self._cache.delete_many(kind, keys)
        except sqlite3.Error as exc:
            log.info("alerts: %s not deleted (%s)", kind, exc)

    def _tell(self, added: tuple[Alert, ...]) -> None:
        change = AlertsChange(added, self.unread)
        for listener in list(self._listeners):
            try:
                listener(change)
            except Exception:
                log.exception("an alerts listener failed")
