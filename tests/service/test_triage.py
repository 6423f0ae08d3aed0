"""The triage rules (service/triage.py), each pinned at its edges."""

from __future__ import annotations

import asyncio
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.models.durations import duration_text
from freightdesk.models.tracking import TrackingHistory
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import summary_from_history
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import (
    DEFAULT_SILENCE,
    FACTS,
    NOTHING,
    Attention,
    Facts,
    TriageFacts,
    TriageSettings,
    assess,
    attention_flags,
    check_settings,
    due_of,
    facts_from_history,
    flags_of,
    late_seconds,
    needs_facts,
    settings_of,
    worst_of,
)
from tests.server.test_carrier_push_support import PARCEL, accepted, iso, java_time, now, settled
from tests.support import TenantHandle, wait_until

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
END = NOW + timedelta(hours=5)  # the end of the stop's appointment window
SETTINGS = TriageSettings()


def _row(
    *,
    state: str | None = "IN_TRANSIT",
    mode: str | None = "TL",
    eta: datetime | None = None,
    event_at: datetime | None = NOW,
    exceptions: int = 0,
) -> SummaryRow:
    return SummaryRow(
        id="s-1",
        identifiers=(("PRO", "P1"),),
        primary_identifier="P1",
        mode=mode,
        current_state=state,
        origin_name="Chicago",
        destination_name="Dallas",
        next_eta=eta,
        latest_event_type="PICKED_UP" if event_at else None,
        latest_event_time=event_at,
        latest_event_description=None,
        open_exception_count=exceptions,
        carrier=None,
        created=NOW - timedelta(days=1),
        last_modified=NOW - timedelta(minutes=5),
    )


def _facts(end: datetime | None = END, position: datetime | None = None) -> Facts:
    """Facts of one ETA for a stop whose window ends at `end`: a row's next ETA of another
    value (newer than the history read) is taken for that stop too."""
    return Facts(etas=((END, end),), last_position=position)


def test_a_shipment_on_time_and_heard_from_needs_nothing() -> None:
    verdict = assess(_row(eta=END - timedelta(hours=2)), _facts(), NOW, SETTINGS)
    assert verdict is NOTHING and verdict.text == "" and verdict.explanation == ""


def test_late_is_an_eta_after_the_window_end_by_how_much() -> None:
    verdict = assess(_row(eta=END + timedelta(hours=2, minutes=10)), _facts(), NOW, SETTINGS)
    assert verdict.worst is Attention.LATE and verdict.kinds == {Attention.LATE}
    assert verdict.late_by == timedelta(hours=2, minutes=10)
    assert verdict.text == "Late 2 h 10 min"
    assert verdict.explanation == "ETA 2 h 10 min after the appointment window"


def test_an_eta_at_the_window_end_is_not_late_but_at_risk() -> None:
    assert assess(_row(eta=END), _facts(), NOW, SETTINGS).worst is Attention.AT_RISK
    one_second = assess(_row(eta=END + timedelta(seconds=1)), _facts(), NOW, SETTINGS)
    assert one_second.worst is Attention.LATE and one_second.text == "Late under 1 min"


def test_at_risk_is_an_eta_within_the_margin_before_the_end() -> None:
    margin = timedelta(minutes=60)
    edge = assess(_row(eta=END - margin), _facts(), NOW, SETTINGS)
    assert edge.worst is Attention.AT_RISK and edge.text == "At risk"
    assert edge.explanation == "ETA 1 h before the appointment window ends"
    earlier = assess(_row(eta=END - margin - timedelta(seconds=1)), _facts(), NOW, SETTINGS)
    assert earlier is NOTHING
    wider = TriageSettings(margin=timedelta(minutes=90))
    assert assess(_row(eta=END - margin), _facts(), NOW, wider).worst is Attention.AT_RISK
    # A margin of 0 turns at risk off; late stays.
    off = TriageSettings(margin=timedelta(0))
    assert assess(_row(eta=END), _facts(), NOW, off) is NOTHING


@pytest.mark.parametrize(
    ("eta", "facts"),
    [(None, _facts()), (END + timedelta(hours=1), None), (END + timedelta(hours=1), _facts(None))],
)
def test_lateness_needs_an_eta_and_an_appointment(eta: datetime | None, facts: Facts) -> None:
    assert assess(_row(eta=eta), facts, NOW, SETTINGS) is NOTHING


def test_a_completed_shipment_is_neither_late_nor_silent() -> None:
    old = NOW - timedelta(days=5)
    done = _row(state="COMPLETED", eta=END + timedelta(hours=3), event_at=old)
    assert assess(done, _facts(), NOW, SETTINGS) is NOTHING


