"""Background workers wake when there is work instead of polling the database (`db.wakeups`).

The domain functions that write a worker's work ask for its wake-up (`db.wake_on_commit`),
which `db.transaction` gives once the transaction committed, never before and never after a
rollback; nothing listens on the engine. A change committed through the service wakes its
webhook delivery at once (SQLite and PostgreSQL); on PostgreSQL a change or a push accepted by
one instance wakes the workers of another (LISTEN/NOTIFY), and instances that both run workers
still send each message once. Every writer of work wakes its worker (each kind of work, with
SQLite's data_version look and every fallback set to a minute). The fallback polls are set to
a minute here, so work done within `PROMPT` seconds was woken, not polled for; `PROMPT` leaves
room for a machine at load 10. Before each piece of work the workers have gone back to sleep
(`asleep`): what they were still doing could otherwise pick it up unwoken.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text

from freightdesk.server import db
from freightdesk.server.db import make_engine, make_sessionmaker, transaction, wakeups
from freightdesk.server.domain import carrier_answers, push_processing
from freightdesk.server.domain.carrier_answers import answer_carriers
from freightdesk.server.domain.push_processing import process_pushes
from freightdesk.server.migrations import upgrade
from freightdesk.server.tables.webhooks import WebhookJournalCursor
from freightdesk.server.webhooks.cursor import lock_cursor
from freightdesk.server.webhooks.delivery import RUNNING_KEY, deliver_webhooks
from freightdesk.server.workers import Worker, wait_for_any
from tests.server import test_webhooks_instances as instances
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    create_shipment,
    iso,
    now,
    settled,
    truckload_body,
    unique,
)
from tests.server.test_rating_support import (
    BOOKINGS,
    RATE_REQUESTS,
    set_profile,
    standalone_booking,
    tl_request,
)
from tests.server.test_tracking_support import PUT, air_body, create
from tests.server.test_webhooks_delivery import HOOKS, configure, deliveries, event
from tests.server.test_webhooks_support import (
    FAST,
    Receiver,
    eventually,
    progress,
    receiver,
    tuned,
)
from tests.server.test_webhooks_support import settled as deliveries_settled
from tests.support import (
    DATABASES,
    LiveService,
    PostgresServer,
    TenantHandle,
    make_tenant,
    new_database,
    running_service,
)

# The instances' fixtures: a fresh database, the webhook secrets key they share.
database = instances.database
key = instances.key
ADDED = "shipments.v1.event.added"
FALLBACK = 60.0
PROMPT = 10.0
# Retries as in the other delivery tests, but no polling worth the name.
IDLE = replace(FAST, poll_interval_seconds=FALLBACK, lease_seconds=3 * FALLBACK)


async def _all_asleep(workers: tuple[Worker, ...]) -> bool:
    """On the service's loop: whether each of `workers` runs, and sleeps until woken (see
    `asleep`)."""
    tasks = asyncio.all_tasks()
    return all(sum(_sleeps(task, worker) for task in tasks) == 1 for worker in workers)


def _sleeps(task: asyncio.Task[Any], worker: Worker) -> bool:
    """Whether `task` runs `worker` and is suspended in its idle wait (`wait_for_any`) for at
    least `PROMPT`, none of the events that end the wait set (a wake-up handed over)."""
    chain: list[Any] = []
    awaited: Any = task.get_coro()
    while awaited is not None and hasattr(awaited, "cr_code"):
        chain.append(awaited)
        awaited = awaited.cr_await
    if worker.__code__ not in [c.cr_code for c in chain]:
        return False
    waits = [c.cr_frame.f_locals for c in chain if c.cr_code is wait_for_any.__code__]
    return (
        bool(waits)
        and waits[-1]["seconds"] >= PROMPT
        and not any(event.is_set() for event in waits[-1]["events"])
    )


ALL_WORKERS = (deliver_webhooks, process_pushes, answer_carriers)


def asleep(services: list[LiveService], *workers: Worker) -> float:
    """Wait until what `workers` of `services` were doing is done: each sleeps until woken (or
    its fallback, at least `PROMPT` away), with no wake-up waiting for it, and no webhook
    message waits or is in flight (its end would wake the delivery). From here, work is done
    within `PROMPT` only if its writer woke the worker. Returns when (monotonic)."""

    def sleeps(service: LiveService) -> bool:
        looked = asyncio.run_coroutine_threadsafe(_all_asleep(workers), service.loop)
        return looked.result(timeout=30) and not progress(service).busy

    def done() -> bool:
        return all(sleeps(s) for s in services)

    eventually(done, seconds=FALLBACK / 2)
    return time.monotonic()


def arrivals(hooks: Receiver) -> dict[str, float]:
    """When each event (by id) first arrived, monotonic."""
    found: dict[str, float] = {}
    for request in hooks.received():
        event_id = request.json()["data"]["eventNotification"]["event"]["id"]
        found.setdefault(event_id, request.at)
    return found


def add_event(http: Any, shipment_id: str, events: list[dict[str, Any]], hours: int) -> str:
    """One more event on the shipment (a PUT replaces its events); returns its id."""
    events.append(event("DEPARTURE_FROM_STOP", hours))
    answer = http.put(PUT, json=air_body(id=shipment_id, events=events))
    assert answer.status_code == 200, answer.text
    return str(events[-1]["id"])


def delivered_promptly(hooks: Receiver, event_id: str, sent: float) -> None:
    arrived = eventually(lambda: arrivals(hooks).get(event_id), seconds=FALLBACK / 2)
    assert arrived - sent < PROMPT, f"{arrived - sent:.1f} s: polled for, not woken"


def times_arrived(hooks: Receiver, event_id: str) -> int:
    """How many times the message with this eventId (webhook-id) arrived."""
    return sum(r.headers["webhook-id"] == event_id for r in hooks.received())


def settled_message(tenant: TenantHandle, config_id: int, event_id: str, attempts: int) -> int:
    """The id of the message with this eventId once its outcome after `attempts` attempts is
    stored (a redelivery asked before would race the storing of that outcome)."""

    def found() -> int | None:
        for message in deliveries(tenant, config_id, pageSize=200)["deliveries"]:
            if (
                message["eventId"] == event_id
                and message["status"] == "DELIVERED"
                and message["attemptCount"] == attempts
            ):
                return int(message["messageId"])
        return None

    return eventually(found, seconds=FALLBACK / 2)


def redeliver_promptly(
    hooks: Receiver,
    http: Any,
    target: tuple[int, int, str],
    deliverers: list[LiveService],
) -> None:
    """The message `target` (configuration id, message id, event id) redelivered through
    `http` arrives promptly, once the `deliverers` sleep."""
    config_id, message_id, event_id = target
    before = times_arrived(hooks, event_id)
    sent = asleep(deliverers, deliver_webhooks)
    answer = http.post(f"{HOOKS}/{config_id}/deliveries/{message_id}/redeliver")
    assert answer.status_code == 202, answer.text
    promptly("a redelivery", lambda: times_arrived(hooks, event_id) > before, sent)


def changes_arrive_promptly(
    hooks: Receiver, tenant: TenantHandle, through: list[Any], deliverers: list[LiveService]
) -> None:
    """Changes made through each client in turn, each once the `deliverers` sleep, each
    arrive promptly."""
    events: list[dict[str, Any]] = []
    shipment_id = create(tenant, air_body())["id"]
    for hours, http in enumerate(through * 2):
        sent = asleep(deliverers, deliver_webhooks)
        delivered_promptly(hooks, add_event(http, shipment_id, events, hours), sent)


def test_a_change_is_delivered_at_once_on_sqlite() -> None:
    with receiver() as hooks, running_service() as service, tuned(service, IDLE):
        tenant = make_tenant(service)
        configure(tenant, hooks.url("/events"), ADDED)
        changes_arrive_promptly(hooks, tenant, [tenant.http], [service])
        tenant.http.close()


@pytest.mark.usefixtures("key")
def test_a_change_through_one_instance_wakes_the_other_s_delivery(database: str) -> None:
    with (
        receiver() as hooks,
        running_service(database, process_pushes=False) as front,
        running_service(database) as back,
        tuned(back, IDLE),
    ):
        tenant = make_tenant(front)
        configure(tenant, hooks.url("/events"), ADDED)
        changes_arrive_promptly(hooks, tenant, [tenant.http], [back])
        tenant.http.close()


@contextmanager
def both_delivering(
    database: str,
) -> Iterator[tuple[Receiver, TenantHandle, httpx.Client, int, list[LiveService]]]:
    """Two instances on one database, both delivering; a tenant, its client on the second
    instance (`tenant.http` is on the first), a configuration's id and the two instances."""
    with (
        receiver() as hooks,
        running_service(database) as first,
        running_service(database) as second,
        tuned(first, IDLE),
        tuned(second, IDLE),
    ):
        tenant = make_tenant(first)
        config_id = int(configure(tenant, hooks.url("/events"), ADDED)["id"])
        with instances.client_on(second, tenant) as other:
            yield hooks, tenant, other, config_id, [first, second]
        tenant.http.close()
        # Polling again, both have fanned out every change and have nothing pending or in
        # flight: a message sent twice has arrived by now.
        with tuned(first, FAST), tuned(second, FAST):
            deliveries_settled(first, config_id)
            deliveries_settled(second, config_id)


