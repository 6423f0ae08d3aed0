"""Truckload push ingestion: durable accepts per second beside a minimal ASGI app answering 202.

Starts the real service (`freightdesk serve`, a subprocess on a fresh SQLite database or on the
PostgreSQL URL given) and, beside it, a minimal ASGI app under the same uvicorn settings that
reads the body and answers 202 with an ingestion id (no validation, no auth, no database): the
floor of what one uvicorn process answers on this machine. A tenant and N shipments with bill
of lading numbers are made; then each load generator drives
POST /services/carrier-push/v1/tracking-updates for S seconds against the minimal app and then
against the service, in the same run:

- `wrk` (Debian package `wrk`), one thread, 64 connections, each push a position of one of the
  shipments one second apart;
- httpx: asyncio clients in two processes, 32 connections in all.

For each: accepted per second (a 202 of the service means the push's row is committed: the
intake is a group commit, `server/domain/push_intake.py`), service CPU per push (acceptance
and processing together: measured until every accepted push is applied), the generator's own
CPU per request, and the check that every 202 is stored and applied. Then a keep-alive
GET /health and a small list (the account groups) in turns with the minimal FastAPI app
of `bench.minimal_service` answering the same bytes (as bench_tracking asks them).

    python -m bench.bench_push [--shipments 200] [--seconds 20] [--connections 64]
                               [--postgres | --database postgresql://...] [--explain]
                               [--wrk-only] [--accept-only] [--layers]

`--explain` adds the runs that account for the different figures of issue 18 (51/s with httpx,
628-640/s in bench_instances on PostgreSQL, 784-1,092/s with wrk), each beside the minimal app
with the same client: one httpx process at 32 connections (the issue's client), HTTP Basic
instead of a bearer token on every push, SQLite with synchronous=FULL (an fsync per intake
commit), and the same load on PostgreSQL (`--postgres`).

`--accept-only` then runs wrk against a second service, on a fresh database, whose push
processing is off: it stores and answers every push and applies none. Beside the first run,
it tells what accepting costs from what applying in the same process costs. `--layers` then
calls the first service's app in-process (`bench.push_layers`), layer by layer, to show where
the event loop's time for one push goes.

Why the figures differ (one --explain run, SQLite, 2 shared cores, load average 8.7 to 10.5
from other work, 8 s per case, each beside the minimal app with the same client in turns):

| Case | Service | Minimal ASGI app | Service CPU per push | Client CPU per request |
|---|---|---|---|---|
| wrk, 64 connections | 995/s | 8,041/s | 0.54 ms | 0.03 ms |
| httpx, 2 processes, 32 connections | 156/s | 397/s | 1.27 ms | 1.53 ms |
| httpx, 1 process, 32 connections | 210/s | 365/s | 1.38 ms | 2.38 ms |
| wrk, HTTP Basic on every push | 499/s | 8,777/s | 1.56 ms | 0.04 ms |
| wrk, SQLite synchronous=FULL | 944/s | 6,700/s | 0.60 ms | 0.03 ms |
| wrk, minimal FastAPI route answering 202 | 2,512/s | 6,498/s | 0.16 ms | |

- The client decides. wrk spends 0.03 ms of CPU a request, an httpx client 1.5 to 2.4 ms (it
  builds, sends and parses each request in Python): an httpx generator cannot drive even the
  minimal app past about 400/s here, and it takes the second core from the service (whose CPU
  per push doubles beside it). Throughput with httpx is the client's figure, not the service's.
- The issue's 51/s (0.43-0.57x of a minimal app that itself did only about 100/s with the same
  client) is that case on a busier machine: at load average 21 the same bench gave 51.5/s with
  the httpx pool (3.0 ms service CPU per push, the minimal app 48.8/s). Service CPU per push
  grows as throughput falls (the workers' polling is shared among fewer pushes, a loaded
  machine makes every instruction dearer): 7.0 ms a push in bench_instances at load 23. 8.5 to
  9.7 ms is that regime, not the cost of a push.
  Counting from the service's start adds its start-up work too (2.6 to 2.8 s of CPU until
  idle, printed by each run; the benchmark starts the load once the service is idle).
- bench_instances' 628-640/s is the two-process httpx pool on PostgreSQL on a quiet machine:
  the client, the service and PostgreSQL's backends share the 2 cores. The same pool here on
  PostgreSQL (`--postgres`, load 7.8): 419/s against the minimal app's 827/s (0.51x), 0.89 ms
  service CPU a push, 1.09 ms client CPU a request; wrk on PostgreSQL: 1,139/s at 0.57 ms a
  push (PostgreSQL's own CPU not counted), the minimal app 7,404/s.
- performance.md's 784-1,092/s with wrk were taken at load average 3 to 4 before the fixes of
  this change; at load 8 to 17 the service did 290 to 480/s with wrk and 0.85 to 0.91 ms of
  CPU a push. Two costs went (issue 18): StrictWireModel worked out every field's JSON types
  again for every value (165-194 us of a push body's 175 us validation, done at intake and
  when applied; now 21-27 us), and the bearer check opened a database session even when the
  token came from its cache. Now 0.54 to 0.60 ms a push and 944 to 995/s at load 9 to 10.
- The floor: a minimal FastAPI route answering 202 (body read as a dict, nothing stored) costs
  0.16 ms a request and does 0.39x of the plain ASGI app with wrk, so the target's 0.5x of the
  plain ASGI app with wrk is below what FastAPI itself allows here. The service's 0.54 ms is
  that floor plus the middleware (reference ids, body limits, error handling), routing among
  about 250 routes, the body model, the bearer check, the group commit's insert and applying
  the position (a fifth of the service's CPU, in the worker).
- Auth: HTTP Basic on every push triples the service's CPU per push (1.56 ms: a thread-pool hop
  and two reads per request even with the password check remembered); a bearer token is
  checked from memory.
- Durability: a 202 means the push's row is committed (the intake is a group commit). SQLite
  runs in WAL with synchronous=NORMAL: a commit survives a crash or kill -9 of the service
  (tests/server/test_carrier_push_restart.py) but not a power loss or OS crash
  (docs/deployment.md). synchronous=FULL (an fsync per commit) cost little here (944/s at 0.60
  ms against 995/s at 0.54 ms in the same run), since one commit carries every push that
  arrived during the previous one.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import httpx
from sqlalchemy import Engine, create_engine, func, select

from bench.bench_tracking import against_minimal_app
from bench.report import Figure, load_average, publish
from freightdesk.server.tables.push import PushIngestion

PUSH_PATH = "/services/carrier-push/v1/tracking-updates"
MINIMAL_202 = "minimal ASGI app answering 202, same uvicorn settings, same client"

_WRK_SCRIPT = """
local bols = {BOLS}
-- Positions a day old and one second apart, so that no two pushes share an instant.
local start = os.time() - 86400
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "{AUTHORIZATION}"
request = function()
  n = n + 1
  local bol = bols[(n % #bols) + 1]
  local lat = 41.0 + (n % 1000) / 1000.0
  local stamp = os.date("!%Y-%m-%dT%H:%M:%SZ", start + n)
  local event = ""
  -- Every EVERY-th push also reports arriving at or leaving a stop (0: never).
  if {EVERY} > 0 and n % {EVERY} == 0 then
    local kind = "ARRIVAL_AT_STOP"
    if (n / {EVERY}) % 2 == 1 then kind = "DEPARTURE_FROM_STOP" end
    event = '"shipmentEvent":{{"type":"' .. kind .. '","dateTime":"' .. stamp .. '"}},'
  end
  local body = '{{"truckload":{{"identifiers":{{"billOfLadingNumber":"' .. bol ..
    '"}},' .. event .. '"readings":{{"dateTime":"' .. stamp .. '","position":{{"latitude":' ..
    lat .. ',"longitude":-87.6,"speed":55,"heading":90,"speedUnit":"MILES_PER_HOUR"}}}}}}}}'
  return wrk.format(nil, "{PATH}", nil, body)
end
"""

# The floor: reads the body and answers 202 with an id, as the push operation does, under the
# uvicorn settings of `freightdesk serve` (its own IPPROTO_TCP socket, h11, no logs, lifespan).
_MINIMAL_202 = """
import socket, sys, uuid, uvicorn
async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    more = True
    while more:
        more = (await receive()).get("more_body", False)
    body = ('{"ingestionId":"%s"}' % uuid.uuid4()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 202, "headers": headers})
    await send({"type": "http.response.body", "body": body})
if sys.argv[1:] == ["fastapi"]:  # the same, as a FastAPI route taking the body as a dict
    from fastapi import FastAPI
    app = FastAPI()
    @app.post("PUSH_PATH", status_code=202)
    async def push(body: dict) -> dict:
        return {"ingestionId": str(uuid.uuid4())}
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
sock.bind(("127.0.0.1", 0))
sock.listen(2048)
print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on", ws="none",
                        http="h11")
