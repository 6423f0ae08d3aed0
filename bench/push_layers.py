"""Where a push's time goes on the event loop: the app called in-process, layer by layer.

Run by `bench_push --layers` on the database its service used (tenant, token and shipments
made), after that service stopped:

    python -m bench.push_layers DATA_DIR DATABASE_URL TOKEN BOLS_JSON [--pushes 3000] [--rounds 5]

The service's app is built in this process (push processing off) and called directly, without
a socket, with one truckload push after another, from the whole app down each layer of its
middleware stack to the push operation alone. The intake's group commit is left out (its
`accept` returns at once): what is left is the event loop's own work for one push, the part
that competes with uvicorn's reading and writing for the one interpreter. Prints, per layer,
the best of the rounds' CPU microseconds a push, as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message

from freightdesk.server.app import create_app
from freightdesk.server.domain import push_intake
from freightdesk.server.settings import ServerSettings

PUSH_PATH = "/services/carrier-push/v1/tracking-updates"


def _body(bol: str, n: int) -> bytes:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86400 + n))
    position = {"latitude": 41.5, "longitude": -87.6, "speed": 55, "heading": 90}
    readings = {"dateTime": stamp, "position": {**position, "speedUnit": "MILES_PER_HOUR"}}
    push = {"truckload": {"identifiers": {"billOfLadingNumber": bol}, "readings": readings}}
    return json.dumps(push, separators=(",", ":")).encode()


def _scope(app: ASGIApp, token: str, body: bytes) -> dict[str, Any]:
    """What uvicorn gives the app for wrk's push."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": PUSH_PATH,
        "raw_path": PUSH_PATH.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"authorization", f"Bearer {token}".encode()),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "app": app,
    }


async def _accepted_at_once(self: push_intake.IngestionQueue, row: dict[str, Any]) -> None:
    """The intake without its commit."""


# Where the calls start, beside the whole app and the push operation: our two middlewares,
# and the first of FastAPI's layers inside them (then its routing).
_ENTRIES = {
    "RequestPlumbing": "from RequestPlumbing (ours)",
    "BodyLimits": "from BodyLimits (ours)",
    "ExceptionMiddleware": "from FastAPI's inner layers and routing",
}


def _layers(app: Any) -> list[tuple[str, ASGIApp]]:
    """Where to call in: the whole app, the layers of `_ENTRIES` (outermost first), the push
    operation alone."""
    layers: list[tuple[str, ASGIApp]] = [("whole app (FastAPI and Starlette's outer layers)", app)]
    layer = app.middleware_stack
    while layer is not None:
        if (name := _ENTRIES.get(type(layer).__name__)) is not None:
            layers.append((name, layer))
        layer = getattr(layer, "app", None)
    route = next(r for r in app.router.routes if getattr(r, "path", None) == PUSH_PATH)
    layers.append(("the push operation alone", route.app))
    return layers


async def measure(
    data_dir: Path, database_url: str, token: str, bols: list[str], pushes: int, rounds: int
) -> dict[str, float]:
    settings = ServerSettings.from_options(data_dir=data_dir, database_url=database_url)
    app = create_app(dataclasses.replace(settings, process_pushes=False))
    push_intake.IngestionQueue.accept = _accepted_at_once  # type: ignore[method-assign]
    bodies = [_body(bols[n % len(bols)], n) for n in range(pushes)]
    statuses: dict[int, int] = {}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses[message["status"]] = statuses.get(message["status"], 0) + 1

    best: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        await app(_scope(app, token, bodies[0]), _receiver(bodies[0]), send)  # builds the stack
        layers = _layers(app)
        for _ in range(rounds):
            for name, layer in layers:
                statuses.clear()
                started = time.process_time()
                for body in bodies:
                    await layer(_scope(app, token, body), _receiver(body), send)
                cpu = (time.process_time() - started) / pushes * 1e6
                if statuses != {202: pushes}:
                    raise RuntimeError(f"{name} answered {statuses}")
                best[name] = min(best.get(name, cpu), cpu)
    return best


def _receiver(body: bytes) -> Any:
    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("database_url")
    parser.add_argument("token")
    parser.add_argument("bols")
    parser.add_argument("--pushes", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    found = asyncio.run(
        measure(
            args.data_dir,
            args.database_url,
            args.token,
            json.loads(args.bols),
            args.pushes,
            args.rounds,
        )
    )
    print(json.dumps(found))


if __name__ == "__main__":
    main()
