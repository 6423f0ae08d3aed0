"""The app's shipment list against the local service at scale (issue 5).

Seeds 100,000 shipments into a local service's SQLite database (kept between runs in
--data-dir), starts the real `freightdesk serve` on it as a subprocess, and drives the
service layer's `ShipmentsService` as the app does:

- a first full sync into an empty cache (timed, requests counted);
- then, several times: 1,000 shipments changed (an event each, written through the domain
  API while the service runs) and, once they are older than the cursor's overlap, one
  incremental sync. Targets: at most 1 + ceil(changed / pageSize) requests, within 1 s;
- a sync with nothing changed (one request);
- loading the 100,000 cached summaries from disk (target <= 1 s).

Requests are counted at the HTTP transport (every request the client sends, the token's
included). Times are wall and CPU of this process (the client side), and the service's
CPU, medians of the runs.

Run: python -m bench.bench_sync [--shipments 100000] [--changed 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.bench_tracking import cpu_seconds, serve
from bench.report import Figure, publish
from freightdesk.api.client import ApiClient
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import ShipmentsService, diff_lists
from freightdesk.service.summary_rows import SUMMARIES, rows_from_cache

PAGE_SIZE = 500
SEED_BATCH = 5_000


@dataclass(frozen=True)
class Seeded:
    client_id: str
    client_secret: str
    ids: list[str]


class CountingTransport(httpx.AsyncHTTPTransport):
    """Counts the requests the client really sends."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}")
        return await super().handle_async_request(request)


def seed(data_dir: Path, shipments: int) -> Seeded:
    """A fresh database with `shipments` LTL shipments (two identifiers each), through the
    domain's bulk create (5,000 per transaction); reused when seeded the same way before."""
    marker = data_dir / "bench-sync.json"
    if marker.exists():
        saved = json.loads(marker.read_text())
        if saved["shipments"] == shipments:
            print(f"reusing the seeded database in {data_dir}")
            return Seeded(saved["clientId"], saved["clientSecret"], saved["ids"])
    shutil.rmtree(data_dir, ignore_errors=True)
    from freightdesk.models.common import LogisticsIdentifier
    from freightdesk.models.tracking import TrackedShipmentInput
    from freightdesk.server.app import build_context
    from freightdesk.server.db import transaction
    from freightdesk.server.domain import shipments as store
    from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
    from freightdesk.server.settings import ServerSettings, sqlite_url

    context = build_context(
        ServerSettings(data_dir=data_dir, database_url=sqlite_url(data_dir / "freightdesk.sqlite3"))
    )
    with transaction(context.sessions) as session:
        tenant = ensure_tenant(session, "bench", "bench-admin", "bench-password").tenant
        app, secret = create_client_app(session, tenant.id, "bench")
        tenant_id, client_id = tenant.id, app.id
    started = time.perf_counter()
    ids: list[str] = []
    for first in range(0, shipments, SEED_BATCH):
        bodies = [
            TrackedShipmentInput(
                identifiers=[
                    LogisticsIdentifier(type="PRO", value=f"PRO{n:08d}"),
                    LogisticsIdentifier(type="BILL_OF_LADING", value=f"BOL{n:08d}"),
                ]
            )
            for n in range(first, min(first + SEED_BATCH, shipments))
        ]
        with transaction(context.sessions) as session:
            ids.extend(store.create_shipments(session, tenant_id, bodies))
        print(f"  seeded {len(ids):,} shipments", flush=True)
    seconds = time.perf_counter() - started
    print(f"seeded {shipments:,} shipments in {seconds:.1f} s")
    context.engine.dispose()
    marker.write_text(
        json.dumps(
            {"shipments": shipments, "clientId": client_id, "clientSecret": secret, "ids": ids}
        )
    )
    return Seeded(client_id, secret, ids)


def change(data_dir: Path, ids: list[str], note: str) -> float:
    """An event on each of `ids`, in one transaction of the database the service runs on;
    returns the seconds it took."""
    from freightdesk.models.tracking import TrackedShipmentEvent
    from freightdesk.server.app import build_context
    from freightdesk.server.db import transaction
    from freightdesk.server.domain import shipments as store
    from freightdesk.server.settings import ServerSettings, sqlite_url

    started = time.perf_counter()
    context = build_context(
        ServerSettings(data_dir=data_dir, database_url=sqlite_url(data_dir / "freightdesk.sqlite3"))
    )
    with transaction(context.sessions) as session:
        for shipment_id in ids:
            store.add_event(
                session,
                shipment_id,
                TrackedShipmentEvent(type="DEPARTED", description=note),
                "USER",
            )
    context.engine.dispose()
    return time.perf_counter() - started


@dataclass
class Timing:
    wall: float
    cpu: float
    server_cpu: float
    requests: int
    sent: tuple[str, ...] = ()


async def timed_sync(service: ShipmentsService, transport: CountingTransport, pid: int) -> Timing:
    transport.requests.clear()
    wall, cpu, server = time.perf_counter(), time.process_time(), cpu_seconds(pid)
    ok = await service.coordinator.fetch_now()
    if not ok:
        raise RuntimeError(f"the sync failed: {service.coordinator.status.last_error!r}")
    return Timing(
        time.perf_counter() - wall,
        time.process_time() - cpu,
        cpu_seconds(pid) - server,
        len(transport.requests),
        tuple(transport.requests),
    )


