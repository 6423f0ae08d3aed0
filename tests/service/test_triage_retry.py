"""Facts that could not be read are read again (`TriageFacts.retry`, the minute's tick and the
service answering again): a silent truck never changes, so it is never wanted again otherwise,
and its silence went unannounced for good once its first facts read had failed. Against the
real local service, the reads cut by a proxy in front of it."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta

from freightdesk.api.client import ApiClient
from freightdesk.models.tracking import TrackingHistory
from freightdesk.service.alerts import AlertKind, AlertsInbox
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import summary_from_history
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import Facts, TriageFacts, TriageSettings
from tests.api.conftest import FAST_RETRY
from tests.proxy import Fault, FaultyProxy
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    iso,
    now,
    settled,
    truckload_body,
)
from tests.support import TenantHandle, wait_until

SETTINGS = TriageSettings()
TRUCK = SETTINGS.silence_for("TL")


def _truck(tenant: TenantHandle) -> SummaryRow:
    """A truck in transit, last heard from (its departure) a minute ago: its list row (read
    from the service itself, not through the proxy, which counts the app's reads)."""
    bol = f"BOLRETRY{uuid.uuid4().hex[:8].upper()}"
    body = {
        "identifiers": [{"type": "BILL_OF_LADING", "value": bol}],
        "plan": {"expectedTransportationModes": ["TL"]},
    }
    answer = tenant.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 201, answer.text
    departed = {"type": "DEPARTURE_FROM_STOP", "dateTime": iso(now() - timedelta(minutes=1))}
    push = truckload_body(bol, shipmentEvent=departed)
    assert settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=push)))["status"] == (
        "PROCESSED"
    )
    read = tenant.http.get(f"/api/v4/shipments/{answer.json()['id']}/tracking/history")
    history = TrackingHistory.model_validate(read.json())
    row = SummaryRow.from_summary(summary_from_history(history))
    assert row.current_state == "IN_TRANSIT" and row.mode == "TL", row
    return row


def _history(row: SummaryRow) -> str:
    return f"/api/v4/shipments/{row.id}/tracking/history"


def _cut(proxy: FaultyProxy, row: SummaryRow) -> None:
    """The next read of `row`'s history fails: each of the client's attempts is cut."""
    proxy.inject(Fault(drop=True, path_prefix=_history(row)), times=FAST_RETRY.attempts)


class _Watch:
    """The inbox and the facts wired as the window wires them (`AlertsWiring`): the list's
    new row judged as it arrives, the facts' news judged as they come, at the test's clock."""

    def __init__(self, client: ApiClient, cache: Cache, row: SummaryRow) -> None:
        self.row = row
        self.moment = row.latest_event_time or now()
        self.inbox = AlertsInbox(cache, clock=lambda: self.moment)
        self.facts = TriageFacts(lambda: client, cache)
        self.facts.listen(lambda _ids: self.judge_facts())
        # The first list, noted before the truck came.
        self.inbox.judge_shipments([row._replace(id="calm")], {}, SETTINGS, whole=True)

    def judge_facts(self) -> None:
        self.inbox.judge_shipments([self.row], self.facts.facts, SETTINGS)

    def arrives(self) -> None:
        assert self.inbox.judge_shipments([self.row], self.facts.facts, SETTINGS) == []
        self.facts.want([self.row])

    def minute(self, later: timedelta) -> list[AlertKind]:
        """The minute's tick at `later` after the truck was last heard: silence judged again."""
        self.moment = (self.row.latest_event_time or now()) + later
        return [a.kind for a in self.inbox.judge_moving([self.row], self.facts.facts, SETTINGS)]

    def read(self) -> Facts | None:
        return self.facts.facts.get(self.row.id)


async def _fails_once(proxy: FaultyProxy, watch: _Watch) -> None:
    _cut(proxy, watch.row)
    watch.arrives()
    await wait_until(lambda: watch.facts.unread == 1)
    assert proxy.count("GET", _history(watch.row)) == FAST_RETRY.attempts
    assert watch.read() is None