uvicorn.Server(config).run(sockets=[sock])
""".replace("PUSH_PATH", PUSH_PATH)

# `freightdesk serve` with SQLite's synchronous=FULL instead of NORMAL (--explain only).
_FULL_SYNC_SERVE = """
import sys
import freightdesk.server.db as db
normal = db._sqlite_pragmas
def full(connection, record):
    normal(connection, record)
    connection.execute("PRAGMA synchronous=FULL")
db._sqlite_pragmas = full
from freightdesk.cli import main
sys.exit(main(sys.argv[1:]))
"""

# `freightdesk serve` that accepts pushes and never applies them (--accept-only): the cost of
# accepting alone, to tell it from the cost of applying in the same process.
_ACCEPT_ONLY_SERVE = """
import sys
from freightdesk.server.domain import push_processing
push_processing.WORKERS.clear()
from freightdesk.cli import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass
class Service:
    process: subprocess.Popen[str]
    url: str
    database_url: str


@dataclass
class Load:
    """What one load generator did: answers by kind, seconds, its own CPU seconds."""

    accepted: int
    refused: int
    seconds: float
    client_cpu: float

    @property
    def per_second(self) -> float:
        return self.accepted / max(self.seconds, 1e-9)

    def __add__(self, other: Load) -> Load:
        return Load(
            self.accepted + other.accepted,
            self.refused + other.refused,
            self.seconds + other.seconds,
            self.client_cpu + other.client_cpu,
        )

    @property
    def client_cpu_per_request_ms(self) -> float:
        return self.client_cpu / max(self.accepted + self.refused, 1) * 1000