def test_a_scheduled_shipment_can_be_late_but_not_silent() -> None:
    row = _row(state="SCHEDULED", eta=END + timedelta(hours=1), event_at=None)
    assert assess(row, _facts(), NOW, SETTINGS).kinds == {Attention.LATE}


@pytest.mark.parametrize(
    ("mode", "hours"), [(m, s.total_seconds() / 3600) for m, s in DEFAULT_SILENCE.items()]
)
def test_no_signal_after_the_modes_hours_in_transit(mode: str, hours: float) -> None:
    limit = timedelta(hours=hours)
    at_limit = assess(_row(mode=mode, event_at=NOW - limit), None, NOW, SETTINGS)
    assert at_limit.worst is Attention.NO_SIGNAL
    assert at_limit.text == f"No signal {duration_text(limit)}"
    just_before = NOW - limit + timedelta(seconds=1)
    assert assess(_row(mode=mode, event_at=just_before), None, NOW, SETTINGS) is NOTHING


def test_the_defaults_per_mode() -> None:
    hours = {mode: span.total_seconds() / 3600 for mode, span in DEFAULT_SILENCE.items()}
    assert hours == {
        "TL": 4, "LTL": 12, "VLTL": 12, "PARCEL": 24, "RAIL": 24, "OCEAN": 48, "AIR": 8, "BARGE": 48
    }  # fmt: skip
    assert SETTINGS.silence_for(None) == timedelta(hours=24)
    assert SETTINGS.margin == timedelta(minutes=60)


def test_a_position_is_a_signal_too() -> None:
    row = _row(mode="TL", event_at=NOW - timedelta(hours=6))
    assert assess(row, None, NOW, SETTINGS).text == "No signal 6 h"
    heard = _facts(None, position=NOW - timedelta(hours=1))
    assert assess(row, heard, NOW, SETTINGS) is NOTHING


def test_silence_is_said_in_whole_hours_and_explained_to_the_minute() -> None:
    verdict = assess(_row(event_at=NOW - timedelta(hours=6, minutes=59)), None, NOW, SETTINGS)
    assert verdict.text == "No signal 6 h"
    assert verdict.explanation == "No event or position for 6 h 59 min while in transit"
    short = TriageSettings(silence={"TL": timedelta(minutes=30)})
    brief = assess(_row(event_at=NOW - timedelta(minutes=40)), None, NOW, short)
    assert brief.text == "No signal 40 min"


def test_in_transit_and_never_heard_from_is_silent_without_a_duration() -> None:
    verdict = assess(_row(event_at=None), None, NOW, SETTINGS)
    assert verdict.worst is Attention.NO_SIGNAL and verdict.text == "No signal"


def test_only_in_transit_is_checked_for_silence() -> None:
    old = NOW - timedelta(days=3)
    for state in ("SCHEDULED", "AT_STOP", "COMPLETED", None):
        assert assess(_row(state=state, event_at=old), None, NOW, SETTINGS) is NOTHING


def test_an_open_exception_in_any_state() -> None:
    for state in ("SCHEDULED", "IN_TRANSIT", "COMPLETED"):
        verdict = assess(_row(state=state, exceptions=2), None, NOW, SETTINGS)
        assert verdict.worst is Attention.EXCEPTION and verdict.text == "Exception"
        assert verdict.explanation == "2 open exceptions"


def test_the_worst_is_shown_and_every_reason_kept() -> None:
    row = _row(eta=END + timedelta(minutes=45), event_at=NOW - timedelta(hours=9), exceptions=1)
    verdict = assess(row, _facts(), NOW, SETTINGS)
    assert verdict.kinds == {Attention.LATE, Attention.NO_SIGNAL, Attention.EXCEPTION}
    assert verdict.text == "Late 45 min"
    assert verdict.explanation.splitlines() == [
        "ETA 45 min after the appointment window",
        "1 open exception",
        "No event or position for 9 h while in transit",
    ]
    flags = attention_flags(verdict)
    assert worst_of(flags) is Attention.LATE and worst_of(0) is Attention.NONE
    assert Attention.LATE > Attention.EXCEPTION > Attention.NO_SIGNAL > Attention.AT_RISK
    silent_at_risk = assess(
        _row(eta=END, event_at=NOW - timedelta(hours=5)), _facts(), NOW, SETTINGS
    )
    assert silent_at_risk.text == "No signal 5 h"


def test_settings_are_checked_and_missing_modes_keep_their_default() -> None:
    assert check_settings(60, {"TL": 4}) == {}
    assert check_settings(-1, {}) == {"margin": "Between 0 and 1440 minutes"}
    assert check_settings(1441, {})["margin"]
    assert check_settings(0, {"TL": 0, "AIR": 721, "SHIP": 3}) == {
        "TL": "Between 1 and 720 hours",
        "AIR": "Between 1 and 720 hours",
        "SHIP": "Unknown mode SHIP",
    }
    chosen = settings_of(30, {"TL": 2})
    assert chosen.margin == timedelta(minutes=30)
    assert chosen.silence_for("TL") == timedelta(hours=2)
    assert chosen.silence_for("OCEAN") == timedelta(hours=48)


