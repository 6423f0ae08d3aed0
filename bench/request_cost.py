"""The service's own CPU per request: its app called in-process, beside a minimal FastAPI app.

    python -m bench.request_cost [--documents 300] [--requests 300] [--rounds 4] [--profile N]

The service's app is built in this process on a fresh SQLite database (no workers), with a
tenant, a client application's bearer token and `--documents` small documents. Then each
request below is sent to it directly (no socket, no uvicorn: an ASGI call), `--requests`
times a round, and beside it the minimal app of bench/minimal_service.py answering the same
bytes, called the same way. Prints, per request, the best round's CPU microseconds a request
(process time) for both and the ratio, with the load average. What a keep-alive request costs
the service's interpreter, without the HTTP server's part and the scheduling noise of a
benchmark over HTTP (issue 18); `--profile N` also prints cProfile's top N of our service's
requests.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import json
import os
import pstats
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request, Response
from starlette.types import ASGIApp, Message

from bench.bench_documents import PATH, QUERIES, metadata
from freightdesk.server.app import create_app
from freightdesk.server.db import transaction
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
from freightdesk.server.settings import ServerSettings

SMALL_LIST = "/api/v4/capacityprovideraccountgroups"
IDENTIFIER = "by identifier (BILL_OF_LADING)"


@dataclasses.dataclass(frozen=True)
class Call:
    """One request: method, path, query, JSON body or None."""

    method: str
    path: str
    query: bytes = b""
    body: bytes | None = None


CALLS = {
    "GET /health": Call("GET", "/health"),
    "GET account groups": Call("GET", SMALL_LIST),
    f"search {IDENTIFIER}": Call(
        "POST", f"{PATH}/search", body=json.dumps(QUERIES[IDENTIFIER][0]).encode()
    ),
    "search, page 1 of everything": Call("POST", f"{PATH}/search", body=b"{}"),
}


def minimal_app() -> FastAPI:
    """bench/minimal_service.py's canned answers, in this process."""
    app = FastAPI()
    canned: dict[str, bytes] = {}

    @app.api_route("/canned/{key}", methods=["GET", "POST"])
    async def canned_answer(key: str, request: Request) -> Response:
        await request.body()
        return Response(canned[key], media_type="application/json")

    app.state.canned = canned
    return app


def scope(app: ASGIApp, call: Call, token: str) -> dict[str, Any]:
    """What uvicorn gives an app for this request from httpx."""
    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"accept", b"*/*"),
        (b"accept-encoding", b"gzip, deflate"),
        (b"connection", b"keep-alive"),
        (b"user-agent", b"python-httpx/0.28.1"),
        (b"authorization", f"Bearer {token}".encode()),
    ]
    if call.body is not None:
        headers += [
            (b"content-length", str(len(call.body)).encode()),
            (b"content-type", b"application/json"),
        ]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": call.method,
        "scheme": "http",
        "path": call.path,
        "raw_path": call.path.encode(),
        "query_string": call.query,
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


class Answer:
    """What one call answered."""

    def __init__(self) -> None:
        self.status = 0
        self.body = b""

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")


async def call(app: ASGIApp, request: Call, token: str) -> Answer:
    body = request.body or b""

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    answer = Answer()
    await app(scope(app, request, token), receive, answer.send)
    return answer


async def cpu_per_request(
    app: ASGIApp, request: Call, token: str, count: int, profile: cProfile.Profile | None = None
) -> float:
    """Microseconds of process time a request, over `count` requests."""
    if profile is not None:
        profile.enable()
    started = time.process_time()
    for _ in range(count):
        answer = await call(app, request, token)
        if answer.status != 200:
            raise RuntimeError(f"{request.path} answered {answer.status}: {answer.body[:200]!r}")
    spent = time.process_time() - started
    if profile is not None:
        profile.disable()
    return spent / count * 1e6


async def prepared(data_dir: Path, documents: int) -> tuple[FastAPI, str]:
    """The service's app on a fresh database with `documents` documents; a bearer token."""
    settings = ServerSettings.from_options(
        data_dir=data_dir, database_url=f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    )
    app = create_app(dataclasses.replace(settings, process_pushes=False))
    context = app.state.context
    with transaction(context.sessions) as session:
        tenant = ensure_tenant(session, "bench", "admin-bench", "bench").tenant
        client, secret = create_client_app(session, tenant.id, "bench")
        client_id = client.id
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        answer = await http.post(
            "/api/v4/oauth2/token",
            data={
                "grant_type": "client_credentials",
                "client_id": client_id,
                "client_secret": secret,
            },
        )
        answer.raise_for_status()
        token = str(answer.json()["access_token"])
        http.headers["Authorization"] = f"Bearer {token}"
        for i in range(1, documents + 1):
            files = {"upload_file": (f"doc-{i}.pdf", f"%PDF {i}".encode(), "application/pdf")}
            stored = await http.post(PATH, data={"document": metadata(i)}, files=files)
            stored.raise_for_status()
    return app, token


async def measure(args: argparse.Namespace, data_dir: Path) -> None:
    app, token = await prepared(data_dir, args.documents)
    floor = minimal_app()
    canned: dict[str, bytes] = floor.state.canned
    floor_calls: dict[str, Call] = {}
    calls = {name: request for name, request in CALLS.items() if args.only in name}
    for name, request in calls.items():
        answer = await call(app, request, token)
        assert answer.status == 200, (name, answer.status, answer.body[:200])
        key = f"k{len(canned)}"
        canned[key] = answer.body
        floor_calls[name] = dataclasses.replace(request, path=f"/canned/{key}")
    best: dict[str, list[float]] = {name: [float("inf"), float("inf")] for name in calls}
    profile = cProfile.Profile() if args.profile else None
    load_before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, request in calls.items():
            ours = await cpu_per_request(app, request, token, args.requests, profile)
            theirs = await cpu_per_request(floor, floor_calls[name], token, args.requests)
            best[name] = [min(best[name][0], ours), min(best[name][1], theirs)]
    load_after = os.getloadavg()[0]
    print(
        f"CPU per request, in-process, best of {args.rounds} x {args.requests}, "
        f"{args.documents} documents, load {load_before:.1f} to {load_after:.1f}:"
    )
    for name, (ours, theirs) in best.items():
        print(f"  {name}: {ours:.0f} us; minimal app {theirs:.0f} us; {ours / theirs:.2f}x")
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--requests", type=int, default=300, help="requests of each kind a round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's top N")
    parser.add_argument("--only", default="", help="only the requests whose name has this")
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="fd-request-cost-"))
    try:
        asyncio.run(measure(args, data_dir))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
