"""The shipment change journal is pruned of old rows no reader needs, and only of those: a
row the fan-out has not read, one in a gap it still waits for, one a paused configuration
will still get, one newer than the retention and the newest row stay. Pruning leaves ids
growing, so a change made after it still reaches its webhook. Real SQLite and PostgreSQL;
the fan-out and the prune are called by hand, or by the delivery worker (its cycles waited
for, not slept on)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import delete, func, select, update

from freightdesk.server.db import transaction, utcnow
from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import WebhookJournalCursor
from freightdesk.server.webhooks import journal_prune
from freightdesk.server.webhooks.tuning import Tuning
from tests.server.test_carrier_push_support import create_shipment, unique
from tests.server.test_webhooks_delivery import configure
from tests.server.test_webhooks_fan_out_race import Journal, journal
from tests.server.test_webhooks_pauses import _put
from tests.server.test_webhooks_support import FAST, eventually, receiver, settled, tuned
from tests.support import make_tenant, running_service

__all__ = ["journal"]  # fixture (tests/server/test_webhooks_fan_out_race.py)

CREATED = "shipments.v1.shipment.created"


def _prune(journal: Journal, tuning: Tuning | None = None) -> int:
    with transaction(journal.context.sessions) as session:
        return journal_prune.prune(session, tuning or Tuning(), utcnow())


def _age(journal: Journal, days: float, *ids: int) -> None:
    """These rows made `days` ago."""
    with transaction(journal.context.sessions) as session:
        session.execute(
            update(ShipmentChange)
            .where(ShipmentChange.id.in_(ids))
            .values(created_at=utcnow() - timedelta(days=days))
        )


def _ids(journal: Journal) -> list[int]:
    with transaction(journal.context.sessions) as session:
        return list(session.scalars(select(ShipmentChange.id).order_by(ShipmentChange.id)))


def test_only_old_rows_the_fan_out_has_passed_go(journal: Journal) -> None:
    journal.configure("hook")
    journal.write(1, 2, 3, 5, 6)
    journal.fan_out()  # 4 is a gap: its transaction may still commit
    journal.write(4, 7)  # 4 commits late; 7 is not read yet
    _age(journal, 30, *range(1, 8))
    assert _prune(journal) == 3
    assert _ids(journal) == [4, 5, 6, 7]
    journal.fan_out()  # reads 4 and 7
    _age(journal, 6, 6)  # within the week's retention
    journal.write(8)
    journal.fan_out()
    assert _prune(journal) == 2  # stops at 6, though 7 is older
    assert _ids(journal) == [6, 7, 8]
    _age(journal, 30, 6, 7, 8)
    assert _prune(journal) == 2
    assert _ids(journal) == [8]  # the newest stays: where the journal stands
    assert _prune(journal) == 0


def test_nothing_goes_before_the_fan_out_ever_ran(journal: Journal) -> None:
    with transaction(journal.context.sessions) as session:
        session.execute(delete(WebhookJournalCursor))
    journal.write(1, 2, 3)
    _age(journal, 30, 1, 2, 3)
    assert _prune(journal) == 0
    assert _ids(journal) == [1, 2, 3]


def test_a_change_a_paused_configuration_will_get_stays_until_fanned_out(
    journal: Journal,
) -> None:
    config = journal.configure("hook")
    _put(journal, config, enabled=True)
    journal.write(1)
    _put(journal, config, enabled=False)  # 1 is still its own, whenever it is read
    journal.write(2, 3)  # made while paused: never its own
    _age(journal, 30, 1, 2, 3)
    assert _prune(journal) == 0
    journal.fan_out()
    assert journal.received(config) == [1]  # queued for it, with its body, in the outbox
    assert _prune(journal) == 2
    assert _ids(journal) == [3]
    _put(journal, config, enabled=True)
    journal.write(4)
    journal.fan_out()
    assert journal.received(config) == [1, 4]


def test_pruning_goes_by_batches_and_keeps_at_least_an_hour(journal: Journal) -> None:
    journal.configure("hook")
    journal.write(*range(1, 12))
    journal.fan_out()
    _age(journal, 30, *range(1, 6))
    _age(journal, 0.5 / 24, *range(6, 12))  # half an hour ago
    none = Tuning(journal_retention_seconds=0.0)
    with transaction(journal.context.sessions) as session:
        assert journal_prune.prune(session, none, utcnow(), batch=3) == 3
    assert _prune(journal, none) == 2  # older than an hour, whatever the setting
    assert _ids(journal) == list(range(6, 12))


def test_one_instance_prunes_at_a_time(journal: Journal) -> None:
    if not journal.postgres:
        pytest.skip("one instance owns a SQLite database")
    journal.configure("hook")
    journal.write(1, 2, 3)
    journal.fan_out()
    _age(journal, 30, 1, 2, 3)
    with transaction(journal.context.sessions) as first:
        assert journal_prune.prune(first, Tuning(), utcnow()) == 2
        # Another instance's turn meanwhile: it skips, and waits for no lock.
        assert _prune(journal) == 0
    assert _ids(journal) == [3]


def test_journal_retention_is_a_setting() -> None:
    two_days = Tuning.from_extra({"webhooks.journal_retention_days": "2"})
    assert two_days.journal_retention_seconds == 2 * 86400
    assert Tuning.from_extra({"webhooks.journal_retention_days": "0"}) == Tuning()
    assert Tuning().journal_retention_seconds == 7 * 86400


def test_the_worker_prunes_and_a_later_change_still_reaches_its_webhook(
    database_url: str,
) -> None:
    with (
        receiver() as hooks,
        running_service(database_url) as service,
        tuned(service, replace(FAST, journal_prune_every_seconds=0.0)),
    ):
        tenant = make_tenant(service)
        sessions = service.context.sessions
        try:
            config = configure(tenant, hooks.url(), CREATED)
            first = create_shipment(tenant, [("BILL_OF_LADING", unique("BOL"))])
            second = create_shipment(tenant, [("BILL_OF_LADING", unique("BOL"))])
            settled(service, config["id"])
            with transaction(sessions) as session:
                newest = session.scalar(select(func.max(ShipmentChange.id)))
                session.execute(
                    update(ShipmentChange).values(created_at=utcnow() - timedelta(days=30))
                )
            assert newest is not None

            def pruned() -> bool:
                with transaction(sessions) as session:
                    left = session.scalars(select(ShipmentChange.id))
                    return list(left) == [newest]

            eventually(pruned)
            third = create_shipment(tenant, [("BILL_OF_LADING", unique("BOL"))])
            settled(service, config["id"])
            with transaction(sessions) as session:
                numbered = session.scalar(select(func.max(ShipmentChange.id)))
        finally:
            tenant.http.close()
    shipments = [body["context"]["shipment"]["shipmentId"] for body in hooks.bodies()]
    # Each shipment's messages are a chain of their own: the first two may cross.
    assert sorted(shipments) == sorted([first["id"], second["id"], third["id"]])
    assert numbered is not None and numbered > newest
