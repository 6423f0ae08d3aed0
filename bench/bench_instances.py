"""Two `freightdesk serve` instances on one PostgreSQL against one, in the same run (issue 22).

A throwaway PostgreSQL cluster (initdb) holds two fresh databases. On the first, one instance
takes carrier pushes for N seconds from the httpx load generator of `bench.bench_push`; on the
second, two instances (each with its own data directory, as on two hosts) take the same load
split between them. For each case: accepted pushes per second, every push applied exactly once
(none pending or failed once the load stops), processing latency, and the service CPU per push
summed over the instances. The figure is the two-instance throughput as a ratio to one
instance's: on a 2-core machine that runs the load generator and PostgreSQL too, a second
instance cannot add cores, so the ratio shows what the second instance costs, not what it adds.

    python -m bench.bench_instances [--seconds 15] [--shipments 100] [--connections 32]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.bench_push import (
    Load,
    Service,
    cli_client_credentials,
    cpu_seconds,
    drive_with_httpx,
    make_shipments,
    percentile,
    service_token,
    start_service,
    wait_idle,
    wait_processed,
)
from bench.report import Figure, load_average, publish


@dataclass
class Outcome:
    instances: int
    accepted: int
    refused: int
    seconds: float
    cpu: float
    latencies: list[float]
    statuses: dict[str, int]
    load: float

    @property
    def per_second(self) -> float:
        return self.accepted / self.seconds

    @property
    def lost(self) -> int:
        """Accepted pushes that are not stored, or stored and not applied."""
        stored = sum(self.statuses.values())
        return abs(self.accepted - stored) + stored - self.statuses.get("PROCESSED", 0)

    @property
    def cpu_per_push_ms(self) -> float:
        return self.cpu / max(self.accepted, 1) * 1000


def run_case(count: int, database_url: str, root: Path, args: argparse.Namespace) -> Outcome:
    """`count` instances on `database_url`, the load split evenly between them."""
    services: list[Service] = []
    try:
        for n in range(count):
            services.append(start_service(root / f"instance-{n}", database_url))
        cli = ["--data-dir", str(root / "instance-0"), "--database", database_url]
        client_id, secret = cli_client_credentials(f"bench-{count}-{int(time.time())}", cli)
        tokens = [service_token(s.url, client_id, secret) for s in services]
        bols = make_shipments(services[0], tokens[0], args.shipments)
        for service in services:
            wait_idle(service.process.pid)
        cpu_before = [cpu_seconds(s.process.pid) for s in services]
        results = [Load(0, 0, 0.0, 0.0)] * count
        share = max(2, args.connections // count)

        def drive(n: int) -> None:
            authorization = f"Bearer {tokens[n]}"
            results[n] = drive_with_httpx(services[n].url, authorization, bols, args.seconds, share)

        load = load_average()
        threads = [threading.Thread(target=drive, args=(n,)) for n in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        latencies, statuses = wait_processed(database_url, timeout=120)
        cpu = sum(
            cpu_seconds(s.process.pid) - before
            for s, before in zip(services, cpu_before, strict=True)
        )
    finally:
        for service in services:
            service.process.terminate()
        for service in services:
            service.process.wait(timeout=30)
    return Outcome(
        instances=count,
        accepted=sum(r.accepted for r in results),
        refused=sum(r.refused for r in results),
        seconds=float(args.seconds),
        cpu=cpu,
        latencies=latencies,
        statuses=statuses,
        load=load,
    )


def describe(outcome: Outcome) -> str:
    latency = (
        f"latency p50 {statistics.median(outcome.latencies) * 1000:.0f} ms, "
        f"p95 {percentile(outcome.latencies, 0.95) * 1000:.0f} ms"
        if outcome.latencies
        else "no latencies"
    )
    return (
        f"{outcome.instances} instance(s): {outcome.accepted} accepted "
        f"({outcome.per_second:.0f}/s), {outcome.refused} refused; "
        f"by status {outcome.statuses}; service CPU {outcome.cpu_per_push_ms:.1f} ms per push "
        f"(all instances); {latency}; load average {outcome.load:.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--shipments", type=int, default=100)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()

    from tests.support import PostgresServer

    postgres = PostgresServer()
    postgres.start()
    root = Path(tempfile.mkdtemp(prefix="fd-bench-instances-"))
    try:
        outcomes = []
        for count in (1, 2):
            url = postgres.create_database()
            outcomes.append(run_case(count, url, root / f"case-{count}", args))
    finally:
        postgres.stop()
        shutil.rmtree(root, ignore_errors=True)

    one, two = outcomes
    print(f"\nPostgreSQL, {os.cpu_count()} cores, httpx generator, {args.seconds} s per case")
    for outcome in outcomes:
        print(describe(outcome))
    lost = sum(o.lost for o in outcomes)
    if lost:
        print(f"{lost} accepted push(es) not applied once: see the statuses above")
    publish(
        [
            Figure(
                "bench_instances",
                "pushes accepted per second, two instances on one PostgreSQL",
                two.per_second,
                unit="/s",
                baseline=one.per_second,
                baseline_what="one instance, same load, same run",
                higher_is_better=True,
                load=two.load,
                note=f"CPU per push {two.cpu_per_push_ms:.1f} ms vs {one.cpu_per_push_ms:.1f} ms",
            ),
            Figure(
                "bench_instances",
                "accepted pushes not stored or not applied, both cases",
                float(lost),
                unit="pushes",
                limit=0,
                load=load_average(),
            ),
        ]
    )
    return 1 if lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
