"""Maps at scale: a shipment with 100,000 positions, a fleet of 5,000 shipments.

Targets (issue 7):
- 100,000 positions shown <= 500 ms from the request to a painted map, the simplified track
  never more than 50 m from the full one;
- 5,000 shipments on the fleet map <= 1 s;
- the page's memory (the QtWebEngine render process, its RSS) <= 300 MB;
- issue 18: with the map already open, p95 <= 500 ms, beside the same page showing a
  shipment of 100 positions (the baseline, interleaved show by show; `--samples` of each);
- issue 21: a demo shipment's map, the first of a session, within 1 s.

"Shown" is from the call that asks the view to show the data to the page's report that a
frame with it was painted (two animation frames after the layers were added). Measured with
the page already loaded (the map tab is open and the user picks another shipment) and from a
new view (the page itself loading too). The fleet part also measures the latest-positions
query of the local service over HTTP for 5,000 shipments.

The `open` part (issue 21: a shipment's map shows its track within 1 s of being opened) uses
the demo's shipments from a local service: each measurement is a fresh process, since what is
measured is QtWebEngine's start. "Cold" is the first map of a process that made none before;
"warmed" is the first map after `maps.warm.warm_up_maps` ran in the idle moments after start
(the view made hidden, its page loaded, then shown and asked for a shipment). Both start with
QtWebEngine's libraries imported (this module imports them), as the app has them once a map
was asked for. The baseline is a bare QWebEngineView loading an empty page: for "cold", as the
first QtWebEngine object of a fresh process of its own (QtWebEngine started by it too), run
after each cold map; for "warmed", in the same process once QtWebEngine is up.

Run: python -m bench.bench_maps [--repeat 5] [--samples 20] [--only open] [--skip-query] [--busy]
                                [--skip-imports]
(`--skip-imports`: the `open` part without timing the map's imports in a fresh process, a
line of the log that no figure holds.)
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

from PySide6 import QtWebEngineWidgets  # noqa: F401
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

import freightdesk.ui.maps  # noqa: F401  (registers the fdmap: scheme before Qt starts)
from bench.gui import Probe
from bench.report import Figure, publish
from freightdesk.models.tracking import (
    LatestPosition,
    SpeedUnit,
    TrackedShipmentPosition,
    TrackingHistory,
)
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.tracks import (
    MAX_DEVIATION_M,
    max_deviation_m,
    simplify,
    unwrap_longitudes,
)
from freightdesk.ui.garbage import GuiThreadGarbageCollector
from freightdesk.ui.maps.page import MapView, TileSettings
from freightdesk.ui.maps.payload import fleet_items, shipment_picture
from freightdesk.ui.maps.shipment_map import ShipmentMapView

OFFLINE = TileSettings(url="")  # the machine has no network: outlines only

# PySide6 6.12.0 on Python 3.11 drops a reference to None on every call of a method that
# returns nothing (and to True on every signal emit); after some tens of thousands of calls
# Python aborts ("deallocating None"). These references keep the benchmark alive; the app
# needs PySide6 other than 6.12.0 (6.11.3 is fine) or Python 3.12+, where None is immortal.
_HEADROOM = ([None] * 5_000_000, [True] * 1_000_000, [False] * 1_000_000)
NOW = datetime.now(UTC).replace(microsecond=0)


def road_track(count: int, seed: int) -> list[TrackedShipmentPosition]:
    """A long road journey: a fix every 15 s at about 80 km/h with GPS jitter, turns, and
    stops where the truck stands (jitter around one place)."""
    rng = random.Random(seed)
    lat, lon, heading = 41.0, -87.0, 1.0
    at = NOW - timedelta(seconds=15 * count)
    fixes: list[TrackedShipmentPosition] = []

    def fix(latitude: float, longitude: float, speed: float) -> None:
        nonlocal at
        at += timedelta(seconds=15)
        fixes.append(
            TrackedShipmentPosition.model_construct(
                date_time=at,
                latitude=latitude,
                longitude=longitude,
                speed=speed,
                speed_unit=SpeedUnit.KILOMETERS_PER_HOUR,
                heading=math.degrees(heading) % 360,
            )
        )

    while len(fixes) < count:
        if rng.random() < 0.002:
            for _ in range(rng.randrange(20, 200)):
                fix(lat + rng.gauss(0, 3e-5), lon + rng.gauss(0, 4e-5), 0.0)
        heading += rng.gauss(0, 0.05)
        lat = max(-80.0, min(80.0, lat + 330 / 111_320 * math.cos(heading)))
        lon += 330 / 111_320 * math.sin(heading) / math.cos(math.radians(lat))
        fix(lat + rng.gauss(0, 4e-5), lon + rng.gauss(0, 5e-5), rng.uniform(60, 95))
    return fixes[:count]


def history_with(positions: list[TrackedShipmentPosition]) -> TrackingHistory:
    first, last = positions[0], positions[-1]
    history = TrackingHistory.model_validate(
        {
            "shipment": {
                "id": str(uuid.uuid4()),
                "routeInfo": {
                    "stops": [
                        {
                            "id": str(uuid.uuid4()),
                            "type": "PICKUP",
                            "name": "Origin DC",
                            "location": {
                                "coordinates": {
                                    "latitude": first.latitude,
                                    "longitude": first.longitude,
                                }
                            },
                        },
                        {
                            "id": str(uuid.uuid4()),
                            "type": "DELIVERY",
                            "name": "Destination DC",
                            "location": {
                                "coordinates": {
                                    "latitude": last.latitude,
                                    "longitude": ((last.longitude + 180) % 360) - 180,
                                }
                            },
                        },
                    ]
                },
            }
        }
    )
    history.positions = positions
    return history


def wait_for(app: QApplication, done: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("the map did not answer in time")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)


def painted_after(app: QApplication, view: MapView, start: Callable[[], int]) -> float:
    """Seconds from `start()` (which returns the render token) to the page's painted frame."""
    seen: list[int] = []

    def painted(value: int) -> None:
        seen.append(value)

    view.rendered.connect(painted)
    began = time.perf_counter()
    token = start()
    wait_for(app, lambda: token in seen)
    elapsed = time.perf_counter() - began
    view.rendered.disconnect(painted)
    return elapsed


