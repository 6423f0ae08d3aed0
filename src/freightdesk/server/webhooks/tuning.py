"""The knobs of webhook delivery: retry schedule, timeouts, concurrency, retention.

Defaults suit a real deployment. `ServerSettings.extra` can change them at start
(`webhooks.retry_schedule` = comma-separated seconds, `webhooks.timeout_seconds`,
`webhooks.per_endpoint_concurrency`, `webhooks.total_concurrency`,
`webhooks.poll_interval_seconds`, `webhooks.retention_days`, `webhooks.lease_seconds`,
`webhooks.journal_retention_days`, `webhooks.journal_prune_every_seconds`), and so can an
environment variable `FREIGHTDESK_WEBHOOKS_<NAME>` for `webhooks.<name>` (for example
`FREIGHTDESK_WEBHOOKS_LEASE_SECONDS=10`; settings win over it). A `Tuning` put in
`context.services["webhooks.tuning"]` replaces them while the service runs (tests use this to
retry in fractions of a second). The worker reads the current tuning on every use.
"""

from __future__ import annotations

import logging
import os
import random
from dataclasses import dataclass, fields, replace
from typing import Any

from freightdesk.server.context import ServiceContext
from freightdesk.server.workers import IDLE_POLL_SECONDS

log = logging.getLogger(__name__)

SERVICE_KEY = "webhooks.tuning"

# Seconds to wait after each failed attempt: 12 attempts over about 24 hours. The first
# retries come quickly (a receiver restarting), the later ones ride out a long outage.
DEFAULT_RETRY_SCHEDULE: tuple[float, ...] = (
    5,
    30,
    2 * 60,
    5 * 60,
    15 * 60,
    30 * 60,
    60 * 60,
    2 * 3600,
    4 * 3600,
    8 * 3600,
    8 * 3600,
)


@dataclass(frozen=True)
class Tuning:
    retry_schedule: tuple[float, ...] = DEFAULT_RETRY_SCHEDULE
    # Each delay is spread by up to this fraction either way so that retries of many
    # messages to a receiver that was down do not arrive all at once.
    jitter: float = 0.2
    # A Retry-After from the receiver is honoured up to this many seconds.
    max_retry_after_seconds: float = 3600
    timeout_seconds: float = 15.0
    connect_timeout_seconds: float = 5.0
    # In-flight requests per configuration and in all. A receiver answering in 100 ms gets at
    # most 160 messages a second (one change every 6 ms), what one configuration of a tenant
    # making 10,000 changes a minute needs; a slow receiver holds only its own 16.
    per_endpoint_concurrency: int = 16
    total_concurrency: int = 512
    # The worker wakes when there is work (a change committed, here or by another instance
    # on PostgreSQL); it looks anyway this often, for what no wake-up announced (a writer in
    # another process on SQLite, a notification lost while the database was unreachable).
    poll_interval_seconds: float = IDLE_POLL_SECONDS
    journal_batch: int = 1000
    # A journal id missing below ones already read is waited for this long (a transaction
    # that has not committed yet) before it is taken for a rolled-back one.
    gap_timeout_seconds: float = 120.0
    # Delivered and failed messages (and their attempts) are kept this long for the log.
    retention_seconds: float = 7 * 86400
    # Shipment change journal rows the fan-out has passed are kept this long, then pruned
    # (`journal_prune`; never less than an hour); the worker looks for them this often.
    journal_retention_seconds: float = 7 * 86400
    journal_prune_every_seconds: float = 600.0
    # A rotated signing secret keeps signing alongside the new one this long.
    rotated_secret_grace_seconds: float = 86400
    # With several instances on one PostgreSQL database, an instance's hold on the messages
    # it sends (`leases`): renewed every third of it; those of a dead instance move to
    # another within about this long.
    lease_seconds: float = 30.0

    @property
    def attempts(self) -> int:
        """Attempts before a message is given up (the first one plus one per delay)."""
        return len(self.retry_schedule) + 1

    def delay_after(self, failed_attempts: int, retry_after: float | None = None) -> float | None:
        """Seconds until the next attempt after this many failures; None when given up."""
        if failed_attempts > len(self.retry_schedule):
            return None
        base = self.retry_schedule[failed_attempts - 1]
        delay = base * (1 + random.uniform(-self.jitter, self.jitter))
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_retry_after_seconds))
        return max(0.0, delay)

    @classmethod
    def from_extra(cls, extra: dict[str, str]) -> Tuning:
        tuning = cls()
        changes: dict[str, Any] = {}
        known = {f.name: f for f in fields(cls)}
        for key, raw in extra.items():
            if not key.startswith("webhooks."):
                continue
            name = key.removeprefix("webhooks.")
            try:
                if name == "retry_schedule":
                    schedule = tuple(float(part) for part in raw.split(",") if part.strip())
                    if not schedule or min(schedule) < 0:
                        raise ValueError("needs non-negative seconds")
                    changes[name] = schedule
                elif name == "retention_days":
                    changes["retention_seconds"] = float(raw) * 86400
                elif name == "journal_retention_days":
                    if float(raw) <= 0:
                        raise ValueError("must be positive")
                    changes["journal_retention_seconds"] = float(raw) * 86400
                elif name in known and name != "retry_schedule":
                    value = float(raw)
                    if value <= 0:
                        raise ValueError("must be positive")
                    changes[name] = int(value) if name.endswith("concurrency") else value
                else:
                    log.warning("unknown webhook setting %s ignored", key)
            except ValueError as exc:
                log.error("webhook setting %s=%r ignored: %s", key, raw, exc)
        return replace(tuning, **changes)


ENVIRONMENT_PREFIX = "FREIGHTDESK_WEBHOOKS_"


def from_environment() -> dict[str, str]:
    """`webhooks.<name>` settings given as environment variables `FREIGHTDESK_WEBHOOKS_<NAME>`."""
    return {
        f"webhooks.{name.removeprefix(ENVIRONMENT_PREFIX).lower()}": value
        for name, value in os.environ.items()
        if name.startswith(ENVIRONMENT_PREFIX)
    }


def current(context: ServiceContext) -> Tuning:
    found = context.services.get(SERVICE_KEY)
    if isinstance(found, Tuning):
        return found
    tuning = Tuning.from_extra({**from_environment(), **context.settings.extra})
    context.services[SERVICE_KEY] = tuning
    return tuning