@pytest.mark.usefixtures("key")
def test_instances_both_delivering_send_each_change_once_and_promptly(database: str) -> None:
    with both_delivering(database) as (hooks, tenant, other, _config_id, both):
        # Changes alternate: the chain's owner is often not the instance the change came to.
        changes_arrive_promptly(hooks, tenant, [tenant.http, other], both)
    ids = [r.headers["webhook-id"] for r in hooks.received()]
    assert [w for w, n in Counter(ids).items() if n > 1] == []


@pytest.mark.usefixtures("key")
def test_a_redelivery_through_either_instance_is_sent_at_once(database: str) -> None:
    """The instance that owns the message's chain sends it; a redelivery asked through the
    other reaches it only by a wake-up across instances. Through each in turn: one of the two
    is not the owner. Each redelivery is sent once."""
    with both_delivering(database) as (hooks, tenant, other, config_id, both):
        shipment_id = create(tenant, air_body())["id"]
        sent = asleep(both, deliver_webhooks)
        event_id = add_event(tenant.http, shipment_id, [], 0)
        delivered_promptly(hooks, event_id, sent)
        webhook_id = hooks.received()[-1].headers["webhook-id"]
        for attempts, http in enumerate([tenant.http, other, tenant.http, other], start=1):
            message_id = settled_message(tenant, config_id, webhook_id, attempts)
            redeliver_promptly(hooks, http, (config_id, message_id, webhook_id), both)
        settled_message(tenant, config_id, webhook_id, 5)
    assert times_arrived(hooks, webhook_id) == 5