def memory_text(pid: int) -> str:
    """The render process's resident memory (RSS), and its proportional share (PSS: shared
    library pages divided among the QtWebEngine processes that map them)."""
    found = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if parts and parts[0] in ("Rss:", "Pss:", "Private_Clean:", "Private_Dirty:"):
            found[parts[0].rstrip(":")] = int(parts[1]) / 1024
    private = found.get("Private_Clean", 0) + found.get("Private_Dirty", 0)
    return (
        f"RSS {found.get('Rss', float('nan')):.0f} MB, PSS {found.get('Pss', float('nan')):.0f} "
        f"MB, private {private:.0f} MB"
    )


def discard(view: MapView) -> None:
    """Delete the view (and its page) now, so the next figures do not include it."""
    view.close()
    view.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def settle(app: QApplication, seconds: float) -> None:
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def bench_simplify(positions: list[TrackedShipmentPosition], repeat: int) -> list[Figure]:
    lats = [p.latitude for p in positions]
    lons = unwrap_longitudes([p.longitude for p in positions])
    times = []
    kept: list[int] = []
    for _ in range(repeat):
        began = time.perf_counter()
        kept = simplify(lats, lons)
        times.append(time.perf_counter() - began)
    deviation = max_deviation_m(lats, lons, kept)
    print(
        f"simplify {len(positions):,} positions: median {statistics.median(times) * 1000:.0f} ms, "
        f"{len(kept):,} kept, furthest position {deviation:.1f} m from the drawn track "
        f"(limit {MAX_DEVIATION_M:.0f} m)"
    )
    return [
        Figure(
            "maps",
            f"simplified track of {len(positions):,} positions: furthest position from it",
            deviation,
            unit="m",
            limit=50,
            note=f"{len(kept):,} kept in {statistics.median(times) * 1000:.0f} ms",
        )
    ]


def page_settled(app: QApplication, view: MapView) -> None:
    """Wait until the page has its outlines on the map: the page decodes them after it is
    ready (0.1 s of its CPU), which an open map has long done."""
    answers: list[object] = []
    while True:
        answers.clear()
        view.page().runJavaScript("FD.stats().basemap", 0, answers.append)
        wait_for(app, lambda: bool(answers))
        if answers[0] is True:
            return


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) > 1 else values[0]


