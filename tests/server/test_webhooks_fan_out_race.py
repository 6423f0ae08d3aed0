"""A push configuration gets exactly the changes made after it was created, however its
creation interleaves with the fan-out: none committed before it (even when the fan-out reads
them only after the creation), every one made after it (even when it commits while a round
is under way). Two sessions driven step by step on real SQLite and PostgreSQL; no worker
runs, the test calls the fan-out itself."""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, text

from freightdesk.models.webhooks import (
    PushConfigurationInput,
    WebhookConfiguration,
    WebhookEventType,
)
from freightdesk.server.app import ServiceContext, build_context
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings
from freightdesk.server.tables.tracking import Shipment, ShipmentChange, ShipmentShare
from freightdesk.server.tables.webhooks import WebhookDeliveryRow, WebhookPayloadRow
from freightdesk.server.webhooks import configs, outbox
from freightdesk.server.webhooks.cursor import lock_cursor
from freightdesk.server.webhooks.events import event_id
from freightdesk.server.webhooks.tuning import Tuning

KIND = WebhookEventType.EVENT_ADDED


@dataclass
class Journal:
    """A database with one tenant, whose journal the test writes and fans out by hand."""

    context: ServiceContext
    tenant_id: int
    # The shipment of every change written; by default each change has one of its own.
    shipment_id: str | None = None

    def write(self, *ids: int) -> None:
        with transaction(self.context.sessions) as session:
            self.write_in(session, *ids)

    def write_in(self, session: configs.Session, *ids: int) -> None:
        for change_id in ids:
            session.add(
                ShipmentChange(
                    id=change_id,
                    tenant_id=self.tenant_id,
                    shipment_id=self.shipment_id or str(uuid.uuid4()),
                    kind=KIND.value,
                    payload={"event": {"type": "X"}},
                    created_at=utcnow(),
                )
            )

    def fan_out(self) -> None:
        with transaction(self.context.sessions) as session:
            self.fan_out_in(session)

    def fan_out_in(self, session: configs.Session) -> None:
        outbox.fan_out(session, Tuning(), utcnow(), base_url=None, max_positions=10)

    def configure_in(self, session: configs.Session, name: str) -> int:
        body = PushConfigurationInput(
            config_name=name,
            url="http://127.0.0.1:9/x",
            webhook_configuration=WebhookConfiguration(webhook_event_type=KIND),
        )
        row, _secret = configs.save(session, self.tenant_id, body)
        return row.id

    def configure(self, name: str) -> int:
        with transaction(self.context.sessions) as session:
            return self.configure_in(session, name)

    def received(self, config_id: int) -> list[int]:
        """The journal ids of the changes queued for this configuration."""
        ids = {event_id(n): n for n in range(1, 100)}
        with transaction(self.context.sessions) as session:
            events = session.scalars(
                select(WebhookPayloadRow.event_id)
                .join(WebhookDeliveryRow, WebhookDeliveryRow.payload_id == WebhookPayloadRow.id)
                .where(WebhookDeliveryRow.config_id == config_id)
            )
            return sorted(ids[e] for e in events)

    @property
    def postgres(self) -> bool:
        return self.context.engine.dialect.name == "postgresql"

    def waiting_for_a_lock(self) -> bool:
        """Whether a session of this database waits for a row lock (PostgreSQL)."""
        if not self.postgres:
            return False
        with self.context.engine.connect() as conn:
            count = conn.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND datname = current_database()"
                )
            )
        return bool(count)


@pytest.fixture
def journal(database_url: str, tmp_path: Path) -> Iterator[Journal]:
    context = build_context(ServerSettings(data_dir=tmp_path, database_url=database_url))
    try:
        with transaction(context.sessions) as session:
            tenant_id = ensure_tenant(session, "race", "admin-race", "pw").tenant.id
        made = Journal(context, tenant_id)
        made.fan_out()  # the cursor exists, as once the worker has run
        yield made
    finally:
        context.engine.dispose()


class Step:
    """A function run in a thread of its own, joined (and its error raised) by `done`."""

    def __init__(self, work: Callable[[], object]) -> None:
        self.error: BaseException | None = None
        self.result: object = None

        def run() -> None:
            try:
                self.result = work()
            except BaseException as exc:  # raised again in the test's thread
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def blocked_or_done(self, journal: Journal) -> None:
        """Wait until the step has ended or waits for a lock: where it stands is then known."""
        deadline = time.monotonic() + 20
        while self.thread.is_alive() and not journal.waiting_for_a_lock():
            assert time.monotonic() < deadline, "the step neither ended nor waited for a lock"
            time.sleep(0.005)

    def done(self) -> object:
        self.thread.join(30)
        assert not self.thread.is_alive()
        if self.error is not None:
            raise self.error
        return self.result


def test_a_configuration_gets_no_change_committed_before_it(journal: Journal) -> None:
    # The fan-out runs a while after a change commits (a round at most every 50 ms, longer
    # behind a backlog): a configuration made meanwhile must not get the change.
    journal.write(1)
    config = journal.configure("after-1")
    journal.fan_out()
    assert journal.received(config) == []
    journal.write(2)
    journal.fan_out()
    assert journal.received(config) == [2]


def test_a_configuration_made_while_a_round_reads_gets_no_earlier_change(
    journal: Journal,
) -> None:
    # The round has begun (its cursor held) when the configuration is created; on PostgreSQL
    # each statement of the round sees what committed before it, so a configuration
    # committed between its journal read and its configuration read was listed with
    # changes made before it.
    journal.write(1)
    with transaction(journal.context.sessions) as round_:
        lock_cursor(round_)
        creating = Step(lambda: journal.configure("during-a-round"))
        creating.blocked_or_done(journal)
        journal.fan_out_in(round_)
    config = creating.done()
    assert isinstance(config, int)
    assert journal.received(config) == []
    journal.write(2)
    journal.fan_out()
    assert journal.received(config) == [2]


def test_a_change_made_while_a_configuration_is_created_reaches_it(journal: Journal) -> None:
    # The creation has read where the configuration starts and not committed yet; a change
    # commits after that read, and a round runs before the creation commits. The change is
    # after the configuration's start, so the round must not pass it by unseen: it waits.
    # The change is another tenant's, of a shipment shared with the configuration's tenant
    # (the creation holds its own tenant's row, which that tenant's changes wait for).
    if not journal.postgres:
        pytest.skip("SQLite: the creation holds the one write lock, the change waits for it")
    with transaction(journal.context.sessions) as session:
        owner = ensure_tenant(session, "race-owner", "admin-race-owner", "pw").tenant.id
        # Deleted: its messages are made of what the journal kept (a bare row has no data).
        shipment = Shipment(
            id=str(uuid.uuid4()),
            tenant_id=owner,
            mode="TL",
            share_token=secrets.token_hex(20),
            deleted_at=utcnow(),
        )
        session.add(shipment)
        session.flush()
        session.add(
            ShipmentShare(
                shipment_pk=shipment.pk,
                tenant_id=journal.tenant_id,
                created_at=utcnow() - timedelta(hours=1),
            )
        )
    shared = Journal(journal.context, owner, shipment.id)
    shared.write(1)
    with transaction(journal.context.sessions) as creating:
        config = journal.configure_in(creating, "slow-to-commit")
        shared.write(2)
        fanning = Step(journal.fan_out)
        fanning.blocked_or_done(journal)
    fanning.done()
    journal.fan_out()
    assert journal.received(config) == [2]
