"""Truckload push ingestion: accepted updates per second and processing latency.

Starts the real service (`freightdesk serve`, a subprocess on a fresh SQLite database or on the
PostgreSQL URL given), creates a tenant and N shipments with bill of lading numbers, then drives
POST /services/carrier-push/v1/tracking-updates with `wrk` (Debian package `wrk`; a pool of
asyncio httpx clients in other processes when wrk is missing). Each push carries a position for
one of the shipments. When the load stops, the benchmark waits until every accepted push is
processed and reads, from the database, how long each one took from acceptance to processing.

    python -m bench.bench_push [--shipments 200] [--seconds 20] [--connections 64]
                               [--postgres | --database postgresql://...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy import create_engine, func, select

from freightdesk.server.tables.push import PushIngestion

PUSH_PATH = "/services/carrier-push/v1/tracking-updates"

_WRK_SCRIPT = """
local bols = {BOLS}
-- Positions a day old and one second apart, so that no two pushes share an instant.
local start = os.time() - 86400
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer {TOKEN}"
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


@dataclass
class Service:
    process: subprocess.Popen[str]
    url: str
    database_url: str


def _freightdesk(*args: str) -> list[str]:
    return [sys.executable, "-m", "freightdesk.cli", *args]


# `freightdesk serve` with the collector tuned (see --gc-tuned): the objects alive after
# start-up are frozen out of the collector and young collections happen far less often.
_TUNED_SERVE = """
import gc, sys
import freightdesk.server.app
from freightdesk.cli import main
gc.collect()
gc.freeze()
gc.set_threshold(20_000, 10, 10)
sys.exit(main(sys.argv[1:]))
"""


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


def start_service(data_dir: Path, database_url: str, *, gc_tuned: bool = False) -> Service:
    options = ["--port", "0", "--data-dir", str(data_dir), "--database", database_url]
    options += ["--log-level", "warning"]
    command = (
        [sys.executable, "-c", _TUNED_SERVE, "serve", *options]
        if gc_tuned
        else _freightdesk("serve", *options)
    )
    process, url = spawn_serve(command)
    deadline = time.monotonic() + 60
    while True:  # the socket is bound before uvicorn listens on it
        try:
            httpx.get(f"{url}/docs", timeout=5)
            break
        except httpx.TransportError:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.1)
    return Service(process, url, database_url)


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