def bench_shipment(app: QApplication, samples: int) -> list[Figure]:
    """A shipment of 100,000 positions in a new view (twice), then in the open map
    `samples` times, interleaved with the baseline: the same page showing a shipment of 100
    positions. Two shipments of each size take turns, so every show is another shipment."""
    big = [history_with(road_track(100_000, seed)) for seed in range(2)]
    small = [history_with(road_track(100, 10 + seed)) for seed in range(2)]
    began = time.perf_counter()
    picture = shipment_picture(big[0])
    print(
        f"payload of 100,000 positions (simplify, stops, JSON-ready): "
        f"{(time.perf_counter() - began) * 1000:.0f} ms, {len(picture.payload['route']):,} points"
    )

    cold: list[float] = []
    for history in big:
        view = ShipmentMapView(None, tiles=OFFLINE)
        view.resize(1000, 700)
        view.show()
        cold.append(painted_after(app, view, lambda v=view, h=history: v.show_history(h)))
        discard(view)
    print(f"100,000 positions, new view (page load included): {[round(c * 1000) for c in cold]} ms")

    from bench.bench_tracking import cpu_seconds

    view = ShipmentMapView(None, tiles=OFFLINE)
    view.resize(1000, 700)
    view.show()
    wait_for(app, lambda: view.is_ready)
    page_settled(app, view)
    render = view.render_process_pid()
    # Garbage collection as the app does it (ui/application.py): what exists now frozen out of
    # it, later passes on the GUI thread when due. Without this, the interpreter's own full
    # pass over this process's objects (the 4 shipments made above, 700,000 objects, and the
    # headroom lists) fell inside one show, 1.0 to 1.3 s at load 26: the 9th show since
    # 17ced5b, the 15th before it (this process made fewer objects before the shows once
    # folium and the outlines' decoding left it, so its full pass came sooner), and the quick
    # form's p95 of 10 was that one show.
    collector = GuiThreadGarbageCollector()
    gc.freeze()
    passes: list[float] = []
    began_pass: list[float] = []

    def timed_pass(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            began_pass[:] = [time.perf_counter()]
        elif began_pass:
            passes.append(time.perf_counter() - began_pass[0])

    gc.callbacks.append(timed_pass)
    warm: list[float] = []
    bare: list[float] = []
    # CPU per show, this process's (the payload, Qt, the compositor) and the page's render
    # process's: steadier than the wall time on a shared machine.
    cpu: dict[str, list[tuple[float, float]]] = {"warm": [], "bare": []}

    def timed(kind: str, history: TrackingHistory) -> float:
        own, page = time.process_time(), cpu_seconds(render)
        took = painted_after(app, view, lambda: view.show_history(history))
        cpu[kind].append((time.process_time() - own, cpu_seconds(render) - page))
        return took

    # "Already open" is a map that has shown shipments before: its first show into the new
    # page builds the layers (about twice a later show's render CPU), and with 10 samples that
    # one show alone could set the p95. One untimed show of each size first.
    for history in (small[1], big[1]):
        painted_after(app, view, lambda h=history: view.show_history(h))
    for n in range(samples):
        warm.append(timed("warm", big[n % 2]))
        bare.append(timed("bare", small[n % 2]))
    gc.callbacks.remove(timed_pass)
    collector.stop(collect=False)

    def cpu_text(kind: str) -> str:
        own = statistics.median(c[0] for c in cpu[kind]) * 1000
        page = statistics.median(c[1] for c in cpu[kind]) * 1000
        return f"CPU median {own:.0f} ms here, {page:.0f} ms in the render process"

    load = os.getloadavg()[0]
    print(
        f"100,000 positions, map already open: median {statistics.median(warm) * 1000:.0f} ms, "
        f"p95 {_p95(warm) * 1000:.0f} ms (each: {[round(w * 1000) for w in warm]} ms), "
        f"{cpu_text('warm')}; 100 positions: median {statistics.median(bare) * 1000:.0f} ms, "
        f"p95 {_p95(bare) * 1000:.0f} ms, {cpu_text('bare')}; {len(passes)} garbage "
        f"collections meanwhile, the longest {max(passes, default=0) * 1000:.0f} ms; load "
        f"average {load:.1f}"
    )
    settle(app, 1.0)
    print(f"render process memory with that shipment: {memory_text(view.render_process_pid())}")
    discard(view)
    return [
        Figure(
            "maps",
            f"100,000 positions shown, map already open, p95 of {samples}",
            _p95(warm) * 1000,
            baseline=_p95(bare) * 1000,
            baseline_what="the same page, 100 positions",
            limit=500,
            note=f"median {statistics.median(warm) * 1000:.0f} ms; {cpu_text('warm')}",
        ),
        Figure(
            "maps",
            "100,000 positions shown in a new view, page load included, median of 2",
            statistics.median(cold) * 1000,
        ),
    ]


def seed_tracks(data_dir: Path, sizes: list[int]) -> tuple[str, str, list[str]]:
    """A database in `data_dir` with one truckload per size in `sizes`, each with that many
    road positions; returns the client id, its secret and the shipments' ids. Seeded once
    and reused while the sizes are the same (seeding 200,000 positions takes 10 to 30 s)."""
    import json
    import shutil

    marker = data_dir / "bench-maps.json"
    if marker.exists() and (saved := json.loads(marker.read_text()))["sizes"] == sizes:
        return saved["clientId"], saved["secret"], saved["ids"]
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    from freightdesk.models.tracking import TrackedShipmentInput
    from freightdesk.server.app import build_context
    from freightdesk.server.db import transaction
    from freightdesk.server.domain import shipments as store
    from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
    from freightdesk.server.settings import ServerSettings, sqlite_url

    context = build_context(
        ServerSettings(data_dir=data_dir, database_url=sqlite_url(data_dir / "freightdesk.sqlite3"))
    )
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "bench-maps", "bench-admin", "bench-password").tenant
            app, secret = create_client_app(session, tenant.id, "bench")
            tenant_id, client_id = tenant.id, app.id
        ids: list[str] = []
        for n, size in enumerate(sizes):
            body = TrackedShipmentInput.model_validate(
                {"identifiers": [{"type": "PRO", "value": f"MAP{n:05d}"}]}
            )
            with transaction(context.sessions) as session:
                (made,) = store.create_shipments(session, tenant_id, [body])
                store.add_positions_bulk(session, {made: road_track(size, 20 + n)}, "TL")
            ids.append(made)
    finally:
        context.engine.dispose()
    marker.write_text(
        json.dumps({"sizes": sizes, "clientId": client_id, "secret": secret, "ids": ids})
    )
    return client_id, secret, ids


