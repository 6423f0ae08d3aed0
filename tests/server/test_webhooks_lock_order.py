"""A user's change of a push configuration and the delivery worker's cycle, at once, both
complete: every path that takes the journal cursor and a configuration's row takes the cursor
first (`cursor.lock_configs`), so neither waits for the other while holding what the other
waits for. On PostgreSQL, which locks rows (SQLite has one write lock, taken by the first
write: no order to get wrong); the cycle's session is driven step by step, the user's
request runs in a thread, and each step waits until the other blocks or ends (no sleeps)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import func, select

from freightdesk.server.db import transaction, utcnow
from freightdesk.server.tables.webhooks import WebhookConfigRow, WebhookDeliveryRow
from freightdesk.server.webhooks import configs, outbox
from freightdesk.server.webhooks.cursor import lock_cursor
from freightdesk.server.webhooks.outbox import Outcome
from freightdesk.server.webhooks.tuning import Tuning
from tests.server.test_webhooks_fan_out_race import Journal, Step
from tests.server.test_webhooks_fan_out_race import journal as any_journal
from tests.server.test_webhooks_pauses import _configure, _put

__all__ = ["any_journal"]  # fixture (tests/server/test_webhooks_fan_out_race.py)


@pytest.fixture
def journal(any_journal: Journal) -> Iterator[Journal]:
    if not any_journal.postgres:
        pytest.skip("SQLite: one write lock, taken by the first write; no order of locks")
    yield any_journal


def _answered(journal: Journal, status_code: int) -> tuple[int, Outcome]:
    """A configuration with one message, fanned out, and the outcome of an attempt at it
    that the receiver answered `status_code` (not stored yet)."""
    config = _configure(journal)
    journal.write(1)
    journal.fan_out()
    with transaction(journal.context.sessions) as session:
        [pending] = outbox.load_pending(session, utcnow())
    return config, outbox.decide(
        pending,
        attempted_at=utcnow(),
        latency_ms=1.0,
        status_code=status_code,
        error=f"The receiver answered {status_code}",
        retry_after=None,
        tuning=Tuning(),
    )


def _stored_during(journal: Journal, outcome: Outcome, request: Callable[[], object]) -> None:
    """The cycle holds the cursor when the request begins, and stores the outcome once the
    request waits (or has ended); both must end."""
    with transaction(journal.context.sessions) as cycle:
        lock_cursor(cycle)
        user = Step(request)
        user.blocked_or_done(journal)
        outbox.record(cycle, [outcome], utcnow())
    user.done()


def _config(journal: Journal, config_id: int) -> WebhookConfigRow | None:
    with transaction(journal.context.sessions) as session:
        return session.get(WebhookConfigRow, config_id)


def test_a_pause_while_the_worker_stores_a_receiver_s_410_completes(journal: Journal) -> None:
    # The user's PUT pauses the configuration while the cycle holds the cursor; the cycle
    # then stores its receiver's 410, which pauses it too. The PUT used to write the row
    # before waiting for the cursor, and the 410's store waited for the row: a deadlock,
    # which failed the PUT (a 500) or rolled the cycle back.
    config, gone = _answered(journal, 410)
    _stored_during(journal, gone, lambda: _put(journal, config, enabled=False))
    row = _config(journal, config)
    assert row is not None and row.enabled is False
    # The PUT found it paused by the 410 already: the receiver's word is kept.
    assert row.disabled_reason is not None and "410" in row.disabled_reason
    journal.write(2)
    _put(journal, config, enabled=True)
    journal.write(3)
    journal.fan_out()
    assert journal.received(config) == [1, 3]


def test_a_resume_while_the_worker_stores_a_receiver_s_410_completes(journal: Journal) -> None:
    # The 410 answered an attempt made before the user paused it; the 410's store takes the
    # row, which the resume must not hold while it waits for the cursor.
    config, gone = _answered(journal, 410)
    _put(journal, config, enabled=False)
    _stored_during(journal, gone, lambda: _put(journal, config, enabled=True))
    row = _config(journal, config)
    # The 410 found it paused (by the user) and changed nothing; the resume came after it.
    assert row is not None and row.enabled is True
    journal.write(2)
    journal.fan_out()
    assert journal.received(config) == [1, 2]


def test_a_delete_while_the_worker_stores_an_outcome_and_fans_out_completes(
    journal: Journal,
) -> None:
    # The cycle has stored an attempt of the configuration's message (its row held) when the
    # user deletes the configuration (whose messages go with it); the cycle then fans out a
    # change for it. The delete used to hold the configuration's row and wait for the
    # message's; the fan-out's new message waited for the configuration's row.
    config, failed = _answered(journal, 500)
    journal.write(2)

    def delete() -> None:
        with transaction(journal.context.sessions) as session:
            configs.delete(session, journal.tenant_id, config)

    with transaction(journal.context.sessions) as cycle:
        outbox.record(cycle, [failed], utcnow())
        deleting = Step(delete)
        deleting.blocked_or_done(journal)
        journal.fan_out_in(cycle)
    deleting.done()
    assert _config(journal, config) is None
    with transaction(journal.context.sessions) as session:
        assert session.scalar(select(func.count()).select_from(WebhookDeliveryRow)) == 0
