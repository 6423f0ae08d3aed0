"""Rating: how long after its creation a rate request to 20 carriers has all its quotes.

Starts the real service (`freightdesk serve`, a subprocess on a fresh SQLite database or on the
PostgreSQL URL given), creates a tenant with the CLI, then over real HTTP creates rate requests
naming 20 carriers (both quote types, so 40 quotes each) and polls each one until every quote
has arrived. Two figures per request:

- seen by the client: from sending the POST to the GET that first shows all 40 quotes;
- recorded by the service: the latest quote's `createdDateTime` minus the request's.

Requests go one after another, then in bursts of concurrent requests. The target is 500 ms.

What each is held against in the same run: the slowest named carrier's quote delay (each
simulated carrier answers after its own delay, 30 to 150 ms by SCAC, read from the stored
solicitations): no quote can be recorded sooner; and for the POST and a GET of the request
with all its quotes, a minimal FastAPI app under the same uvicorn settings answering the same
bytes (bench/minimal_service.py). The figures go to `bench.report.publish`.

What they showed (28 Nov, SQLite, load 2 to 21): every request had all 40 quotes recorded
within 1.0x to 1.9x of its slowest carrier's 149 ms delay (at most 288 ms) and seen by the
client within 460 ms; the POST 5 to 20 ms (2.2x to 5.7x the minimal app).

    python -m bench.bench_rating [--requests 20] [--carriers 20] [--burst 5]
                                 [--database postgresql://...]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, func, select

from bench.bench_push import cli_tenant_token, spawn_serve
from bench.minimal_service import BASELINE_WHAT, can, interleaved, minimal_service, p95, settle
from bench.report import Figure, publish
from freightdesk.server.settings import normalize_database_url
from freightdesk.server.tables.rating import RateRequestRow, RateSolicitationRow

RATE_REQUESTS = "/services/rating/v1/rate-requests"
TARGET_MS = 500.0
# performance.md's median for the POST (SQLite, at load 9).
POST_MS = 20.0


@dataclass(frozen=True)
class Sample:
    request_id: str
    post_ms: float
    client_ms: float
    service_ms: float
    quotes: int
    # The minimal app answering the same bytes to the same POST, right after ours.
    floor_post_ms: float = float("nan")


def _freightdesk(*args: str) -> list[str]:
    return [sys.executable, "-m", "freightdesk.cli", *args]


def _cli_options(data_dir: Path, database: str | None) -> list[str]:
    return ["--data-dir", str(data_dir)] + (["--database", database] if database else [])


def start_service(data_dir: Path, database: str | None) -> tuple[subprocess.Popen[str], str]:
    options = _cli_options(data_dir, database)
    return spawn_serve(_freightdesk("serve", "--port", "0", "--log-level", "warning", *options))


def request_body(carriers: int) -> dict[str, Any]:
    def stop(kind: str, city: str, state: str, postal: str) -> dict[str, Any]:
        address = {"city": city, "state": state, "postalCode": postal, "country": "US"}
        return {"type": kind, "location": {"address": address}}

    return {
        "name": "bench",
        "rateDetail": {
            "routeInfo": {
                "stops": [
                    stop("PICKUP", "Chicago", "IL", "60607"),
                    stop("DELIVERY", "Atlanta", "GA", "30303"),
                ]
            },
            "shippingDetails": {"truck": {"trailerType": "DRY_VAN"}},
        },
        "capacityProviderIdentifiers": [
            {"type": "CARRIER_SCAC", "value": _scac(i)} for i in range(carriers)
        ],
    }


def _scac(index: int) -> str:
    return "B" + "".join(chr(ord("A") + (index // 26**k) % 26) for k in (2, 1, 0))


def one_request(
    client: httpx.Client, body: dict[str, Any], expected: int, floor: str | None = None
) -> Sample:
    started = time.perf_counter()
    created = client.post(RATE_REQUESTS, json=body)
    post_ms = (time.perf_counter() - started) * 1000
    created.raise_for_status()
    floor_ms = float("nan")
    if floor is not None:
        began = time.perf_counter()
        client.post(floor, json=body).raise_for_status()
        floor_ms = (time.perf_counter() - began) * 1000
    request_id = created.json()["id"]
    while True:
        seen = client.get(f"{RATE_REQUESTS}/{request_id}").json()
        if len(seen["quotes"]) >= expected:
            client_ms = (time.perf_counter() - started) * 1000
            break
        if time.perf_counter() - started > 10:
            raise RuntimeError(f"only {len(seen['quotes'])} of {expected} quotes after 10 s")
        time.sleep(0.005)
    opened = datetime.fromisoformat(seen["createdDateTime"])
    last = max(datetime.fromisoformat(q["createdDateTime"]) for q in seen["quotes"])
    service_ms = (last - opened).total_seconds() * 1000
    return Sample(request_id, post_ms, client_ms, service_ms, len(seen["quotes"]), floor_ms)


def _row(label: str, values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{label:<44} median {statistics.median(values):7.1f} ms   p95 {p95:7.1f} ms   "
        f"max {max(values):7.1f} ms"
    )


def report(title: str, samples: list[Sample]) -> bool:
    print(f"\n{title} ({len(samples)} requests, {samples[0].quotes} quotes each)")
    print(_row("POST rate-requests answered", [s.post_ms for s in samples]))
    print(_row("all quotes seen by the client (from POST)", [s.client_ms for s in samples]))
    print(_row("all quotes recorded by the service", [s.service_ms for s in samples]))
    worst = max(s.client_ms for s in samples)
    print(f"target: every request has all its quotes <= {TARGET_MS:.0f} ms: "
          f"{'met' if worst <= TARGET_MS else 'NOT met'} (worst {worst:.1f} ms)")  # fmt: skip
    return worst <= TARGET_MS


def quote_delay_floor_ms(database_url: str, request_ids: list[str]) -> float:
    """The slowest carrier's quote delay of each request (its last solicitation's due time
    minus its creation), median over the requests: quotes cannot all be in sooner."""
    engine = create_engine(normalize_database_url(database_url))
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                select(RateRequestRow.created_at, func.max(RateSolicitationRow.due_at))
                .join(RateSolicitationRow, RateSolicitationRow.rate_request_id == RateRequestRow.id)
                .where(RateRequestRow.id.in_(request_ids))
                .group_by(RateRequestRow.id, RateRequestRow.created_at)
            ).all()
    finally:
        engine.dispose()
    return statistics.median((due - created).total_seconds() * 1000 for created, due in rows)


def read_against_floor(
    client: httpx.Client, floor: str, request_id: str, repeat: int
) -> tuple[list[float], list[float]]:
    """A GET of a request with all its quotes, in turns with the minimal app answering the
    same bytes."""
    read = can(client, floor, "read", client.get(f"{RATE_REQUESTS}/{request_id}"))
    return interleaved(
        lambda: client.get(f"{RATE_REQUESTS}/{request_id}"), lambda: client.get(read), repeat
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--carriers", type=int, default=20)
    parser.add_argument("--burst", type=int, default=5, help="concurrent requests per burst")
    parser.add_argument("--database", help="PostgreSQL URL (default: a fresh SQLite file)")
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-rating-"))
    database_url = args.database or f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    process, url = start_service(data_dir, args.database)
    try:
        settle(url)
        name = f"bench-rating-{int(time.time())}"
        token = cli_tenant_token(url, name, _cli_options(data_dir, args.database))
        headers = {"Authorization": f"Bearer {token}"}
        body = request_body(args.carriers)
        expected = 2 * args.carriers  # a contract and a spot quote from each carrier
        database = "PostgreSQL" if args.database else "SQLite"
        print(f"service {url} on {database}; {args.carriers} carriers per rate request")
        with (
            minimal_service(data_dir / "minimal") as minimal,
            httpx.Client(base_url=url, headers=headers, timeout=30) as client,
        ):
            # Warm-up (connections, caches); its answer is what the minimal app answers.
            created = client.post(RATE_REQUESTS, json=body)
            floor = can(client, minimal, "created", created)
            one_request(client, body, expected, floor)
            sequential = [one_request(client, body, expected, floor) for _ in range(args.requests)]
            get, get_floor = read_against_floor(
                client, minimal, sequential[-1].request_id, max(20, args.requests)
            )
        report("One after another", sequential)

        def burst_member(_: int) -> Sample:
            with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
                return one_request(client, body, expected)

        bursts: list[Sample] = []
        with ThreadPoolExecutor(max_workers=args.burst) as pool:
            for _ in range(max(1, args.requests // args.burst)):
                bursts.extend(pool.map(burst_member, range(args.burst)))
        report(f"In bursts of {args.burst} concurrent requests", bursts)
        delay = quote_delay_floor_ms(database_url, [s.request_id for s in sequential + bursts])
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"slowest carrier's quote delay: {delay:.0f} ms")
    carriers = f"{args.carriers} carriers, {expected} quotes"
    delay_what = "slowest carrier's quote delay"

    def at_most(what: str, values: list[float], baseline: float, base_what: str) -> Figure:
        return Figure(
            "rating",
            f"{what}, max of {len(values)} ({carriers})",
            max(values),
            baseline=baseline,
            baseline_what=base_what,
            limit=TARGET_MS,
        )

    publish(
        [
            Figure(
                "rating",
                f"POST rate-requests answered ({carriers}), median",
                statistics.median(s.post_ms for s in sequential),
                baseline=statistics.median(s.floor_post_ms for s in sequential),
                baseline_what=BASELINE_WHAT,
                limit=POST_MS,
            ),
            Figure(
                "rating",
                f"GET of a rate request with all {expected} quotes, median",
                statistics.median(get),
                baseline=statistics.median(get_floor),
                baseline_what=BASELINE_WHAT,
            ),
            at_most(
                "all quotes recorded by the service",
                [s.service_ms for s in sequential],
                delay,
                delay_what,
            ),
            at_most(
                "all quotes seen by the client (POST, GET every 5 ms)",
                [s.client_ms for s in sequential],
                delay,
                delay_what,
            ),
            at_most(
                f"bursts of {args.burst}: all quotes recorded by the service",
                [s.service_ms for s in bursts],
                delay,
                delay_what,
            ),
            Figure(
                "rating",
                f"bursts of {args.burst}: all quotes seen by the client, p95",
                p95([s.client_ms for s in bursts]),
                baseline=delay,
                baseline_what=delay_what,
            ),
        ]
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