def bench_served(app: QApplication, samples: int) -> list[Figure]:
    """As the app shows a shipment's map: its history read from the local service (which
    answers at most its limit of positions, down-sampled) and drawn in the open map.
    Two shipments of 100,000 stored positions take turns with two of 100 (the baseline)."""
    import tempfile

    from bench.bench_tracking import cpu_seconds, serve
    from freightdesk.server.migrations import SCHEMA_VERSION

    # One per schema: a database upgraded by a newer service is refused by an older one, and
    # engineers on other branches share this machine's temporary directory.
    data_dir = Path(tempfile.gettempdir()) / f"freightdesk-bench-maps-served-v{SCHEMA_VERSION}"
    began = time.perf_counter()
    client_id, secret, ids = seed_tracks(data_dir, [100_000, 100_000, 100, 100])
    print(f"2 x 100,000 and 2 x 100 positions ready in {time.perf_counter() - began:.1f} s")
    with serve(data_dir) as (url, _started, pid):
        for _ in range(600):  # until it answers
            try:
                httpx.get(f"{url}/health", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        view = ShipmentMapView(None, tiles=OFFLINE)
        view.resize(1000, 700)
        view.show()
        wait_for(app, lambda: view.is_ready)
        drawn: dict[str, int] = {}
        answered: dict[str, list[float]] = {i: [] for i in ids}
        # The service's own CPU per answer: steadier than wall time on a shared machine.
        spent: dict[str, list[float]] = {i: [] for i in ids}
        with client_of(url, client_id, secret) as http:

            def show(shipment_id: str) -> int:
                asked, used = time.perf_counter(), cpu_seconds(pid)
                answer = http.get(f"/api/v4/shipments/{shipment_id}/tracking/history")
                answered[shipment_id].append(time.perf_counter() - asked)
                spent[shipment_id].append(cpu_seconds(pid) - used)
                history = TrackingHistory.model_validate_json(answer.content)
                drawn[shipment_id] = len(history.positions)
                return view.show_history(history)

            show(ids[2])  # not counted: the first request opens the connection
            big: list[float] = []
            small: list[float] = []
            for n in range(samples):
                big.append(painted_after(app, view, lambda i=ids[n % 2]: show(i)))
                small.append(painted_after(app, view, lambda i=ids[2 + n % 2]: show(i)))
        discard(view)
    service = statistics.median(answered[ids[0]] + answered[ids[1]]) * 1000
    service_cpu = statistics.median(spent[ids[0]] + spent[ids[1]]) * 1000
    print(
        f"the service's answer: 100,000 stored, median {service:.0f} ms "
        f"({service_cpu:.0f} ms of its CPU); 100 stored, median "
        f"{statistics.median(answered[ids[2]][1:] + answered[ids[3]]) * 1000:.0f} ms "
        f"({statistics.median(spent[ids[2]][1:] + spent[ids[3]]) * 1000:.0f} ms of its CPU)"
    )
    print(
        f"100,000 stored positions, from the service to the open map: median "
        f"{statistics.median(big) * 1000:.0f} ms, p95 {_p95(big) * 1000:.0f} ms "
        f"({drawn[ids[0]]:,} positions answered); 100 stored: median "
        f"{statistics.median(small) * 1000:.0f} ms, p95 {_p95(small) * 1000:.0f} ms"
    )
    return [
        Figure(
            "maps",
            f"a shipment of 100,000 positions from the service to the open map, p95 of {samples}",
            _p95(big) * 1000,
            baseline=_p95(small) * 1000,
            baseline_what="the same, 100 positions",
            limit=500,
            note=(
                f"median {statistics.median(big) * 1000:.0f} ms; the service answers "
                f"{drawn[ids[0]]:,} of them in {service:.0f} ms, {service_cpu:.0f} ms of its CPU "
                "(medians)"
            ),
        )
    ]


def fleet_rows(count: int) -> tuple[list[SummaryRow], dict[str, LatestPosition]]:
    rng = random.Random(5)
    rows, positions = [], {}
    states = ["IN_TRANSIT"] * 6 + ["AT_STOP"] * 2 + ["SCHEDULED"]
    for n in range(count):
        shipment_id = str(uuid.UUID(int=rng.getrandbits(128)))
        rows.append(
            SummaryRow(
                id=shipment_id,
                identifiers=(("PRO", f"PRO{n:08d}"),),
                primary_identifier=f"PRO{n:08d}",
                mode="TL",
                current_state=rng.choice(states),
                origin_name="Chicago, IL",
                destination_name="Dallas, TX",
                next_eta=None,
                latest_event_type=None,
                latest_event_time=None,
                latest_event_description=None,
                open_exception_count=1 if rng.random() < 0.05 else 0,
                carrier=None,
                created=NOW,
                last_modified=NOW,
            )
        )
        # Clustered around freight hubs, as fleets are.
        hub_lat, hub_lon = rng.choice(
            [(41.9, -87.6), (32.8, -96.8), (33.7, -84.4), (34.0, -118.2), (40.7, -74.0)]
        )
        positions[shipment_id] = LatestPosition(
            shipment_id=uuid.UUID(shipment_id),
            date_time=NOW - timedelta(minutes=rng.randrange(1, 600)),
            latitude=hub_lat + rng.gauss(0, 3),
            longitude=hub_lon + rng.gauss(0, 4),
            heading=rng.uniform(0, 360),
            speed=rng.uniform(0, 100),
            speed_unit=SpeedUnit.KILOMETERS_PER_HOUR,
        )
    return rows, positions


def bench_fleet(app: QApplication, repeat: int) -> list[Figure]:
    rows, positions = fleet_rows(5000)
    view = MapView("fleet", tiles=OFFLINE)
    view.resize(1400, 900)
    view.show()
    wait_for(app, lambda: view.is_ready)

    def show() -> int:
        token = view.next_token()
        view.call("setFleet", fleet_items(rows, positions), {"token": token, "fit": True})
        return token

    first = painted_after(app, view, show)
    again = []
    for n in range(repeat):
        # A new filter: every other shipment, then all again (markers removed and added).
        subset = rows[n % 2 :: 2] if n % 2 == 0 else rows

        def refilter(subset: list[SummaryRow] = subset) -> int:
            token = view.next_token()
            view.call("setFleet", fleet_items(subset, positions), {"token": token})
            return token

        again.append(painted_after(app, view, refilter))
    print(
        f"fleet of 5,000 shipments: first show {first * 1000:.0f} ms; filter changes median "
        f"{statistics.median(again) * 1000:.0f} ms"
    )
    settle(app, 1.0)
    print(f"render process memory with the fleet: {memory_text(view.render_process_pid())}")
    discard(view)
    return [
        Figure(
            "maps",
            "5,000 shipments on the fleet map, first show",
            first * 1000,
            limit=1000,
            note=f"a filter change {statistics.median(again) * 1000:.0f} ms median",
        )
    ]


def client_of(url: str, client_id: str, secret: str) -> httpx.Client:
    """An HTTP client of the local service signed in as a client application."""
    token = httpx.post(
        f"{url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    ).json()["access_token"]
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60)


def bench_latest_query(repeat: int) -> None:
    """POST /api/v4/shipments/positions/latest for 5,000 shipments with 20 positions each."""
    from tests.support import running_service

    from freightdesk.models.tracking import TrackedShipmentInput
    from freightdesk.server.db import transaction
    from freightdesk.server.domain import shipments as store
    from freightdesk.server.domain.tenants import create_client_app, ensure_tenant

    with running_service() as service:
        with transaction(service.context.sessions) as session:
            tenant = ensure_tenant(session, "bench-maps", "bench-admin", "bench-password").tenant
            app, secret = create_client_app(session, tenant.id, "bench")
            tenant_id, client_id = tenant.id, app.id
        rng = random.Random(3)
        for first in range(0, 5000, 1000):
            bodies = [
                TrackedShipmentInput.model_validate(
                    {"identifiers": [{"type": "PRO", "value": f"PRO{first + n:08d}"}]}
                )
                for n in range(1000)
            ]
            with transaction(service.context.sessions) as session:
                made = store.create_shipments(session, tenant_id, bodies)
                tracks = {
                    sid: [
                        TrackedShipmentPosition(
                            date_time=NOW - timedelta(minutes=15 * k),
                            latitude=rng.uniform(30, 45),
                            longitude=rng.uniform(-120, -75),
                            speed=60,
                            heading=90,
                        )
                        for k in range(20)
                    ]
                    for sid in made
                }
                store.add_positions_bulk(session, tracks, "TL")
        with client_of(service.url, client_id, secret) as http:
            times, count = [], 0
            for _ in range(repeat + 1):
                began = time.perf_counter()
                answer = http.post("/api/v4/shipments/positions/latest", json={})
                times.append(time.perf_counter() - began)
                count = len(answer.json())
            since = NOW.isoformat()  # the newest fix: nothing is newer
            began = time.perf_counter()
            http.post("/api/v4/shipments/positions/latest", json={"since": since})
            polled = time.perf_counter() - began
        print(
            f"latest positions of {count:,} shipments (100,000 positions stored, SQLite): "
            f"median {statistics.median(times[1:]) * 1000:.0f} ms; a poll with `since` and "
            f"nothing new {polled * 1000:.0f} ms"
        )


# --- the first map of a session (issue 21) ----------------------------------------------------


def demo_histories(count: int) -> tuple[list[object], float]:
    """The tracking histories (JSON) of the first demo shipments that have positions, and the
    median time the local service takes to answer one."""
    from tests.support import running_service

    from freightdesk.server.demo import seed_demo

    with running_service() as service:
        credentials = seed_demo(service.context)
        assert credentials is not None
        with client_of(service.url, credentials.client_id, credentials.client_secret) as http:
            found = http.post("/api/v4/shipments/search", json={}).json()["results"]
            histories, times = [], []
            for row in found:
                began = time.perf_counter()
                answer = http.get(f"/api/v4/shipments/{row['id']}/tracking/history")
                times.append(time.perf_counter() - began)
                body = answer.json()
                if body.get("positions"):
                    histories.append(body)
                if len(histories) == count:
                    break
    return histories, statistics.median(times)


def bare_page(app: QApplication) -> float:
    """Seconds a bare QWebEngineView takes to load an empty page."""
    from PySide6.QtWebEngineWidgets import QWebEngineView

    bare = QWebEngineView()
    bare.resize(1000, 700)
    bare.show()
    loaded: list[bool] = []
    bare.loadFinished.connect(loaded.append)
    began = time.perf_counter()
    bare.setHtml("<html><body></body></html>")
    wait_for(app, lambda: bool(loaded))
    return time.perf_counter() - began


def open_child(how: str, data: Path) -> None:
    """One fresh process: the first map (cold or warmed), a second shipment in the same view,
    then the baseline; prints one JSON line of seconds. `bare`: the baseline alone, as the
    process's first QtWebEngine object (QtWebEngine started by it, as by a cold map)."""
    import json

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QApplication([])
    if how == "bare":
        began = time.perf_counter()
        bare_page(app)
        print(json.dumps({"first": time.perf_counter() - began}), flush=True)  # as "cold"'s
        os._exit(0)
    histories = [TrackingHistory.model_validate(body) for body in json.loads(data.read_text())]
    holder = QWidget()
    holder.resize(1000, 700)
    found: dict[str, float] = {}
    views: list[ShipmentMapView] = []

    def make() -> ShipmentMapView:
        view = ShipmentMapView(None, holder, tiles=OFFLINE)
        view.resize(1000, 700)
        views.append(view)
        return view

    if how == "warmed":
        from freightdesk.ui.maps.warm import warm_up_maps

        meter = Probe(interval_ms=10)
        began = time.perf_counter()
        done: list[bool] = []
        warm_up_maps(make, done=lambda: done.append(True))
        wait_for(app, lambda: bool(done) and views[0].is_ready)
        found["warm-up"] = time.perf_counter() - began
        found["longest stall"] = meter.stop() / 1000
        settle(app, 0.5)
    began = time.perf_counter()
    holder.show()
    view = views[0] if views else make()
    view.show()
    painted_after(app, view, lambda: view.show_history(histories[0]))
    found["first"] = time.perf_counter() - began  # cold: the view's making included
    found["second"] = painted_after(app, view, lambda: view.show_history(histories[1]))
    found["baseline"] = bare_page(app)
    print(json.dumps(found), flush=True)
    os._exit(0)


MAP_IMPORTS = """
import time
import freightdesk.service.session, freightdesk.api.client, freightdesk.ui.main_window
began = time.perf_counter()
import freightdesk.ui.maps.shipment_map, freightdesk.ui.maps.shell as shell
shell.page_html()
print(time.perf_counter() - began)
"""


def bench_open(repeat: int, imports: bool = True) -> list[Figure]:
    import json
    import subprocess
    import tempfile

    histories, fetch = demo_histories(2)
    sizes = [len(h["positions"]) for h in histories]  # type: ignore[index]
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "histories.json"
        data.write_text(json.dumps(histories))
        print(
            f"demo shipments' histories from the local service: median {fetch * 1000:.0f} ms "
            f"(those drawn: {sizes} positions)"
        )
        # What the first map imports that the app has not imported by then (QtWebEngine's
        # modules and numpy): not in "cold" below, since this module has them.
        took = []
        for _ in range(repeat if imports else 0):
            answer = subprocess.run(
                [sys.executable, "-c", MAP_IMPORTS], capture_output=True, text=True, check=True
            )
            took.append(float(answer.stdout.strip().splitlines()[-1]))
        if took:
            print(
                f"the map's imports in an app that has its service layer: median "
                f"{statistics.median(took) * 1000:.0f} ms (each: "
                f"{[round(i * 1000) for i in took]} ms); load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )

        def child(how: str) -> dict[str, float]:
            answer = subprocess.run(
                [sys.executable, "-m", "bench.bench_maps", "--open-child", how, str(data)],
                capture_output=True,
                text=True,
                timeout=300,
                check=True,
            )
            found: dict[str, float] = json.loads(answer.stdout.strip().splitlines()[-1])
            return found

        figures: list[Figure] = []
        for how in ("cold", "warmed"):
            runs: list[dict[str, float]] = []
            for _ in range(repeat):
                runs.append(child(how))
                if how == "cold":  # its baseline: QtWebEngine started by a bare view
                    runs[-1]["bare cold"] = child("bare")["first"]
            load = os.getloadavg()[0]

            def median(key: str, runs: list[dict[str, float]] = runs) -> float:
                return statistics.median(run[key] for run in runs) * 1000

            first, base = median("first"), median("baseline")
            text = (
                f"first shipment map, {how}: median {first:.0f} ms to a drawn track "
                f"(each: {[round(r['first'] * 1000) for r in runs]} ms); a second shipment "
                f"{median('second'):.0f} ms; baseline (bare QWebEngineView, empty page) "
                f"{base:.0f} ms; ratio {first / base:.1f}x; load average {load:.1f}"
            )
            if how == "cold":
                # The row's baseline: a cold map pays QtWebEngine's start, as this one does.
                base = median("bare cold")
                text += (
                    f"; the same bare view as its process's first QtWebEngine object "
                    f"{base:.0f} ms (each: {[round(r['bare cold'] * 1000) for r in runs]} ms), "
                    f"ratio {first / base:.2f}x"
                )
            if how == "warmed":
                text += (
                    f"; the warm-up took {median('warm-up'):.0f} ms in the background, "
                    f"longest GUI stall {median('longest stall'):.0f} ms"
                )
            print(text, flush=True)
            figures.append(
                Figure(
                    "maps",
                    f"a demo shipment's map, first of a session, {how}, median of {repeat}",
                    first,
                    baseline=base,
                    baseline_what=(
                        "bare QWebEngineView, empty page, QtWebEngine started by it"
                        if how == "cold"
                        else "bare QWebEngineView, empty page"
                    ),
                    limit=1000,
                    note=(
                        f"map warmed up after start, as the app does ({median('warm-up'):,.0f} "
                        f"ms, longest GUI stall {median('longest stall'):.0f} ms), asked for "
                        f"0.5 s after"
                        if how == "warmed"
                        else "QtWebEngine started by it"
                    ),
                )
            )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--samples", type=int, default=20, help="shows of each size in the open map"
    )
    parser.add_argument(
        "--only",
        choices=["simplify", "shipment", "served", "fleet", "query", "open"],
        action="append",
    )
    parser.add_argument(
        "--busy", action="store_true", help="the `open` part with every core kept busy"
    )
    parser.add_argument(
        "--skip-query", action="store_true", help="all parts but `query` (seeds 5,000 shipments)"
    )
    parser.add_argument(
        "--skip-imports", action="store_true", help="the `open` part without its imports' time"
    )
    parser.add_argument("--open-child", nargs=2, metavar=("HOW", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.open_child:
        open_child(args.open_child[0], Path(args.open_child[1]))
    parts = set(args.only or ["simplify", "shipment", "served", "fleet", "query", "open"])
    if args.skip_query:
        parts.discard("query")
    figures: list[Figure] = []
    if "simplify" in parts:
        figures += bench_simplify(road_track(100_000, 99), args.repeat)
    app = QApplication([])
    if "shipment" in parts:
        figures += bench_shipment(app, args.samples)
    if "served" in parts:
        figures += bench_served(app, args.samples)
    if "fleet" in parts:
        figures += bench_fleet(app, args.repeat)
    if "query" in parts:
        bench_latest_query(args.repeat)
    if "open" in parts:
        from bench.bench_demo import busy_cores

        with busy_cores(args.busy):
            figures += bench_open(args.repeat, imports=not args.skip_imports)
    publish(figures)
    sys.stdout.flush()
    os._exit(0)  # skip Python's teardown, which the PySide6 6.12.0 refcount bug would crash


if __name__ == "__main__":
    main()