def test_a_push_accepted_by_one_instance_is_applied_by_the_other_at_once(
    postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_processing, "IDLE_POLL_SECONDS", FALLBACK)
    database_url = postgres.create_database()
    with (
        running_service(database_url, process_pushes=False) as front,
        running_service(database_url) as back,
    ):
        tenant = make_tenant(front)
        bol = unique("BOL")
        create_shipment(tenant, [("BILL_OF_LADING", bol)])
        for _ in range(2):
            sent = asleep([back], process_pushes)
            ingestion_id = accepted(tenant.http.post(TRUCKLOAD, json=truckload_body(bol)))
            receipt = settled(tenant, ingestion_id, timeout=FALLBACK / 2)
            assert receipt["status"] == "PROCESSED"
            assert time.monotonic() - sent < PROMPT
        tenant.http.close()


# --- every writer of work wakes its worker -----------------------------------------------------


def promptly(what: str, done: Any, sent: float) -> None:
    """`done()` holds within `PROMPT` seconds of `sent`: the work was woken, not polled for
    (every fallback is a minute)."""
    while not done():
        took = time.monotonic() - sent
        assert took < PROMPT, f"{what}: not done in {took:.1f} s, so its worker was not woken"
        time.sleep(0.02)


@contextmanager
def writer_and_workers(
    request: pytest.FixtureRequest, database: str
) -> Iterator[tuple[LiveService, LiveService]]:
    """The instance the writes go to, and the one whose workers do the work: the same one on
    SQLite; on PostgreSQL, two on one database, the first without workers."""
    url = new_database(request, database)
    if url is None:
        with running_service() as service:
            yield service, service
        return
    request.getfixturevalue("key")
    with (
        running_service(url, process_pushes=False) as front,
        running_service(url) as back,
    ):
        yield front, back


