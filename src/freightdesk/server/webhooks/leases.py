"""Who sends which messages when several service instances share one PostgreSQL database.

The messages of one configuration and one shipment form a chain (`schedule`), sent one after
another. Each chain has at most one owner at a time: the instance holding its row of
`webhook_chain_leases` with `lease_until` still ahead (database time, so hosts' clocks do not
matter). Only the owner sends the chain's messages, so no message is sent by two live
instances and a chain keeps its order whichever instance received the pushes.

Everything here runs in the delivery cycle's transaction, after `outbox.fan_out` has locked
the journal cursor: the cycles of all instances take turns, so claiming, releasing and finding
new messages never race with another instance's fan-out. Each cycle:
- the chains of the messages this cycle fanned out are claimed when they have no owner (or
  one whose lease ran out); chains a live instance owns are left to it;
- messages of chains this instance owns that another instance fanned out are found by id
  (above the highest id seen by the last cycle: fan-outs commit in id order, under the lock);
- every third of a lease: its leases are renewed, chains it has had nothing of since the last
  renewal are released, and chains whose lease ran out (their instance died, or stopped and
  let them go) or that have waiting messages and no lease at all (a message redelivered after
  its chain was released) are taken over (`FOR UPDATE SKIP LOCKED`), with every message they
  still wait to send.

A redelivery, through whichever instance, is sent at once: it wakes every instance to reload
its view (`db.WEBHOOKS_RELOAD_CHANNEL`), which renews and takes over too, so the chain's owner
finds the message again, or the first instance to look takes over a chain nobody owns.

An instance that could not renew stops starting requests before its leases run out
(`usable`), so a chain moves only when its old owner has stopped sending; a request already
in flight then may still arrive after the new owner's first attempt (at least once). A
graceful stop lets its leases run out at once and wakes the others to reload, so they take
them over at once. On SQLite one instance owns the database (the data directory's lock) and the
worker does none of this.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import TextualSelect, func, select, text
from sqlalchemy.orm import Session

from freightdesk.server.db import UtcDateTime
from freightdesk.server.tables.webhooks import WebhookDeliveryRow
from freightdesk.server.webhooks.outbox import PENDING, pending_rows
from freightdesk.server.webhooks.schedule import Pending

Key = tuple[int, str]

# Chains taken over in one cycle at most (more are taken by the next ones).
TAKE_OVER_BATCH = 5000
# Leases are renewed every this fraction of their length, and requests stop being started
# this far into a lease that could not be renewed.
RENEW_FRACTION = 1 / 3
TRUST_FRACTION = 0.8

_NOW = "timezone('utc', clock_timestamp())"
_UNTIL = f"{_NOW} + make_interval(secs => :seconds)"
_CHAIN = "coalesce(p.shipment_id, '#' || d.id)"
_KEYS = "unnest(CAST(:configs AS bigint[]), CAST(:chains AS text[])) AS u(config_id, chain)"


def instance_id() -> str:
    """This instance's name in the leases: host, process and a random part (a restarted
    process is another instance: it waits for its predecessor's leases to run out)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


@dataclass
class Claimed:
    """What a cycle's claims changed: messages now this instance's to send (in id order)
    and chains another instance took over (to be forgotten)."""

    pending: list[Pending] = field(default_factory=list)
    lost: set[Key] = field(default_factory=set)


def _columns(keys: Iterable[Key]) -> dict[str, list[Any]]:
    ordered = sorted(keys)
    return {"configs": [k[0] for k in ordered], "chains": [k[1] for k in ordered]}


def _keys(rows: Iterable[Any]) -> set[Key]:
    return {(int(config_id), str(chain)) for config_id, chain in rows}


