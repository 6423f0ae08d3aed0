"""A push configuration gets a change iff it was enabled when the change was made, whenever
the fan-out reads the change: a change made before a pause still reaches it (queued, sent
once it is enabled again), one made while it was paused never does, even when the fan-out
reads it after the resume. The same for a pause by a receiver's 410. Sessions driven step by
step on real SQLite and PostgreSQL; no worker runs, the test calls the fan-out itself."""

from __future__ import annotations

from freightdesk.models.webhooks import PushConfigurationInput, WebhookConfiguration
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.webhooks import configs, outbox
from freightdesk.server.webhooks.cursor import lock_cursor
from freightdesk.server.webhooks.tuning import Tuning
from tests.server.test_webhooks_fan_out_race import KIND, Journal, Step, journal

__all__ = ["journal"]  # fixture (tests/server/test_webhooks_fan_out_race.py)


def _put(journal: Journal, config_id: int, *, enabled: bool) -> None:
    """The configuration saved again as it is (PUT with its id), enabled or paused."""
    with transaction(journal.context.sessions) as session:
        _put_in(session, journal, config_id, enabled=enabled)


def _put_in(session: configs.Session, journal: Journal, config_id: int, *, enabled: bool) -> None:
    body = PushConfigurationInput(
        id=config_id,
        config_name=f"hook-{config_id}",
        url="http://127.0.0.1:9/x",
        webhook_configuration=WebhookConfiguration(webhook_event_type=KIND),
        enabled=enabled,
    )
    configs.save(session, journal.tenant_id, body)


def _configure(journal: Journal) -> int:
    config = journal.configure("hook")
    _put(journal, config, enabled=True)  # named as `_put` names it
    return config


def test_a_change_made_before_a_pause_reaches_it_when_read_after_the_pause(
    journal: Journal,
) -> None:
    config = _configure(journal)
    journal.write(1)
    _put(journal, config, enabled=False)
    journal.fan_out()
    assert journal.received(config) == [1]
    journal.write(2)
    journal.fan_out()
    _put(journal, config, enabled=True)
    journal.write(3)
    journal.fan_out()
    assert journal.received(config) == [1, 3]


def test_a_change_made_while_paused_never_reaches_it_even_when_read_after_the_resume(
    journal: Journal,
) -> None:
    config = _configure(journal)
    _put(journal, config, enabled=False)
    journal.write(1)
    _put(journal, config, enabled=True)
    journal.fan_out()
    assert journal.received(config) == []
    journal.write(2)
    journal.fan_out()
    assert journal.received(config) == [2]


def test_pauses_the_fan_out_reads_only_after_they_ended(journal: Journal) -> None:
    config = _configure(journal)
    journal.write(1)
    _put(journal, config, enabled=False)
    journal.write(2)
    _put(journal, config, enabled=True)
    journal.write(3)
    _put(journal, config, enabled=False)
    journal.write(4)
    _put(journal, config, enabled=True)
    journal.write(5)
    journal.fan_out()
    assert journal.received(config) == [1, 3, 5]
    _put(journal, config, enabled=False)
    journal.write(6)
    _put(journal, config, enabled=True)
    journal.write(7)
    journal.fan_out()
    assert journal.received(config) == [1, 3, 5, 7]


def test_a_configuration_created_paused_gets_what_follows_its_enabling(journal: Journal) -> None:
    with transaction(journal.context.sessions) as session:
        body = PushConfigurationInput(
            config_name="paused-from-the-start",
            url="http://127.0.0.1:9/x",
            webhook_configuration=WebhookConfiguration(webhook_event_type=KIND),
            enabled=False,
        )
        config = configs.save(session, journal.tenant_id, body)[0].id
    journal.write(1)
    journal.fan_out()
    with transaction(journal.context.sessions) as session:
        body.id, body.enabled = config, True
        configs.save(session, journal.tenant_id, body)
    journal.write(2)
    journal.fan_out()
    assert journal.received(config) == [2]


def test_a_resume_while_a_round_reads_keeps_the_pause(journal: Journal) -> None:
    # The round has begun (its cursor held) when the configuration is enabled again: the
    # change made while it was paused is not its own, the one before the pause is.
    config = _configure(journal)
    journal.write(1)
    _put(journal, config, enabled=False)
    journal.write(2)
    with transaction(journal.context.sessions) as round_:
        lock_cursor(round_)
        resuming = Step(lambda: _put(journal, config, enabled=True))
        resuming.blocked_or_done(journal)
        journal.fan_out_in(round_)
    resuming.done()
    journal.write(3)
    journal.fan_out()
    assert journal.received(config) == [1, 3]


def test_a_receiver_s_410_pauses_it_from_where_the_journal_stood(journal: Journal) -> None:
    config = _configure(journal)
    journal.write(1)
    journal.fan_out()
    journal.write(2)
    with transaction(journal.context.sessions) as session:
        [pending] = outbox.load_pending(session, utcnow())
        gone = outbox.decide(
            pending,
            attempted_at=utcnow(),
            latency_ms=1.0,
            status_code=410,
            error="The receiver answered 410 Gone",
            retry_after=None,
            tuning=Tuning(),
        )
        outbox.record(session, [gone], utcnow())
    journal.write(3)
    journal.fan_out()
    assert journal.received(config) == [1, 2]  # 2 was made before the 410 was stored
    _put(journal, config, enabled=True)
    journal.write(4)
    journal.fan_out()
    assert journal.received(config) == [1, 2, 4]
