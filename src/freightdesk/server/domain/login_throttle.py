"""Failed logins slow the next attempts down: per client id or user name, and per source address.

Each name (and each source address) has a failure score that leaks away with time. Within its
allowance failures cost nothing; past it every failure closes the door for a short window that
doubles with each further failure, up to a cap. While the door is closed every attempt (right or
wrong) is answered 429 with `Retry-After`, before the credentials are checked, so guessing costs
the service no PBKDF2 work either. The windows are short on purpose: an attacker guessing a
user's password can keep that user waiting for at most the cap, never lock the account; a
successful login clears its name's score.

Loopback callers have no address limit: every local process (the desktop app, a developer's
scripts) shares 127.0.0.1, so one of them could otherwise shut the others out; the name limit
applies to them as to everyone.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from freightdesk.server.errors import ApiError


@dataclass(frozen=True)
class Policy:
    free_failures: int  # failures allowed before the first window
    leak_seconds: float  # one failure is forgotten per this many seconds
    first_window_seconds: float
    max_window_seconds: float


# A user or client guessing wrong a few times (a typo, an old secret) is never slowed down; a
# guesser gets about 2 tries a minute per name once past the allowance.
NAME_POLICY = Policy(
    free_failures=5, leak_seconds=60, first_window_seconds=1, max_window_seconds=30
)
# One address trying many names: 20 failures, then about 10 a minute.
ADDRESS_POLICY = Policy(
    free_failures=20, leak_seconds=6, first_window_seconds=1, max_window_seconds=60
)
# Scores kept at most (an attacker may try ever new names); the oldest are dropped first.
MAX_ENTRIES = 50_000


@dataclass
class _Score:
    failures: float = 0.0
    updated: float = 0.0
    closed_until: float = 0.0


class LoginThrottle:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._scores: dict[tuple[str, str], _Score] = {}

    def check(self, kind: str, name: str, address: str | None) -> None:
        """Refuse (429) an attempt while its name or its address is shut out."""
        now = self._clock()
        waits: list[tuple[float, str]] = []
        with self._lock:
            for key, what in self._keys(kind, name, address):
                score = self._scores.get(key)
                if score is not None and score.closed_until > now:
                    waits.append((score.closed_until - now, what))
        if waits:
            wait, what = max(waits)
            seconds = max(1, math.ceil(wait))
            raise ApiError(
                429,
                f"Too many failed logins {what}; retry in {seconds} s",
                headers={"Retry-After": str(seconds)},
            )

    def failed(self, kind: str, name: str, address: str | None) -> None:
        now = self._clock()
        with self._lock:
            for key, _what in self._keys(kind, name, address):
                policy = ADDRESS_POLICY if key[0] == "address" else NAME_POLICY
                score = self._scores.pop(key, None) or _Score(updated=now)
                score.failures = _leaked(score, policy, now) + 1
                score.updated = now
                excess = math.floor(score.failures) - policy.free_failures
                if excess > 0:
                    window = policy.first_window_seconds * 2 ** min(excess - 1, 30)
                    score.closed_until = now + min(window, policy.max_window_seconds)
                self._scores[key] = score  # last in the dict: the most recently failed
            while len(self._scores) > MAX_ENTRIES:
                del self._scores[next(iter(self._scores))]

    def succeeded(self, kind: str, name: str) -> None:
        with self._lock:
            self._scores.pop((kind, name[:_NAME_LIMIT]), None)

    @staticmethod
    def _keys(kind: str, name: str, address: str | None) -> list[tuple[tuple[str, str], str]]:
        label = "client id" if kind == "client" else "user"
        keys = [((kind, name[:_NAME_LIMIT]), f"for this {label}")]
        if address is not None and not _is_loopback(address):
            keys.append((("address", address), "from this address"))
        return keys


_NAME_LIMIT = 256


def _leaked(score: _Score, policy: Policy, now: float) -> float:
    return max(0.0, score.failures - (now - score.updated) / policy.leak_seconds)


def _is_loopback(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # not an IP address (a test client, a Unix socket): no address limit
        return True
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback
