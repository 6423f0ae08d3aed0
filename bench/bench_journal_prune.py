"""Pruning the shipment change journal: CPU per 10,000 rows deleted and the longest write-lock
hold per batch, beside plain deletes of the same rows in the same run.

Each round makes a fresh journal of `--rows` changes made 30 days ago (a payload of about 600
bytes each, as an event's) and one newest change, the fan-out's cursor past them all, then
deletes those rows three ways, each on its own copy:
- `prune`: `journal_prune.prune` batch after batch (what the delivery worker does),
- `plain batches`: `DELETE FROM shipment_changes WHERE id < ?` over the same batch bounds,
- `plain whole`: one `DELETE ... WHERE id < ?` of them all (what an unbounded delete holds).
CPU is this process's (`time.process_time`) plus, on PostgreSQL, its backend's (read from
/proc when the server runs on this machine). The write-lock hold is from the DELETE's start
to the commit's end (SQLite takes its one write lock at the DELETE; PostgreSQL locks the
rows then); on SQLite it includes a WAL checkpoint run by the commit (after the lock is
let go), so the longest is an upper bound. Rounds alternate the order; medians of the rounds
are printed with the load average.

    python -m bench.bench_journal_prune [--rows 100000] [--repeat 3] [--database URL]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, event, insert, select, text

from bench.report import Figure, publish
from freightdesk.server.app import build_context
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings, sqlite_url
from freightdesk.server.tables.tracking import ShipmentChange
from freightdesk.server.tables.webhooks import WebhookJournalCursor
from freightdesk.server.webhooks import journal_prune
from freightdesk.server.webhooks.tuning import Tuning

_PAYLOAD = {
    "shipmentId": "",
    "source": "CARRIER_PUSH",
    "event": {
        "id": "",
        "type": "ARRIVAL_AT_STOP",
        "dateTime": "2026-11-01T10:15:00Z",
        "receivedDateTime": "2026-11-01T10:15:04Z",
        "stopId": "stop-2",
        "location": {"latitude": 41.8781, "longitude": -87.6298},
        "address": {
            "addressLines": ["2200 S Lumber St"],
            "city": "Chicago",
            "state": "IL",
            "postalCode": "60616",
            "country": "US",
        },
        "source": {"type": "CARRIER", "name": "ABCD", "identifier": "ABCD-TRUCK-0042"},
        "description": "Arrived at the consignee's dock, door 14",
    },
}


@dataclass
class Run:
    cpu: float = 0.0
    holds: list[float] = field(default_factory=list)
    deleted: int = 0

    @property
    def cpu_per_10k_ms(self) -> float:
        return self.cpu / self.deleted * 10_000 * 1000

    @property
    def longest_hold_ms(self) -> float:
        return max(self.holds) * 1000

    @property
    def median_hold_ms(self) -> float:
        return statistics.median(self.holds) * 1000


class Holds:
    """Times from each DELETE's start to its transaction's end."""

    def __init__(self, engine: Engine) -> None:
        self.started: float | None = None
        event.listen(engine, "before_cursor_execute", self._before)

    def _before(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("DELETE") and self.started is None:
            self.started = time.perf_counter()

    def end(self) -> float | None:
        started, self.started = self.started, None
        return None if started is None else time.perf_counter() - started


def _backend_cpu(context: ServiceContext) -> Callable[[], float]:
    """The CPU seconds of this engine's PostgreSQL backends so far (0 on SQLite, or when the
    server is not on this machine)."""
    if context.engine.dialect.name != "postgresql":
        return lambda: 0.0
    with context.engine.connect() as conn:
        pid = conn.scalar(text("SELECT pg_backend_pid()"))
    stat = Path(f"/proc/{pid}/stat")
    ticks = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / ticks

    return read


def _fill(context: ServiceContext, rows: int) -> None:
    with transaction(context.sessions) as session:
        session.execute(delete(ShipmentChange))
        session.execute(delete(WebhookJournalCursor))
        tenant_id = ensure_tenant(session, "bench", "admin-bench", "pw").tenant.id
    old = utcnow() - timedelta(days=30)
    with context.engine.begin() as conn:
        for start in range(1, rows + 1, 10_000):
            batch = []
            for change_id in range(start, min(start + 10_000, rows + 1)):
                shipment = str(uuid.uuid4())
                payload = {**_PAYLOAD, "shipmentId": shipment}
                payload["event"] = {**_PAYLOAD["event"], "id": str(uuid.uuid4())}  # type: ignore[dict-item]
                batch.append(
                    {
                        "id": change_id,
                        "tenant_id": tenant_id,
                        "shipment_id": shipment,
                        "kind": "shipments.v1.event.added",
                        "payload": payload,
                        "created_at": old,
                    }
                )
            conn.execute(insert(ShipmentChange), batch)
        conn.execute(
            insert(ShipmentChange).values(
                id=rows + 1,
                tenant_id=tenant_id,
                shipment_id=str(uuid.uuid4()),
                kind="shipments.v1.event.added",
                payload=_PAYLOAD,
                created_at=utcnow(),
            )
        )
        conn.execute(
            insert(WebhookJournalCursor).values(
                id=1, position=rows + 1, highest_seen=rows + 1, gaps=[]
            )
        )
    if context.engine.dialect.name == "postgresql":
        with context.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(
                text("VACUUM ANALYZE shipment_changes")
            )


def _timed(context: ServiceContext, step: Callable[[Any], int]) -> Run:
    """`step` in one transaction after another until it deletes nothing."""
    holds = Holds(context.engine)
    backend = _backend_cpu(context)
    run = Run()
    cpu, server = time.process_time(), backend()
    while True:
        with transaction(context.sessions) as session:
            deleted = step(session)
        hold = holds.end()
        if not deleted:
            break
        run.deleted += deleted
        if hold is not None:
            run.holds.append(hold)
    run.cpu = time.process_time() - cpu + backend() - server
    return run


def _prune(context: ServiceContext, batch: int) -> Run:
    tuning = Tuning()
    return _timed(context, lambda session: journal_prune.prune(session, tuning, utcnow(), batch))


def _plain(context: ServiceContext, rows: int, batch: int) -> Run:
    bounds = iter(range(batch + 1, rows + batch + 1, batch))

    def step(session: Any) -> int:
        bound = next(bounds, None)
        if bound is None:
            return 0
        bound = min(bound, rows + 1)
        done = session.execute(delete(ShipmentChange).where(ShipmentChange.id < bound))
        return int(getattr(done, "rowcount", 0) or 0)

    return _timed(context, step)


def _whole(context: ServiceContext, rows: int) -> Run:
    once = iter([rows + 1])

    def step(session: Any) -> int:
        bound = next(once, None)
        if bound is None:
            return 0
        done = session.execute(delete(ShipmentChange).where(ShipmentChange.id < bound))
        return int(getattr(done, "rowcount", 0) or 0)

    return _timed(context, step)


# Targets: the prune's own bookkeeping (cursor, retention, lock) costs little beside the
# deletes themselves; and a push's write waits behind one batch at most this long.
PRUNE_CPU_RATIO = 1.5
HOLD_LIMIT_MS = 250.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch", type=int, help="rows a batch (default: the service's)")
    parser.add_argument("--database", help="a PostgreSQL URL (default: a SQLite file)")
    args = parser.parse_args()
    results: dict[str, list[Run]] = {"prune": [], "plain batches": [], "plain whole": []}
    ways: dict[str, Callable[[ServiceContext], Run]] = {
        "prune": lambda c: _prune(c, args.batch),
        "plain batches": lambda c: _plain(c, args.rows, args.batch),
        "plain whole": lambda c: _whole(c, args.rows),
    }
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as directory:
        url = args.database or sqlite_url(Path(directory) / "journal.sqlite3")
        context = build_context(ServerSettings(data_dir=Path(directory), database_url=url))
        if args.batch is None:
            with context.sessions() as session:
                args.batch = journal_prune.batch_size(session)
        try:
            for round_ in range(args.repeat):
                names = list(ways) if round_ % 2 == 0 else list(reversed(ways))
                for name in names:
                    _fill(context, args.rows)
                    run = ways[name](context)
                    with context.engine.connect() as conn:
                        left = conn.scalar(select(ShipmentChange.id))
                    assert run.deleted == args.rows and left == args.rows + 1, (name, run)
                    results[name].append(run)
                loads.append(os.getloadavg()[0])
        finally:
            context.engine.dispose()
    database = context.engine.dialect.name
    print(f"{args.rows:,} rows, batches of {args.batch:,}, {database}, {args.repeat} rounds")
    base_cpu = statistics.median(r.cpu_per_10k_ms for r in results["plain batches"])
    base_hold = statistics.median(r.longest_hold_ms for r in results["plain batches"])
    for name, runs in results.items():
        cpu = statistics.median(r.cpu_per_10k_ms for r in runs)
        hold = statistics.median(r.longest_hold_ms for r in runs)
        usual = statistics.median(r.median_hold_ms for r in runs)
        print(
            f"{name:14s} CPU {cpu:7.1f} ms per 10,000 rows ({cpu / base_cpu:4.2f}x plain batches)"
            f"   longest write-lock hold {hold:8.1f} ms ({hold / base_hold:5.2f}x),"
            f" median {usual:6.1f} ms"
        )
    print(f"load average {min(loads):.1f} to {max(loads):.1f}")
    prune = results["prune"]
    note = f"{args.rows:,} rows, batches of {args.batch:,}, {database}, median of {args.repeat}"
    publish(
        [
            Figure(
                "journal_prune",
                "pruning the change journal: CPU per 10,000 rows deleted",
                statistics.median(r.cpu_per_10k_ms for r in prune),
                baseline=base_cpu,
                baseline_what="plain DELETEs over the same batch bounds",
                max_ratio=PRUNE_CPU_RATIO,
                note=note,
            ),
            Figure(
                "journal_prune",
                "pruning the change journal: longest write-lock hold of a batch",
                statistics.median(r.longest_hold_ms for r in prune),
                baseline=statistics.median(r.longest_hold_ms for r in results["plain whole"]),
                baseline_what="one DELETE of them all",
                limit=HOLD_LIMIT_MS,
                note=note,
            ),
        ]
    )


if __name__ == "__main__":
    main()
