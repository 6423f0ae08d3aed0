"""Socket writes of the service's answers (issue 18): an answer of one body chunk goes out in
one write, its head with its body; a streamed download still goes out a chunk at a time.

Every write lets go of the GIL, so two writes per push answer cost the service 17% of its busy
time under load. The service runs as in the other tests (its app, its uvicorn protocol), and
its connections' transports note each write they are given, by the client's port.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from freightdesk.server.settings import ServerSettings
from tests.server.test_carrier_push_support import TRUCKLOAD, truckload_body, unique
from tests.server.test_documents import upload
from tests.server.test_documents_limits import read_response
from tests.support import DATABASES, LiveService, TenantHandle, make_tenant, new_database

# Written by the service's thread, read by the test's once its answer has been read whole.
WRITES: dict[int, list[bytes]] = {}


class _NotedTransport:
    """The connection's transport, noting what it is asked to write (an empty write is none:
    the transport makes no system call for it)."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        peer = transport.get_extra_info("peername")
        self._writes = WRITES.setdefault(int(peer[1]), [])

    def write(self, data: bytes) -> None:
        if data:
            self._writes.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


@pytest.fixture(scope="module", params=DATABASES)
def noted(request: pytest.FixtureRequest) -> Iterator[LiveService]:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-svc-"))
    url = new_database(request, request.param) or f"sqlite:///{data_dir / 'fd.sqlite3'}"
    service = LiveService(ServerSettings(data_dir=data_dir, database_url=url))
    config = service._server.config  # the service's own protocol, its transport noted
    protocol: Any = config.http

    class Noted(protocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(_NotedTransport(transport))

    config.http = Noted
    service.start()
    try:
        yield service
    finally:
        service.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def tenant(noted: LiveService) -> Iterator[TenantHandle]:
    handle = make_tenant(noted)
    yield handle
    handle.http.close()


def _answer(service: LiveService, request: bytes) -> tuple[bytes, list[bytes]]:
    """The whole answer to `request` on a connection of its own, and the writes it took."""
    with socket.create_connection(("127.0.0.1", service.port), timeout=30) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request)
        head, body = read_response(sock, 30)
        writes = WRITES.pop(sock.getsockname()[1], [])
    return head + b"\r\n\r\n" + body, writes


def _get(tenant: TenantHandle, path: str) -> bytes:
    token = tenant.http.headers["authorization"]
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {token}\r\n\r\n".encode()


def test_an_answer_of_one_body_goes_out_in_one_write(tenant: TenantHandle) -> None:
    body = json.dumps(truckload_body(unique("BOL"))).encode()
    token = tenant.http.headers["authorization"]
    push = (
        f"POST {TRUCKLOAD} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    for request, status in (
        (push, b"HTTP/1.1 202 "),
        (_get(tenant, "/health"), b"HTTP/1.1 200 "),
        (_get(tenant, "/services/document/v1/documents/nothing-here"), b"HTTP/1.1 4"),
    ):
        answer, writes = _answer(tenant.service, request)
        assert answer.startswith(status), answer
        assert b"x-support-reference-id: " in answer
        assert writes == [answer], f"{len(writes)} writes: {writes!r}"


def test_a_streamed_download_still_goes_out_a_chunk_at_a_time(tenant: TenantHandle) -> None:
    # Larger than a chunk of either store (64 KiB from a file, 1 MiB from the database).
    content = bytes(range(256)) * (10 * 1024)  # 2.5 MiB
    [stored] = upload(tenant.http, content=content).json()["files"]
    answer, writes = _answer(tenant.service, _get(tenant, stored["downloadLink"]))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    assert body == content
    assert len(writes) >= 3, f"{len(writes)} writes"
    assert b"".join(writes) == answer
    # The head goes with the first chunk, not after the whole file.
    assert writes[0].startswith(head) and len(writes[0]) < len(answer) // 2