def test_facts_are_read_again_only_when_the_summary_changed_and_it_is_under_way() -> None:
    row = _row()
    assert needs_facts(row, None)
    assert not needs_facts(row, Facts(read_at=row.last_modified))
    assert needs_facts(row, Facts(read_at=row.last_modified - timedelta(seconds=1)))
    assert not needs_facts(_row(state="COMPLETED"), None)


def _history(etas: list[tuple[datetime, int]], positions: list[datetime]) -> TrackingHistory:
    stops = [str(uuid.uuid4()), str(uuid.uuid4())]
    body: dict[str, Any] = {
        "shipment": {
            "id": str(uuid.uuid4()),
            "identifiers": [{"type": "PRO", "value": "P1"}],
            "routeInfo": {
                "stops": [
                    {
                        "id": stops[0],
                        "type": "PICKUP",
                        "appointmentWindow": {
                            "endDateTime": (NOW - timedelta(hours=5)).isoformat()
                        },
                    },
                    {
                        "id": stops[1],
                        "type": "DELIVERY",
                        "appointmentWindow": {"endDateTime": END.isoformat()},
                    },
                ]
            },
        },
        "events": [
            {
                "id": str(uuid.uuid4()),
                "type": "ETA",
                "estimateDateTime": at.isoformat(),
                "stopId": stops[i],
            }
            for at, i in etas
        ],
        "positions": [
            {"dateTime": at.isoformat(), "latitude": 1, "longitude": 2} for at in positions
        ],
    }
    return TrackingHistory.model_validate(body)


def test_facts_from_a_history_use_the_stop_of_the_latest_eta() -> None:
    history = _history(
        [(NOW - timedelta(hours=4), 0), (END + timedelta(hours=1), 1)],
        [NOW - timedelta(hours=2), NOW - timedelta(hours=1)],
    )
    facts = facts_from_history(history, read_at=NOW)
    pickup_end = NOW - timedelta(hours=5)
    etas = ((NOW - timedelta(hours=4), pickup_end), (END + timedelta(hours=1), END))
    assert facts == Facts(etas, NOW - timedelta(hours=1), NOW)
    assert facts_from_history(_history([], [])) == Facts()
    # The row's next ETA is found by its value; another value takes the latest ETA's stop.
    assert facts.appointment_end(NOW - timedelta(hours=4)) == pickup_end
    assert facts.appointment_end(END + timedelta(hours=1)) == END
    assert facts.appointment_end(NOW) == END
    assert Facts().appointment_end(NOW) is None
    late_pickup = _row(eta=NOW - timedelta(hours=4), state="SCHEDULED", event_at=None)
    assert assess(late_pickup, facts, NOW, SETTINGS).text == "Late 1 h"


def test_the_quick_flags_agree_with_the_verdicts() -> None:
    margins = (TriageSettings(), TriageSettings(margin=timedelta(0)))
    cases = 0
    for state in ("SCHEDULED", "IN_TRANSIT", "AT_STOP", "COMPLETED", None):
        for minutes in (None, -61, -60, -1, 0, 1, 130):
            eta = None if minutes is None else END + timedelta(minutes=minutes)
            for hours in (None, 1, 4, 30):
                event_at = None if hours is None else NOW - timedelta(hours=hours)
                for exceptions in (0, 1):
                    row = _row(state=state, eta=eta, event_at=event_at, exceptions=exceptions)
                    for facts in (None, _facts(), _facts(None), _facts(position=NOW), Facts()):
                        for settings in margins:
                            verdict = assess(row, facts, NOW, settings)
                            assert flags_of(row, facts, NOW, settings) == attention_flags(verdict)
                            late = verdict.late_by.total_seconds() if verdict.late_by else 0.0
                            assert late_seconds(row, facts) == late
                            cases += 1
    assert cases == 5 * 7 * 4 * 2 * 5 * 2