async def run(args: argparse.Namespace) -> None:
    # As in the app, where automatic collection is off and the GUI thread collects between
    # events (ui/garbage.py).
    gc.disable()
    data_dir = Path(args.data_dir)
    seeded = seed(data_dir, args.shipments)
    with serve(data_dir) as (url, _started, pid), tempfile.TemporaryDirectory() as tmp:
        transport = CountingTransport()
        client = ApiClient(
            url,
            client_id=seeded.client_id,
            client_secret=seeded.client_secret,
            transport=transport,
        )
        async with client:
            for _ in range(600):  # the service answers once it has started
                try:
                    await client.tracking.has_search()
                    break
                except Exception:
                    await asyncio.sleep(0.05)
            cache = Cache(Path(tmp) / "cache.sqlite3")
            service = ShipmentsService(lambda: client, cache, page_size=PAGE_SIZE)
            first = await timed_sync(service, transport, pid)
            assert service.coordinator.data is not None
            assert len(service.coordinator.data.summaries) == args.shipments
            print(
                f"first full sync of {args.shipments:,}: {first.wall:.1f} s wall, "
                f"{first.cpu:.1f} s CPU here, {first.server_cpu:.1f} s service CPU, "
                f"{first.requests} requests"
            )
            idle = await timed_sync(service, transport, pid)
            runs: list[Timing] = []
            for run_number in range(args.runs):
                start = (run_number * args.changed) % len(seeded.ids)
                picked = seeded.ids[start : start + args.changed]
                await asyncio.to_thread(change, data_dir, picked, f"bench run {run_number}")
                # A sync asks again for the changes of the last seconds before the previous
                # one (CURSOR_OVERLAP: they may have been committed late). The app polls
                # every 15 s or more; here the changes are let age past that window, so
                # this sync's answer holds the 1,000 changed and the next one not them.
                await asyncio.sleep(service.cursor_overlap.total_seconds())
                before = service.coordinator.data
                timing = await timed_sync(service, transport, pid)
                announced = diff_lists(before, service.coordinator.data)
                if announced is None or announced.changed != frozenset(picked):
                    found = len(announced.changed) if announced else 0
                    raise RuntimeError(f"{found} changes found, {len(picked)} made")
                runs.append(timing)
            allowed = 1 + math.ceil(args.changed / PAGE_SIZE)
            idles = [idle]
            for _ in range(max(2, args.runs)):  # the baseline: one request, nothing to merge
                idles.append(await timed_sync(service, transport, pid))
            load_times = []
            for _ in range(3):
                wall, cpu = time.perf_counter(), time.process_time()
                rows = rows_from_cache(cache.load(SUMMARIES))
                load_times.append((time.perf_counter() - wall, time.process_time() - cpu))
                assert len(rows) == args.shipments
            cache.close()
        load = os.getloadavg()[0]
    print(f"load average {load:.1f}")
    print(f"sync with nothing changed: {idle.requests} request(s), {idle.wall * 1000:.0f} ms wall")
    print(
        f"incremental sync, {args.changed:,} of {args.shipments:,} changed "
        f"(target <= {allowed} requests, <= 1000 ms): requests "
        f"{sorted({r.requests for r in runs})}, median "
        f"{statistics.median(r.wall for r in runs) * 1000:.0f} ms wall "
        f"(runs {', '.join(f'{r.wall * 1000:.0f}' for r in runs)}), "
        f"{statistics.median(r.cpu for r in runs) * 1000:.0f} ms CPU here, "
        f"{statistics.median(r.server_cpu for r in runs) * 1000:.0f} ms service CPU"
    )
    for timing in runs:
        if timing.requests > allowed:
            print(f"  over the target: {', '.join(timing.sent)}")
    idle_wall = statistics.median(t.wall for t in idles) * 1000
    publish(
        [
            Figure(
                "sync",
                f"incremental sync, {args.changed:,} of {args.shipments:,} changed, "
                f"median of {len(runs)}",
                statistics.median(r.wall for r in runs) * 1000,
                baseline=idle_wall,
                baseline_what="a sync with nothing changed",
                limit=1000,
            ),
            Figure(
                "sync",
                f"requests of that incremental sync (page size {PAGE_SIZE}), most of {len(runs)}",
                max(r.requests for r in runs),
                unit="requests",
                baseline=max(t.requests for t in idles),
                baseline_what="a sync with nothing changed",
                limit=allowed,
            ),
            Figure(
                "sync",
                f"first full sync of {args.shipments:,} into an empty cache",
                first.wall,
                unit="s",
                note=f"{first.requests} requests, {first.server_cpu:.1f} s service CPU",
            ),
        ]
    )
    print(
        f"load {args.shipments:,} cached summaries from disk: median "
        f"{statistics.median(t[0] for t in load_times) * 1000:.0f} ms wall, "
        f"{statistics.median(t[1] for t in load_times) * 1000:.0f} ms CPU (target <= 1000 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shipments", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--data-dir", default="/tmp/freightdesk-bench-sync")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