def _freightdesk(*args: str) -> list[str]:
    return [sys.executable, "-m", "freightdesk.cli", *args]


def spawn_serve(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Starts `command`, a `freightdesk serve` on port 0, and returns it with the URL it prints
    first (bound, though perhaps not listening yet)."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        raise RuntimeError(f"the service did not start: {line!r}")
    return process, found.group(0)


def _wait_answering(process: subprocess.Popen[str], url: str, path: str) -> None:
    deadline = time.monotonic() + 60
    while True:  # the socket is bound before uvicorn listens on it
        try:
            httpx.get(f"{url}{path}", timeout=5)
            return
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.1)


def start_service(
    data_dir: Path, database_url: str, *, full_sync: bool = False, accept_only: bool = False
) -> Service:
    options = ["--port", "0", "--data-dir", str(data_dir), "--database", database_url]
    options += ["--log-level", "warning"]
    script = _FULL_SYNC_SERVE if full_sync else _ACCEPT_ONLY_SERVE if accept_only else None
    command = (
        [sys.executable, "-c", script, "serve", *options]
        if script
        else _freightdesk("serve", *options)
    )
    process, url = spawn_serve(command)
    _wait_answering(process, url, "/health")
    return Service(process, url, database_url)


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


@contextmanager
def minimal_202(*, fastapi: bool = False) -> Iterator[Service]:
    """The minimal ASGI app answering 202, in its own process (no database); with `fastapi`,
    the same as a FastAPI route."""
    command = [sys.executable, "-c", _MINIMAL_202, *(["fastapi"] if fastapi else [])]
    process, url = spawn_serve(command)
    try:
        _wait_answering(process, url, PUSH_PATH)
        yield Service(process, url, "")
    finally:
        stop(process)