def test_the_flags_change_with_time_only_at_the_moment_due() -> None:
    hour = timedelta(hours=1)
    cases = 0
    for state in ("SCHEDULED", "IN_TRANSIT", "COMPLETED", None):
        for mode in ("TL", "OCEAN", None):
            for hours in (None, 1, 4, 30):
                event_at = None if hours is None else NOW - timedelta(hours=hours)
                row = _row(state=state, mode=mode, eta=END, event_at=event_at)
                for facts in (None, _facts(), _facts(position=NOW), _facts(position=NOW - hour)):
                    flags = flags_of(row, facts, NOW, SETTINGS)
                    due = due_of(row, facts, NOW, SETTINGS)
                    # The same flags until the moment due, others from it on; none: forever.
                    last = NOW + timedelta(days=60) if due is None else due
                    for at in (NOW, NOW + (last - NOW) / 2, last - timedelta(microseconds=1)):
                        assert flags_of(row, facts, at, SETTINGS) == flags, (row, facts, at)
                    if due is not None:
                        assert flags_of(row, facts, due, SETTINGS) != flags
                        assert due_of(row, facts, due, SETTINGS) is None  # silent for good
                        cases += 1
    assert cases > 20


async def _late_by_50_minutes(
    client: ApiClient, tenant_: TenantHandle
) -> tuple[SummaryRow, str, datetime]:
    """A shipment of `tenant_` whose ETA is 50 minutes after its delivery window: its list
    row, its id, and the window's start."""
    start = now()
    end = start + timedelta(hours=2)
    tracking = f"1ZFACTS{uuid.uuid4().hex[:8].upper()}"
    stops: list[dict[str, Any]] = [
        {"id": str(uuid.uuid4()), "type": "PICKUP", "name": "Louisville hub"},
        {
            "id": str(uuid.uuid4()),
            "type": "DELIVERY",
            "name": "Dallas DC",
            "appointmentWindow": {"startDateTime": iso(start), "endDateTime": iso(end)},
        },
    ]
    body = {
        "identifiers": [{"type": "TRACKING_NUMBER", "value": tracking}],
        "routeInfo": {"stops": stops},
    }
    answer = tenant_.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 201, answer.text
    shipment_id = answer.json()["id"]
    push = {
        "carrierIdentifier": {"type": "SCAC", "value": "UPSN"},
        "shipmentIdentifiers": [{"type": "TRACKING_NUMBER", "value": tracking}],
        "eventType": "ETA",
        "timestamp": java_time(start),
        "estimatedTimeOfArrival": java_time(end + timedelta(minutes=50)),
    }
    assert settled(tenant_, accepted(tenant_.http.post(PARCEL, json=push)))["status"] == "PROCESSED"
    row = SummaryRow.from_summary(summary_from_history(await client.tracking.history(shipment_id)))
    assert row.next_eta == end + timedelta(minutes=50)
    return row, shipment_id, start


async def test_facts_are_read_from_the_service_and_kept_for_the_next_start(
    client: ApiClient, tenant_: TenantHandle, cache: Cache
) -> None:
    row, shipment_id, start = await _late_by_50_minutes(client, tenant_)
    facts = TriageFacts(lambda: client, cache)
    heard: list[frozenset[str]] = []
    facts.listen(heard.append)
    try:
        facts.want([row, row._replace(id="done", current_state="COMPLETED")])
        await wait_until(lambda: row.id in facts.facts)
        assert heard == [frozenset({row.id})] and "done" not in facts.facts
        assert assess(row, facts.facts[row.id], start, SETTINGS).text == "Late 50 min"
        facts.want([row])  # unchanged since read: not read again
        assert facts.facts[row.id].read_at == row.last_modified
    finally:
        facts.close()
    await wait_until(lambda: cache.count(FACTS) == 1)

    # The next start knows them without the service (gone meanwhile: nothing to read there).
    assert tenant_.http.delete(f"/api/v4/shipments/{shipment_id}/tracking").status_code == 202
    again = TriageFacts(lambda: client, cache)
    try:
        again.want([row])
        await wait_until(lambda: row.id in again.facts)
        assert again.facts[row.id] == facts.facts[row.id]
    finally:
        again.close()


async def test_facts_read_are_kept_though_closed_while_their_keeping_waits_for_a_thread(
    client: ApiClient, tenant_: TenantHandle, cache: Cache
) -> None:
    """On a busy machine the keeping's worker thread can start seconds after the facts were
    read: a close meanwhile (the pane closing) must not drop them. Made certain here: the
    loop's one worker thread is held until after the close."""
    row, _id, _start = await _late_by_50_minutes(client, tenant_)
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(max_workers=1)
    loop.set_default_executor(executor)
    gate = threading.Event()
    held: list[asyncio.Future[bool]] = []
    facts = TriageFacts(lambda: client, cache)
    # Heard as the facts are recorded, just before they are handed to a thread to be kept.
    facts.listen(lambda _ids: held.append(loop.run_in_executor(None, gate.wait, 30)))
    try:
        facts.want([row])
        await wait_until(lambda: row.id in facts.facts)
        facts.close()
    finally:
        gate.set()
    try:
        assert await held[0]
        await wait_until(lambda: cache.count(FACTS) == 1)
    finally:
        executor.shutdown(wait=True)
