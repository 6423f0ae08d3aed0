"""Planning tools: sailing schedule searches and available-vehicle radius searches.

Prepares a fresh database (SQLite, or the PostgreSQL given) with a co-op tenant and a pool of
N vehicles seeded around real freight cities, starts the real service (`freightdesk serve`, a
subprocess) on it and times, over HTTP on loopback:

- available vehicles: radius searches (50 miles, the next 24 hours, sorted by distance, a page
  of 50) centred on random real places, weighted as the vehicles are;
- sailing schedules: point-to-point searches over a year of departures between random pairs of
  the ~200 ports, first for pairs never asked before (the routings are worked out) and then
  the same pairs again;
- connected capacity (in-process, on the same database, as performance.md measured it): a
  tenant of N tracked truckloads of 8 carriers (two stops with appointments, an arrival at
  each), the first carrier search (reads every truckload's facts), later carrier searches
  (facts kept) and a lane search (Chicago to TX). Their baselines: the same rows read by a
  plain sqlite3 statement (stops out of the document, the arrival events), and a plain
  Python count per carrier over the kept facts.

Each answer is also asked, right after, of a minimal FastAPI app under the same uvicorn
settings answering the same bytes (bench/minimal_service.py): the HTTP floor of that answer
on the same machine at the same moment. Targets from performance.md: available vehicles
<= 50 ms median, a schedule pair asked first <= 100 ms median. The figures go to
`bench.report.publish`.

What they showed (28 Nov, SQLite, 100,000 vehicles, load 1.6 to 23): available vehicles 5.7
to 16.6 ms median (p95 12.6 to 61 ms), schedules first asked 9.1 to 30 ms, again 4.3 to 22 ms;
seeding 6 s at load 1.6, 30 s at load 23. Connected capacity over 10,000 truckloads: the first
search 2.8 to 4.1 s wall at load 12 to 18 (0.7 to 1.0 s CPU; 12x to 17x the plain read: most of
it is decoding every shipment's stops as JSON and building lane keys), later searches 19 to
31 ms, the lane search 15 to 25 ms.

    python -m bench.bench_planning [--vehicles 100000] [--queries 200] [--capacity 10000]
                                   [--postgres | --database postgresql://...]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from bench.minimal_service import BASELINE_WHAT, can, minimal_service, p95, settle
from bench.report import Figure, publish
from freightdesk.server.app import build_context
from freightdesk.server.db import transaction
from freightdesk.server.domain.places import PLACES
from freightdesk.server.domain.ports import PORTS
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant, set_feature
from freightdesk.server.domain.vehicles import seed_vehicles
from freightdesk.server.settings import ServerSettings, normalize_database_url

VEHICLES = "/api/v4/tl/available-vehicles/query"
ROUTES = "/services/advanced-sailing-schedules/v1/point-to-point-routes"
VEHICLES_TARGET_MS = 50.0
SCHEDULES_TARGET_MS = 100.0


class Floor:
    """The minimal app answering, right after each of our answers, the same bytes."""

    def __init__(self, http: httpx.Client, url: str) -> None:
        self.http = http
        self.url = url

    def time(self, answer: httpx.Response, method: str, **request: Any) -> float:
        canned = can(self.http, self.url, "answer", answer)
        spent, response = timed(lambda: self.http.request(method, canned, **request))
        response.raise_for_status()
        return spent


def prepare(data_dir: Path, database_url: str, vehicles: int) -> tuple[str, str, float]:
    """Schema, a co-op tenant with a client application, and the vehicle pool."""
    context = build_context(ServerSettings(data_dir=data_dir, database_url=database_url))
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "bench-planning", "bench-planning", "bench").tenant
            set_feature(session, tenant, "capacityCoop", True)
            app, secret = create_client_app(session, tenant.id, "bench")
            client_id = app.id
        started = time.perf_counter()
        with transaction(context.sessions) as session:
            seed_vehicles(session, vehicles, seed=11)
        seeding = time.perf_counter() - started
        print(f"seeded {vehicles:,} vehicles in {seeding:.1f} s")
    finally:
        context.engine.dispose()
    return client_id, secret, seeding


def start_service(data_dir: Path, database_url: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "freightdesk.cli", "serve", "--port", "0", "--data-dir",
         str(data_dir), "--database", database_url, "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        raise SystemExit(f"the service did not start: {line!r}")
    url = found.group(0)
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{url}/docs", timeout=5)
            return process, url
        except httpx.TransportError:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.1)


def timed(call: Callable[[], httpx.Response]) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = call()
    return (time.perf_counter() - started) * 1000, response


def summary(label: str, millis: list[float], extra: str = "") -> None:
    ordered = sorted(millis)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(
        f"{label:<48} median {statistics.median(ordered):6.1f} ms   p95 {p95:6.1f} ms   "
        f"max {ordered[-1]:6.1f} ms   n={len(ordered)}{extra}"
    )


def bench_vehicles(
    http: httpx.Client, queries: int, rng: random.Random, floor: Floor | None = None
) -> list[Figure]:
    weights = [place.weight for place in PLACES]
    start = datetime.now(UTC).replace(microsecond=0)
    millis: list[float] = []
    floors: list[float] = []
    totals: list[int] = []
    for _ in range(queries):
        place = rng.choices(PLACES, weights)[0]
        body: dict[str, Any] = {
            "geoCoordinates": {"latitude": place.latitude, "longitude": place.longitude},
            "timeRange": {"startDateTime": start.isoformat()},
            "radius": 50,
            "radiusUnit": "MI",
        }
        spent, response = timed(
            lambda body=body: http.post(VEHICLES, json=body, params={"size": 50})
        )
        response.raise_for_status()
        millis.append(spent)
        totals.append(response.json()["paginationInfo"]["total"])
        if floor is not None:
            floors.append(floor.time(response, "POST", json=body))
    if floor is None:
        return []
    summary(
        "available vehicles, 50 mi radius, page of 50",
        millis,
        f"   vehicles in radius: median {statistics.median(totals):,.0f}, max {max(totals):,}",
    )
    summary("  the minimal app, same bytes", floors)
    what = (
        "available vehicles: 50 mi radius, next 24 h, page of 50 "
        f"(median {statistics.median(totals):,.0f} in the radius)"
    )
    return [
        Figure(
            "planning",
            f"{what}, median",
            statistics.median(millis),
            baseline=statistics.median(floors),
            baseline_what=BASELINE_WHAT,
            limit=VEHICLES_TARGET_MS,
        ),
        Figure(
            "planning",
            f"{what}, p95",
            p95(millis),
            baseline=p95(floors),
            baseline_what=BASELINE_WHAT,
        ),
    ]


def bench_schedules(
    http: httpx.Client, queries: int, rng: random.Random, floor: Floor
) -> list[Figure]:
    today = datetime.now(UTC).date()
    codes = sorted(PORTS)
    pairs = [tuple(rng.sample(codes, 2)) for _ in range(queries)]
    rounds: dict[str, list[float]] = {"first": [], "again": []}
    floors: dict[str, list[float]] = {"first": [], "again": []}
    totals: list[int] = []
    for name in rounds:
        for origin, destination in pairs:
            params = {
                "origin": origin,
                "destination": destination,
                "departureStartDate": str(today),
                "departureEndDate": str(today + timedelta(days=365)),
            }
            spent, response = timed(lambda params=params: http.get(ROUTES, params=params))
            response.raise_for_status()
            rounds[name].append(spent)
            floors[name].append(floor.time(response, "GET", params=params))
            if name == "first":
                totals.append(response.json()["paginationInfo"]["total"])
    summary(
        "sailing schedules, a year, pair asked first time",
        rounds["first"],
        f"   sailings per pair: median {statistics.median(totals):,.0f}",
    )
    summary("sailing schedules, a year, same pair again", rounds["again"])
    summary("  the minimal app, same bytes", floors["first"] + floors["again"])
    what = "sailing schedules: a year of departures between a random pair of ports"
    return [
        Figure(
            "planning",
            f"{what}, pair never asked before, median",
            statistics.median(rounds["first"]),
            baseline=statistics.median(floors["first"]),
            baseline_what=BASELINE_WHAT,
            limit=SCHEDULES_TARGET_MS,
        ),
        Figure(
            "planning",
            f"{what}, same pair again (routings cached), median",
            statistics.median(rounds["again"]),
            baseline=statistics.median(floors["again"]),
            baseline_what=BASELINE_WHAT,
        ),
    ]


# The slow ends of what performance.md gave (there is no other target).
CAPACITY_FIRST_MS = 3300.0
CAPACITY_LATER_MS = 26.0
CAPACITY_LANE_MS = 37.0
CAPACITY_CARRIERS = ["SWFT", "JBHT", "KNGT", "WERN", "SNDR", "CRST", "HRTL", "PTRI"]
CAPACITY_CITIES = [
    ("Chicago", "IL", "60601"),
    ("Dallas", "TX", "75201"),
    ("Houston", "TX", "77002"),
    ("Atlanta", "GA", "30303"),
    ("Memphis", "TN", "38103"),
    ("Denver", "CO", "80202"),
]


def _truckload(rng: random.Random, n: int, now: datetime) -> dict[str, Any]:
    """A TL shipment of one of the carriers, picked up in the past year, with an arrival
    at each of its two stops a little before or after its appointment."""
    pickup = now - timedelta(days=rng.uniform(1, 360))
    delivery = pickup + timedelta(days=2)
    origin, destination = rng.sample(CAPACITY_CITIES, 2)
    stops = []
    events = []
    for kind, (city, state, postal), at in (
        ("PICKUP", origin, pickup),
        ("DELIVERY", destination, delivery),
    ):
        stop_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        address = {"city": city, "state": state, "postalCode": postal, "country": "US"}
        window = {
            "startDateTime": at.isoformat(),
            "endDateTime": (at + timedelta(hours=2)).isoformat(),
        }
        stops.append({"id": stop_id, "type": kind, "location": {"address": address},
                      "appointmentWindow": window})  # fmt: skip
        arrived = at + timedelta(hours=rng.uniform(-3, 5))
        events.append({"type": "ARRIVAL_AT_STOP", "dateTime": arrived.isoformat(),
                       "stopId": stop_id})  # fmt: skip
    return {
        "identifiers": [
            {"type": "BILL_OF_LADING", "value": f"CAP-{n:06d}"},
            {"type": "CARRIER_SCAC", "value": CAPACITY_CARRIERS[n % len(CAPACITY_CARRIERS)]},
        ],
        "plan": {"expectedTransportationModes": ["TL"]},
        "routeInfo": {"stops": stops},
        "events": events,
    }


def bench_capacity(data_dir: Path, database_url: str, count: int, repeat: int) -> list[Figure]:
    from freightdesk.models.capacity import CarrierSearch, LaneSearch
    from freightdesk.models.tracking import TrackedShipmentInput
    from freightdesk.server.domain import capacity_stats
    from freightdesk.server.domain.shipments import create_shipments

    context = build_context(ServerSettings(data_dir=data_dir, database_url=database_url))
    figures: list[Figure] = []
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "bench-capacity", "bench-capacity", "bench").tenant
            tenant_id = tenant.id
        rng = random.Random(3)
        now = datetime.now(UTC)
        started = time.perf_counter()
        for first in range(0, count, 1000):
            bodies = [
                TrackedShipmentInput.model_validate(_truckload(rng, n, now))
                for n in range(first, min(first + 1000, count))
            ]
            with transaction(context.sessions) as session:
                create_shipments(session, tenant_id, bodies)
        print(f"seeded {count:,} truckloads in {time.perf_counter() - started:.1f} s")
        search = CarrierSearch()
        lane = LaneSearch.model_validate(
            {"origin": {"city": "Chicago", "state": "IL"}, "destination": {"state": "TX"}}
        )
        cache = capacity_stats.FactsCache()
        with context.sessions() as session:
            began = time.perf_counter()
            found = capacity_stats.carrier_performances(session, cache, tenant_id, search)
            first_ms = (time.perf_counter() - began) * 1000
        assert len(found) == len(CAPACITY_CARRIERS), found
        plain_ms = _plain_read_ms(database_url, tenant_id)
        later: list[float] = []
        lanes: list[float] = []
        counts: list[float] = []
        for _ in range(repeat):
            with context.sessions() as session:
                spent, _found = _timed_call(
                    lambda s=session: capacity_stats.carrier_performances(
                        s, cache, tenant_id, search
                    )
                )
                later.append(spent)
                spent, _found = _timed_call(
                    lambda s=session: capacity_stats.lane_performances(s, cache, tenant_id, lane)
                )
                lanes.append(spent)
                facts = cache.facts(session, tenant_id, datetime.now(UTC))
            began = time.perf_counter()
            tally: dict[str, int] = {}
            for fact in facts:
                tally[fact.carrier] = tally.get(fact.carrier, 0) + 1
            counts.append((time.perf_counter() - began) * 1000)
        print(
            f"connected capacity over {count:,} truckloads: first carrier search "
            f"{first_ms:.0f} ms (plain read of the rows {plain_ms:.0f} ms), later "
            f"{statistics.median(later):.1f} ms, lane {statistics.median(lanes):.1f} ms "
            f"(plain count {statistics.median(counts):.2f} ms)"
        )
        what = f"connected capacity, {count:,} truckloads of 8 carriers"
        plain_what = "a plain Python count per carrier over the kept facts"
        figures = [
            Figure(
                "planning",
                f"{what}: first carrier search (reads every truckload)",
                first_ms,
                baseline=plain_ms,
                baseline_what="the same rows read by a plain sqlite3 statement",
                limit=CAPACITY_FIRST_MS,
            ),
            Figure(
                "planning",
                f"{what}: later carrier searches, median",
                statistics.median(later),
                baseline=statistics.median(counts),
                baseline_what=plain_what,
                limit=CAPACITY_LATER_MS,
            ),
            Figure(
                "planning",
                f"{what}: lane search (Chicago to TX), median",
                statistics.median(lanes),
                baseline=statistics.median(counts),
                baseline_what=plain_what,
                limit=CAPACITY_LANE_MS,
            ),
        ]
    finally:
        context.engine.dispose()
    return figures


def _timed_call(call: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    found = call()
    return (time.perf_counter() - started) * 1000, found


def _plain_read_ms(database_url: str, tenant_id: int) -> float:
    """The rows the first search reads (each truckload's stops and carrier, the arrivals at
    its stops), read by a plain sqlite3 statement (NaN on PostgreSQL)."""
    if not database_url.startswith("sqlite"):
        return float("nan")
    import sqlite3

    path = database_url.split(":///", 1)[1]
    with sqlite3.connect(path) as connection:
        started = time.perf_counter()
        connection.execute(
            "SELECT s.pk, s.carrier, s.created_at, json_extract(d.data, '$.routeInfo.stops') "
            "FROM shipments s JOIN shipment_documents d ON d.shipment_pk = s.pk "
            "WHERE s.tenant_id = ? AND s.deleted_at IS NULL AND s.mode = 'TL'",
            (tenant_id,),
        ).fetchall()
        connection.execute(
            "SELECT e.shipment_pk, e.type, e.date_time, json_extract(e.data, '$.stopId') "
            "FROM shipment_events e JOIN shipments s ON s.pk = e.shipment_pk "
            "WHERE s.tenant_id = ? AND e.type = 'ARRIVAL_AT_STOP'",
            (tenant_id,),
        ).fetchall()
        return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--capacity", type=int, default=10_000, help="truckloads for connected capacity (0: none)"
    )
    parser.add_argument("--database", help="a PostgreSQL URL (default: a fresh SQLite file)")
    parser.add_argument(
        "--postgres", action="store_true", help="start a throwaway PostgreSQL (initdb) and use it"
    )
    args = parser.parse_args()
    postgres = None
    if args.postgres:
        from tests.support import PostgresServer

        postgres = PostgresServer()
        postgres.start()
        args.database = postgres.create_database()
    data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-planning-"))
    database_url = normalize_database_url(
        args.database or f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    )
    process = None
    figures: list[Figure] = []
    try:
        client_id, secret, seeding = prepare(data_dir, database_url, args.vehicles)
        process, url = start_service(data_dir, database_url)
        settle(url)
        token = httpx.post(
            f"{url}/api/v4/oauth2/token",
            data={"grant_type": "client_credentials", "client_id": client_id,
                  "client_secret": secret},
        )  # fmt: skip
        token.raise_for_status()
        headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
        database = "PostgreSQL" if database_url.startswith("postgresql") else "SQLite"
        print(f"database: {database}; {len(PORTS)} ports")
        with (
            minimal_service(data_dir / "minimal") as minimal,
            httpx.Client(base_url=url, headers=headers, timeout=60) as http,
        ):
            rng = random.Random(5)
            # One call each first, so that start-up work is not in the figures.
            http.get("/services/advanced-sailing-schedules/v1/carriers").raise_for_status()
            bench_vehicles(http, 5, random.Random(99))
            floor = Floor(http, minimal)
            figures += bench_vehicles(http, args.queries, rng, floor)
            figures += bench_schedules(http, args.queries, rng, floor)
        figures.append(Figure("planning", f"seeding {args.vehicles:,} vehicles", seeding, unit="s"))
        if args.capacity:
            figures += bench_capacity(data_dir, database_url, args.capacity, 20)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
        if postgres is not None:
            postgres.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    publish(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
