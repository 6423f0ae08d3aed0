"""The delivery HTTP/1.1 client against scripted receivers on loopback, and keep-alive in the
live service's deliveries."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from freightdesk.server.webhooks.http11 import Answer, Origin, Pool, TransportError
from tests.server.test_tracking_support import air_body, create
from tests.server.test_webhooks_delivery import configure, deliveries
from tests.server.test_webhooks_support import eventually, tuned
from tests.support import LiveService, TenantHandle

REQUEST = (
    b"POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 2\r\n\r\n{}"
)
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Scripted:
    """A receiver that answers each request with the next scripted bytes; `close_after`
    closes the connection after that answer. Counts connections."""

    def __init__(self, answers: list[bytes], close_after: bool = False, drip: bool = False):
        self.answers = list(answers)
        self.close_after = close_after
        self.drip = drip
        self.connections = 0
        self.requests = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> Scripted:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *_exc: Any) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.answers:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                self.requests += 1
                answer = self.answers.pop(0)
                if self.drip:
                    for index in range(len(answer)):
                        writer.write(answer[index : index + 1])
                        await writer.drain()
                else:
                    writer.write(answer)
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def _send(pool: Pool, times: int = 1) -> list[Answer]:
    answers = []
    for _ in range(times):
        async with asyncio.timeout(5):
            answers.append(await pool.request(REQUEST, connect_timeout=2))
    return answers


def _run(answers: list[bytes], times: int, **script: Any) -> tuple[list[Answer], Scripted]:
    async def scenario() -> tuple[list[Answer], Scripted]:
        async with Scripted(answers, **script) as receiver:
            pool = Pool(Origin("127.0.0.1", receiver.port))
            try:
                got = await _send(pool, times)
                # The event loop notices a receiver that closed an idle connection.
                await asyncio.sleep(0.05)
                return got, receiver
            finally:
                pool.close()

    return asyncio.run(scenario())


def test_keep_alive_reuses_one_connection() -> None:
    answers, receiver = _run([OK] * 3, 3)
    assert [(a.status, a.body) for a in answers] == [(200, b"ok")] * 3
    assert receiver.connections == 1


def test_a_chunked_answer_is_read_to_its_end_and_the_connection_kept() -> None:
    chunked = (
        b"HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n"
        b"Retry-After: 7\r\n\r\n4;ext=1\r\nboom\r\n3\r\n!!!\r\n0\r\nX-Trailer: yes\r\n\r\n"
    )
    answers, receiver = _run([chunked, OK], 2)
    assert (answers[0].status, answers[0].body) == (500, b"boom!!!")
    assert answers[0].headers["retry-after"] == "7"
    assert answers[1].status == 200 and receiver.connections == 1


def test_an_answer_split_into_single_bytes_is_parsed() -> None:
    chunked = b"HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
    answers, receiver = _run([chunked, OK], 2, drip=True)
    assert [(a.status, a.body) for a in answers] == [(202, b"hi"), (200, b"ok")]
    assert receiver.connections == 1


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
    ],
)
def test_an_answer_that_ends_the_connection_is_not_reused(answer: bytes) -> None:
    answers, receiver = _run([answer, answer], 2, close_after=True)
    assert [a.status for a in answers] == [200, 200] and receiver.connections == 2


def test_interim_answers_are_skipped() -> None:
    answers, _receiver = _run([b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"], 1)
    assert (answers[0].status, answers[0].body) == (204, b"")


def test_an_answer_without_length_ends_with_the_connection() -> None:
    answers, receiver = _run([b"HTTP/1.1 200 OK\r\n\r\nhello", OK], 2, close_after=True)
    assert [(a.status, a.body) for a in answers] == [(200, b"hello"), (200, b"ok")]
    assert receiver.connections == 2


def test_a_long_answer_is_cut_short_and_its_connection_dropped() -> None:
    long = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 200000\r\n\r\n" + b"x" * 200_000
    answers, receiver = _run([long, OK], 2)
    assert answers[0].status == 400 and answers[0].body == b"x" * 1024
    assert answers[1].status == 200 and receiver.connections == 2


def test_a_connection_the_receiver_closed_while_idle_is_replaced() -> None:
    # Keep-alive answers, but the receiver closes each connection after one request.
    answers, receiver = _run([OK, OK], 2, close_after=True)
    assert [a.status for a in answers] == [200, 200] and receiver.connections == 2


def test_bytes_beyond_the_answer_make_the_connection_unusable() -> None:
    answers, receiver = _run([OK + b"HTTP/1.1 200 OK\r\n", OK], 2)
    assert [a.status for a in answers] == [200, 200] and receiver.connections == 2


def test_not_http_is_a_transport_error() -> None:
    with pytest.raises(TransportError, match="HTTP"):
        _run([b"SSH-2.0-OpenSSH\r\n\r\n"], 1)


def test_a_closed_port_is_refused() -> None:
    async def scenario() -> None:
        async with Scripted([]) as receiver:
            port = receiver.port
        pool = Pool(Origin("127.0.0.1", port))
        await _send(pool)

    with pytest.raises(OSError):
        asyncio.run(scenario())


# --- keep-alive in the live service ------------------------------------------------------------


class _KeepAlive(ThreadingHTTPServer):
    daemon_threads = True
    connections = 0
    closed = 0  # connections the receiver has closed
    bodies: list[bytes]
    counting = threading.Lock()  # handlers run in threads of their own


@pytest.fixture
def keep_alive() -> Iterator[_KeepAlive]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 0.5  # an idle connection is closed by the receiver after half a second

        def setup(self) -> None:
            super().setup()
            with server.counting:
                server.connections += 1

        def finish(self) -> None:
            super().finish()
            with server.counting:
                server.closed += 1

        def do_POST(self) -> None:
            server.bodies.append(self.rfile.read(int(self.headers["content-length"])))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = _KeepAlive(("127.0.0.1", 0), Handler)
    server.bodies = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_deliveries_reuse_connections_and_survive_the_receiver_closing_them(
    tenant: TenantHandle, service: LiveService, keep_alive: _KeepAlive
) -> None:
    port = keep_alive.server_address[1]
    with tuned(service):
        config = configure(tenant, f"http://127.0.0.1:{port}/hook", "shipments.v1.shipment.created")
        for n in range(6):
            create(tenant, air_body(f"020-4000000{n}"))
        eventually(lambda: len(keep_alive.bodies) == 6)
        # The receiver has closed every connection (idle half a second).
        eventually(lambda: keep_alive.closed == keep_alive.connections)
        create(tenant, air_body("020-40000070"))
        eventually(lambda: len(keep_alive.bodies) == 7)
        log = eventually(
            lambda: (
                (found := deliveries(tenant, config["id"])["deliveries"])
                and all(d["status"] == "DELIVERED" for d in found)
                and found
            )
        )
    # Every message at its first attempt, over fewer connections than messages.
    assert len(log) == 7 and all(d["attemptCount"] == 1 for d in log)
    assert keep_alive.connections < 7
