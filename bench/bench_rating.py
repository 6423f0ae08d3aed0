"""Rating: how long after its creation a rate request to 20 carriers has all its quotes.

Starts the real service (`freightdesk serve`, a subprocess on a fresh SQLite database or on the
PostgreSQL URL given), creates a tenant with the CLI, then over real HTTP creates rate requests
naming 20 carriers (both quote types, so 40 quotes each) and polls each one until every quote
has arrived. Two figures per request:

- seen by the client: from sending the POST to the GET that first shows all 40 quotes;
- recorded by the service: the latest quote's `createdDateTime` minus the request's.

Requests go one after another, then in bursts of concurrent requests. The target is 500 ms.

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

from bench.bench_push import cli_tenant_token, spawn_serve

RATE_REQUESTS = "/services/rating/v1/rate-requests"
TARGET_MS = 500.0


@dataclass(frozen=True)
class Sample:
    post_ms: float
    client_ms: float
    service_ms: float
    quotes: int


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


def one_request(client: httpx.Client, body: dict[str, Any], expected: int) -> Sample:
    started = time.perf_counter()
    created = client.post(RATE_REQUESTS, json=body)
    post_ms = (time.perf_counter() - started) * 1000
    created.raise_for_status()
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
    return Sample(post_ms, client_ms, service_ms, len(seen["quotes"]))


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--carriers", type=int, default=20)
    parser.add_argument("--burst", type=int, default=5, help="concurrent requests per burst")
    parser.add_argument("--database", help="PostgreSQL URL (default: a fresh SQLite file)")
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-rating-"))
    process, url = start_service(data_dir, args.database)
    try:
        name = f"bench-rating-{int(time.time())}"
        token = cli_tenant_token(url, name, _cli_options(data_dir, args.database))
        headers = {"Authorization": f"Bearer {token}"}
        body = request_body(args.carriers)
        expected = 2 * args.carriers  # a contract and a spot quote from each carrier
        database = "PostgreSQL" if args.database else "SQLite"
        print(f"service {url} on {database}; {args.carriers} carriers per rate request")
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            one_request(client, body, expected)  # warm-up: connections, caches
            sequential = [one_request(client, body, expected) for _ in range(args.requests)]
        ok = report("One after another", sequential)

        def burst_member(_: int) -> Sample:
            with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
                return one_request(client, body, expected)

        bursts: list[Sample] = []
        with ThreadPoolExecutor(max_workers=args.burst) as pool:
            for _ in range(max(1, args.requests // args.burst)):
                bursts.extend(pool.map(burst_member, range(args.burst)))
        report(f"In bursts of {args.burst} concurrent requests", bursts)
        return 0 if ok else 1
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
