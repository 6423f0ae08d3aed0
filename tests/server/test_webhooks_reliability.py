"""Webhook delivery reliability: retries, order, timeouts, 410, slow receivers, restarts, and
the operators' extensions (delivery log, redelivery, ping)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from freightdesk.models.webhooks import (
    PushConfigurationInput,
    WebhookConfiguration,
    WebhookEventType,
)
from freightdesk.server.app import build_context
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings
from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import WebhookDeliveryRow, WebhookJournalCursor
from freightdesk.server.webhooks import configs, outbox
from freightdesk.server.webhooks.delivery import deliver_webhooks
from freightdesk.server.webhooks.schedule import Pending, Scheduler
from freightdesk.server.webhooks.tuning import Tuning
from tests.server.test_tracking_support import air_body, create
from tests.server.test_webhooks_delivery import configure, deliveries, event
from tests.server.test_webhooks_support import (
    FAST,
    Received,
    Receiver,
    eventually,
    hooks,
    progress,
    receiver,
    redelivering_once,
    settled,
    tuned,
)
from tests.support import (
    LiveService,
    TenantHandle,
    free_port,
    make_tenant,
    wait_until,
)

__all__ = ["hooks"]  # a fixture (tests/server/test_webhooks_support.py)

HOOKS = "/api/v4/webhooks"
PUT = "/api/v4/shipments/tracking"
CREATED = "shipments.v1.shipment.created"


@pytest.fixture(autouse=True)
def _fast_delivery(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fast retries on the shared service, for the tests that use it."""
    if "tenant" not in request.fixturenames:
        yield
        return
    service: LiveService = request.getfixturevalue("service")
    with tuned(service):
        yield


def failing_first(
    count: int, status: int = 500
) -> Callable[[Received], tuple[int, dict[str, str]]]:
    """Answer `status` to the first `count` requests, then 200."""
    seen = [0]
    lock = threading.Lock()

    def answer(_request: Received) -> tuple[int, dict[str, str]]:
        with lock:
            seen[0] += 1
            return (status, {}) if seen[0] <= count else (200, {})

    return answer


