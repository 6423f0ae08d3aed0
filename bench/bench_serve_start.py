"""Time from starting `freightdesk serve` on an existing database to its first answers.

Prepares a data directory once (the demo seeded by a first `serve --demo`, a client
application registered with `freightdesk client rotate --demo`, a bearer token), then restarts
the service several times exactly as the desktop app starts it (`python -m freightdesk.cli
serve --demo --log-level warning`, service/local_service.py) on a port chosen here, and polls it
every 5 ms from the moment the process is started (not from its "listening" line). For each
restart it records:

- /health: wall time from the process start to the first 200 answer of GET /health, and the
  CPU time (user + system, from /proc) the service had used by then. /health is a route of the
  application itself: it answers only once every area's routes are mounted, the lifespan has
  run (workers started) and the socket accepts connections.
- authenticated: the same for the first 200 answer of an authenticated GET asked right after
  (bearer token, the account groups list: token check, middleware, a database query).

and prints the medians over the restarts with the machine's load average. The target is the
first answer within 1.5 s.

Python compiles a module that has no up-to-date bytecode on every import when it may not write
any (PYTHONDONTWRITEBYTECODE=1, as on the shared development machine): about 140 of our
modules, a large part of a start. An installed FreightDesk has bytecode (pip compiles at
install, PyInstaller bundles it), so both are measured: "as installed" gives the service a
private bytecode cache under the data directory (PYTHONPYCACHEPREFIX, warmed by the first
start), "no bytecode" runs with PYTHONDONTWRITEBYTECODE=1 and no cache.

    python -m bench.bench_serve_start --sizes [--runs 7]  (empty and 1 GB databases; --quick: 3)
    python -m bench.bench_serve_start [--runs 7] [--data-dir DIR] [--no-demo] [--simulate]
                                      [--case both|installed|no-bytecode]
                                      [--client CLIENT_ID:SECRET]  (an existing database)
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.report import Figure, publish

CLI = [sys.executable, "-m", "freightdesk.cli"]
AUTHENTICATED_PATH = "/api/v4/capacityprovideraccountgroups"
CLIENT_NAME = "bench-serve-start"
TARGET_SECONDS = 1.5
# Issue 18: empty and 1 GB databases, each within 2 s.
SIZE_TARGET_SECONDS = 2.0


@dataclass(frozen=True)
class Start:
    health_wall: float
    health_cpu: float
    auth_wall: float
    auth_cpu: float


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def environment(data_dir: Path, bytecode: bool) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(data_dir / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def serve_command(data_dir: Path, port: int, *, demo: bool, simulate: bool) -> list[str]:
    command = [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--data-dir", str(data_dir), "--log-level", "warning"]
    if demo:
        command.append("--demo")
    if simulate:
        command.append("--simulate")
    return command


@contextmanager
def serving(command: list[str], data_dir: Path, env: dict[str, str]) -> Iterator[int]:
    """The service running `command`; yields its process id."""
    with (data_dir / "bench-serve.stderr").open("wb") as stderr:
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=stderr, stdin=subprocess.DEVNULL, env=env
        )
        try:
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def first_ok(http: httpx.Client, path: str, pid: int, deadline: float) -> None:
    """Ask every 5 ms until the answer is 200."""
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            raise RuntimeError("freightdesk serve exited; see bench-serve.stderr")
        try:
            if http.get(path).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.005)
    raise RuntimeError(f"no 200 answer to {path} in time")


def client(port: int) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)


def prepare(data_dir: Path, *, demo: bool, credentials: str | None) -> str:
    """Seed the data directory if it has no database yet; returns a bearer token of the
    given client application (CLIENT_ID:SECRET), or else of one registered for the demo."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = environment(data_dir, bytecode=True)
    if credentials is None:
        if not (data_dir / "freightdesk.sqlite3").exists():
            print(f"seeding the demo into {data_dir} (once) ...", flush=True)
            port = free_port()
            command = serve_command(data_dir, port, demo=True, simulate=False)
            with serving(command, data_dir, env) as pid, client(port) as http:
                first_ok(http, "/health", pid, time.monotonic() + 600)
        answer = subprocess.run(
            [*CLI, "client", "rotate", "--demo", CLIENT_NAME, "--data-dir", str(data_dir)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        found = re.search(r"client id (\S+), client secret (\S+)", answer.stdout)
        if found is None:
            raise RuntimeError(f"no client credentials in {answer.stdout!r}")
        client_id, secret = found.group(1), found.group(2)
    else:
        client_id, _, secret = credentials.partition(":")
    port = free_port()
    # Tokens are kept in the database, so one taken now serves every restart. This start
    # also fills the bytecode cache of the "as installed" runs.
    command = serve_command(data_dir, port, demo=demo, simulate=False)
    with serving(command, data_dir, env) as pid, client(port) as http:
        first_ok(http, "/health", pid, time.monotonic() + 120)
        token = http.post(
            "/api/v4/oauth2/token",
            data={
                "grant_type": "client_credentials",
                "client_id": client_id,
                "client_secret": secret,
            },
        )
        token.raise_for_status()
        return str(token.json()["access_token"])


def one_start(data_dir: Path, bearer: str, env: dict[str, str], args: argparse.Namespace) -> Start:
    port = free_port()
    command = serve_command(data_dir, port, demo=not args.no_demo, simulate=args.simulate)
    with client(port) as http:
        http.headers["Authorization"] = f"Bearer {bearer}"
        started = time.perf_counter()
        with serving(command, data_dir, env) as pid:
            deadline = time.monotonic() + 120
            first_ok(http, "/health", pid, deadline)
            health = time.perf_counter() - started, cpu_seconds(pid)
            first_ok(http, AUTHENTICATED_PATH, pid, deadline)
            auth = time.perf_counter() - started, cpu_seconds(pid)
    return Start(health[0], health[1], auth[0], auth[1])


def report(title: str, starts: list[Start]) -> None:
    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:6.0f} ms  (min {min(values) * 1000:.0f})"

    print(title)
    print(f"  {'first 200 of GET /health, wall':44} {ms([s.health_wall for s in starts])}")
    print(f"  {'  service CPU until then':44} {ms([s.health_cpu for s in starts])}")
    print(f"  {'first 200 of an authenticated GET, wall':44} {ms([s.auth_wall for s in starts])}")
    print(f"  {'  service CPU until then':44} {ms([s.auth_cpu for s in starts])}")


def import_baseline() -> float:
    """Wall seconds of `python -c "import fastapi, sqlalchemy"`: the floor of any start."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import fastapi, sqlalchemy"], check=True)
    return time.perf_counter() - started


def empty_database(data_dir: Path) -> str:
    """A database with a tenant and a client application but no shipments (made once);
    returns CLIENT_ID:SECRET."""
    marker = data_dir / "bench-client.txt"
    if marker.exists():
        return marker.read_text().strip()
    from freightdesk.server.app import build_context
    from freightdesk.server.db import transaction
    from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
    from freightdesk.server.settings import ServerSettings, sqlite_url

    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "freightdesk.sqlite3"
    context = build_context(ServerSettings(data_dir=data_dir, database_url=sqlite_url(path)))
    try:
        with transaction(context.sessions) as session:
            tenant = ensure_tenant(session, "bench", "bench-admin", "bench-password").tenant
            app, secret = create_client_app(session, tenant.id, CLIENT_NAME)
            credentials = f"{app.id}:{secret}"
    finally:
        context.engine.dispose()
    marker.write_text(credentials)
    return credentials


def by_size(runs: int) -> list[Figure]:
    """`serve` (as installed, without --demo) on an empty database and on the tracking
    benchmark's 1 GB one (100,000 shipments, 2 million positions; seeded once under /tmp),
    interleaved with the import baseline run by run."""
    from bench import bench_tracking

    big_dir = Path("/tmp/freightdesk-bench-tracking")
    seeded = bench_tracking.seed(big_dir, 100_000, 20)
    empty_dir = Path("/tmp/freightdesk-bench-serve-empty")
    cases = {
        "empty database": (empty_dir, empty_database(empty_dir)),
        "1 GB database (100,000 shipments)": (
            big_dir,
            f"{seeded.client_id}:{seeded.client_secret}",
        ),
    }
    bearers = {
        name: prepare(folder, demo=False, credentials=client)
        for name, (folder, client) in cases.items()
    }
    size = (big_dir / "freightdesk.sqlite3").stat().st_size / 1e9
    print(f"1 GB database: {size:.2f} GB")
    options = argparse.Namespace(no_demo=True, simulate=False)
    baseline: list[float] = []
    starts: dict[str, list[Start]] = {name: [] for name in cases}
    loads: list[float] = []
    for _ in range(runs):
        baseline.append(import_baseline())
        for name, (folder, _client) in cases.items():
            env = environment(folder, bytecode=True)
            starts[name].append(one_start(folder, bearers[name], env, options))
        loads.append(os.getloadavg()[0])
    floor = statistics.median(baseline)
    load = statistics.median(loads)
    figures = []
    for name, found in starts.items():
        report(f"{name} (as installed, no --demo)", found)
        for what, values in (
            ("first 200 of GET /health", [s.health_wall for s in found]),
            ("first 200 of an authenticated GET", [s.auth_wall for s in found]),
        ):
            figures.append(
                Figure(
                    "serve_start",
                    f"{name}: {what}, median of {runs}",
                    statistics.median(values),
                    unit="s",
                    baseline=floor,
                    baseline_what='python -c "import fastapi, sqlalchemy"',
                    limit=SIZE_TARGET_SECONDS,
                    load=load,
                )
            )
        figures.append(
            Figure(
                "serve_start",
                f"{name}: service CPU until the authenticated answer",
                statistics.median(s.auth_cpu for s in found),
                unit="s",
                load=load,
            )
        )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        action="store_true",
        help="an empty and a 1 GB database against the import baseline (issue 18)",
    )
    parser.add_argument("--quick", action="store_true", help="--sizes with 3 runs")
    parser.add_argument("--runs", type=int, default=7, help="restarts per case (default 7)")
    parser.add_argument("--data-dir", default="/tmp/freightdesk-bench-serve-start")
    parser.add_argument("--no-demo", action="store_true", help="start without --demo")
    parser.add_argument("--simulate", action="store_true", help="start with --simulate")
    parser.add_argument(
        "--case", choices=["both", "installed", "no-bytecode"], default="both", help="default both"
    )
    parser.add_argument(
        "--client",
        metavar="CLIENT_ID:SECRET",
        help="a client application of an existing database (instead of seeding the demo)",
    )
    args = parser.parse_args()
    if args.sizes or args.quick:
        publish(by_size(3 if args.quick else args.runs))
        return 0
    data_dir = Path(args.data_dir)
    bearer = prepare(data_dir, demo=not args.no_demo, credentials=args.client)
    flags = " ".join(serve_command(data_dir, 0, demo=not args.no_demo, simulate=args.simulate))
    print(f"{flags.split(' -m ', 1)[1]}, {args.runs} restarts per case")
    load = os.getloadavg()
    cores = os.cpu_count()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {cores} cores")
    for title, bytecode in (("as installed (bytecode cached)", True), ("no bytecode", False)):
        if args.case != "both" and bytecode != (args.case == "installed"):
            continue
        env = environment(data_dir, bytecode)
        starts = [one_start(data_dir, bearer, env, args) for _ in range(args.runs)]
        report(title, starts)
    load = os.getloadavg()
    print(f"load average after:  {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"target: first answer within {TARGET_SECONDS * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
