"""Webhook delivery: fan-out throughput and latency, and isolation from a slow receiver.

Three processes on the same machine:
- the real service (`freightdesk serve`, a fresh SQLite database or the PostgreSQL URL given);
- the receivers: N endpoints on loopback (plus, in the -slow setups, one that takes 5 s to
  answer each request), minimal asyncio HTTP/1.1 keep-alive servers (uvloop) in one process
  that note when each message arrived;
- this process, which makes the push configurations (granular, `shipments.v1.event.added`)
  and 200 shipments, then records shipment events at the target rate through the tracking
  domain API on the service's database (as carrier push processing does), one transaction
  per change.

Two readings of "N changes per minute fanned out to 20 endpoints" are measured: `all` (one
tenant with 20 configurations: every change is delivered 20 times) and `spread` (20 tenants
with one configuration each: every change is delivered once, to its tenant's endpoint). The
-slow setups add a receiver that takes 5 s per request and gets every change of the first
tenant; its latencies are kept apart from the others'.

Latency is from the change (the message's `createdDateTime`, taken in the writing
transaction) to its arrival at the receiver. CPU time is read from /proc for the service and
the receivers, from the process itself for the load generator, and from /proc/stat for the
whole machine, so what other work took is known too (the machine is shared).

Targets (performance.md): the rate kept, every delivery made, nothing left 0.5 s after the
load stops, p95 change to receiver within 0.5 s, and the service CPU per delivery it gave
(0.16 ms at most in `all`, 1.0 ms in `spread`). That CPU is held against the floor of
sending one message in Python on the same machine in the same run: a plain blocking
keep-alive socket posting a body of the same size to one of the same receivers and reading
its answer (client CPU per request). The figures go to `bench.report.publish`.

What they showed (28 Nov, SQLite, load 4 to 16): every delivery made and drained within 0.05 to
0.5 s; service CPU 0.10 to 0.16 ms per delivery in `all`, 0.99 ms in `spread` (12x to 21x the
plain socket's 7 to 9 us). The load generator in this process (1.3 ms of CPU per change) no
longer kept 10,000 changes a minute at a load average of 4 and above (3,500 to 6,000),
and p95 then rose to 0.74 to 1.57 s: the two cores were the limit, not the service.

The `idle` setup (not in the default modes) leaves the service with one configuration alone
for `--idle-seconds` beside the minimal FastAPI app and reads both processes' CPU from /proc
over the same window (on PostgreSQL with its backends' CPU); then it makes `--idle-changes`
changes through the API and as many written by this process, each after 2 s of quiet, and
reports each kind's median from the change to the receiver beside a plain POST of a body to
the same receiver. What it showed (29 Nov, 60 s, 10 changes each, load 7 to 10): before the
workers woke on commits, 26.7 ms/s of CPU on SQLite (20x the minimal app) and 58.3 ms/s on
PostgreSQL (44.7 the service, 13.7 its backends; 35x); after, 3.0 ms/s (2.0x) and 3.7 ms/s
(3.0 + 0.7; 2.4x). Changes through the API arrived in 35 and 90 ms (median; before 31 and 103
ms); changes by another process in 243 ms on SQLite (its data_version read every 0.25 s;
before 55 ms) and 51 ms on PostgreSQL (before 102 ms).

The `statements` setup (in-process, SQLite) times `SELECT 1` through a SQLAlchemy connection
(5,000 a round) and a transaction of one through `db.transaction` (1,000 a round) on the
service's engine beside a plain `create_engine` on the same file, alternated for 9 rounds:
the wake-ups must cost routes nothing. What it showed (29 Nov, load 2.7): with the wake-ups
listened for on the engine (dc1f14b), 18.0 us a statement against 14.3 (1.26x) and 99 us a
transaction against 73 (1.36x); with the writers asking for them, 13.9 against 13.8 (1.01x)
and 74 against 76 (0.98x).

    python -m bench.bench_webhooks [--rate 10000] [--seconds 60] [--endpoints 20]
                                   [--modes all,spread,all-slow,spread-slow,idle,statements]
                                   [--repeat 3]
                                   [--database postgresql://...] [--no-slow]
                                   [--idle-seconds 60] [--idle-changes 10]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from bench.minimal_service import minimal_service, settle
from bench.report import Figure, publish
from freightdesk.models.tracking import TrackedShipmentEvent
from freightdesk.server.db import make_engine, make_sessionmaker, transaction
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant

KIND = "shipments.v1.event.added"
SLOW_SECONDS = 5.0
_RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
_CREATED = re.compile(rb'"createdDateTime":"([^"]+)"')
_LENGTH = re.compile(rb"content-length:\s*(\d+)")
# Targets from performance.md (SQLite).
DRAIN_SECONDS = 0.5
P95_SECONDS = 0.5
# The idle service's CPU (its workers asleep until there is work, each looking anyway every
# 10 s) against the minimal app's (uvicorn's own 10 Hz tick is in both).
IDLE_CPU_MAX_RATIO = 3.0
# Per setup: in `spread` every change is delivered once, so a delivery carries the whole
# per-change cost (journal, fan-out, cycle) that `all` shares among 20.
CPU_PER_DELIVERY_MS = {"all": 0.16, "spread": 1.0}
# About a delivery's body (a shipment event message with its envelope).
PLAIN_BODY_BYTES = 900


# --- receivers (their own process) -------------------------------------------------------------


class _Hook(asyncio.Protocol):
    def __init__(self, index: int, latencies: list[list[float]], slow: bool) -> None:
        self.index = index
        self.latencies = latencies
        self.slow = slow
        self.buffer = bytearray()
        self.transport: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # uvloop's transports are not asyncio.Transport subclasses

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            found = _LENGTH.search(bytes(self.buffer[:end]).lower())
            length = int(found.group(1)) if found else 0
            if len(self.buffer) < end + 4 + length:
                return
            body = bytes(self.buffer[end + 4 : end + 4 + length])
            del self.buffer[: end + 4 + length]
            self._handle(body)

    def _handle(self, body: bytes) -> None:
        arrived = time.time()
        created = _CREATED.search(body)
        if created is not None:
            sent = datetime.fromisoformat(created.group(1).decode()).timestamp()
            self.latencies[self.index].append(arrived - sent)
        assert self.transport is not None
        if self.slow:
            asyncio.get_running_loop().call_later(SLOW_SECONDS, self._answer)
        else:
            self.transport.write(_RESPONSE)

    def _answer(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_RESPONSE)


def run_receivers(count: int, slow: int, control: Connection) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(_receivers(count, slow, control))


async def _receivers(count: int, slow: int, control: Connection) -> None:
    loop = asyncio.get_running_loop()
    latencies: list[list[float]] = [[] for _ in range(count + slow)]
    servers = []
    for index in range(count + slow):
        is_slow = index >= count
        server = await loop.create_server(
            lambda i=index, s=is_slow: _Hook(i, latencies, s), "127.0.0.1", 0, backlog=1024
        )
        servers.append(server)
    control.send([s.sockets[0].getsockname()[1] for s in servers])
    done = asyncio.Event()

    def on_command() -> None:
        # The loop made the pipe non-blocking; the answers (all latencies) are large.
        os.set_blocking(control.fileno(), True)
        try:
            command = control.recv()
        except EOFError:
            # The parent is gone (stopped at a time limit, or killed): so are we. Left
            # registered, the pipe's end would call this again at once, forever.
            loop.remove_reader(control.fileno())
            done.set()
            return
        if command == "counts":
            control.send([len(items) for items in latencies])
        elif command == "latencies":
            control.send(latencies)
        elif command == "stop":
            control.send(latencies)
            done.set()

    loop.add_reader(control.fileno(), on_command)
    await done.wait()
    for server in servers:
        server.close()


# --- the service ----------------------------------------------------------------------------


@dataclass
class Service:
    process: subprocess.Popen[str]
    url: str
    database_url: str
    data_dir: Path


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "freightdesk.cli", *args]


def start_service(data_dir: Path, database_url: str) -> Service:
    process = subprocess.Popen(
        _cli(
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--database",
            database_url,
            "--log-level",
            "warning",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        raise SystemExit(f"the service did not start: {line!r}")
    url = found.group(0)
    deadline = time.monotonic() + 60
    while True:  # the line comes just before the server accepts connections
        try:
            if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise SystemExit("the service did not answer /health")
        time.sleep(0.1)
    return Service(process, url, database_url, data_dir)


@contextmanager
def receivers_and_service(
    database_url: str, data_dir: Path, endpoints: int, slow: int
) -> Iterator[tuple[Connection, list[int], Service, int]]:
    """The receivers' process (its control pipe, their ports and its pid) and the service,
    settled; both stopped afterwards."""
    parent, child = multiprocessing.get_context("spawn").Pipe()
    receivers = multiprocessing.get_context("spawn").Process(
        target=run_receivers, args=(endpoints, slow, child), daemon=True
    )
    receivers.start()
    ports: list[int] = parent.recv()
    service = start_service(data_dir, database_url)
    try:
        settle(service.url)
        yield parent, ports, service, receivers.pid or 0
    finally:
        service.process.terminate()
        service.process.wait(timeout=30)
        receivers.join(timeout=10)
        if receivers.is_alive():
            receivers.kill()


def token_for(service: Service, name: str) -> str:
    """A tenant with a client application, made on the service's database as the CLI does;
    returns a bearer token from the service."""
    engine = make_engine(service.database_url)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            tenant = ensure_tenant(session, name, f"admin-{name}", "bench-password").tenant
            app, secret = create_client_app(session, tenant.id, "bench")
            client_id = app.id
    finally:
        engine.dispose()
    answer = httpx.post(
        f"{service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    )
    answer.raise_for_status()
    return str(answer.json()["access_token"])


def _configure(http: httpx.Client, name: str, port: int) -> None:
    answer = http.put(
        "/api/v4/webhooks",
        json={
            "configName": name,
            "url": f"http://127.0.0.1:{port}/hook",
            "webhookConfiguration": {"webhookEventType": KIND},
        },
    )
    answer.raise_for_status()


def _shipments(http: httpx.Client, prefix: str, count: int) -> list[str]:
    made = []
    for n in range(count):
        answer = http.put(
            "/api/v4/shipments/tracking",
            json={
                "identifiers": [{"type": "BILL_OF_LADING", "value": f"{prefix}-{n:05d}"}],
                "plan": {"expectedTransportationModes": ["TL"]},
            },
        )
        answer.raise_for_status()
        made.append(str(answer.json()["id"]))
    return made


# --- one run ------------------------------------------------------------------------------------


@dataclass
class Figures:
    changes: int
    seconds: float
    expected: int
    delivered: int
    p50: float
    p95: float
    p99: float
    worst: float
    drained_after: float
    service_cpu: float
    receivers_cpu: float
    driver_cpu: float
    # CPU seconds of the whole machine (every process, both cores) and the wall time they
    # were counted over (load and drain).
    machine_cpu: float
    # Every PostgreSQL process (0 on SQLite): the service's and the load generator's backends.
    postgres_cpu: float
    window: float
    load_before: float
    load_after: float
    slow_delivered: int = 0
    # The floor: client CPU ms per request of a plain keep-alive socket to one receiver.
    plain_cpu_ms: float = float("nan")


def _chunks(items: list[str], count: int) -> list[list[str]]:
    size = len(items) // count
    return [items[i * size : (i + 1) * size] for i in range(count)]


def _machine_cpu() -> float:
    """CPU seconds all cores spent busy since boot (Linux /proc/stat: all but idle, iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _postgres_cpu(database_url: str) -> float:
    """CPU seconds so far of the PostgreSQL server of `database_url` (its postmaster, found
    by port, and every process it started: the backends); 0 for SQLite (Linux)."""
    if not database_url.startswith("postgresql"):
        return 0.0
    port = str(make_url(database_url).port or 5432)
    parents: dict[int, int] = {}
    server: int | None = None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        parents[int(entry.name)] = int(stat[1])
        if command[0].endswith(b"postgres") and port.encode() in command:
            server = int(entry.name)
    if server is None:
        return 0.0
    total = 0.0
    for pid, parent in parents.items():
        if pid == server or parent == server:
            try:
                total += _cpu_seconds(pid)
            except OSError:
                continue
    return total


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _percentile(values: Sequence[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(
    database_url: str,
    data_dir: Path,
    *,
    rate: int,
    seconds: int,
    endpoints: int,
    slow: int,
    spread: bool,
    writers: int = 1,
) -> Figures:
    """`spread` False: one tenant, every change to every endpoint. True: one tenant per
    endpoint, each change to its tenant's endpoint only."""
    with receivers_and_service(database_url, data_dir, endpoints, slow) as (
        parent,
        ports,
        service,
        receivers_pid,
    ):
        tenants = endpoints if spread else 1
        shipments: list[str] = []
        for tenant in range(tenants):
            token = token_for(service, f"bench-{tenant}")
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=service.url, headers=headers, timeout=30) as http:
                mine = ports[tenant : tenant + 1] if spread else ports[:endpoints]
                for index, port in enumerate(mine):
                    _configure(http, f"receiver-{index}", port)
                if tenant == 0:
                    for index, port in enumerate(ports[endpoints:]):
                        _configure(http, f"slow-{index}", port)
                shipments.extend(_shipments(http, f"BOL-{tenant}", 200 // tenants))
        # Changes go round the shipments, so tenants take turns in spread mode.
        shipments = [s for group in zip(*_chunks(shipments, tenants), strict=True) for s in group]
        load_before = os.getloadavg()[0]
        cpu_before = _cpu_seconds(service.process.pid)
        receivers_before = _cpu_seconds(receivers_pid)
        machine_before = _machine_cpu()
        postgres_before = _postgres_cpu(database_url)
        window_started = time.monotonic()
        driver_before = time.process_time()
        changes, drove = _drive(
            database_url, shipments, rate=rate, seconds=seconds, writers=writers
        )
        driver_cpu = time.process_time() - driver_before
        expected = changes if spread else changes * endpoints
        drain_started = time.monotonic()
        deadline = drain_started + 120
        while time.monotonic() < deadline:
            parent.send("counts")
            counts: list[int] = parent.recv()
            if sum(counts[:endpoints]) >= expected:
                break
            time.sleep(0.05)  # the drain time is a figure: asked often
        drained_after = time.monotonic() - drain_started
        service_cpu = _cpu_seconds(service.process.pid) - cpu_before
        receivers_cpu = _cpu_seconds(receivers_pid) - receivers_before
        machine_cpu = _machine_cpu() - machine_before
        postgres_cpu = _postgres_cpu(database_url) - postgres_before
        window = time.monotonic() - window_started
        load_after = os.getloadavg()[0]
        plain_cpu_ms = plain_sender_cpu_ms(ports[0])
        parent.send("stop")
        latencies: list[list[float]] = parent.recv()
    fast = [value for items in latencies[:endpoints] for value in items]
    return Figures(
        changes=changes,
        seconds=drove,
        expected=expected,
        delivered=len(fast),
        p50=statistics.median(fast) if fast else float("nan"),
        p95=_percentile(fast, 0.95),
        p99=_percentile(fast, 0.99),
        worst=max(fast) if fast else float("nan"),
        drained_after=drained_after,
        service_cpu=service_cpu,
        receivers_cpu=receivers_cpu,
        driver_cpu=driver_cpu,
        machine_cpu=machine_cpu,
        postgres_cpu=postgres_cpu,
        window=window,
        load_before=load_before,
        load_after=load_after,
        slow_delivered=sum(len(items) for items in latencies[endpoints:]),
        plain_cpu_ms=plain_cpu_ms,
    )


def plain_sender_cpu_ms(port: int, count: int = 3000) -> float:
    """Client CPU ms per request of a plain blocking keep-alive socket posting a body of a
    delivery's size to a receiver and reading its answer: the least a delivery can cost in
    Python here. The body has no createdDateTime, so the receiver does not count it."""
    body = b"{" + b'"x":"' + b"y" * (PLAIN_BODY_BYTES - 8) + b'"}'
    request = (
        f"POST /hook HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        started = time.process_time()
        for _ in range(count):
            sock.sendall(request)
            answer = b""
            while not answer.endswith(b"\r\n\r\n"):
                answer += sock.recv(4096)
        return (time.process_time() - started) * 1000 / count


def _drive(
    database_url: str, shipments: list[str], *, rate: int, seconds: int, writers: int
) -> tuple[int, float]:
    """Record `rate` shipment events per minute for `seconds`, one transaction each, from
    `writers` threads (each keeps to its own shipments, so every shipment's events stay in
    order); returns how many were made and in how long (a busy machine may not keep up)."""
    engine = make_engine(database_url)
    sessions = make_sessionmaker(engine)
    per_second = rate / 60.0
    started = time.monotonic()
    made = [0] * writers

    def write(lane: int) -> None:
        # Change n goes to writer n % writers, at its time n / per_second.
        n = lane
        while (elapsed := time.monotonic() - started) < seconds:
            wait = n / per_second - elapsed
            if wait > 0:
                time.sleep(wait)
                continue
            with transaction(sessions) as session:
                store.add_event(
                    session,
                    shipments[n % len(shipments)],
                    TrackedShipmentEvent(type="POSITION_REPORT", date_time=datetime.now(UTC)),
                    "TL",
                )
            made[lane] += 1
            n += writers

    threads = [threading.Thread(target=write, args=(lane,)) for lane in range(writers)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        engine.dispose()
    return sum(made), time.monotonic() - started


# --- idle: what the service costs while nothing happens, and how soon a change goes out ------


@dataclass
class Idle:
    seconds: float
    # CPU ms per second over the idle window: the service (and, on PostgreSQL, its database's
    # processes), and the minimal app idle beside it.
    service_cpu: float
    postgres_cpu: float
    minimal_cpu: float
    # Milliseconds from a change (its createdDateTime) to the receiver, each made after the
    # service sat idle: through the API, and written by another process (this one).
    api: list[float]
    other_process: list[float]
    # The floor: a plain POST of a delivery's body to the same receiver, wall ms.
    plain_ms: float
    load_before: float
    load_after: float


def run_idle(database_url: str, data_dir: Path, *, seconds: int, changes: int) -> Idle:
    """The service with one configuration and one shipment left alone for `seconds` beside
    the minimal app (CPU of both from /proc over the same window), then `changes` changes
    through its API and as many written by this process, each after 2 s of quiet."""
    pids: list[int] = []
    with receivers_and_service(database_url, data_dir, 1, 0) as (parent, ports, service, _pid):
        with (
            minimal_service(data_dir / "minimal", pids),
            httpx.Client(
                base_url=service.url,
                headers={"Authorization": f"Bearer {token_for(service, 'bench-idle')}"},
                timeout=30,
            ) as http,
        ):
            _configure(http, "receiver", ports[0])
            shipment = _shipments(http, "BOL-IDLE", 1)[0]
            # The OpenAPI document is built in the background a few seconds after start (1 to
            # 2 s of CPU, longer wall on a busy machine): asking for it waits for that build,
            # so the window measures the idle service, not its warm-up.
            assert http.get("/openapi.json", timeout=120).status_code == 200
            time.sleep(5.0)  # the start's remaining work (workers begin a second in) done
            load_before = os.getloadavg()[0]
            before = (_cpu_seconds(service.process.pid), _postgres_cpu(database_url))
            minimal_before = _cpu_seconds(pids[0])
            started = time.monotonic()
            time.sleep(seconds)
            window = time.monotonic() - started
            service_cpu = (_cpu_seconds(service.process.pid) - before[0]) * 1000 / window
            postgres_cpu = (_postgres_cpu(database_url) - before[1]) * 1000 / window
            minimal_cpu = (_cpu_seconds(pids[0]) - minimal_before) * 1000 / window
            events: list[dict[str, str]] = []

            def through_api() -> None:
                at = datetime.now(UTC).isoformat()
                events.append({"id": str(uuid.uuid4()), "type": "POSITION_REPORT", "dateTime": at})
                body = {"id": shipment, "plan": {"expectedTransportationModes": ["TL"]}}
                body["identifiers"] = [{"type": "BILL_OF_LADING", "value": "BOL-IDLE-00000"}]
                http.put("/api/v4/shipments/tracking", json={**body, "events": events})

            api = _one_by_one(parent, through_api, changes)
            engine = make_engine(database_url)
            sessions = make_sessionmaker(engine)

            def written() -> None:
                with transaction(sessions) as session:
                    event = TrackedShipmentEvent(
                        type="POSITION_REPORT", date_time=datetime.now(UTC)
                    )
                    store.add_event(session, shipment, event, "TL")

            try:
                other_process = _one_by_one(parent, written, changes)
            finally:
                engine.dispose()
        plain_ms = _plain_post_ms(ports[0])
        load_after = os.getloadavg()[0]
        parent.send("stop")
        parent.recv()
    return Idle(
        seconds=window,
        service_cpu=service_cpu,
        postgres_cpu=postgres_cpu,
        minimal_cpu=minimal_cpu,
        api=api,
        other_process=other_process,
        plain_ms=plain_ms,
        load_before=load_before,
        load_after=load_after,
    )


def _one_by_one(control: Connection, change: Callable[[], None], count: int) -> list[float]:
    """Make `count` changes, each after 2 s of quiet and once the last one arrived; returns
    the milliseconds from each change to its arrival, as the receiver saw them."""
    control.send("counts")
    arrived: int = control.recv()[0]
    for _ in range(count):
        time.sleep(2.0)
        change()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            control.send("counts")
            if control.recv()[0] > arrived:
                break
            time.sleep(0.005)
        arrived += 1
    control.send("latencies")
    latencies: list[float] = control.recv()[0]
    return [value * 1000 for value in latencies[-count:]]


def _plain_post_ms(port: int, count: int = 200) -> float:
    """Median wall ms of a plain POST of a delivery's body to the receiver on a fresh
    connection, as a delivery's floor."""
    body = b'{"x":"' + b"y" * (PLAIN_BODY_BYTES - 8) + b'"}'
    request = (
        f"POST /hook HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    times = []
    for _ in range(count):
        started = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(request)
            answer = b""
            while not answer.endswith(b"\r\n\r\n"):
                answer += sock.recv(4096)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _idle_figures(result: Idle, database: str) -> list[Figure]:
    load = (result.load_before + result.load_after) / 2
    window = f"{result.seconds:.0f} s, {database}"
    service = result.service_cpu + result.postgres_cpu
    with_db = " (with its PostgreSQL backends)" if result.postgres_cpu else ""
    figures = [
        Figure(
            "webhooks",
            f"idle service CPU{with_db}, ms per second over {window}",
            service,
            unit="ms/s",
            baseline=result.minimal_cpu,
            baseline_what="the minimal FastAPI app idle beside it",
            max_ratio=IDLE_CPU_MAX_RATIO,
            load=load,
        )
    ]
    for what, values in (
        ("through the API", result.api),
        ("by another process", result.other_process),
    ):
        figures.append(
            Figure(
                "webhooks",
                f"idle service: change {what} to its receiver, median of {len(values)} "
                f"[max {max(values):.0f} ms], {database}",
                statistics.median(values),
                baseline=result.plain_ms,
                baseline_what="a plain POST of the body to the receiver",
                limit=P95_SECONDS * 1000,
                load=load,
            )
        )
    return figures


# --- statements: what the wake-ups cost every route's statements and transactions ---------

# Statements and transactions per round, rounds (alternating the two engines).
STATEMENTS = 5000
TRANSACTIONS = 1000
STATEMENT_ROUNDS = 9
# The wake-ups are written by the domain functions that make work, not listened for on the
# engine: the service's engine must cost what a plain one does (noise: a few percent).
STATEMENT_MAX_RATIO = 1.1


def run_statements(data_dir: Path) -> tuple[list[Figure], str]:
    """Median microseconds of `SELECT 1` through a SQLAlchemy connection, and of a transaction
    of one through `db.transaction`, on the service's engine (`make_engine`) beside a plain
    engine on the same SQLite file, alternated round by round."""
    url = f"sqlite:///{data_dir / 'statements.sqlite3'}"
    ours = make_engine(url)
    plain = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
    one = text("SELECT 1")

    def statements(engine: Engine) -> float:
        with engine.connect() as connection:
            started = time.perf_counter()
            for _ in range(STATEMENTS):
                connection.execute(one)
            return (time.perf_counter() - started) * 1e6 / STATEMENTS

    def transactions(engine: Engine) -> float:
        sessions = make_sessionmaker(engine)
        started = time.perf_counter()
        for _ in range(TRANSACTIONS):
            with transaction(sessions) as session:
                session.execute(one)
        return (time.perf_counter() - started) * 1e6 / TRANSACTIONS

    load_before = os.getloadavg()[0]
    found: dict[tuple[str, str], list[float]] = {}
    try:
        for round_ in range(STATEMENT_ROUNDS + 1):
            for name, engine in (("ours", ours), ("plain", plain)):
                for kind, measure in (("statement", statements), ("transaction", transactions)):
                    value = measure(engine)
                    if round_:  # the first round warms both up
                        found.setdefault((kind, name), []).append(value)
    finally:
        ours.dispose()
        plain.dispose()
    load = (load_before + os.getloadavg()[0]) / 2
    listeners = sum(len(getattr(ours.dispatch, name)) for name in _CONNECTION_EVENTS)
    figures = [
        Figure(
            "webhooks",
            f"{what} on the service's engine, median of {STATEMENT_ROUNDS} rounds of {count:,}",
            statistics.median(found[(kind, "ours")]),
            unit="us",
            baseline=statistics.median(found[(kind, "plain")]),
            baseline_what="a plain create_engine on the same SQLite file",
            max_ratio=STATEMENT_MAX_RATIO,
            load=load,
        )
        for kind, what, count in (
            ("statement", "SELECT 1 through a SQLAlchemy connection", STATEMENTS),
            ("transaction", "a transaction of SELECT 1 through db.transaction", TRANSACTIONS),
        )
    ]
    return figures, f"statement listeners on the service's engine: {listeners}"


_CONNECTION_EVENTS = (
    "before_execute",
    "after_execute",
    "before_cursor_execute",
    "after_cursor_execute",
    "begin",
    "commit",
    "rollback",
)


def _report(title: str, figures: Figures, endpoints: int) -> None:
    achieved = figures.changes / figures.seconds * 60
    print(f"\n{title}")
    print(f"  changes: {figures.changes} in {figures.seconds:.1f} s ({achieved:,.0f} per minute)")
    print(
        f"  deliveries: {figures.delivered} of {figures.expected} to {endpoints} endpoints "
        f"({figures.delivered / (figures.seconds + figures.drained_after):,.0f} per second "
        "over load and drain); drained "
        f"{figures.drained_after:.1f} s after the load stopped"
    )
    print(
        f"  latency change -> receiver: p50 {figures.p50:.3f} s, p95 {figures.p95:.3f} s, "
        f"p99 {figures.p99:.3f} s, max {figures.worst:.3f} s"
    )
    if figures.delivered:
        print(
            f"  service CPU: {figures.service_cpu:.1f} s "
            f"({figures.service_cpu / figures.window:.0%} of a core over the "
            f"{figures.window:.1f} s of load and drain), "
            f"{figures.service_cpu / figures.delivered * 1000:.3f} ms per delivery"
        )
    ours = figures.service_cpu + figures.receivers_cpu + figures.driver_cpu + figures.postgres_cpu
    others = figures.machine_cpu - ours
    cores = os.cpu_count() or 1
    print(
        f"  receivers CPU: {figures.receivers_cpu:.1f} s "
        f"({figures.receivers_cpu / figures.window:.0%} of a core); load generator CPU: "
        f"{figures.driver_cpu:.1f} s ({figures.driver_cpu / figures.window:.0%}, "
        f"{figures.driver_cpu / max(1, figures.changes) * 1000:.2f} ms per change)"
        + (
            f"; PostgreSQL CPU: {figures.postgres_cpu:.1f} s "
            f"({figures.postgres_cpu / figures.window:.0%})"
            if figures.postgres_cpu
            else ""
        )
    )
    print(
        f"  machine: {figures.machine_cpu / figures.window:.0%} of one core busy of "
        f"{cores * 100}% ({max(0.0, others) / figures.window:.0%} by other processes); "
        f"load average {figures.load_before:.1f} before, {figures.load_after:.1f} after"
    )
    if figures.slow_delivered:
        print(f"  slow receiver ({SLOW_SECONDS:g} s per request) got {figures.slow_delivered}")


def _summary(figures: list[Figures]) -> None:
    """Medians over repeated runs."""

    def median(value: Any) -> float:
        return statistics.median(value(f) for f in figures)

    print(
        f"  median of {len(figures)}: "
        f"{median(lambda f: f.changes / f.seconds * 60):,.0f} changes per minute, "
        f"{median(lambda f: f.delivered / (f.seconds + f.drained_after)):,.0f} deliveries/s, "
        f"p95 {median(lambda f: f.p95):.3f} s, "
        f"service {median(lambda f: f.service_cpu / max(1, f.delivered) * 1000):.3f} ms CPU "
        f"per delivery ({median(lambda f: f.service_cpu / f.window):.0%} of a core), "
        f"receivers {median(lambda f: f.receivers_cpu / f.window):.0%}, "
        f"load generator {median(lambda f: f.driver_cpu / f.window):.0%}, machine "
        f"{median(lambda f: f.machine_cpu / f.window):.0%} of 200%"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rate", type=int, default=10_000, help="changes per minute")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--endpoints", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each setup (medians)")
    parser.add_argument(
        "--writers",
        type=int,
        default=1,
        help="threads recording changes (more keep the rate when the database answers "
        "slowly, as PostgreSQL on a busy machine does; 200 must divide by it)",
    )
    parser.add_argument("--database", help="PostgreSQL URL (default: a fresh SQLite file)")
    parser.add_argument(
        "--modes",
        default="all,spread,all-slow,spread-slow",
        help="all: one tenant, every change to every endpoint; spread: one tenant per "
        "endpoint, each change to one endpoint; -slow: plus a receiver taking 5 s per "
        "request that gets every change of the first tenant (default: all four); idle: the "
        "service's CPU while idle and how soon a change made then arrives; statements: what "
        "the service's engine costs a statement and a transaction beside a plain engine",
    )
    parser.add_argument("--no-slow", action="store_true", help="skip the -slow setups")
    parser.add_argument(
        "--idle-seconds", type=int, default=60, help="the idle setup's window of CPU"
    )
    parser.add_argument(
        "--idle-changes", type=int, default=10, help="the idle setup's changes of each kind"
    )
    args = parser.parse_args(argv)
    n = args.endpoints
    slow_title = f", plus a receiver taking {SLOW_SECONDS:g} s per request (first tenant)"
    setups = {
        "all": (f"one tenant, every change to each of {n} endpoints", False, 0),
        "spread": (f"{n} tenants, each change to its tenant's endpoint", True, 0),
        "all-slow": (f"one tenant, every change to each of {n} endpoints{slow_title}", False, 1),
        "spread-slow": (f"{n} tenants, each change to its tenant's endpoint{slow_title}", True, 1),
    }
    chosen = [m.strip() for m in args.modes.split(",") if m.strip()]
    published: list[Figure] = []
    for mode in chosen:
        if mode == "idle":
            published += _idle(args.database, args.idle_seconds, args.idle_changes)
            continue
        if mode == "statements":
            data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-webhooks-"))
            try:
                figures, listeners = run_statements(data_dir)
            finally:
                shutil.rmtree(data_dir, ignore_errors=True)
            print(f"\n{listeners}")
            published += figures
            continue
        if mode not in setups:
            parser.error(f"unknown mode {mode!r} (use {', '.join(setups)})")
        title, spread, slow = setups[mode]
        if slow and args.no_slow:
            continue
        results: list[Figures] = []
        for _ in range(args.repeat):
            data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-webhooks-"))
            try:
                url = args.database or f"sqlite:///{data_dir / 'bench.sqlite3'}"
                if args.database:
                    url = _fresh_postgres(args.database)
                figures = run(
                    url,
                    data_dir,
                    rate=args.rate,
                    seconds=args.seconds,
                    endpoints=n,
                    slow=slow,
                    spread=spread,
                    writers=args.writers,
                )
                _report(title, figures, n)
                results.append(figures)
            finally:
                shutil.rmtree(data_dir, ignore_errors=True)
        if len(results) > 1:
            _summary(results)
        published += _figures(mode, results, rate=args.rate, endpoints=n)
    publish(published)
    return 0


def _idle(database: str | None, seconds: int, changes: int) -> list[Figure]:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-webhooks-"))
    try:
        url = _fresh_postgres(database) if database else f"sqlite:///{data_dir / 'bench.sqlite3'}"
        result = run_idle(url, data_dir, seconds=seconds, changes=changes)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"\nidle ({result.seconds:.0f} s): service {result.service_cpu:.2f} ms/s", end="")
    print(f" (+ PostgreSQL {result.postgres_cpu:.2f})" if database else "", end="")
    print(f", minimal app {result.minimal_cpu:.2f} ms/s")
    for what, values in (("API", result.api), ("other process", result.other_process)):
        print(f"  change {what} -> receiver ms: {', '.join(f'{v:.0f}' for v in values)}")
    return _idle_figures(result, "PostgreSQL" if database else "SQLite")


def _figures(mode: str, results: list[Figures], *, rate: int, endpoints: int) -> list[Figure]:
    """The medians over the runs of one setup, as figures for the common table."""

    def median(value: Any) -> float:
        return float(statistics.median(value(f) for f in results))

    load = median(lambda f: (f.load_before + f.load_after) / 2)
    runs = f", median of {len(results)}" if len(results) > 1 else ""
    what = f"{mode} ({endpoints} endpoints, {rate:,} changes/min, {results[0].seconds:.0f} s)"
    delivered = median(lambda f: f.delivered)
    expected = median(lambda f: f.expected)
    figures = [
        Figure(
            "webhooks",
            f"{what}: changes recorded per minute{runs}",
            median(lambda f: f.changes / f.seconds * 60),
            unit="/min",
            limit=0.99 * rate,
            higher_is_better=True,
            load=load,
        ),
        Figure(
            "webhooks",
            f"{what}: deliveries made ({delivered:,.0f} of {expected:,.0f}){runs}",
            100 * median(lambda f: f.delivered / max(1, f.expected)),
            unit="%",
            limit=100.0,
            higher_is_better=True,
            load=load,
            note=f"{median(lambda f: f.delivered / (f.seconds + f.drained_after)):,.0f}/s",
        ),
        Figure(
            "webhooks",
            f"{what}: all delivered after the load stopped{runs}",
            median(lambda f: f.drained_after),
            unit="s",
            limit=DRAIN_SECONDS,
            load=load,
        ),
        Figure(
            "webhooks",
            f"{what}: change to receiver, p95{runs}",
            median(lambda f: f.p95),
            unit="s",
            limit=P95_SECONDS,
            load=load,
            note=f"p50 {median(lambda f: f.p50):.3f} s, p99 {median(lambda f: f.p99):.3f} s",
        ),
        Figure(
            "webhooks",
            f"{what}: service CPU per delivery{runs}",
            median(lambda f: f.service_cpu / max(1, f.delivered) * 1000),
            baseline=median(lambda f: f.plain_cpu_ms),
            baseline_what="a plain keep-alive socket's CPU per request to the same receiver",
            limit=CPU_PER_DELIVERY_MS[mode.split("-")[0]],
            load=load,
            note=f"{median(lambda f: f.service_cpu / f.window):.0%} of a core",
        ),
    ]
    if any(f.slow_delivered for f in results):
        figures.append(
            Figure(
                "webhooks",
                f"{what}: requests the {SLOW_SECONDS:g} s receiver got{runs}",
                median(lambda f: f.slow_delivered),
                unit="",
                load=load,
            )
        )
    return figures


def _fresh_postgres(url: str) -> str:
    """A new database on the given server, so every run starts empty."""
    from sqlalchemy import create_engine, text

    from freightdesk.server.settings import normalize_database_url

    base = normalize_database_url(url)
    name = f"fd_bench_{uuid.uuid4().hex[:8]}"
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    head, _, _ = base.rpartition("/")
    return f"{head}/{name}"


if __name__ == "__main__":
    raise SystemExit(main())