def test_retries_keep_the_event_id_and_the_order_per_shipment(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    hooks.answer = failing_first(3)
    config = configure(tenant, hooks.url(), "shipments.v1.event.added")
    first = event("PICKED_UP")
    sid = create(tenant, air_body(events=[first]))["id"]
    second = event("ARRIVAL_AT_STOP", 2)
    replaced = tenant.http.put(PUT, json=air_body(id=sid, events=[first, second]))
    assert replaced.status_code == 200
    hooks.wait_for(5)
    settled(tenant.service, config["id"])
    events = [r.json()["data"]["eventNotification"]["event"]["id"] for r in hooks.received()]
    # The second message waited while the first was failing: order is kept.
    assert events == [first["id"]] * 4 + [second["id"]]
    ids = [r.headers["webhook-id"] for r in hooks.received()]
    assert len(set(ids[:4])) == 1 and ids[4] != ids[0]
    log = deliveries(tenant, config["id"])["deliveries"]
    assert [d["status"] for d in log] == ["DELIVERED", "DELIVERED"]
    oldest = log[-1]
    assert oldest["eventId"] == ids[0] and oldest["attemptCount"] == 4
    assert [a.get("statusCode") for a in oldest["attempts"]] == [200, 500, 500, 500]
    assert oldest["attempts"][1]["error"] == "The receiver answered 500 Internal Server Error"
    assert oldest["attempts"][1]["errorDetail"] == "HTTP 500"
    assert all(a["latencyMs"] >= 0 for a in oldest["attempts"])


def test_a_retrying_shipment_does_not_hold_back_other_shipments(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    blocked_id: list[str] = []

    def answer(request: Received) -> tuple[int, dict[str, str]]:
        shipment = request.json()["context"]["shipment"]["shipmentId"]
        return (503, {}) if shipment in blocked_id else (200, {})

    hooks.answer = answer
    configure(tenant, hooks.url(), CREATED)
    blocked = create(tenant, air_body())["id"]
    blocked_id.append(blocked)
    others = [create(tenant, air_body(f"020-9999999{n}"))["id"] for n in (6,)]
    delivered = eventually(
        lambda: (
            {
                r.json()["context"]["shipment"]["shipmentId"]
                for r in hooks.received()
                if r.json()["context"]["shipment"]["shipmentId"] != blocked
            }
            == set(others)
        )
    )
    assert delivered


def test_retry_after_of_the_receiver_is_honoured(tenant: TenantHandle, hooks: Receiver) -> None:
    seen = [0]

    def answer(_request: Received) -> tuple[int, dict[str, str]]:
        seen[0] += 1
        return (503, {"Retry-After": "1"}) if seen[0] == 1 else (200, {})

    hooks.answer = answer
    configure(tenant, hooks.url(), CREATED)
    create(tenant, air_body())
    first, second = hooks.wait_for(2)
    # The schedule says 0.1 s; the receiver asked for 1 s.
    assert second.at - first.at >= 0.9
    assert first.headers["webhook-id"] == second.headers["webhook-id"]


def test_exhausted_retries_fail_the_message_and_release_the_next(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    first = event("PICKED_UP")

    def answer(request: Received) -> tuple[int, dict[str, str]]:
        notified = request.json()["data"]["eventNotification"]["event"]["id"]
        return (500, {}) if notified == first["id"] else (200, {})

    hooks.answer = answer
    config = configure(tenant, hooks.url(), "shipments.v1.event.added")
    sid = create(tenant, air_body(events=[first]))["id"]
    second = event("DELIVERED", 5)
    assert tenant.http.put(PUT, json=air_body(id=sid, events=[first, second])).status_code == 200
    log = eventually(
        lambda: (
            (found := deliveries(tenant, config["id"])["deliveries"])
            and [d["status"] for d in found] == ["DELIVERED", "FAILED"]
            and found
        ),
        seconds=15,
    )
    assert log[1]["attemptCount"] == FAST.attempts == 6
    assert "nextAttemptDateTime" not in log[1]
    failed = deliveries(tenant, config["id"], status="FAILED")
    assert failed["totalItems"] == 1


def test_a_receiver_slower_than_the_timeout_is_an_attempt_error(
    tenant: TenantHandle, service: LiveService, hooks: Receiver
) -> None:
    hooks.delay = 1.5
    with tuned(service, replace(FAST, timeout_seconds=0.4, connect_timeout_seconds=0.4)):
        config = configure(tenant, hooks.url(), CREATED)
        create(tenant, air_body())
        attempts = eventually(
            lambda: (log := deliveries(tenant, config["id"])["deliveries"]) and log[0]["attempts"]
        )
        assert attempts[0]["error"] == "The receiver did not answer within 0.4 s (timed out)"
        assert "TimeoutError" in attempts[0]["errorDetail"]
        hooks.delay = 0
        eventually(
            lambda: deliveries(tenant, config["id"])["deliveries"][0]["status"] == "DELIVERED"
        )


def test_410_disables_the_configuration_until_a_put(tenant: TenantHandle, hooks: Receiver) -> None:
    hooks.answer = lambda _r: (410, {})
    config = configure(tenant, hooks.url(), CREATED)
    create(tenant, air_body())
    disabled = eventually(
        lambda: (
            (got := tenant.http.get(f"{HOOKS}/{config['id']}").json())["enabled"] is False and got
        )
    )
    assert "410" in disabled["disabledReason"] and disabled["disabledDateTime"]
    # Nothing more is sent, and changes made meanwhile are not queued for it.
    create(tenant, air_body("020-99999996"))
    # (Its first message waits, disabled: the configuration stays busy. The worker's fan-out
    # has gone past the new change once two more cycles have ended.)
    settled(tenant.service)
    assert len(hooks.received()) == 1
    log = deliveries(tenant, config["id"])
    assert log["totalItems"] == 1
    message = log["deliveries"][0]["messageId"]
    redeliver = tenant.http.post(f"{HOOKS}/{config['id']}/deliveries/{message}/redeliver")
    assert redeliver.status_code == 409
    # Sent back as read it stays disabled; with enabled true it works again, and the message
    # that was refused is delivered then.
    assert tenant.http.put(HOOKS, json=disabled).json()["enabled"] is False
    hooks.answer = lambda _r: (200, {})
    enabled = tenant.http.put(HOOKS, json={**disabled, "enabled": True})
    assert enabled.status_code == 200 and enabled.json()["enabled"] is True
    hooks.wait_for(2)
    first, again = hooks.received()
    assert first.headers["webhook-id"] == again.headers["webhook-id"]


def test_a_slow_receiver_delays_no_other(tenant: TenantHandle) -> None:
    with receiver() as slow, receiver() as fast:
        slow.delay = 3.0
        configure(tenant, slow.url(), CREATED)
        configure(tenant, fast.url(), CREATED)
        for n in range(8):
            create(tenant, air_body(f"020-1000000{n}"))
        eventually(lambda: sum(r.status == 200 for r in fast.received()) == 8, seconds=6)
        # Everything reached the fast receiver before the slow one answered even once.
        assert slow.received() and not [r for r in slow.received() if r.status is not None]


def test_operators_log_redelivery_and_ping(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle], hooks: Receiver
) -> None:
    config = configure(tenant, hooks.url(), CREATED)
    other_config = configure(tenant, hooks.url("/other"), "shipments.v1.state.added")
    for n in range(3):
        create(tenant, air_body(f"020-2000000{n}"))
    hooks.wait_for(6)
    base = f"{HOOKS}/{config['id']}"
    eventually(lambda: deliveries(tenant, config["id"], status="DELIVERED")["totalItems"] == 3)
    page = deliveries(tenant, config["id"], pageSize=2)
    assert page["totalItems"] == 3 and page["pageSize"] == 2 and len(page["deliveries"]) == 2
    rest = deliveries(tenant, config["id"], pageSize=2, offset=2)
    assert len(rest["deliveries"]) == 1 and rest["offset"] == 2
    ids = [d["messageId"] for d in page["deliveries"] + rest["deliveries"]]
    assert ids == sorted(ids, reverse=True)  # newest first
    assert deliveries(tenant, config["id"], status="PENDING")["totalItems"] == 0
    for bad in ({"status": "LOST"}, {"pageSize": 0}, {"pageSize": 201}, {"offset": -1}):
        assert tenant.http.get(f"{base}/deliveries", params=bad).status_code == 400

    oldest = rest["deliveries"][0]
    again = tenant.http.post(f"{base}/deliveries/{oldest['messageId']}/redeliver")
    assert again.status_code == 202
    assert again.json()["eventId"] == oldest["eventId"] and again.json()["status"] == "PENDING"
    hooks.wait_for(7)
    assert hooks.received()[-1].headers["webhook-id"] == oldest["eventId"]
    eventually(
        lambda: len(deliveries(tenant, config["id"], pageSize=3)["deliveries"][2]["attempts"]) == 2
    )
    other_message = deliveries(tenant, other_config["id"])["deliveries"][0]["messageId"]
    assert tenant.http.post(f"{base}/deliveries/{other_message}/redeliver").status_code == 404
    assert tenant.http.post(f"{base}/deliveries/987654321/redeliver").status_code == 404

    ping = tenant.http.post(f"{base}/ping")
    assert ping.status_code == 200
    result = ping.json()
    assert result["delivered"] is True and result["statusCode"] == 200
    request = hooks.received()[-1]
    assert request.json()["eventType"] == "webhook.ping"
    assert request.headers["webhook-id"] == result["eventId"]
    logged = deliveries(tenant, config["id"], pageSize=1)["deliveries"][0]
    assert logged["eventType"] == "webhook.ping" and logged["status"] == "DELIVERED"
    assert tenant.http.post(f"{base}/deliveries/{logged['messageId']}/redeliver").status_code == 409
    hooks.answer = lambda _r: (500, {})
    refused = tenant.http.post(f"{base}/ping").json()
    assert refused["delivered"] is False and refused["statusCode"] == 500
    unreachable = configure(tenant, f"http://127.0.0.1:{free_port()}/nobody", CREATED)
    nobody = tenant.http.post(f"{HOOKS}/{unreachable['id']}/ping").json()
    assert nobody["delivered"] is False and nobody["error"] and "statusCode" not in nobody

    paused = {**config, "enabled": False}
    paused.pop("signingSecret")
    assert tenant.http.put(HOOKS, json=paused).status_code == 200
    blocked = tenant.http.post(f"{base}/deliveries/{oldest['messageId']}/redeliver")
    assert blocked.status_code == 409 and "disabled" in blocked.json()["errorMessage"]

    stranger = tenant_factory()
    for method, path in (
        ("GET", f"{base}/deliveries"),
        ("POST", f"{base}/ping"),
        ("POST", f"{base}/signing-secret"),
        ("POST", f"{base}/deliveries/{oldest['messageId']}/redeliver"),
    ):
        assert stranger.http.request(method, path).status_code == 404, path
    assert tenant.http.get(f"{HOOKS}/987654321/deliveries").status_code == 404
    assert tenant.http.post(f"{HOOKS}/abc/ping").status_code == 400


def test_deleting_a_configuration_drops_its_waiting_messages(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    hooks.answer = lambda _r: (500, {})
    config = configure(tenant, hooks.url(), CREATED)
    create(tenant, air_body())
    hooks.wait_for(2)
    assert tenant.http.delete(f"{HOOKS}/{config['id']}").status_code == 200
    # The worker has dropped its messages, and its last request has been answered.
    settled(tenant.service, config["id"])
    assert tenant.http.get(f"{HOOKS}/{config['id']}/deliveries").status_code == 404
    count = len(hooks.received())
    # A later message, and its retries, go out with nothing more to the deleted one.
    hooks.answer = failing_first(2)
    later = configure(tenant, hooks.url("/later"), CREATED)
    create(tenant, air_body("020-99999996"))
    settled(tenant.service, later["id"])
    assert [r.path for r in hooks.received()[count:]] == ["/later"] * 3


def test_changes_reach_only_the_owning_tenant(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle], hooks: Receiver
) -> None:
    other = tenant_factory()
    configs = [configure(tenant, hooks.url("/mine"), CREATED)]
    configs.append(configure(other, hooks.url("/theirs"), CREATED))
    mine = create(tenant, air_body())["id"]
    hooks.wait_for(1)
    settled(tenant.service, *(c["id"] for c in configs))
    assert [(r.path, r.json()["context"]["shipment"]["shipmentId"]) for r in hooks.received()] == [
        ("/mine", mine)
    ]


# --- restarts ----------------------------------------------------------------------------------


def _settings(data_dir: Path, url: str) -> ServerSettings:
    extra = {
        "webhooks.retry_schedule": "0.2,0.3,0.5,1,2,5,10",
        "webhooks.poll_interval_seconds": "0.02",
        "webhooks.timeout_seconds": "2",
    }
    return ServerSettings(data_dir=data_dir, database_url=url, extra=extra)


def test_a_restart_resumes_pending_deliveries_and_sends_nothing_twice(database_url: str) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-restart-"))
    settings = _settings(data_dir, database_url)

    def answered_ok(hooks: Receiver) -> list[str]:
        return [
            r.json()["context"]["shipment"]["shipmentId"]
            for r in hooks.received()
            if r.status == 200
        ]

    try:
        with receiver() as hooks:
            first = LiveService(settings).start()
            try:
                tenant = make_tenant(first)
                config = configure(tenant, hooks.url(), CREATED)
                delivered = create(tenant, air_body())["id"]
                eventually(lambda: answered_ok(hooks) == [delivered])
                hooks.answer = lambda _r: (503, {})  # the receiver goes down
                waiting = [create(tenant, air_body(f"020-3000000{n}"))["id"] for n in range(3)]
                hooks.wait_for(4)
                headers = dict(tenant.http.headers)
                tenant.http.close()
            finally:
                first.stop()
            hooks.answer = lambda _r: (200, {})  # and comes back while the service is down
            second = LiveService(settings).start()
            try:
                # The tenants' clients' timeout (make_tenant), not httpx's 5 s: a poll is
                # the test's instrument, and one answer took over 5 s at a load of 11.
                with httpx.Client(base_url=second.url, headers=headers, timeout=30) as http:
                    path = f"{HOOKS}/{config['id']}/deliveries"
                    log = eventually(
                        lambda: (
                            (found := http.get(path).json()["deliveries"])
                            and all(d["status"] == "DELIVERED" for d in found)
                            and found
                        )
                    )
                    assert sorted(d["shipmentId"] for d in log) == sorted([delivered, *waiting])
            finally:
                second.stop()
            # Each message was answered 200 exactly once: none lost, none sent twice.
            assert sorted(answered_ok(hooks)) == sorted([delivered, *waiting])
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def assert_sent_twice_and_logged_twice(
    hooks: Receiver, http: httpx.Client, config_id: int, asked: list[int]
) -> None:
    """The message the receiver had redelivered during its first attempt came again, and its
    log shows both successful attempts."""
    first, second = hooks.wait_for(2)[:2]
    assert asked == [202]
    assert second.headers["webhook-id"] == first.headers["webhook-id"]
    path = f"{HOOKS}/{config_id}/deliveries"
    logged = eventually(
        lambda: (
            (found := http.get(path).json()["deliveries"])[0]["status"] == "DELIVERED"
            and len(found[0]["attempts"]) == 2
            and found[0]
        )
    )
    assert logged["attemptCount"] == 2
    assert [a["statusCode"] for a in logged["attempts"]] == [200, 200]
    assert len(hooks.received()) == 2  # and nothing more


def test_a_redelivery_asked_for_during_an_attempt_is_sent_after_it(database_url: str) -> None:
    """The receiver asks for a redelivery of the message it is being sent, and answers 200
    only once it was accepted: storing that success must not undo the redelivery."""
    data_dir = Path(tempfile.mkdtemp(prefix="fd-redeliver-"))
    try:
        with receiver() as hooks:
            service = LiveService(_settings(data_dir, database_url)).start()
            try:
                tenant = make_tenant(service)
                config = configure(tenant, hooks.url(), CREATED)
                hooks.answer, asked = redelivering_once(tenant.http, config["id"])
                create(tenant, air_body())
                assert_sent_twice_and_logged_twice(hooks, tenant.http, config["id"], asked)
                tenant.http.close()
            finally:
                service.stop()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_the_worker_stops_promptly_with_a_request_in_flight(tmp_path: Path) -> None:
    # The service runs no workers here; the test runs the delivery worker itself.
    settings = replace(
        _settings(tmp_path, f"sqlite:///{tmp_path / 'stop.sqlite3'}"), process_pushes=False
    )
    with receiver() as hooks:
        hooks.delay = 8.0
        live = LiveService(settings).start()
        try:
            tenant = make_tenant(live)
            configure(tenant, hooks.url(), CREATED)

            async def scenario() -> float:
                stop = asyncio.Event()
                worker = asyncio.create_task(deliver_webhooks(live.context, stop))
                await wait_until(lambda: progress(live).cycles > 0)  # it has read the journal
                await asyncio.to_thread(create, tenant, air_body())
                await wait_until(lambda: bool(hooks.received()))
                loop = asyncio.get_running_loop()
                started = loop.time()
                stop.set()
                await asyncio.wait_for(worker, timeout=10)
                return loop.time() - started

            stopped = asyncio.run(scenario())
            assert stopped < 2.0, stopped
            with live.context.sessions() as session:
                row = session.scalar(select(WebhookDeliveryRow))
                assert row is not None and row.status == "PENDING"  # sent again after a restart
            tenant.http.close()
        finally:
            live.stop()


# --- the journal cursor --------------------------------------------------------------------


def test_fan_out_waits_for_journal_ids_committed_late(tmp_path: Path) -> None:
    """PostgreSQL hands out journal ids before commit, so id 3 can appear after id 4."""
    settings = ServerSettings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'j.db'}")
    context = build_context(settings)
    tuning = Tuning(gap_timeout_seconds=60)
    try:
        with transaction(context.sessions) as session:
            tenant_id = ensure_tenant(session, "journal", "admin-journal", "pw").tenant.id
            body = PushConfigurationInput(
                config_name="events",
                url="http://127.0.0.1:9/x",
                webhook_configuration=WebhookConfiguration(
                    webhook_event_type=WebhookEventType.EVENT_ADDED
                ),
            )
            configs.save(session, tenant_id, body)
        now = utcnow()

        def journal(*ids: int) -> None:
            with transaction(context.sessions) as session:
                for change_id in ids:
                    session.add(
                        ShipmentChange(
                            id=change_id,
                            tenant_id=tenant_id,
                            shipment_id=str(uuid.uuid4()),
                            kind="shipments.v1.event.added",
                            payload={"event": {"type": "X"}},
                            created_at=now,
                        )
                    )

        def fan_out(at: Any = None) -> tuple[int, int, list[Any], int]:
            with transaction(context.sessions) as session:
                outbox.fan_out(session, tuning, at or now, base_url=None, max_positions=10)
                cursor = session.get(WebhookJournalCursor, 1)
                assert cursor is not None
                messages = session.query(WebhookDeliveryRow).count()
                return cursor.position, cursor.highest_seen, cursor.gaps, messages

        assert fan_out() == (0, 0, [], 0)
        journal(1, 2, 4)
        position, highest, gaps, messages = fan_out()
        assert (position, highest, [g[0] for g in gaps], messages) == (2, 4, [3], 3)
        assert fan_out() == (2, 4, gaps, 3)  # nothing new: nothing sent twice
        journal(3)
        assert fan_out() == (4, 4, [], 4)
        journal(6)  # 5 never commits (its transaction rolled back)
        assert fan_out()[:2] == (4, 6)
        assert fan_out(now + timedelta(seconds=61)) == (6, 6, [], 5)
    finally:
        context.engine.dispose()


# --- pure parts: the schedule and the tuning -------------------------------------------------


def test_retry_schedule_jitter_and_retry_after() -> None:
    tuning = Tuning(retry_schedule=(10.0, 100.0), jitter=0.2, max_retry_after_seconds=3600)
    assert tuning.attempts == 3
    for _ in range(50):
        assert 8.0 <= (tuning.delay_after(1) or 0) <= 12.0
        assert 80.0 <= (tuning.delay_after(2) or 0) <= 120.0
    assert tuning.delay_after(3) is None  # given up
    assert tuning.delay_after(1, retry_after=600) == 600  # the receiver asked for more
    assert tuning.delay_after(1, retry_after=99_999) == 3600  # but not for ever
    default = Tuning()
    total = sum(default.retry_schedule)
    assert 20 * 3600 < total < 28 * 3600  # about a day


def test_tuning_from_settings_extra() -> None:
    tuning = Tuning.from_extra(
        {
            "webhooks.retry_schedule": "1, 2,3",
            "webhooks.timeout_seconds": "4",
            "webhooks.per_endpoint_concurrency": "3",
            "webhooks.retention_days": "2",
            "webhooks.total_concurrency": "-1",  # refused: keeps the default
            "webhooks.unknown": "1",  # ignored
            "other.setting": "x",
        }
    )
    assert tuning.retry_schedule == (1.0, 2.0, 3.0) and tuning.timeout_seconds == 4.0
    assert tuning.per_endpoint_concurrency == 3 and tuning.retention_seconds == 2 * 86400
    assert tuning.total_concurrency == Tuning().total_concurrency
    assert Tuning.from_extra({"webhooks.retry_schedule": "soon"}) == Tuning()


def test_scheduler_keeps_chains_in_order_and_configurations_apart() -> None:
    now = utcnow()

    def pending(message_id: int, config: int, chain: str) -> Pending:
        return Pending(message_id, config, message_id, chain, f"e{message_id}", 0, now)

    scheduler = Scheduler()
    for message_id, config, chain in [(1, 1, "a"), (2, 1, "a"), (3, 1, "b"), (4, 2, "c")]:
        scheduler.add(pending(message_id, config, chain))
    taken = scheduler.take(now, per_config=8, limit=10, usable=lambda _c: True)
    # Only chain heads: message 2 waits for message 1 of the same shipment.
    assert sorted(p.message_id for p in taken) == [1, 3, 4]
    first = next(p for p in taken if p.message_id == 1)
    scheduler.settle(first, now + timedelta(seconds=60))  # failed: retried later
    assert scheduler.take(now, per_config=8, limit=10, usable=lambda _c: True) == []
    assert scheduler.next_due() == now + timedelta(seconds=60)
    later = now + timedelta(seconds=61)
    retried = scheduler.take(later, per_config=8, limit=10, usable=lambda _c: True)
    assert [p.message_id for p in retried] == [1] and retried[0].failed == 1
    scheduler.settle(retried[0], None)  # delivered: the chain moves on
    following = scheduler.take(later, per_config=8, limit=10, usable=lambda _c: True)
    assert [p.message_id for p in following] == [2]
    # A configuration at its concurrency, or not usable (disabled), waits; others go on.
    busy = Scheduler()
    for n in range(1, 7):
        busy.add(pending(n, 1 if n <= 4 else 2, f"s{n}"))
    assert len(busy.take(now, per_config=2, limit=10, usable=lambda _c: True)) == 4
    held = Scheduler()
    held.add(pending(1, 1, "x"))
    held.add(pending(2, 2, "y"))
    enabled_only = held.take(now, per_config=2, limit=10, usable=lambda c: c == 2)
    assert [p.message_id for p in enabled_only] == [2]
    held.forget_config(1)
    assert held.configs() == {2} and len(held) == 1 and held.payloads() == {2}
