"""A small HTTP/1.1 client for deliveries: keep-alive connections per receiver, nothing else.

Deliveries are the service's hottest path (thousands of requests a second when one change fans
out to many configurations). A general client costs about 0.5 ms of CPU per request (httpx:
URL and header models, cookie handling, checking every pooled socket before reuse); this one
writes pre-built bytes to an asyncio transport and parses the answer as it arrives, about a
tenth of that. It does what a webhook needs and no more: one request at a time per connection,
answers framed by Content-Length, chunked encoding or the end of the connection, TLS (with a
client certificate for MTLS), HTTP proxies (below), no redirects, no cookies, no compression.

Through an HTTP proxy (`Origin.proxy`; which one is `proxies`' business): TLS receivers are
reached through a CONNECT tunnel, with TLS to the receiver inside it, checked as on a direct
connection; plain-HTTP requests are written to the proxy as the caller made them (absolute-form
target and Proxy-Authorization: the caller's bytes). A connection, tunnelled or not, serves one
receiver, so keep-alive works per (proxy, receiver) as it does per receiver. A proxy that
refuses (a CONNECT answered other than 2xx, or 407 to a forwarded request) raises ProxyError
naming its status, so the attempt fails as a connection failure, not as the receiver's answer.

A pooled connection the receiver closed is noticed by the event loop (connection_lost) and
dropped; if a reused connection dies before any byte of the answer arrives, the request is
sent once more on a fresh connection (the receiver may then see it twice: deliveries are at
least once, and receivers deduplicate by `webhook-id`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

# The start of an answer's body kept for the delivery log.
KEEP_BYTES = 1024
# An answer longer than this is not read to its end; its connection is closed instead.
MAX_BODY_BYTES = 64 * 1024
MAX_HEAD_BYTES = 64 * 1024
# Idle connections kept per receiver beyond those in use.
_IDLE_LIMIT = 32


class TransportError(Exception):
    """The request could not be completed (connection refused or lost, bad answer)."""


class ConnectTimeout(TransportError):
    """No connection within the connect timeout."""


class ProxyError(TransportError):
    """The proxy could not be reached or refused to carry the request (its status named)."""


class Closed(TransportError):
    """The connection ended before any byte of the answer (a reused one may be stale)."""


@dataclass(frozen=True)
class Answer:
    status: int
    # Lower-case names; the last value of a repeated header.
    headers: dict[str, str]
    # The start of the body (KEEP_BYTES at most).
    body: bytes


@dataclass(frozen=True)
class Proxy:
    """An HTTP proxy (http:// only: the connection to the proxy itself is plain)."""

    host: str
    port: int
    # The whole Proxy-Authorization header line (CRLF included), or nothing.
    authorization: bytes = b""

    @property
    def name(self) -> str:
        """For messages and the log: never the credentials."""
        return _authority(self.host, self.port)


@dataclass(frozen=True)
class Origin:
    """Where requests go: host, port and TLS (None for http); through `proxy` when given.

    `resolve` (host, port), when given, is asked at each new connection for the addresses to
    connect to (it checks them: `targets`), which are then used as they are, without another
    look-up; through a proxy it is asked only to check the host (the proxy resolves it)."""

    host: str
    port: int
    tls: ssl.SSLContext | None = None
    server_hostname: str | None = None
    proxy: Proxy | None = None
    resolve: Callable[[str, int], Awaitable[list[str]]] | None = None


def _authority(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


_HEAD, _LENGTH, _CHUNK_SIZE, _CHUNK_DATA, _CHUNK_END, _TRAILERS, _UNTIL_CLOSE, _DONE = range(8)


@dataclass
class _Parse:
    """The answer being read."""

    state: int = _HEAD
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    keep: bytearray = field(default_factory=bytearray)
    remaining: int = 0
    seen: int = 0
    reusable: bool = True
    # The answer to a CONNECT: it ends with its head (what follows belongs to the tunnel).
    tunnel: bool = False


class _Connection(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport subclasses
        self.closed = False
        self._buffer = bytearray()
        self._parse = _Parse()
        self._waiter: asyncio.Future[Answer] | None = None
        self._started = False  # a byte of the current answer arrived

    # --- asyncio callbacks ---

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self._waiter is None or self._parse.state == _DONE:
            # Bytes nobody asked for: the connection cannot be trusted any more.
            self.close()
            return
        self._started = True
        self._buffer += data
        try:
            self._advance()
        except TransportError as exc:
            self._fail(exc)

    def eof_received(self) -> bool:
        if self._waiter is not None and self._parse.state == _UNTIL_CLOSE:
            self._parse.reusable = False
            self._finish()
        return False  # let the transport close

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._waiter is not None and not self._waiter.done():
            if self._parse.state == _UNTIL_CLOSE:
                self._parse.reusable = False
                self._finish()
            elif self._started:
                self._waiter.set_exception(
                    TransportError("the receiver closed the connection during its answer")
                )
            else:
                early = Closed("the receiver closed the connection")
                early.__cause__ = exc  # a TLS alert (a client certificate refused), a reset
                self._waiter.set_exception(early)

    # --- use ---

    async def exchange(self, request: bytes, *, tunnel: bool = False) -> Answer:
        loop = asyncio.get_running_loop()
        self._waiter = waiter = loop.create_future()
        self._parse = _Parse()  # (a keyword argument here costs 0.25 us a request)
        if tunnel:
            self._parse.tunnel = True
        self._buffer.clear()
        self._started = False
        try:
            self.transport.write(request)
            answer: Answer = await waiter
            return answer
        except BaseException:
            # Cancelled (timeout) or failed: an answer may still come; never reuse this one.
            self.close()
            raise
        finally:
            self._waiter = None

    @property
    def reusable(self) -> bool:
        return not self.closed and self._parse.reusable

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    # --- parsing ---

    def _fail(self, exc: TransportError) -> None:
        self.close()
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc)

    def _finish(self) -> None:
        parse = self._parse
        parse.state = _DONE
        if self._buffer:
            parse.reusable = False  # more than one answer to one request
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(Answer(parse.status, parse.headers, bytes(parse.keep)))

    def _body(self, data: bytes | bytearray) -> None:
        parse = self._parse
        parse.seen += len(data)
        if len(parse.keep) < KEEP_BYTES:
            parse.keep += data[: KEEP_BYTES - len(parse.keep)]
        if parse.seen > MAX_BODY_BYTES:
            # Not worth reading further: answer with what we have, drop the connection.
            parse.reusable = False
            self._finish()

    def _take_body(self, buffer: bytearray) -> bool:
        """Take what is buffered of the current body part (a length or a chunk); False when
        there is nothing to take or the answer ended meanwhile (too long to read on)."""
        parse = self._parse
        if not buffer:
            return False
        piece = buffer[: parse.remaining]
        del buffer[: len(piece)]
        parse.remaining -= len(piece)
        self._body(piece)
        return parse.state != _DONE

    def _advance(self) -> None:
        parse = self._parse
        buffer = self._buffer
        while parse.state != _DONE:
            if parse.state == _HEAD:
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    if len(buffer) > MAX_HEAD_BYTES:
                        raise TransportError("the answer's headers are too long")
                    return
                head = bytes(buffer[:end])
                del buffer[: end + 4]
                self._head(head)
            elif parse.state == _LENGTH:
                if not self._take_body(buffer):
                    return
                if parse.remaining == 0:
                    self._finish()
            elif parse.state == _CHUNK_SIZE:
                end = buffer.find(b"\r\n")
                if end < 0:
                    if len(buffer) > 1024:
                        raise TransportError("a bad chunk size in the answer")
                    return
                line = bytes(buffer[:end]).split(b";", 1)[0].strip()
                del buffer[: end + 2]
                try:
                    size = int(line, 16)
                except ValueError:
                    raise TransportError("a bad chunk size in the answer") from None
                if size < 0:
                    raise TransportError("a bad chunk size in the answer")
                parse.remaining = size
                parse.state = _CHUNK_DATA if size else _TRAILERS
            elif parse.state == _CHUNK_DATA:
                if not self._take_body(buffer):
                    return
                if parse.remaining == 0:
                    parse.state = _CHUNK_END
            elif parse.state == _CHUNK_END:
                if len(buffer) < 2:
                    return
                if buffer[:2] != b"\r\n":
                    raise TransportError("a chunk of the answer does not end with CRLF")
                del buffer[:2]
                parse.state = _CHUNK_SIZE
            elif parse.state == _TRAILERS:
                end = buffer.find(b"\r\n")
                if end < 0:
                    if len(buffer) > MAX_HEAD_BYTES:
                        raise TransportError("the answer's trailers are too long")
                    return
                del buffer[: end + 2]
                if end == 0:
                    self._finish()
            elif parse.state == _UNTIL_CLOSE:
                if buffer:
                    rest = bytes(buffer)
                    buffer.clear()
                    self._body(rest)
                return

    def _head(self, head: bytes) -> None:
        parse = self._parse
        lines = head.split(b"\r\n")
        status_line = lines[0].split(b" ", 2)
        try:
            version = status_line[0]
            status = int(status_line[1])
        except (IndexError, ValueError):
            raise TransportError("the receiver did not answer with HTTP") from None
        if not version.startswith(b"HTTP/1.") or not 100 <= status <= 999:
            raise TransportError("the receiver did not answer with HTTP/1.x")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep:
                raise TransportError("a bad header line in the answer")
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
        if 100 <= status < 200:
            return  # an interim answer (100 Continue, 103 Early Hints): the real one follows
        parse.status = status
        parse.headers = headers
        if parse.tunnel:
            self._finish()  # bytes after it (there must be none yet) would be the receiver's
            return
        connection = headers.get("connection", "").lower()
        if version == b"HTTP/1.0":
            parse.reusable = "keep-alive" in connection
        elif "close" in connection:
            parse.reusable = False
        if status in (204, 304):
            self._finish()
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            parse.state = _CHUNK_SIZE
        elif "content-length" in headers:
            try:
                length = int(headers["content-length"])
            except ValueError:
                raise TransportError("a bad Content-Length in the answer") from None
            if length < 0:
                raise TransportError("a bad Content-Length in the answer")
            parse.remaining = length
            if length == 0:
                self._finish()
            else:
                parse.state = _LENGTH
        else:
            parse.state = _UNTIL_CLOSE
            parse.reusable = False


class Pool:
    """Keep-alive connections to one origin. Callers bound how many requests are under way
    at once (the delivery worker does, per configuration); idle ones beyond `_IDLE_LIMIT` are
    closed."""

    def __init__(self, origin: Origin) -> None:
        self.origin = origin
        self._idle: deque[_Connection] = deque()
        self._busy: set[_Connection] = set()

    async def request(self, data: bytes, *, connect_timeout: float) -> Answer:
        """Send one request (all its bytes) and read the answer. Raises TransportError,
        ConnectTimeout, ssl.SSLError or OSError (connecting)."""
        connection = self._take()
        if connection is not None:
            try:
                return await self._exchange(connection, data)
            except Closed:
                pass  # stale: the receiver closed it while it was idle; once more, fresh
        connection = await self._connect(connect_timeout)
        return await self._exchange(connection, data)

    async def _exchange(self, connection: _Connection, data: bytes) -> Answer:
        self._busy.add(connection)
        try:
            answer = await connection.exchange(data)
        finally:
            self._busy.discard(connection)
        if connection.reusable and len(self._idle) < _IDLE_LIMIT:
            self._idle.append(connection)
        else:
            connection.close()
        if answer.status == 407 and self.origin.proxy is not None:
            # The proxy's answer, not the receiver's: a receiver has no business asking for
            # proxy credentials.
            raise ProxyError(_refusal(self.origin.proxy, "the request", answer.status))
        return answer

    def _take(self) -> _Connection | None:
        while self._idle:
            connection = self._idle.pop()  # the most recently used is the least likely stale
            if not connection.closed:
                return connection
        return None

    async def _connect(self, seconds: float) -> _Connection:
        origin = self.origin
        try:
            async with asyncio.timeout(seconds):
                if origin.proxy is not None:
                    if origin.resolve is not None:
                        # A name only the proxy's DNS knows is the proxy's business.
                        with contextlib.suppress(socket.gaierror):
                            await origin.resolve(origin.host, origin.port)
                    return await _through(origin, origin.proxy)
                hosts = [origin.host]
                if origin.resolve is not None:
                    hosts = await origin.resolve(origin.host, origin.port)
                connection = await self._connect_first(hosts)
        except TimeoutError:
            via = f" through the proxy {origin.proxy.name}" if origin.proxy else ""
            raise ConnectTimeout(f"no connection{via} within {seconds:g} s") from None
        return connection

    async def _connect_first(self, hosts: list[str]) -> _Connection:
        """A connection to the first of `hosts` (names or addresses) that accepts one."""
        loop = asyncio.get_running_loop()
        origin = self.origin
        errors: list[OSError] = []
        for host in hosts:
            try:
                _transport, connection = await loop.create_connection(
                    _Connection,
                    host,
                    origin.port,
                    ssl=origin.tls,
                    server_hostname=origin.server_hostname if origin.tls else None,
                )
                return connection
            except ssl.SSLError:
                raise  # the receiver answered: its TLS is what failed
            except OSError as exc:
                errors.append(exc)
        if len({str(e) for e in errors}) <= 1:
            raise errors[0]
        # As asyncio words the failures of several addresses (failures reads the errnos).
        raise OSError(f"Multiple exceptions: {', '.join(str(e) for e in errors)}")

    def close(self) -> None:
        for connection in [*self._idle, *self._busy]:
            connection.close()
        self._idle.clear()
        self._busy.clear()


async def _through(origin: Origin, proxy: Proxy) -> _Connection:
    """A connection to the proxy; for a TLS origin, a CONNECT tunnel with TLS inside it."""
    loop = asyncio.get_running_loop()
    try:
        transport, connection = await loop.create_connection(_Connection, proxy.host, proxy.port)
    except OSError as exc:
        raise ProxyError(f"cannot connect to the proxy {proxy.name}") from exc
    if origin.tls is None:
        return connection
    target = _authority(origin.host, origin.port).encode()
    request = b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (target, target, proxy.authorization)
    try:
        try:
            answer = await connection.exchange(request, tunnel=True)
        except Closed:
            raise ProxyError(f"the proxy {proxy.name} closed the connection at CONNECT") from None
        except TransportError:
            raise ProxyError(f"the proxy {proxy.name} did not answer CONNECT with HTTP") from None
        if not 200 <= answer.status < 300:
            raise ProxyError(_refusal(proxy, f"the tunnel to {target.decode()}", answer.status))
        if not connection.reusable:  # closed, or bytes the receiver cannot have sent yet
            raise ProxyError(f"the proxy {proxy.name} broke the tunnel to {target.decode()}")
        # The receiver's name and the same checks as on a direct connection (start_tls does
        # not call connection_made: the TLS transport is handed over here).
        connection.transport = await loop.start_tls(
            transport, connection, origin.tls, server_hostname=origin.server_hostname
        )
    except BaseException:
        transport.close()
        raise
    return connection


def _refusal(proxy: Proxy, what: str, status: int) -> str:
    try:
        phrase = f" {HTTPStatus(status).phrase}"
    except ValueError:
        phrase = ""
    message = f"the proxy {proxy.name} refused {what}: HTTP {status}{phrase}"
    if status == 407:
        given = "were refused" if proxy.authorization else "are missing from the proxy's URL"
        message += f" (its credentials {given})"
    return message
