"""How long a change made elsewhere takes to show in the app's shipment list.

Starts the real `freightdesk serve` on a fresh data directory and drives the service layer's
`ShipmentsService` as the app does, polling every --interval seconds. Each run changes one
shipment through another client (a PUT, as a colleague's app or a script would) at a random
moment of the poll cycle and times until the list holds the change:

- baseline: the list learns of it from its next poll (what every change cost before the
  service layer's change notifications);
- notified: the service layer is told of the change (`ShipmentsService.changed`, as sharing,
  a followed carrier push and an initiated shipment do), and the list syncs at once.

Run: python -m bench.bench_list_latency [--interval 5] [--runs 6]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from bench.bench_tracking import serve
from bench.report import Figure, publish
from freightdesk.api.client import ApiClient
from freightdesk.service.cache import Cache
from freightdesk.service.shipments import ShipmentsService


def credentials(data_dir: Path) -> tuple[str, str]:
    """A tenant and its client application in a fresh database of `data_dir`."""
    from freightdesk.server.app import build_context
    from freightdesk.server.db import transaction
    from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
    from freightdesk.server.settings import ServerSettings, sqlite_url

    url = sqlite_url(data_dir / "freightdesk.sqlite3")
    context = build_context(ServerSettings(data_dir=data_dir, database_url=url))
    with transaction(context.sessions) as session:
        tenant = ensure_tenant(session, "bench", "bench-admin", "bench-password").tenant
        app, secret = create_client_app(session, tenant.id, "bench")
        client_id = app.id
    context.engine.dispose()
    return client_id, secret


async def latency(
    service: ShipmentsService,
    other: ApiClient,
    shipment: str,
    rng: random.Random,
    announced: asyncio.Event,
    *,
    notify: bool,
) -> float:
    """Seconds from a change's write to the list holding it."""
    # Somewhere in the poll cycle, as a colleague's change would come.
    await asyncio.sleep(rng.uniform(0, service.coordinator.interval))
    value = f"PRO{uuid.uuid4().hex[:10].upper()}"
    body = {"id": shipment, "identifiers": [{"type": "PRO", "value": value}]}
    written = time.perf_counter()
    answer = await other.request("PUT", "/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 200, answer.text
    if notify:
        service.changed()
    while True:
        announced.clear()
        data = service.coordinator.data
        if data is not None and data.summaries[shipment].primary_identifier == value:
            return time.perf_counter() - written
        await announced.wait()


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="fd-bench-latency-") as folder:
        data_dir = Path(folder)
        client_id, secret = credentials(data_dir)
        with serve(data_dir) as (url, _started, _pid):
            async with (
                ApiClient(url, client_id=client_id, client_secret=secret) as api,
                ApiClient(url, client_id=client_id, client_secret=secret) as other,
            ):
                body = {"identifiers": [{"type": "PRO", "value": "PROBENCH"}]}
                created = await other.request("PUT", "/api/v4/shipments/tracking", json=body)
                shipment = str(created.json()["id"])
                cache = Cache(data_dir / "cache.sqlite3")
                service = ShipmentsService(lambda: api, cache, interval=args.interval)
                assert await service.coordinator.fetch_now()
                announced = asyncio.Event()
                stop = service.coordinator.listen(lambda _change: announced.set())
                rng = random.Random(5)
                try:
                    polled: list[float] = []
                    notified: list[float] = []
                    for _ in range(args.runs):
                        for notify, found in ((False, polled), (True, notified)):
                            found.append(
                                await latency(
                                    service, other, shipment, rng, announced, notify=notify
                                )
                            )
                finally:
                    stop()
                    await service.coordinator.aclose()
                    cache.close()
    print(f"polled:   {', '.join(f'{s * 1000:.0f}' for s in polled)} ms")
    print(f"notified: {', '.join(f'{s * 1000:.0f}' for s in notified)} ms")
    publish(
        [
            Figure(
                "list_latency",
                f"a change to the list, notified, median of {args.runs}",
                statistics.median(notified) * 1000,
                baseline=statistics.median(polled) * 1000,
                baseline_what=f"the same change found by the next poll (every {args.interval:g} s)",
                limit=500,
            )
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=6)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
