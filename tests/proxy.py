"""A real reverse proxy in front of the local service that can be told to misbehave.

It forwards every request to its upstream over HTTP; the tests script faults: error statuses,
malformed bodies, slow answers, dropped connections. A fault may be answered by the proxy
itself (`forward=False`: the service never sees the request, as behind a failing gateway), and
a request held back (`delay`) whose client gives up meanwhile, or that is still held when the
proxy stops, is not forwarded at all. An answer may be held until the test releases it
(`hold`). The proxy counts what it was asked (`count`) and what it answered (`answered`), so a
test says "asked again once" or "no answer reached the client" instead of timing it. Used to
test the client's transport policy and the service layer's calm under a bad network, without
mocking our own components.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from tests.support import free_port


@dataclass
class Fault:
    status: int | None = None
    body: bytes | None = None
    delay: float = 0.0
    path_prefix: str = ""
    late: float = 0.0  # held back after the upstream answered: a stale answer arriving late
    headers: dict[str, str] = field(default_factory=dict)  # on a status answered by the proxy
    method: str = ""  # only requests of this method ("" any)
    forward: bool = True  # False: the proxy answers `status`/`body` without asking upstream
    drop: bool = False  # the connection is cut halfway through the answer's body
    # The upstream's answer is held until this is set (or the client gives up, or the proxy
    # stops): an answer that arrives late, when the test says.
    hold: threading.Event | None = None


class _Dropped(Response):
    """An answer whose connection is cut after its headers and the start of its body: what a
    client sees when the service dies while answering."""

    def __init__(self) -> None:
        super().__init__(b"", status_code=200, media_type="application/json")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"4096")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"partial', "more_body": True})
        # The server closes the connection of an application failing after it began answering.
        raise ConnectionAbortedError("the test proxy dropped the connection mid-answer")


class _GaveUp(Response):
    """The answer to a request held back whose client has gone: nobody reads it."""

    def __init__(self) -> None:
        super().__init__(b"gave up", status_code=499)


class FaultyProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.faults: deque[Fault] = deque()
        self.requests: list[tuple[str, str]] = []
        # Wall-clock arrival of each request (same order), to compare with an HTTP-date.
        self.arrivals: list[float] = []
        # What each request carried (same order): a test checks the exact body a form sent.
        self.bodies: list[bytes] = []
        # Every whole answer given to a client still waiting (the proxy's own included):
        # (method, path, status), in the order given.
        self.answers: list[tuple[str, str, int]] = []
        self.delay = 0.0
        self._lock = threading.Lock()
        app = Starlette(
            routes=[
                Route(
                    "/{path:path}",
                    self._forward,
                    methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
                )
            ]
        )
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_config=None, access_log=False
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="faulty-proxy", daemon=True)

    def start(self) -> FaultyProxy:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("proxy did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def inject(self, fault: Fault, times: int = 1) -> None:
        with self._lock:
            self.faults.extend([fault] * times)

    def count(self, method: str, path: str) -> int:
        with self._lock:
            return sum(1 for m, p in self.requests if m == method and p == path)

    def answered(self, method: str, path: str) -> int:
        """How many whole answers to `method path` reached a client still waiting (a request
        whose client gave up while held, or cut by a `drop` fault, is not one)."""
        with self._lock:
            return sum(1 for m, p, _status in self.answers if m == method and p == path)

    def arrived(self, method: str, path: str) -> list[float]:
        """When each `method path` request arrived (time.time()), oldest first."""
        with self._lock:
            return [
                at
                for (m, p), at in zip(self.requests, self.arrivals, strict=True)
                if m == method and p == path
            ]

    def sent(self, method: str, path: str) -> list[Any]:
        """The JSON bodies of the `method path` requests, oldest first."""
        with self._lock:
            return [
                json.loads(body)
                for (m, p), body in zip(self.requests, self.bodies, strict=True)
                if m == method and p == path and body
            ]

    def clear(self) -> None:
        """No more faults: every request from now on is forwarded as it is."""
        with self._lock:
            self.faults.clear()

    def _next_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in list(self.faults):
                if path.startswith(fault.path_prefix) and fault.method in ("", method):
                    self.faults.remove(fault)
                    return fault
        return None

    async def _forward(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        arrived = time.time()
        body = await request.body()
        with self._lock:
            self.requests.append((request.method, path))
            self.arrivals.append(arrived)
            self.bodies.append(body)
        response = await self._answer(request, path, body)
        if not isinstance(response, _GaveUp | _Dropped):
            with self._lock:
                self.answers.append((request.method, path, response.status_code))
        return response

    async def _answer(self, request: Request, path: str, body: bytes) -> Response:
        fault = self._next_fault(request.method, path)
        delay = self.delay + (fault.delay if fault else 0.0)
        if delay and not await self._hold(request, delay):
            return _GaveUp()
        if fault is not None and fault.drop:
            return _Dropped()
        if fault is not None and fault.status is not None and fault.body is None:
            return Response(b"upstream trouble", status_code=fault.status, headers=fault.headers)
        if fault is not None and not fault.forward:
            return Response(
                fault.body or b"", status_code=fault.status or 200, headers=fault.headers
            )
        headers = {
            k: v for k, v in request.headers.items() if k.lower() not in {"host", "content-length"}
        }
        async with httpx.AsyncClient(base_url=self.upstream, timeout=60) as client:
            # Every value of a repeated parameter (`statuses=A&statuses=B`), not only its last.
            params = request.query_params.multi_items()
            upstream = await client.request(
                request.method, path, params=params, content=body, headers=headers
            )
        if fault is not None and fault.late:
            await asyncio.sleep(fault.late)
        if fault is not None and fault.hold and not await self._held(request, fault.hold):
            return _GaveUp()
        content = upstream.content if fault is None or fault.body is None else fault.body
        status = upstream.status_code if fault is None or fault.status is None else fault.status
        passed = {
            k: v
            for k, v in upstream.headers.items()
            if k.lower() not in {"content-length", "content-encoding", "transfer-encoding"}
        }
        return Response(content, status_code=status, headers=passed)

    async def _held(self, request: Request, release: threading.Event) -> bool:
        """Wait until `release` is set; False as soon as the client has given up or the proxy
        is stopping."""
        while not release.is_set():
            if self._server.should_exit or await request.is_disconnected():
                return False
            await asyncio.sleep(0.02)
        return True

    async def _hold(self, request: Request, seconds: float) -> bool:
        """Wait `seconds` before answering; False as soon as the client has given up or the
        proxy is stopping (so a slow answer never outlives the test that asked for it)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._server.should_exit or await request.is_disconnected():
                return False
            await asyncio.sleep(min(0.05, left))
        return True
