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

The body's own bound (a minimum rate, 408) is server/body_limits.py's.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import sys
from http import HTTPStatus

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

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
