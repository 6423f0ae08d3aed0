"""Shipment search over 100,000 shipments against the same query as hand-written SQL.

Uses the tracking benchmark's database (100,000 shipments, 2 million positions, seeded once
and kept in /tmp, see bench_tracking). For each typical query, interleaved run by run:

- the search as the service runs it (`search_json` on a session of the service's engine: the
  answer's JSON bytes, what a request costs less the HTTP framework);
- the baseline: the same page (the same rows and columns) and total as hand-written SQL
  statements on the same database file through the plain sqlite3 driver (rows as tuples,
  identifiers as JSON text, no answer built);
- the search over HTTP (`freightdesk serve` on the database, one keep-alive client);
- the floor SQLAlchemy itself sets: the same hand-written statements run by SQLAlchemy Core
  (`text()`, rows fetched) on a connection of the service's engine, no summaries built.

Target: median <= 50 ms and <= 2x the hand-written SQL.

    python -m bench.bench_search [--repeat 30] [--quick] [--no-http]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from pydantic_core import from_json
from sqlalchemy import text

from bench import bench_tracking
from bench.report import Figure, publish

DATA_DIR = Path("/tmp/freightdesk-bench-tracking")
LIMIT_MS = 50.0
MAX_RATIO = 2.0
PAGE = 50

_COLUMNS = (
    "s.pk, s.id, s.tenant_id, s.primary_identifier, s.mode, s.current_state, s.origin_name, "
    "s.destination_name, s.next_eta, s.next_eta_zone, s.latest_event_type, s.latest_event_at, "
    "s.latest_event_description, s.latest_event_zone, s.open_exception_count, s.carrier, "
    "s.created_at, s.last_modified_at, json_extract(d.data, '$.identifiers')"
)
_ORDER = (
    "ORDER BY s.last_modified_at DESC, s.current_state DESC, s.mode DESC, "
    "s.open_exception_count DESC, s.pk DESC"
)


def _page_sql(where: str, *, few: bool = False) -> str:
    """`few`: the candidates are few, so fetch them and sort (`+ 0` keeps SQLite off the
    tenant's sort index, as a careful hand would)."""
    tenant = "s.tenant_id + 0" if few else "s.tenant_id"
    return (
        f"SELECT {_COLUMNS} FROM shipments s JOIN shipment_documents d ON d.shipment_pk = s.pk "
        f"WHERE {tenant} = :t AND s.deleted_at IS NULL {where} {_ORDER} LIMIT {PAGE}"
    )


_PREFIX = (
    "SELECT shipment_pk FROM shipment_identifiers "
    "WHERE tenant_id = :t AND value_norm >= :lo AND value_norm < :hi"
)
_ATTRIBUTE = (
    "SELECT shipment_pk FROM shipment_attribute_values "
    "WHERE tenant_id = :t AND name = :name AND value = :value"
)
_LIVE = "SELECT count(*) FROM shipments WHERE tenant_id = :t AND deleted_at IS NULL"


def _queries(rng: random.Random, identifiers: list[str]) -> list[tuple[str, Any]]:
    """(name, make) where make() gives (request body, SQL statements, parameters)."""

    def prefix(
        length: int, start: str = ""
    ) -> Callable[[], tuple[dict[str, Any], list[str], dict[str, Any]]]:
        drawn = [identifier for identifier in identifiers if identifier.startswith(start)]

        def make() -> tuple[dict[str, Any], list[str], dict[str, Any]]:
            text = rng.choice(drawn)[:length].upper()
            bounds = {"lo": text, "hi": text[:-1] + chr(ord(text[-1]) + 1)}
            count = f"SELECT count(DISTINCT shipment_pk) FROM ({_PREFIX})"
            page = _page_sql(f"AND s.pk IN ({_PREFIX})", few=length >= 10)
            return {"text": text}, [count, page], bounds

        return make

    def fixed(
        body: dict[str, Any], statements: list[str], params: dict[str, Any]
    ) -> Callable[[], tuple[dict[str, Any], list[str], dict[str, Any]]]:
        return lambda: (body, statements, params)

    modes = "AND s.mode = 'AIR' AND s.current_state = 'IN_TRANSIT'"
    return [
        ("first page, default order", fixed({}, [_LIVE, _page_sql("")], {})),
        ("identifier prefix, 7 characters (~25,000 match)", prefix(7)),
        # 10 characters of an air waybill ("020-000012") name 25 shipments; of the other kinds
        # 2 to 3 (PRO), 250 (MAEU) or 2,500 (1Z): a draw among all kinds mixes sizes a
        # hundredfold apart, and the two medians then come from different draws.
        ("identifier prefix, 10 characters of an air waybill (25 match)", prefix(10, "020-")),
        ("identifier prefix, 10 characters of any kind (2 to 2,500 match)", prefix(10)),
        (
            "mode + state (AIR, IN_TRANSIT)",
            fixed(
                {"transportationModes": ["AIR"], "states": ["IN_TRANSIT"]},
                [_LIVE.replace("WHERE", "s WHERE") + " " + modes, _page_sql(modes)],
                {},
            ),
        ),
        (
            "attribute name and value",
            fixed(
                {"attributeName": "customer", "attributeValue": "customer 7"},
                [
                    f"SELECT count(DISTINCT shipment_pk) FROM ({_ATTRIBUTE})",
                    _page_sql(f"AND s.pk IN ({_ATTRIBUTE})"),
                ],
                {"name": "customer", "value": "customer 7"},
            ),
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="runs of each query")
    parser.add_argument("--quick", action="store_true", help="10 runs of each query")
    parser.add_argument("--no-http", action="store_true", help="skip the HTTP figures")
    parser.add_argument("--data-dir", default=str(DATA_DIR))
    args = parser.parse_args(argv)
    repeat = 10 if args.quick else args.repeat
    data_dir = Path(args.data_dir)
    seeded = bench_tracking.seed(data_dir, 100_000, 20)

    from freightdesk.models.shipment_search import ShipmentSearchRequest
    from freightdesk.server.app import build_context
    from freightdesk.server.domain.shipment_search import search_json
    from freightdesk.server.settings import ServerSettings, sqlite_url

    path = data_dir / "freightdesk.sqlite3"
    context = build_context(ServerSettings(data_dir=data_dir, database_url=sqlite_url(path)))
    raw = sqlite3.connect(path)
    tenant = raw.execute("SELECT id FROM tenants WHERE name = 'bench'").fetchone()[0]
    rng = random.Random(5)
    queries = _queries(rng, seeded.identifiers)
    figures: list[Figure] = []
    http_ms: dict[str, float] = {}
    if not args.no_http:
        with bench_tracking.serve(data_dir) as (url, _started, _pid):
            bench_tracking._wait_ready(url)
            bearer = bench_tracking.token(url, seeded)
            headers = {"Authorization": f"Bearer {bearer}"}
            with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
                for name, make in queries:
                    samples = []
                    for _ in range(repeat + 2):
                        body = make()[0]
                        begin = time.perf_counter()
                        answer = http.post("/api/v4/shipments/search", json=body)
                        samples.append((time.perf_counter() - begin) * 1000)
                        answer.raise_for_status()
                    http_ms[name] = statistics.median(samples[2:])
    core = context.engine.connect()
    for name, make in queries:
        ours, theirs, floor = [], [], []
        for run in range(repeat + 2):
            body, statements, params = make()
            request = ShipmentSearchRequest.model_validate(body)
            # Each query's pages read once before any is timed, by each side on its own
            # connection: whichever ran first on a new prefix would otherwise pay for reading
            # its pages into the caches alone, and each SQLite connection has a page cache of
            # its own (read by the plain driver only, the search and the Core floor read them
            # again when timed).
            for statement in statements:
                raw.execute(statement, {"t": tenant, **params}).fetchall()
                core.execute(text(statement), {"t": tenant, **params}).all()
            core.rollback()
            with context.sessions() as session:
                search_json(session, tenant, request, 1, PAGE)
            begin = time.perf_counter()
            with context.sessions() as session:
                answer = search_json(session, tenant, request, 1, PAGE)
            elapsed = (time.perf_counter() - begin) * 1000
            result = from_json(answer)
            begin = time.perf_counter()
            total = raw.execute(statements[0], {"t": tenant, **params}).fetchone()[0]
            rows = raw.execute(statements[1], {"t": tenant, **params}).fetchall()
            sql = (time.perf_counter() - begin) * 1000
            begin = time.perf_counter()
            core.execute(text(statements[0]), {"t": tenant, **params}).scalar()
            core.execute(text(statements[1]), {"t": tenant, **params}).all()
            core.rollback()
            bare = (time.perf_counter() - begin) * 1000
            # The same rows in the same order: the page's identifiers are the same shipments'.
            ids = [summary["id"] for summary in result["results"]]
            if total != result["paginationInfo"]["total"] or [row[1] for row in rows] != ids:
                raise AssertionError(f"{name}: the SQL and the search disagree")
            if run >= 2:  # warm-up
                ours.append(elapsed)
                theirs.append(sql)
                floor.append(bare)
        baseline = statistics.median(theirs)
        figures.append(
            Figure(
                "search",
                f"{name}: search_json, median",
                statistics.median(ours),
                baseline=baseline,
                baseline_what="hand-written SQL",
                limit=LIMIT_MS,
                max_ratio=MAX_RATIO,
            )
        )
        figures.append(
            Figure(
                "search",
                f"{name}: the same SQL by SQLAlchemy Core (text(), no summaries), median",
                statistics.median(floor),
                baseline=baseline,
                baseline_what="hand-written SQL",
            )
        )
        if name in http_ms:
            figures.append(
                Figure(
                    "search",
                    f"{name}: over HTTP, median",
                    http_ms[name],
                    baseline=baseline,
                    baseline_what="hand-written SQL",
                    limit=LIMIT_MS,
                )
            )
    core.close()
    raw.close()
    context.engine.dispose()
    publish(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