class Leases:
    """One instance's leases on chains (PostgreSQL)."""

    def __init__(self, owner: str | None = None) -> None:
        self.owner = owner or instance_id()
        # Chains this instance owns, as far as it knows (the database has the last word).
        self.owned: set[Key] = set()
        # Every delivery up to this id was looked at by the last cycle.
        self.high_water = 0
        self._renewed: float | None = None
        self._trusted_until = 0.0
        # Owned chains that were idle at the last renewal.
        self._idle: set[Key] = set()

    def usable(self) -> bool:
        """Whether requests may be started: the leases were renewed recently enough that no
        other instance can have taken them over."""
        return time.monotonic() < self._trusted_until

    def renewal_due_in(self, seconds: float) -> float:
        """Seconds until the next cycle should renew the leases (and take over expired
        ones), for leases of `seconds`."""
        if self._renewed is None:
            return 0.0
        return self._renewed + seconds * RENEW_FRACTION - time.monotonic()

    def sync(
        self,
        session: Session,
        *,
        seconds: float,
        fanned: Iterable[Key],
        idle: set[Key],
        full: bool,
        now: datetime,
    ) -> Claimed:
        """One cycle's claims. `fanned`: chains of the messages this cycle fanned out; `idle`:
        owned chains with nothing waiting or in flight here (released when still idle at the
        next renewal); `full`: renew and take over now and return every waiting message of
        the owned chains (the scheduler starts over). On an error the caller starts over with
        `full` (this object's view may be ahead of a transaction that rolled back)."""
        started = time.monotonic()
        claimed = Claimed()
        fresh: set[Key] = set()
        maintain = (
            full or self._renewed is None or started - self._renewed >= seconds * RENEW_FRACTION
        )
        if maintain:
            kept = self._renew(session, seconds)
            claimed.lost = self.owned - kept
            self.owned = kept
            fresh |= self._take_over(session, seconds) - kept
            self._renewed = started
            self._trusted_until = started + seconds * TRUST_FRACTION
        new = set(fanned) - self.owned - fresh
        if new:
            made, expired = self._claim(session, new, seconds)
            # A new lease's chain has only this cycle's messages (found by id); one taken
            # over from a dead instance may have older ones.
            self.owned |= made
            fresh |= expired
        self.owned |= fresh
        claimed.pending = self._load(session, None if full else fresh, now)
        if maintain:
            # Chains idle since the last renewal are let go (kept meanwhile: a shipment's
            # next change is likely soon, and claiming costs a row written and deleted).
            busy = {p.key for p in claimed.pending}
            stale = (idle & self._idle) - busy
            if stale:
                self._release(session, stale)
                self.owned -= stale
            self._idle = (idle & self.owned) - busy - stale
        return claimed

    def release_all(self, session: Session) -> int:
        """A graceful stop: let every lease run out now, for the others to take over; returns
        how many there were."""
        released = session.execute(
            text(
                f"UPDATE webhook_chain_leases SET lease_until = {_NOW} - interval '1 second' "
                "WHERE owner = :owner"
            ),
            {"owner": self.owner},
        )
        self.owned.clear()
        self._trusted_until = 0.0
        return int(getattr(released, "rowcount", 0))

    def _renew(self, session: Session, seconds: float) -> set[Key]:
        return _keys(
            session.execute(
                text(
                    f"UPDATE webhook_chain_leases SET lease_until = {_UNTIL} "
                    "WHERE owner = :owner RETURNING config_id, chain"
                ),
                {"owner": self.owner, "seconds": seconds},
            )
        )

    def _take_over(self, session: Session, seconds: float) -> set[Key]:
        params = {"owner": self.owner, "seconds": seconds, "limit": TAKE_OVER_BATCH}
        expired = _keys(
            session.execute(
                text(
                    f"UPDATE webhook_chain_leases AS l SET owner = :owner, lease_until = {_UNTIL} "
                    "FROM (SELECT config_id, chain FROM webhook_chain_leases "
                    f"WHERE lease_until < {_NOW} ORDER BY config_id, chain LIMIT :limit "
                    "FOR UPDATE SKIP LOCKED) AS e "
                    "WHERE l.config_id = e.config_id AND l.chain = e.chain "
                    "RETURNING l.config_id, l.chain"
                ),
                params,
            )
        )
        # Waiting messages of no chain anyone owns: left by a graceful stop that released
        # a chain while a message of it was being redelivered, or older than the leases.
        orphans = _keys(
            session.execute(
                text(
                    "INSERT INTO webhook_chain_leases (config_id, chain, owner, lease_until) "
                    f"SELECT DISTINCT d.config_id, {_CHAIN}, :owner, {_UNTIL} "
                    "FROM webhook_deliveries AS d "
                    "JOIN webhook_payloads AS p ON p.id = d.payload_id "
                    f"WHERE d.status = '{PENDING}' AND NOT EXISTS (SELECT 1 FROM "
                    "webhook_chain_leases AS l WHERE l.config_id = d.config_id "
                    f"AND l.chain = {_CHAIN}) LIMIT :limit "
                    "ON CONFLICT DO NOTHING RETURNING config_id, chain"
                ),
                params,
            )
        )
        return expired | orphans

    def _claim(self, session: Session, keys: set[Key], seconds: float) -> tuple[set[Key], set[Key]]:
        """Chains of new messages: free ones (made) and expired ones (taken over) become
        this instance's."""
        params = {"owner": self.owner, "seconds": seconds, **_columns(keys)}
        made = _keys(
            session.execute(
                text(
                    "INSERT INTO webhook_chain_leases (config_id, chain, owner, lease_until) "
                    f"SELECT u.config_id, u.chain, :owner, {_UNTIL} FROM {_KEYS} "
                    "ON CONFLICT (config_id, chain) DO NOTHING RETURNING config_id, chain"
                ),
                params,
            )
        )
        if len(made) == len(keys):
            return made, set()
        expired = _keys(
            session.execute(
                text(
                    f"UPDATE webhook_chain_leases AS l SET owner = :owner, lease_until = {_UNTIL} "
                    f"FROM {_KEYS} WHERE l.config_id = u.config_id AND l.chain = u.chain "
                    f"AND l.lease_until < {_NOW} RETURNING l.config_id, l.chain"
                ),
                params,
            )
        )
        return made, expired

    def _release(self, session: Session, keys: set[Key]) -> None:
        """Give up these chains (idle, and just checked for waiting messages). A message
        redelivered meanwhile has a chain with no lease: the next instance to renew takes it
        over."""
        session.execute(
            text(
                f"DELETE FROM webhook_chain_leases AS l USING {_KEYS} "
                "WHERE l.config_id = u.config_id AND l.chain = u.chain AND l.owner = :owner"
            ),
            {"owner": self.owner, **_columns(keys)},
        )

    def _load(self, session: Session, fresh: set[Key] | None, now: datetime) -> list[Pending]:
        """Waiting messages of the owned chains: all of them (`fresh` None), or those above
        the high-water mark and every one of the `fresh` chains."""
        params: dict[str, Any] = {"owner": self.owner}
        # No message above this can commit before this transaction ends (the cursor lock).
        upto = session.scalar(select(func.max(WebhookDeliveryRow.id))) or 0
        if fresh is None:
            rows = list(session.execute(_pending(""), params))
        else:
            rows = list(
                session.execute(
                    _pending("", "AND d.id > :after AND d.id <= :upto"),
                    {**params, "after": self.high_water, "upto": upto},
                )
            )
            if fresh:
                known = {row.id for row in rows}
                chains = session.execute(
                    _pending(f"JOIN {_KEYS} ON u.config_id = l.config_id AND u.chain = l.chain"),
                    {**params, **_columns(fresh)},
                )
                rows += [row for row in chains if row.id not in known]
                rows.sort(key=lambda row: row.id)
        self.high_water = upto
        return pending_rows(rows, now)


def _pending(join: str, where: str = "") -> TextualSelect:
    """Waiting messages of chains this instance owns (`outbox.pending_query`'s columns)."""
    return text(
        "SELECT d.id, d.config_id, d.payload_id, p.shipment_id, p.event_id, d.attempt_count, "
        "d.next_attempt_at FROM webhook_deliveries AS d "
        "JOIN webhook_payloads AS p ON p.id = d.payload_id "
        f"JOIN webhook_chain_leases AS l ON l.config_id = d.config_id AND l.chain = {_CHAIN} "
        f"{join} WHERE d.status = '{PENDING}' AND l.owner = :owner {where} ORDER BY d.id"
    ).columns(next_attempt_at=UtcDateTime())
