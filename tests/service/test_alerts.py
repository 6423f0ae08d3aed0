"""The Alerts inbox (service/alerts.py): its rules, its de-duplication, and its read state kept
in the profile's cache across a restart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from freightdesk.models.webhooks import Delivery, DeliveryAttempt, DeliveryStatus
from freightdesk.service.alerts import (
    ALERTS,
    Alert,
    AlertKind,
    AlertsChange,
    AlertsInbox,
    Opens,
    delivery_alert,
)
from freightdesk.service.cache import Cache
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import (
    Attention,
    Facts,
    TriageSettings,
    assess,
    flags_of,
    is_silent,
)

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
END = NOW + timedelta(hours=5)
SETTINGS = TriageSettings()


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def _row(
    key: str = "s-1",
    *,
    state: str = "IN_TRANSIT",
    eta: datetime | None = None,
    heard: datetime | None = NOW,
    exceptions: int = 0,
) -> SummaryRow:
    return SummaryRow(
        id=key,
        identifiers=(("PRO", f"P-{key}"),),
        primary_identifier=f"P-{key}",
        mode="TL",
        current_state=state,
        origin_name="Chicago",
        destination_name="Dallas",
        next_eta=eta,
        latest_event_type="PICKED_UP",
        latest_event_time=heard,
        latest_event_description="Damaged pallet" if exceptions else None,
        open_exception_count=exceptions,
        carrier=None,
        created=NOW - timedelta(days=1),
        last_modified=NOW,
    )


FACTS = {"s-1": Facts(etas=((END, END),))}
ON_TIME = END - timedelta(hours=3)
LATE = END + timedelta(hours=1)
AT_RISK = END - timedelta(minutes=30)


def _inbox(tmp_path: Path, clock: Clock | None = None) -> tuple[AlertsInbox, Cache]:
    cache = Cache(tmp_path / "cache.sqlite")
    return AlertsInbox(cache, clock=clock or Clock()), cache


def test_the_first_list_is_noted_and_only_changes_after_it_alert(tmp_path: Path) -> None:
    inbox, cache = _inbox(tmp_path)
    heard: list[AlertsChange] = []
    inbox.listen(heard.append)
    # Before any list: changes are noted, not announced; an empty list sets nothing.
    assert inbox.judge_shipments([_row("s-0", exceptions=1)], {}, SETTINGS) == []
    assert inbox.judge_shipments([], {}, SETTINGS, whole=True) == []
    assert inbox.judge_shipments([_row("s-0", exceptions=2)], {}, SETTINGS) == []
    # Already in exception and silent when first seen: what is, not news.
    first = [_row(exceptions=1, heard=None)]
    assert inbox.judge_shipments(first, {}, SETTINGS, whole=True) == []
    assert inbox.alerts == [] and heard == []
    raised = inbox.judge_shipments([_row(exceptions=2, heard=None)], {}, SETTINGS)
    assert [a.kind for a in raised] == [AlertKind.EXCEPTION]
    assert raised[0].opens is Opens.SHIPMENT and raised[0].target == "s-1"
    assert raised[0].text == "P-s-1 has a new exception: Damaged pallet"
    assert heard[-1].added == tuple(raised) and heard[-1].unread == 1
    # A shipment first seen after the first list: its exception is new.
    raised = inbox.judge_shipments([_row("s-2", exceptions=1)], {}, SETTINGS)
    assert [a.kind for a in raised] == [AlertKind.EXCEPTION] and inbox.unread == 2
    # While the demo is written: noted, not announced.
    quiet = inbox.judge_shipments([_row("s-3", exceptions=1)], {}, SETTINGS, announce=False)
    assert quiet == [] and inbox.unread == 2
    assert inbox.judge_shipments([_row("s-3", exceptions=1)], {}, SETTINGS) == []
    cache.close()


def test_late_once_until_it_recovers(tmp_path: Path) -> None:
    clock = Clock()
    inbox, cache = _inbox(tmp_path, clock)
    inbox.judge_shipments([_row(eta=ON_TIME)], FACTS, SETTINGS, whole=True)
    raised = inbox.judge_shipments([_row(eta=LATE)], FACTS, SETTINGS)
    assert [(a.kind, a.text) for a in raised] == [
        (AlertKind.LATE, "P-s-1 is now late against its appointment")
    ]
    # Still late, later still, judged again and again: one alert.
    for minutes in (1, 2, 3):
        clock.now = NOW + timedelta(minutes=minutes)
        later = _row(eta=LATE + timedelta(minutes=minutes), heard=clock.now)
        assert inbox.judge_shipments([later], FACTS, SETTINGS) == []
    # Recovered, then late again: a second alert.
    assert inbox.judge_shipments([_row(eta=ON_TIME, heard=clock.now)], FACTS, SETTINGS) == []
    clock.now += timedelta(minutes=1)
    again = inbox.judge_shipments([_row(eta=LATE, heard=clock.now)], FACTS, SETTINGS)
    assert [a.kind for a in again] == [AlertKind.LATE]
    assert len([a for a in inbox.alerts if a.kind is AlertKind.LATE]) == 2
    cache.close()


def test_at_risk_alerts_but_late_turning_at_risk_does_not(tmp_path: Path) -> None:
    inbox, cache = _inbox(tmp_path)
    inbox.judge_shipments([_row(eta=ON_TIME)], FACTS, SETTINGS, whole=True)
    assert [a.kind for a in inbox.judge_shipments([_row(eta=AT_RISK)], FACTS, SETTINGS)] == [
        AlertKind.AT_RISK
    ]
    assert [a.kind for a in inbox.judge_shipments([_row(eta=LATE)], FACTS, SETTINGS)] == [
        AlertKind.LATE
    ]
    assert inbox.judge_shipments([_row(eta=AT_RISK)], FACTS, SETTINGS) == []
    cache.close()


def test_the_first_facts_read_say_what_is(tmp_path: Path) -> None:
    inbox, cache = _inbox(tmp_path)
    inbox.judge_shipments(
        [_row(eta=LATE)], {}, SETTINGS, whole=True
    )  # no facts yet: not judged late
    assert inbox.judge_shipments([_row(eta=LATE)], FACTS, SETTINGS) == []
    cache.close()


def test_going_silent_alerts_once_when_the_minute_passes(tmp_path: Path) -> None:
    clock = Clock()
    inbox, cache = _inbox(tmp_path, clock)
    row = _row(heard=NOW)
    facts = {"s-1": Facts()}  # read: no position, the events say it all
    inbox.judge_shipments(
        [row, _row("done", state="COMPLETED", heard=None)], facts, SETTINGS, whole=True
    )
    clock.now = NOW + SETTINGS.silence_for("TL") - timedelta(minutes=1)
    assert inbox.judge_moving([row], facts, SETTINGS) == []
    clock.now += timedelta(minutes=1)
    raised = inbox.judge_moving([row], facts, SETTINGS)
    assert [(a.kind, a.at) for a in raised] == [(AlertKind.NO_SIGNAL, clock.now)]
    clock.now += timedelta(minutes=10)
    assert inbox.judge_moving([row], facts, SETTINGS) == []
    cache.close()


def test_silence_is_the_lists_and_waits_for_the_position(tmp_path: Path) -> None:
    """A shipment shared with the user arrives in transit, its last event older than a
    truck's silence: on the events alone it is silent, but its facts (read a moment later)
    hold a position from minutes ago. The Alerts said "has gone silent" while the list's
    Attention (the same facts) said nothing; now neither announces it until the facts say
    it, and both then agree."""
    clock = Clock()
    inbox, cache = _inbox(tmp_path, clock)
    inbox.judge_shipments([_row("s-0")], {}, SETTINGS, whole=True)
    shared = _row(heard=NOW - SETTINGS.silence_for("TL") - timedelta(minutes=30))
    assert flags_of(shared, None, clock.now, SETTINGS) & (1 << Attention.NO_SIGNAL)
    assert inbox.judge_shipments([shared], {}, SETTINGS) == []
    positioned = {"s-1": Facts(last_position=NOW - timedelta(minutes=2))}
    assert not is_silent(shared, positioned["s-1"], clock.now, SETTINGS)
    assert assess(shared, positioned["s-1"], clock.now, SETTINGS).text == ""
    assert inbox.judge_shipments([shared], positioned, SETTINGS) == []
    assert inbox.alerts == []
    # Silent for real once the position is a truck's hours old: announced, as the list says.
    clock.now = NOW + SETTINGS.silence_for("TL")
    verdict = assess(shared, positioned["s-1"], clock.now, SETTINGS)
    raised = inbox.judge_moving([shared], positioned, SETTINGS)
    assert [a.kind for a in raised] == [AlertKind.NO_SIGNAL]
    assert verdict.worst is Attention.NO_SIGNAL and verdict.text == "No signal 4 h"
    cache.close()


def test_a_silence_noted_with_the_first_list_stays_unannounced_when_its_facts_come(
    tmp_path: Path,
) -> None:
    """Silence on the events alone is announced only once the facts say it (a shipment's
    facts that could not be read, then are: `test_triage_retry.py`), but the first list is
    taken as it is: a truck silent in it, its facts read minutes later, is not news."""
    clock = Clock()
    inbox, cache = _inbox(tmp_path, clock)
    silent = _row(heard=NOW - SETTINGS.silence_for("TL") - timedelta(hours=1))
    assert inbox.judge_shipments([silent], {}, SETTINGS, whole=True) == []
    clock.now += timedelta(minutes=1)
    assert inbox.judge_moving([silent], {}, SETTINGS) == []
    assert inbox.judge_shipments([silent], {"s-1": Facts()}, SETTINGS) == []
    assert inbox.alerts == []
    cache.close()


def test_read_state_and_conditions_survive_reopening_the_cache(tmp_path: Path) -> None:
    inbox, cache = _inbox(tmp_path)
    inbox.judge_shipments([_row(eta=ON_TIME), _row("s-2")], FACTS, SETTINGS, whole=True)
    inbox.judge_shipments([_row(eta=LATE), _row("s-2", exceptions=1)], FACTS, SETTINGS)
    late, exception = sorted(inbox.alerts, key=lambda a: a.kind != AlertKind.LATE)
    inbox.mark_read([late.key])
    assert inbox.unread == 1
    cache.close()

    reopened, cache = _inbox(tmp_path)
    assert {(a.key, a.read) for a in reopened.alerts} == {(late.key, True), (exception.key, False)}
    assert reopened.unread == 1
    # Still late, same exceptions: a restart announces nothing again.
    assert (
        reopened.judge_shipments([_row(eta=LATE), _row("s-2", exceptions=1)], FACTS, SETTINGS) == []
    )
    reopened.mark_all_read()
    cache.close()
    again, cache = _inbox(tmp_path)
    assert again.unread == 0 and len(again.alerts) == 2
    cache.close()


def test_an_unreadable_alert_is_skipped(tmp_path: Path) -> None:
    inbox, cache = _inbox(tmp_path)
    inbox.judge_shipments([_row()], {}, SETTINGS, whole=True)
    inbox.judge_shipments([_row(exceptions=1)], {}, SETTINGS)
    cache.put_many(ALERTS, [("broken", b"[not json")])
    cache.close()
    reopened, cache = _inbox(tmp_path)
    assert [a.kind for a in reopened.alerts] == [AlertKind.EXCEPTION]
    cache.close()


def _delivery(message_id: int, status: DeliveryStatus = DeliveryStatus.FAILED) -> Delivery:
    attempt = DeliveryAttempt(
        attempted_date_time=NOW, status_code=500, latency_ms=12.0, error="The receiver said 500"
    )
    return Delivery(
        message_id=message_id,
        event_id=f"e-{message_id}",
        event_type="SHIPMENT_STATE_UPDATED",
        status=status,
        created_date_time=NOW - timedelta(minutes=5),
        attempt_count=1,
        attempts=[attempt],
    )


def test_failed_deliveries_alert_once_and_old_ones_come_read(tmp_path: Path) -> None:
    inbox, cache = _inbox(tmp_path)
    first = [delivery_alert(7, "Dock system", _delivery(1))]
    assert first[0].opens is Opens.WEBHOOK and first[0].target == "7"
    assert "'Dock system' could not deliver SHIPMENT_STATE_UPDATED" in first[0].text
    assert "The receiver said 500" in first[0].text
    # The first look: failures from before the inbox, kept as read.
    assert [a.read for a in inbox.deliveries_failed(first)] == [True]
    second = [*first, delivery_alert(7, "Dock system", _delivery(2))]
    raised = inbox.deliveries_failed(second)
    assert [(a.key, a.read) for a in raised] == [("webhook:7:2", False)]
    assert inbox.deliveries_failed(second) == []
    cache.close()


def test_a_listener_that_fails_does_not_stop_the_others(tmp_path: Path) -> None:
    inbox, cache = _inbox(tmp_path)
    heard: list[int] = []

    def broken(_change: AlertsChange) -> None:
        raise RuntimeError("boom")

    inbox.listen(broken)
    unlisten = inbox.listen(lambda change: heard.append(change.unread))
    inbox.judge_shipments([_row()], {}, SETTINGS, whole=True)
    inbox.judge_shipments([_row(exceptions=1)], {}, SETTINGS)
    unlisten()
    inbox.mark_all_read()
    assert heard == [1]
    assert isinstance(inbox.alerts[0], Alert)
    cache.close()
