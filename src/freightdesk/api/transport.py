"""Transport policy: timeouts and which failures are retried, how often, how long apart."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import httpx

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRYABLE_STATUSES = frozenset({502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter.

    Idempotent operations are retried on connection errors, 502, 503, 504 and 429. A timed-out
    answer is not asked for again (the service got the request and is slow: asking again would
    only make the user wait as long once more before hearing of it), except by a download that
    resumes where its stream stalled (`resumable`). Other operations are retried only when
    the request surely did not reach the service (the connection could not be opened) or was
    refused unprocessed (429), never blindly.
    """

    attempts: int = 4
    base_delay: float = 0.25
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    rng: random.Random = field(default_factory=random.Random, compare=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `attempt` (1-based)."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return self.rng.uniform(0, ceiling)

    def retry_on_exception(
        self, exc: Exception, idempotent: bool, *, resumable: bool = False
    ) -> bool:
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            return True
        if isinstance(exc, httpx.TimeoutException) and not resumable:
            return False
        return idempotent and isinstance(exc, httpx.TransportError)

    def retry_on_status(self, status: int, idempotent: bool) -> bool:
        if status == 429:
            return True
        return idempotent and status in RETRYABLE_STATUSES


NO_RETRY = RetryPolicy(attempts=1)

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