def drive_with_wrk(
    service: Service,
    token: str,
    bols: list[str],
    seconds: int,
    connections: int,
    every: int = 0,
) -> tuple[int, int, float]:
    """(accepted, refused, elapsed seconds) of a wrk run."""
    script = _WRK_SCRIPT.format(
        BOLS="{" + ",".join(json.dumps(b) for b in bols) + "}",
        TOKEN=token,
        PATH=PUSH_PATH,
        EVERY=every,
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    try:
        result = subprocess.run(
            [
                "wrk",
                "-t1",
                f"-c{connections}",
                f"-d{seconds}s",
                "--latency",
                "--timeout",
                "10s",
                "-s",
                handle.name,
                service.url,
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        os.unlink(handle.name)
    total = int(re.search(r"(\d+) requests in", result).group(1))  # type: ignore[union-attr]
    elapsed_text = re.search(r"requests in ([\d.]+)(m?s)", result)
    assert elapsed_text is not None
    elapsed = float(elapsed_text.group(1)) * (60 if elapsed_text.group(2) == "m" else 1)
    refused_match = re.search(r"Non-2xx or 3xx responses: (\d+)", result)
    refused = int(refused_match.group(1)) if refused_match else 0
    print(result.strip())
    return total - refused, refused, elapsed


def drive_with_httpx(
    service: Service, token: str, bols: list[str], seconds: int, connections: int
) -> tuple[int, int, float]:
    """The fallback generator: two processes of asyncio httpx clients."""
    code = _HTTPX_DRIVER
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                code,
                service.url,
                token,
                json.dumps(bols),
                str(seconds),
                str(max(1, connections // 2)),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    accepted = refused = 0
    for proc in procs:
        out, _ = proc.communicate()
        ok, bad = out.split()
        accepted += int(ok)
        refused += int(bad)
    return accepted, refused, float(seconds)


_HTTPX_DRIVER = """
import asyncio, json, sys, time
from datetime import UTC, datetime
import httpx
url, token, bols = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
seconds, conns = float(sys.argv[4]), int(sys.argv[5])
stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
counts = [0, 0]
async def one(client, i):
    end = time.monotonic() + seconds
    n = i
    while time.monotonic() < end:
        n += conns
        position = {"latitude": 41.5, "longitude": -87.6}
        body = {"truckload": {"identifiers": {"billOfLadingNumber": bols[n % len(bols)]},
                "readings": {"dateTime": stamp, "position": position}}}
        r = await client.post("/services/carrier-push/v1/tracking-updates", json=body)
        counts[0 if r.status_code == 202 else 1] += 1
async def main():
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": "Bearer " + token},
                                 limits=httpx.Limits(max_connections=conns), timeout=30) as c:
        await asyncio.gather(*(one(c, i) for i in range(conns)))
asyncio.run(main())
print(counts[0], counts[1])
"""


def wait_processed(database_url: str, timeout: float) -> tuple[list[float], dict[str, int]]:
    """Seconds from acceptance to processing of every push, once none is pending, and the
    number of pushes by status."""
    engine = create_engine(database_url)
    deadline = time.monotonic() + timeout
    try:
        while True:
            with engine.connect() as conn:
                pending = conn.scalar(
                    select(func.count())
                    .select_from(PushIngestion)
                    .where(PushIngestion.status == "PENDING")
                )
            if not pending or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        with engine.connect() as conn:
            rows = conn.execute(
                select(PushIngestion.received_at, PushIngestion.processed_at, PushIngestion.status)
            ).all()
    finally:
        engine.dispose()
    statuses: dict[str, int] = {}
    for row in rows:
        statuses[row.status] = statuses.get(row.status, 0) + 1
    print(f"ingestions by status: {statuses}")
    latencies = [
        (row.processed_at - row.received_at).total_seconds()
        for row in rows
        if row.processed_at is not None
    ]
    return latencies, statuses


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shipments", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--database", help="a PostgreSQL URL (default: a fresh SQLite file)")
    parser.add_argument(
        "--postgres", action="store_true", help="start a throwaway PostgreSQL (initdb) and use it"
    )
    parser.add_argument("--generator", choices=["auto", "wrk", "httpx"], default="auto")
    parser.add_argument(
        "--gc-tuned",
        action="store_true",
        help="start the service with gc.freeze() and gc.set_threshold(20000, 10, 10)",
    )
    parser.add_argument(
        "--event-every",
        type=int,
        default=0,
        help="every Nth push also carries a stop arrival or departure (wrk only; 0: none)",
    )
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="fd-bench-push-"))
    postgres = None
    if args.postgres:
        from tests.support import PostgresServer

        postgres = PostgresServer()
        postgres.start()
        args.database = postgres.create_database()
    database_url = args.database or f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    if database_url.startswith("postgresql://"):
        database_url = "postgresql+psycopg://" + database_url.removeprefix("postgresql://")
    service = start_service(data_dir, database_url, gc_tuned=args.gc_tuned)
    try:
        token = cli_tenant_token(
            service.url,
            f"bench-{int(time.time())}",
            ["--data-dir", str(data_dir), "--database", database_url],
        )
        bols = make_shipments(service, token, args.shipments) if args.shipments else ["NO-MATCH"]
        use_wrk = args.generator == "wrk" or (
            args.generator == "auto" and shutil.which("wrk") is not None
        )
        wait_idle(service.process.pid)
        print(f"driving load for {args.seconds} s at {service.url}", flush=True)
        cpu_before = cpu_seconds(service.process.pid)
        if use_wrk:
            accepted, refused, elapsed = drive_with_wrk(
                service, token, bols, args.seconds, args.connections, args.event_every
            )
        else:
            accepted, refused, elapsed = drive_with_httpx(
                service, token, bols, args.seconds, args.connections
            )
        latencies, _ = wait_processed(database_url, timeout=60)
        service_cpu = cpu_seconds(service.process.pid) - cpu_before
    finally:
        service.process.terminate()
        service.process.wait(timeout=30)
        shutil.rmtree(data_dir, ignore_errors=True)
        if postgres is not None:
            postgres.stop()

    database = "PostgreSQL" if database_url.startswith("postgresql") else "SQLite"
    print(
        f"\n{database}, {args.shipments} shipments, {args.connections} connections, "
        f"generator {'wrk' if use_wrk else 'httpx'}, {os.cpu_count()} cores, "
        f"events: {f'every {args.event_every}th push' if args.event_every else 'none'}, "
        f"collector: {'tuned' if args.gc_tuned else 'default'}"
    )
    print(
        f"accepted: {accepted} in {elapsed:.1f} s = {accepted / elapsed:.0f}/s; refused {refused}"
    )
    print(
        f"service CPU: {service_cpu:.1f} s = {service_cpu / max(accepted, 1) * 1e6:.0f} us "
        "per push, acceptance and processing together"
    )
    if latencies:
        print(
            "processing latency: "
            f"p50 {statistics.median(latencies) * 1000:.0f} ms, "
            f"p95 {percentile(latencies, 0.95) * 1000:.0f} ms, "
            f"max {max(latencies) * 1000:.0f} ms over {len(latencies)} pushes"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