@pytest.mark.parametrize("database", DATABASES)
def test_every_writer_of_work_wakes_its_worker(
    request: pytest.FixtureRequest, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_processing, "IDLE_POLL_SECONDS", FALLBACK)
    monkeypatch.setattr(carrier_answers, "IDLE_SECONDS", FALLBACK)
    # SQLite's look at data_version wakes every worker for any commit it did not expect:
    # off, so that only the writers' own wake-ups count.
    monkeypatch.setattr(db, "DATA_VERSION_SECONDS", FALLBACK)
    with (
        receiver() as hooks,
        writer_and_workers(request, database) as (front, back),
        tuned(back, IDLE),
    ):
        tenant = make_tenant(front)
        http = tenant.http
        config = configure(tenant, hooks.url("/events"), ADDED)
        shipment_id = create(tenant, air_body())["id"]
        bol = unique("BOL")
        create_shipment(tenant, [("BILL_OF_LADING", bol)], stops=1)

        def idle() -> float:
            return asleep([back], *ALL_WORKERS)

        # A shipment changed through the API (the tracking PUT's journal).
        events: list[dict[str, Any]] = []
        sent = idle()
        changed = add_event(http, shipment_id, events, 0)
        promptly("a change through the API", lambda: changed in arrivals(hooks), sent)

        # That message redelivered (a user's request through the API; on PostgreSQL through
        # the instance that does not send it).
        webhook_id = next(
            r.headers["webhook-id"]
            for r in hooks.received()
            if r.json()["data"]["eventNotification"]["event"]["id"] == changed
        )
        message_id = settled_message(tenant, config["id"], webhook_id, 1)
        redeliver_promptly(hooks, http, (config["id"], message_id, webhook_id), [back])

        # A carrier push accepted (the intake), then applied (the push worker's journal).
        before = len(hooks.received())
        sent = idle()
        pushed = truckload_body(
            bol, shipmentEvent={"type": "ARRIVAL_AT_STOP", "dateTime": iso(now()), "stopNumber": 1}
        )
        ingestion_id = accepted(http.post(TRUCKLOAD, json=pushed))

        def applied() -> bool:
            found = http.get(f"/services/carrier-push/v1/ingestions/{ingestion_id}").json()
            return bool(found["status"] == "PROCESSED")

        promptly("a carrier push", applied, sent)
        promptly("a change by a push", lambda: len(hooks.received()) > before, sent)

        # A rate request (its carriers' solicitations).
        sent = idle()
        made = http.post(RATE_REQUESTS, json=tl_request(["PRLF", "BLRT"]))
        assert made.status_code == 200, made.text
        quotes = f"{RATE_REQUESTS}/{made.json()['id']}"
        promptly(
            "a rate request", lambda: http.get(quotes).json()["status"] != "QUOTES_REQUESTED", sent
        )

        # A booking (its carrier's answer), then one replaced (answered again).
        set_profile(tenant, "RVWX", behaviour="REVIEW", responseDelaySeconds=0)
        sent = idle()
        booking = http.post(BOOKINGS, json=standalone_booking("RVWX"))
        assert booking.status_code == 200, booking.text
        path = f"{BOOKINGS}/{booking.json()['id']}"
        promptly("a booking", lambda: http.get(path).json()["status"] == "UNDER_REVIEW", sent)
        set_profile(tenant, "RVWX", behaviour="ACCEPT", responseDelaySeconds=0)
        sent = idle()
        assert http.put(path, json=standalone_booking("RVWX")).status_code == 200
        promptly("a booking replaced", lambda: http.get(path).json()["status"] == "BOOKED", sent)

        # A configuration saved (its waiting messages go with its new settings): the
        # delivery worker looks again.
        sent = idle()
        cycles = progress(back).cycles
        configure(tenant, hooks.url("/events"), ADDED, id=config["id"], enabled=False)
        promptly("a configuration saved", lambda: progress(back).cycles > cycles, sent)
        http.close()


# --- when a wake-up comes, and what it costs ----------------------------------------------------


def test_a_commit_wakes_once_committed_and_a_rollback_not_at_all(tmp_path: Path) -> None:
    """The subscriber, woken, sees the committed row from another connection; a transaction
    that rolled back wakes nobody."""
    engine = make_engine(f"sqlite:///{tmp_path / 'wake.db'}")
    sessions = make_sessionmaker(engine)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE work (id INTEGER PRIMARY KEY)"))
    seen: list[int] = []

    def woken() -> None:
        with engine.connect() as other:
            seen.append(int(other.execute(text("SELECT count(*) FROM work")).scalar_one()))

    unsubscribe = wakeups(engine).subscribe("work", woken)
    try:
        with transaction(sessions) as session:
            session.execute(text("INSERT INTO work DEFAULT VALUES"))
            db.wake_on_commit(session, "work")
            assert seen == []
        assert seen == [1]
        with pytest.raises(RuntimeError, match="refused"), transaction(sessions) as session:
            session.execute(text("INSERT INTO work DEFAULT VALUES"))
            db.wake_on_commit(session, "work")
            raise RuntimeError("refused")
        assert seen == [1]
        # Asked outside db.transaction, nothing would wake the worker: refused at once.
        with sessions() as session, pytest.raises(RuntimeError, match=r"db\.transaction"):
            db.wake_on_commit(session, "work")
    finally:
        unsubscribe()
        engine.dispose()