def cli_client_credentials(name: str, cli_options: list[str]) -> tuple[str, str]:
    """A tenant `name` (admin `name`) and a client application made with the CLI on the data
    that `cli_options` (--data-dir and --database) name; returns its client id and secret."""
    subprocess.run(
        _freightdesk("tenant", "add", name, "--admin", f"{name}:bench", *cli_options),
        check=True,
        capture_output=True,
    )
    made = subprocess.run(
        _freightdesk("client", "add", name, "bench", *cli_options),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    client_id = re.search(r"client id ([^\s,]+)", made)
    secret = re.search(r"client secret ([^\s,]+)", made)
    assert client_id is not None and secret is not None
    return client_id.group(1), secret.group(1)


def service_token(url: str, client_id: str, secret: str) -> str:
    """A bearer token the service at `url` gives the client application."""
    token = httpx.post(
        f"{url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    )
    token.raise_for_status()
    return str(token.json()["access_token"])


def cli_tenant_token(url: str, name: str, cli_options: list[str]) -> str:
    """A new tenant's client application (see `cli_client_credentials`), signed in at `url`."""
    return service_token(url, *cli_client_credentials(name, cli_options))


def make_shipments(service: Service, token: str, count: int) -> list[str]:
    bols = [f"BOL-{i:06d}" for i in range(count)]
    with httpx.Client(
        base_url=service.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    ) as http:
        for bol in bols:
            answer = http.put(
                "/api/v4/shipments/tracking",
                json={"identifiers": [{"type": "BILL_OF_LADING", "value": bol}]},
            )
            answer.raise_for_status()
    return bols


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def drive_with_wrk(
    url: str,
    authorization: str,
    bols: list[str],
    seconds: int,
    connections: int,
    every: int = 0,
) -> Load:
    """A wrk run (one thread) of `seconds` at `url`."""
    script = _WRK_SCRIPT.format(
        BOLS="{" + ",".join(json.dumps(b) for b in bols) + "}",
        AUTHORIZATION=authorization,
        PATH=PUSH_PATH,
        EVERY=every,
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    cpu_before = _children_cpu()
    try:
        result = subprocess.run(
            [*command, "-s", handle.name, url], check=True, capture_output=True, text=True
        ).stdout
    finally:
        os.unlink(handle.name)
    client_cpu = _children_cpu() - cpu_before
    total = int(re.search(r"(\d+) requests in", result).group(1))  # type: ignore[union-attr]
    elapsed_text = re.search(r"requests in ([\d.]+)(m?s)", result)
    assert elapsed_text is not None
    elapsed = float(elapsed_text.group(1)) * (1 / 1000 if elapsed_text.group(2) == "ms" else 1)
    refused_match = re.search(r"Non-2xx or 3xx responses: (\d+)", result)
    refused = int(refused_match.group(1)) if refused_match else 0
    return Load(total - refused, refused, elapsed, client_cpu)


def drive_with_httpx(
    url: str,
    authorization: str,
    bols: list[str],
    seconds: int,
    connections: int,
    processes: int = 2,
) -> Load:
    """`processes` processes of asyncio httpx clients, `connections` in all."""
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _HTTPX_DRIVER,
                url,
                authorization,
                json.dumps(bols),
                str(seconds),
                str(max(1, connections // processes)),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    accepted = refused = 0
    client_cpu = 0.0
    for proc in procs:
        out, _ = proc.communicate()
        ok, bad, cpu = out.split()
        accepted += int(ok)
        refused += int(bad)
        client_cpu += float(cpu)
    return Load(accepted, refused, float(seconds), client_cpu)


_HTTPX_DRIVER = """
import asyncio, json, sys, time
from datetime import UTC, datetime
import httpx
url, authorization, bols = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
seconds, conns = float(sys.argv[4]), int(sys.argv[5])
stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
counts = [0, 0]
async def one(client, i, end):
    n = i
    while time.monotonic() < end:
        n += conns
        position = {"latitude": 41.5, "longitude": -87.6}
        body = {"truckload": {"identifiers": {"billOfLadingNumber": bols[n % len(bols)]},
                "readings": {"dateTime": stamp, "position": position}}}
        r = await client.post("/services/carrier-push/v1/tracking-updates", json=body)
        counts[0 if r.status_code == 202 else 1] += 1
async def main():
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": authorization},
                                 limits=httpx.Limits(max_connections=conns), timeout=30) as c:
        end = time.monotonic() + seconds
        await asyncio.gather(*(one(c, i, end) for i in range(conns)))
cpu = time.process_time()
asyncio.run(main())
print(counts[0], counts[1], time.process_time() - cpu)
"""


def push_counts(engine: Engine) -> dict[str, int]:
    """Stored pushes by status."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(PushIngestion.status, func.count()).group_by(PushIngestion.status)
        ).all()
    return {status: count for status, count in rows}


def wait_processed(
    database_url: str, timeout: float, since: datetime | None = None
) -> tuple[list[float], dict[str, int]]:
    """Seconds from acceptance to processing of every push (received `since`), once none is
    pending, and the number of pushes by status."""
    engine = create_engine(database_url)
    deadline = time.monotonic() + timeout
    try:
        while push_counts(engine).get("PENDING") and time.monotonic() < deadline:
            time.sleep(0.2)
        with engine.connect() as conn:
            query = select(
                PushIngestion.received_at, PushIngestion.processed_at, PushIngestion.status
            )
            if since is not None:
                query = query.where(PushIngestion.received_at >= since)
            rows = conn.execute(query).all()
    finally:
        engine.dispose()
    statuses: dict[str, int] = {}
    for row in rows:
        statuses[row.status] = statuses.get(row.status, 0) + 1
    latencies = [
        (row.processed_at - row.received_at).total_seconds()
        for row in rows
        if row.processed_at is not None
    ]
    return latencies, statuses


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux)."""
    return _stat_cpu(Path(f"/proc/{pid}/stat"))


def loop_cpu_seconds(pid: int) -> float:
    """The CPU time of a process's main thread so far: uvicorn's event loop (reading and
    parsing the requests, the app, writing the answers); the rest is its threads' (the
    intake's commits, applying the pushes, the webhooks' fan-out)."""
    return _stat_cpu(Path(f"/proc/{pid}/task/{pid}/stat"))


def _stat_cpu(stat: Path) -> float:
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(pid: int, timeout: float = 120) -> None:
    """Until the service stops using CPU (it builds its OpenAPI document after starting)."""
    deadline = time.monotonic() + timeout
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = cpu_seconds(pid)
        if now - last < 0.05:
            return
        last = now


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@dataclass
class Phase:
    """One generator against the minimal app, then against the service."""

    name: str
    floor: Load
    floor_cpu_ms: float  # the minimal app's CPU per request
    ours: Load
    service_cpu_ms: float  # acceptance and processing, per accepted push
    loop_cpu_ms: float  # the share of it on the event loop's thread
    lost: int  # 202s not stored, or stored and not applied
    latency_p95_ms: float
    load: float


Driver = Callable[[str, str, int], Load]


class Bench:
    """The service, the minimal app and the pushes' database, for one run."""

    def __init__(
        self,
        service: Service,
        floor: Service,
        tenant: str,
        token: str,
        bols: list[str],
        seconds: int,
    ) -> None:
        self.service = service
        self.tenant = tenant
        self.token = token
        self.floor = floor
        self.bearer = f"Bearer {token}"
        self.bols = bols
        self.engine = create_engine(service.database_url)
        self.seconds = seconds

    def phase(
        self,
        name: str,
        drive: Driver,
        authorization: str | None = None,
        rounds: int = 2,
        *,
        applied: bool = True,
    ) -> Phase:
        """`drive(url, authorization, seconds)` against the minimal app, then against the
        service, in `rounds` turns (so that a burst of other load falls on both alike).
        Without `applied` the service applies nothing (`_ACCEPT_ONLY_SERVE`): its CPU is
        counted as the load stops, and a 202 is lost only if its row is not stored."""
        authorization = authorization or self.bearer
        load = load_average()
        seconds = max(1, self.seconds // rounds)
        floor = ours = Load(0, 0, 0.0, 0.0)
        floor_cpu = service_cpu = loop_cpu = 0.0
        since = datetime.now(UTC)
        counts_before = push_counts(self.engine)
        for _ in range(rounds):
            before = cpu_seconds(self.floor.process.pid)
            floor += drive(self.floor.url, authorization, seconds)
            floor_cpu += cpu_seconds(self.floor.process.pid) - before
            before = cpu_seconds(self.service.process.pid)
            loop_before = loop_cpu_seconds(self.service.process.pid)
            ours += drive(self.service.url, authorization, seconds)
            # Until the pushes are applied: the CPU per push is acceptance and processing.
            latencies: list[float] = []
            if applied:
                latencies, _ = wait_processed(self.service.database_url, 120, since=since)
            service_cpu += cpu_seconds(self.service.process.pid) - before
            loop_cpu += loop_cpu_seconds(self.service.process.pid) - loop_before
        if floor.refused:
            print(f"the minimal app refused {floor.refused} requests: its figure is wrong")
        counts = push_counts(self.engine)
        stored = sum(counts.values()) - sum(counts_before.values())
        processed = counts.get("PROCESSED", 0) - counts_before.get("PROCESSED", 0)
        lost = max(0, ours.accepted - stored) + (stored - processed if applied else 0)
        phase = Phase(
            name,
            floor,
            floor_cpu / max(floor.accepted, 1) * 1000,
            ours,
            service_cpu / max(stored, 1) * 1000,
            loop_cpu / max(stored, 1) * 1000,
            lost,
            percentile(latencies, 0.95) * 1000 if latencies else float("nan"),
            load,
        )
        print(describe(phase), flush=True)
        return phase

    def close(self) -> None:
        self.engine.dispose()


def describe(phase: Phase) -> str:
    processing = "-" if math.isnan(phase.latency_p95_ms) else f"{phase.latency_p95_ms:.0f} ms"
    return (
        f"{phase.name}: service {phase.ours.per_second:,.0f}/s ({phase.ours.refused} refused, "
        f"{phase.lost} lost), minimal app {phase.floor.per_second:,.0f}/s "
        f"= {phase.ours.per_second / max(phase.floor.per_second, 1e-9):.2f}x; service CPU "
        f"{phase.service_cpu_ms:.2f} ms per push, {phase.loop_cpu_ms:.2f} ms of it on the event "
        f"loop (minimal app {phase.floor_cpu_ms:.2f} ms); "
        f"client CPU {phase.ours.client_cpu_per_request_ms:.2f} ms per request; processing "
        f"p95 {processing}; load average {phase.load:.1f}"
    )


def throughput_figure(
    phase: Phase, *, limit: float | None, min_ratio: float | None = 0.5
) -> Figure:
    return Figure(
        "push",
        f"durable pushes accepted per second, {phase.name}",
        phase.ours.per_second,
        unit="/s",
        baseline=phase.floor.per_second,
        baseline_what=MINIMAL_202,
        limit=limit,
        min_ratio=min_ratio,
        higher_is_better=True,
        load=phase.load,
        note=(
            f"service CPU {phase.service_cpu_ms:.2f} ms per push ({phase.loop_cpu_ms:.2f} ms on "
            f"the event loop), client "
            f"{phase.ours.client_cpu_per_request_ms:.2f} ms"
        ),
    )


def keep_alive_figures(service: Service, token: str, work: Path, repeat: int) -> list[Figure]:
    """bench_tracking's keep-alive GET /health and small list beside the minimal FastAPI app
    (issue 18: within 1.5x), on this benchmark's service."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=service.url, headers=headers, timeout=30) as http:
        figures = against_minimal_app(http, work, repeat)
    return [replace(figure, bench="push") for figure in figures]


def framework_floor(floor: Service, args: argparse.Namespace) -> Figure:
    """wrk against the minimal app as a FastAPI route beside the plain ASGI app, in turns: what
    FastAPI alone costs a request here (the floor of any FastAPI service on this machine)."""
    with minimal_202(fastapi=True) as fastapi:
        totals = {fastapi.url: [0, 0.0, 0.0], floor.url: [0, 0.0, 0.0]}
        for _ in range(2):
            for app in (floor, fastapi):
                before = cpu_seconds(app.process.pid)
                load = drive_with_wrk(app.url, "", ["BOL"], max(1, args.seconds // 2), 64)
                total = totals[app.url]
                total[0] += load.accepted
                total[1] += load.seconds
                total[2] += cpu_seconds(app.process.pid) - before
    (ours, ours_s, ours_cpu), (base, base_s, base_cpu) = totals[fastapi.url], totals[floor.url]
    print(
        f"minimal FastAPI route: {ours / ours_s:,.0f}/s, {ours_cpu / max(ours, 1) * 1000:.2f} ms"
        f" CPU a request; minimal ASGI app {base / base_s:,.0f}/s, "
        f"{base_cpu / max(base, 1) * 1000:.2f} ms",
        flush=True,
    )
    return Figure(
        "push",
        "wrk against a minimal FastAPI route answering 202 (the framework's floor)",
        ours / ours_s,
        unit="/s",
        baseline=base / base_s,
        baseline_what=MINIMAL_202,
        higher_is_better=True,
        note=f"CPU {ours_cpu / max(ours, 1) * 1000:.2f} ms a request",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shipments", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--connections", type=int, default=64, help="wrk's connections")
    parser.add_argument("--httpx-connections", type=int, default=32)
    parser.add_argument("--database", help="a PostgreSQL URL (default: a fresh SQLite file)")
    parser.add_argument(
        "--postgres", action="store_true", help="start a throwaway PostgreSQL (initdb) and use it"
    )
    parser.add_argument("--explain", action="store_true", help="the runs of the docstring too")
    parser.add_argument(
        "--wrk-only", action="store_true", help="only the wrk run (no httpx, no keep-alive)"
    )
    parser.add_argument(
        "--accept-only",
        action="store_true",
        help="then wrk against a service that applies nothing (the cost of accepting alone)",
    )
    parser.add_argument(
        "--layers",
        action="store_true",
        help="then the app in-process, layer by layer (bench.push_layers)",
    )
    parser.add_argument("--repeat", type=int, default=200, help="keep-alive requests of each")
    parser.add_argument(
        "--event-every",
        type=int,
        default=0,
        help="every Nth push also carries a stop arrival or departure (wrk only; 0: none)",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is needed (apt-get install wrk)", file=sys.stderr)
        return 2

    work = Path(tempfile.mkdtemp(prefix="fd-bench-push-"))
    postgres = None
    if args.postgres:
        from tests.support import PostgresServer

        postgres = PostgresServer()
        postgres.start()
        args.database = postgres.create_database()
    database_url = args.database or f"sqlite:///{work / 'data' / 'freightdesk.sqlite3'}"
    if database_url.startswith("postgresql://"):
        database_url = "postgresql+psycopg://" + database_url.removeprefix("postgresql://")
    database = "PostgreSQL" if database_url.startswith("postgresql") else "SQLite"
    phases: list[Phase] = []
    figures: list[Figure] = []
    try:
        with minimal_202() as floor:
            phases += run_service(work / "data", database_url, floor, args, figures)
            if args.accept_only:
                accepting = database_url
                if database == "SQLite":
                    accepting = f"sqlite:///{work / 'accepting' / 'freightdesk.sqlite3'}"
                phases += run_service(
                    work / "accepting", accepting, floor, args, figures, accept_only=True
                )
            if args.explain:
                figures.append(framework_floor(floor, args))
            if args.explain and database == "SQLite":
                full = f"sqlite:///{work / 'full' / 'freightdesk.sqlite3'}"
                args.explain = "full-sync"
                phases += run_service(work / "full", full, floor, args, figures)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if postgres is not None:
            postgres.stop()

    print(
        f"\n{database}, {args.shipments} shipments, {os.cpu_count()} cores, {args.seconds} s "
        f"per generator and target, events: "
        f"{f'every {args.event_every}th push' if args.event_every else 'none'}"
    )
    for phase in phases:
        print(describe(phase))
    lost = sum(p.lost for p in phases)
    figures.append(
        Figure(
            "push",
            "202s not stored or not applied, all runs",
            float(lost),
            unit="pushes",
            limit=0,
        )
    )
    publish(figures)
    return 1 if lost else 0


def run_service(
    data_dir: Path,
    database_url: str,
    floor: Service,
    args: argparse.Namespace,
    figures: list[Figure],
    *,
    accept_only: bool = False,
) -> list[Phase]:
    full_sync = args.explain == "full-sync"
    service = start_service(data_dir, database_url, full_sync=full_sync, accept_only=accept_only)
    cli = ["--data-dir", str(data_dir), "--database", database_url]
    try:
        name = f"bench-{int(time.time())}"
        token = cli_tenant_token(service.url, name, cli)
        bols = make_shipments(service, token, args.shipments) if args.shipments else ["NO-MATCH"]
        wait_idle(service.process.pid)
        # What a push figure counted from the start would include (the OpenAPI document,
        # the collector's settling, the tenant and shipments made here).
        start_cpu = cpu_seconds(service.process.pid)
        print(f"service CPU from its start until idle: {start_cpu:.1f} s", flush=True)
        run = Bench(service, floor, name, token, bols, args.seconds)
        try:
            phases = phases_of(run, args, figures, full_sync, accept_only)
        finally:
            run.close()
        if not full_sync and not accept_only and not args.wrk_only:
            figures.extend(keep_alive_figures(service, token, data_dir / "minimal", args.repeat))
    finally:
        stop(service.process)
    if args.layers and not full_sync and not accept_only:
        figures.append(layer_figure(data_dir, database_url, token, bols))
    return phases


def layer_figure(data_dir: Path, database_url: str, token: str, bols: list[str]) -> Figure:
    """`bench.push_layers` on the service's database: the event loop's CPU a push through the
    whole app beside the push operation alone, each layer's share printed."""
    load = load_average()
    command = ["-m", "bench.push_layers", str(data_dir), database_url, token, json.dumps(bols)]
    found = subprocess.run(
        [sys.executable, *command],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    layers: dict[str, float] = json.loads(found.splitlines()[-1])
    names = list(layers)
    print("in-process, one push after another, the commit left out (CPU a push, best of 7):")
    for name, inner in zip(names, [*names[1:], None], strict=True):
        own = layers[name] - layers[inner] if inner is not None else layers[name]
        print(f"  {name}: {layers[name]:.1f} us, of which before the next {own:.1f} us")
    whole, alone = layers[names[0]], layers[names[-1]]
    return Figure(
        "push",
        "event loop's CPU a push in the app, in-process, no socket, the commit left out",
        whole,
        unit="us",
        baseline=alone,
        baseline_what="the push operation alone: no middleware, no routing",
        load=load,
    )


def phases_of(
    run: Bench, args: argparse.Namespace, figures: list[Figure], full_sync: bool, accept_only: bool
) -> list[Phase]:
    bols = run.bols
    database = "PostgreSQL" if run.service.database_url.startswith("postgresql") else "SQLite"

    def wrk(url: str, authorization: str, seconds: int) -> Load:
        return drive_with_wrk(url, authorization, bols, seconds, args.connections, args.event_every)

    def pool(url: str, authorization: str, seconds: int) -> Load:
        return drive_with_httpx(url, authorization, bols, seconds, args.httpx_connections)

    def single(url: str, authorization: str, seconds: int) -> Load:
        return drive_with_httpx(url, authorization, bols, seconds, 32, processes=1)

    if accept_only:
        name = f"wrk {args.connections} connections, {database}, accepted only (none applied)"
        phase = run.phase(name, wrk, applied=False)
        # What accepting alone allows, not a target (the target is the row above).
        figures.append(throughput_figure(phase, limit=None, min_ratio=None))
        return [phase]
    if full_sync:
        phase = run.phase(f"wrk {args.connections} connections, SQLite synchronous=FULL", wrk)
        figures.append(throughput_figure(phase, limit=None))
        return [phase]
    phases = []
    phase = run.phase(f"wrk {args.connections} connections, {database}", wrk)
    figures.append(throughput_figure(phase, limit=1000))
    phases.append(phase)
    if args.wrk_only:
        return phases
    phase = run.phase(f"httpx 2 processes {args.httpx_connections} connections, {database}", pool)
    figures.append(throughput_figure(phase, limit=None))
    phases.append(phase)
    if args.explain:
        phase = run.phase(f"httpx 1 process 32 connections, {database}", single)
        figures.append(throughput_figure(phase, limit=None))
        phases.append(phase)
        basic = "Basic " + base64.b64encode(f"{run.tenant}:bench".encode()).decode()
        phase = run.phase(f"wrk, HTTP Basic on every push, {database}", wrk, basic)
        figures.append(throughput_figure(phase, limit=None))
        phases.append(phase)
    return phases


if __name__ == "__main__":
    raise SystemExit(main())