async def test_a_truck_whose_facts_read_failed_is_announced_silent_when_its_hours_are_up(
    proxied_client: ApiClient, tenant_: TenantHandle, proxy: FaultyProxy, cache: Cache
) -> None:
    """The reviewer's check: a new truck in transit, its facts read cut, then the hours pass
    (+5 h, +10 h, +24 h). It said nothing at all; now the next minute's tick reads the facts
    again, the service answering, and at +5 h it is silent, once."""
    watch = _Watch(proxied_client, cache, _truck(tenant_))
    try:
        await _fails_once(proxy, watch)
        assert watch.minute(timedelta(minutes=1)) == []
        watch.facts.retry()  # the next minute's tick, the service answering again
        await wait_until(lambda: watch.read() is not None)
        assert watch.facts.unread == 0
        assert watch.minute(TRUCK - timedelta(minutes=1)) == []
        assert watch.minute(timedelta(hours=5)) == [AlertKind.NO_SIGNAL]
        assert watch.minute(timedelta(hours=10)) == []
        assert watch.minute(timedelta(hours=24)) == []
        assert [a.kind for a in watch.inbox.alerts] == [AlertKind.NO_SIGNAL]
    finally:
        watch.facts.close()


async def test_a_silence_begun_while_the_facts_could_not_be_read_is_announced_once_read(
    proxied_client: ApiClient, tenant_: TenantHandle, proxy: FaultyProxy, cache: Cache
) -> None:
    """The service does not answer for longer than a truck's hours: silent on its events
    alone, the truck is not announced (a position the facts bring may say it was heard), and
    once they are read and say nothing later, it is, once."""
    watch = _Watch(proxied_client, cache, _truck(tenant_))
    try:
        await _fails_once(proxy, watch)
        _cut(proxy, watch.row)  # still cut at the next tick
        watch.facts.retry()
        await wait_until(lambda: proxy.count("GET", _history(watch.row)) == 2 * FAST_RETRY.attempts)
        await wait_until(lambda: watch.facts.unread == 1)
        assert watch.minute(timedelta(hours=5)) == []  # on the events alone: not yet
        assert watch.minute(timedelta(hours=6)) == []
        watch.facts.retry()  # the service answers again
        await wait_until(lambda: watch.inbox.alerts != [])
        assert [a.kind for a in watch.inbox.alerts] == [AlertKind.NO_SIGNAL]
        assert watch.read() == Facts(read_at=watch.row.last_modified)
        assert watch.minute(timedelta(hours=7)) == []
    finally:
        watch.facts.close()


async def test_a_retry_asks_a_service_still_down_once_and_then_reads_every_one(
    proxied_client: ApiClient, tenant_: TenantHandle, proxy: FaultyProxy, cache: Cache
) -> None:
    """Three trucks' facts not read. A tick while the service still does not answer asks it
    for one shipment's history, not three; the next tick begins with another (the one asked
    goes last: a history that fails each time does not hold the others back), and with the
    service answering reads them all."""
    trucks = [_truck(tenant_) for _ in range(3)]
    facts = TriageFacts(lambda: proxied_client, cache)
    paths = [_history(t) for t in trucks]

    def asked() -> list[int]:
        return [proxy.count("GET", path) for path in paths]

    def read(truck: SummaryRow) -> Callable[[], bool]:
        return lambda: truck.id in facts.facts

    try:
        for truck in trucks:
            _cut(proxy, truck)
        facts.want(trucks)
        await wait_until(lambda: facts.unread == 3)
        once = FAST_RETRY.attempts
        assert asked() == [once, once, once]

        _cut(proxy, trucks[0])  # the longest waiting, asked first
        facts.retry()
        await wait_until(lambda: asked()[0] == 2 * once)
        await wait_until(lambda: facts.unread == 3)
        facts.retry()  # the next tick, the service answering
        for truck in trucks:
            await wait_until(read(truck))
        assert facts.unread == 0
        assert asked() == [2 * once + 1, once + 1, once + 1]
        last_three = [p for _m, p in proxy.requests if p in paths][-3:]
        assert last_three[0] == paths[1], last_three
    finally:
        facts.close()
