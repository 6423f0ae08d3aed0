"""Bounded connections: uvicorn's HTTP/1.1 protocol (h11) with two guards of its own.

- A request's headers must be complete within `header_timeout_seconds` of the connection's
  opening, or of the first byte of the request when the connection is kept alive; otherwise
  the service answers 408 with the Error body and closes the connection. (uvicorn bounds the
  idle time between requests, `timeout_keep_alive`, but not a request's headers that stop
  halfway; its `limit_concurrency` counts all connections of all clients, answering 503 to
  everyone once reached, so it is not used.)
- At most `connections_per_address` connections are open at once from one address other than
  loopback; one more is answered 503 with the Error body and closed. Loopback is not counted:
  it is the desktop app, or a reverse proxy that speaks for every client.

A request h11 cannot read (a malformed request line or header, or a head longer than h11's
16 KiB) is answered 400 with the Error body, like every other refusal, not uvicorn's plain text.

An answer goes out in as few socket writes as it can: uvicorn writes the status line and
headers in one write and each body chunk in another, and every write lets go of the GIL
(issue 18: two writes per push answer were 17% of the service's busy time under load). Here
the head is held until the first body chunk and written with it, and with the end of the
message when that chunk is the last: one write for an answer of one chunk. Streamed answers
(downloads, large lists) still go out a chunk at a time, the head with the first.

The body's own bound (a minimum rate, 408) is server/body_limits.py's.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import sys
from http import HTTPStatus

import h11
from uvicorn._types import ASGISendEvent
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

from freightdesk.models.errors import ErrorBody
from freightdesk.server.settings import ServerSettings


def connection_protocol(settings: ServerSettings) -> type[asyncio.Protocol]:
    """The protocol class for uvicorn.Config(http=...), for one server of these settings."""

    class Guarded(_GuardedH11):
        header_timeout = settings.header_timeout_seconds
        per_address = settings.connections_per_address
        open_by_address: dict[str, int] = {}

    return Guarded


def is_loopback_peer(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a Unix socket's peer, say: not a network address
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)


def raw_error(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 answer with the Error body, for answers outside any request cycle."""
    phrase = HTTPStatus(status).phrase
    body = json.dumps(
        ErrorBody(http_status_code=status, http_message=phrase, error_message=message).wire()
    ).encode()
    head = (
        f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class _GuardedH11(H11Protocol):
    header_timeout: float
    per_address: int
    open_by_address: dict[str, int]

    _header_timer: asyncio.TimerHandle | None = None
    _counted: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if host is not None and not is_loopback_peer(host):
            count = self.open_by_address.get(host, 0)
            if count >= self.per_address:
                self._close_with(
                    503, f"More than {self.per_address} connections from {host} at once"
                )
                return
            self.open_by_address[host] = count + 1
            self._counted = host
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            if self._header_timer is None:  # the first bytes of a request kept alive
                self._arm()
        else:
            self._disarm()

    def handle_events(self) -> None:
        super().handle_events()
        # uvicorn makes each request's cycle here, by its module's class name; its task has not
        # run yet, so the app is given this cycle's `send`, which holds the head (see above).
        cycle = self.cycle
        if cycle is not None and type(cycle) is RequestResponseCycle:
            cycle.__class__ = _OneWriteCycle

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._counted is not None:
            left = self.open_by_address.get(self._counted, 1) - 1
            if left > 0:
                self.open_by_address[self._counted] = left
            else:
                self.open_by_address.pop(self._counted, None)
            self._counted = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_late)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._close_with(
                408, f"The request's headers did not arrive within {self.header_timeout:g} s"
            )

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this inside its `except h11.RemoteProtocolError`, whose message says
        # what was wrong ("Receive buffer too long", "illegal request line").
        error = sys.exc_info()[1]
        detail = f": {error}" if isinstance(error, h11.RemoteProtocolError) else ""
        self._close_with(400, f"The request could not be read as HTTP/1.1{detail}")

    def _close_with(self, status: int, message: str) -> None:
        self.transport.write(raw_error(status, message))
        self.transport.close()


class _HeadHolder(asyncio.Transport):
    """Stands in for the transport while uvicorn writes a response's head: keeps the bytes."""

    def __init__(self, transport: asyncio.Transport) -> None:
        super().__init__()
        self.transport = transport
        self.head = b""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.head += data

    def is_closing(self) -> bool:
        return self.transport.is_closing()


class _OneWriteCycle(RequestResponseCycle):
    """uvicorn's request cycle, writing the head with the first body chunk (one write)."""

    _head = b""

    async def send(self, message: ASGISendEvent) -> None:
        if message["type"] == "http.response.start" and not self.response_started:
            # uvicorn's own code builds the head (default headers, Connection: close, the
            # access log); only its write is held.
            transport = self.transport
            holder = _HeadHolder(transport)
            self.transport = holder
            try:
                await super().send(message)
            finally:
                self.transport = transport
            self._head = holder.head
            return
        head = self._head
        if not head or message["type"] != "http.response.body" or self.response_complete:
            await super().send(message)  # also its errors for messages out of order
            return
        self._head = b""
        # As uvicorn's send for a body chunk, with the held head in front of it.
        if self.flow.write_paused and not self.disconnected:
            await self.flow.drain()
        if self.disconnected:
            return
        body = b"" if self.scope["method"] == "HEAD" else message.get("body", b"")
        output = head + self.conn.send(event=h11.Data(data=body))
        if not message.get("more_body", False):
            self.response_complete = True
            self.message_event.set()
            output += self.conn.send(event=h11.EndOfMessage())
        self.transport.write(output)
        if self.response_complete:
            if self.conn.our_state is h11.MUST_CLOSE or not self.keep_alive:
                self.conn.send(event=h11.ConnectionClosed())
                self.transport.close()
            self.on_response()
