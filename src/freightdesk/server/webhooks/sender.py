"""Sending one message to one receiver: signed, authenticated, bounded in time.

Requests go out through `http11` (keep-alive connections per configuration; see there why not
httpx). What does not change between requests of one version of a configuration (the request
line, Host, methodHeaders, API key and Basic credentials) is encoded once; each request adds
its signature, a bearer token where OAuth 2.0 is used, and the body. Token endpoints, which are
not receivers and are asked rarely, are reached with httpx. Receivers are reached through the
environment's HTTP proxy where it names one (`proxies`). Where webhooks may go is `targets`'
rule: receivers are connected to at the addresses it checked, and a token endpoint's host is
checked before its request.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import time
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from freightdesk import __version__
from freightdesk.models.webhooks import AuthenticationType
from freightdesk.server.db import utcnow
from freightdesk.server.webhooks import failures, signing
from freightdesk.server.webhooks.credentials import CredentialError, Credentials, ssl_context
from freightdesk.server.webhooks.http11 import Origin, Pool, TransportError
from freightdesk.server.webhooks.outbox import Endpoint
from freightdesk.server.webhooks.proxies import Proxies
from freightdesk.server.webhooks.targets import TargetPolicy
from freightdesk.server.webhooks.tuning import Tuning

if TYPE_CHECKING:
    # Imported where used: the service's start imports this module (the ping route, the
    # delivery worker) and answers before anything is sent.
    import httpx

USER_AGENT = f"FreightDesk-Webhooks/{__version__}"
_TOKEN_TYPES = frozenset({AuthenticationType.OAUTH2.value, AuthenticationType.AD_OAUTH2_CERT.value})


@dataclass(frozen=True)
class Result:
    attempted_at: datetime
    latency_ms: float
    status_code: int | None = None
    # Why it failed in plain words, and the technical detail (`failures`); None when delivered.
    error: str | None = None
    detail: str | None = None
    retry_after: float | None = None

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, (parsedate_to_datetime(value) - utcnow()).total_seconds())
    except (TypeError, ValueError):
        return None


def _header(name: str, value: str) -> bytes:
    if any(c in value for c in "\r\n\0"):
        # Configuration checks refuse these; a stored value must not split the request.
        raise CredentialError(f"the value of header {name} contains a line break")
    return f"{name}: {value}\r\n".encode()


@dataclass
class _Route:
    """One version of a configuration, ready to send: its connections and fixed bytes."""

    updated_at: datetime
    pool: Pool
    # The request line and every header that is the same on each request.
    head: bytes
    # OAuth 2.0 methods: a bearer token is added per request (cached by Credentials).
    token_methods: list[dict[str, Any]]


class Sender:
    """Sends messages; one keep-alive pool per configuration (the worker bounds how many
    requests each has under way)."""

    def __init__(self, targets: TargetPolicy, proxies: Proxies | None = None) -> None:
        # None when every address is allowed: connections then resolve names as usual.
        self.targets = None if targets.unrestricted else targets
        # The environment's proxies are read here, once: the delivery worker makes its Sender
        # when it starts, so a changed environment takes effect at the next restart.
        self.proxies = Proxies.from_environment() if proxies is None else proxies
        # Loading the trust store takes ~0.1 s of CPU: once, when the first https receiver or
        # token endpoint needs it (a ping to an http receiver never does).
        self._trust_store: ssl.SSLContext | None = None
        # For token endpoints, which are not a configuration's receiver.
        self._token_client: httpx.AsyncClient | None = None
        self._routes: dict[int, _Route] = {}
        self._retired: list[Pool] = []
        self._lock = asyncio.Lock()
        self.credentials = Credentials()

    async def _trust(self) -> ssl.SSLContext:
        import httpx

        if self._trust_store is None:
            # Off the event loop: reading the certificates takes a while.
            self._trust_store = await asyncio.to_thread(httpx.create_ssl_context)
        return self._trust_store

    async def _shared(self) -> httpx.AsyncClient:
        import httpx

        if self._token_client is None:
            trust = await self._trust()
            self._token_client = httpx.AsyncClient(verify=trust, follow_redirects=False)
        return self._token_client

    async def close(self) -> None:
        for pool in [*self._retired, *(route.pool for route in self._routes.values())]:
            pool.close()
        self._routes.clear()
        self._retired.clear()
        if self._token_client is not None:
            await self._token_client.aclose()

    async def forget(self, keep: set[int]) -> None:
        """Close the connections of configurations that no longer have anything to send, and
        those replaced by an edit of their configuration a while ago."""
        retired, self._retired = self._retired, []
        for config_id in [c for c in self._routes if c not in keep]:
            retired.append(self._routes.pop(config_id).pool)
        for pool in retired:
            pool.close()

    async def _route_for(self, endpoint: Endpoint) -> _Route:
        known = self._routes.get(endpoint.id)
        if known is not None and known.updated_at == endpoint.updated_at:
            return known
        async with self._lock:
            known = self._routes.get(endpoint.id)
            if known is not None and known.updated_at == endpoint.updated_at:
                return known
            route = await self._prepare(endpoint)
            self._routes[endpoint.id] = route
        if known is not None:
            # Requests may still be under way on the old connections: close them later.
            self._retired.append(known.pool)
        return route

    async def _prepare(self, endpoint: Endpoint) -> _Route:
        import httpx

        url = httpx.URL(endpoint.url)
        if endpoint.params:
            url = url.copy_merge_params(endpoint.params)
        proxy = self.proxies.for_receiver(url.scheme, url.netloc.decode("ascii"))
        tls: ssl.SSLContext | None = None
        if url.scheme == "https":
            mtls = [m for m in endpoint.methods if m["type"] == AuthenticationType.MTLS.value]
            if mtls:
                tls = await asyncio.to_thread(ssl_context, mtls[0]["parameters"])
            else:
                tls = await self._trust()
        host = url.raw_host.decode("ascii")
        port = url.port or (443 if url.scheme == "https" else 80)
        target, proxy_authorization = url.raw_path, b""
        if proxy is not None and tls is None:
            # Forwarded by the proxy (TLS is tunnelled instead): the absolute form names the
            # receiver, and the proxy's credentials go with every request.
            target = b"http://" + url.netloc + url.raw_path
            proxy_authorization = proxy.authorization
        head = bytearray(f"{endpoint.method} ".encode())
        head += target + b" HTTP/1.1\r\nHost: " + url.netloc + b"\r\n" + proxy_authorization
        head += b"Content-Type: application/json\r\n"
        head += f"User-Agent: {USER_AGENT}\r\n".encode()
        fixed = dict(endpoint.headers)
        fixed.update(Credentials.fixed_headers(endpoint.methods))
        for name, value in fixed.items():
            head += _header(name, value)
        return _Route(
            updated_at=endpoint.updated_at,
            pool=Pool(
                Origin(
                    host,
                    port,
                    tls,
                    server_hostname=host,
                    proxy=proxy,
                    resolve=self.targets.addresses if self.targets is not None else None,
                )
            ),
            head=bytes(head),
            token_methods=[m for m in endpoint.methods if m["type"] in _TOKEN_TYPES],
        )

    async def _check_token_endpoint(self, methods: list[dict[str, Any]]) -> None:
        """Refuse a token endpoint on the service's own network (TargetRefused) before httpx
        resolves and reaches it. (httpx resolves the name again: unlike a receiver's, a token
        endpoint's address could change in between; its URL was checked when saved too.)"""
        if self.targets is None:
            return
        import httpx

        url = httpx.URL(methods[0]["parameters"]["tokenUrl"])
        with contextlib.suppress(socket.gaierror):  # httpx says so, as before
            await self.targets.addresses(url.host, url.port or 443)

    async def send(self, endpoint: Endpoint, event_id: str, body: bytes, tuning: Tuning) -> Result:
        import httpx

        attempted_at = utcnow()
        started = time.perf_counter()

        def result(**fields: Any) -> Result:
            latency = (time.perf_counter() - started) * 1000
            return Result(attempted_at=attempted_at, latency_ms=latency, **fields)

        def failed(failure: failures.Failure, **fields: Any) -> Result:
            return result(error=failure.words, detail=failure.detail, **fields)

        if endpoint.problem is not None:
            return failed(failures.of_problem(endpoint.problem))
        try:
            async with asyncio.timeout(tuning.timeout_seconds + tuning.connect_timeout_seconds):
                route = await self._route_for(endpoint)
                request = bytearray(route.head)
                if route.token_methods:
                    await self._check_token_endpoint(route.token_methods)
                    limits = httpx.Timeout(
                        tuning.timeout_seconds, connect=tuning.connect_timeout_seconds
                    )
                    token = await self.credentials.bearer(
                        route.token_methods, await self._shared(), limits
                    )
                    request += _header("Authorization", f"Bearer {token}")
                now = int(time.time())
                signature = signing.signature_header(list(endpoint.secrets), event_id, now, body)
                request += (
                    f"webhook-id: {event_id}\r\nwebhook-timestamp: {now}\r\n"
                    f"webhook-signature: {signature}\r\nContent-Length: {len(body)}\r\n\r\n"
                ).encode()
                request += body
                answer = await route.pool.request(
                    bytes(request), connect_timeout=tuning.connect_timeout_seconds
                )
        except (CredentialError, TimeoutError, OSError, TransportError) as exc:
            # (ssl.SSLError and socket.gaierror are OSErrors.)
            url = httpx.URL(endpoint.url)
            host = f"[{url.host}]" if ":" in url.host else url.host
            where = f"{host}:{url.port or (443 if url.scheme == 'https' else 80)}"
            return failed(
                failures.of_exception(exc, where=where, timeout_seconds=tuning.timeout_seconds)
            )
        status = answer.status
        if 200 <= status < 300:
            return result(status_code=status)
        if status == 401:
            self.credentials.forget(endpoint.methods)
        retry_after = (
            _retry_after(answer.headers.get("retry-after")) if status in (429, 503) else None
        )
        return failed(
            failures.of_status(status, answer.body), status_code=status, retry_after=retry_after
        )