def test_the_engine_carries_no_listener_on_statements() -> None:
    """Wake-ups are asked for by the writers: no statement, transaction or checkin of any
    route passes through a listener of ours (the service still wakes its workers)."""
    with receiver() as hooks, running_service() as service, tuned(service, IDLE):
        tenant = make_tenant(service)
        configure(tenant, hooks.url("/events"), ADDED)
        changes_arrive_promptly(hooks, tenant, [tenant.http], [service])
        engine = service.context.engine
        assert not engine._has_events
        pool = engine.pool.dispatch
        assert [len(pool.checkin), len(pool.checkout), len(pool.reset)] == [0, 0, 0]
        tenant.http.close()


# --- instances starting together ------------------------------------------------------------


def test_instances_starting_together_share_one_journal_cursor(postgres: PostgresServer) -> None:
    """Both find no cursor: the second's insert waits for the first's, then takes its row
    (it failed on a duplicate key, and its worker retried a second later)."""
    url = postgres.create_database()
    first, second = make_engine(url), make_engine(url)
    upgrade(first)
    found: dict[str, Any] = {}

    def second_starts() -> None:
        try:
            with transaction(make_sessionmaker(second)) as session:
                found["position"] = lock_cursor(session).position
        except Exception as exc:
            found["error"] = exc

    def blocked() -> bool:
        with first.connect() as connection:
            waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            return bool(connection.execute(text(waiting)).scalar_one())

    thread = threading.Thread(target=second_starts)
    try:
        with transaction(make_sessionmaker(first)) as session:
            lock_cursor(session)
            thread.start()
            eventually(blocked, seconds=30)
        thread.join(timeout=30)
        assert "error" not in found, found
        assert found["position"] == 0
        with first.connect() as connection:
            count = select(func.count()).select_from(WebhookJournalCursor)
            assert connection.execute(count).scalar_one() == 1
    finally:
        thread.join(timeout=30)
        first.dispose()
        second.dispose()


@pytest.mark.usefixtures("key")
def test_two_instances_starting_together_start_delivering_without_a_failure(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="freightdesk.server.webhooks.delivery")
    lock = threading.Lock()
    live: list[LiveService] = []
    with ExitStack() as stack:

        def start() -> None:
            with lock:
                made = running_service(database)
                stack.push(made.__exit__)
            service = made.__enter__()
            with lock:
                live.append(service)

        starters = [threading.Thread(target=start) for _ in range(2)]
        for starter in starters:
            starter.start()
        for starter in starters:
            starter.join(timeout=60)
        assert len(live) == 2
        for service in live:
            eventually(lambda s=service: s.context.services.get(RUNNING_KEY), seconds=30)
            eventually(lambda s=service: progress(s).cycles >= 2, seconds=30)
    failed = [r.getMessage() for r in caplog.records if "cycle failed" in r.getMessage()]
    assert failed == []


def test_another_process_s_commit_beside_ours_wakes_on_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit of another process (a second engine on the file, as another instance or tool)
    that lands in the same data_version look as commits of ours still wakes the subscribers,
    even right after a wake-up for a change of ours (the workers' answers to it)."""
    # Long looks, so that both commits of the second step surely fall between two of them.
    monkeypatch.setattr(db, "DATA_VERSION_SECONDS", 2.0)
    path = tmp_path / "wake.db"
    engine = make_engine(f"sqlite:///{path}")
    other = make_engine(f"sqlite:///{path}")
    sessions, other_sessions = make_sessionmaker(engine), make_sessionmaker(other)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE work (id INTEGER PRIMARY KEY)"))
    woken = threading.Semaphore(0)
    unsubscribe = wakeups(engine).subscribe("work", woken.release)
    try:
        assert wakeups(engine).listening(timeout=30)  # the look has its baseline
        # A commit of ours without a wake-up asked for: data_version's look wakes for it.
        with transaction(sessions) as session:
            session.execute(text("INSERT INTO work DEFAULT VALUES"))
        assert woken.acquire(timeout=PROMPT)
        # Just after that look: one of ours (a worker's answer) and one of the other process.
        with transaction(sessions) as session:
            session.execute(text("INSERT INTO work DEFAULT VALUES"))
        with transaction(other_sessions) as session:
            session.execute(text("INSERT INTO work DEFAULT VALUES"))
        assert woken.acquire(timeout=PROMPT), "the other process's commit was taken for ours"
    finally:
        unsubscribe()
        engine.dispose()
        other.dispose()
