"""Sending one message to one receiver: signed, authenticated, bounded in time.

Each configuration gets its own small connection pool (its concurrency is bounded anyway):
httpcore scans a pool's connections for every request, so one big shared pool costs time in
proportion to all connections, and a slow receiver would hold connections others need. An
MTLS configuration's pool carries its client certificate.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from freightdesk import __version__
from freightdesk.models.webhooks import AuthenticationType
from freightdesk.server.db import utcnow
from freightdesk.server.webhooks import signing
from freightdesk.server.webhooks.credentials import CredentialError, Credentials, ssl_context
from freightdesk.server.webhooks.outbox import Endpoint
from freightdesk.server.webhooks.tuning import Tuning

USER_AGENT = f"FreightDesk-Webhooks/{__version__}"
_RESPONSE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Result:
    attempted_at: datetime
    latency_ms: float
    status_code: int | None = None
    error: str | None = None
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


class Sender:
    """Sends messages; one connection pool per configuration (see the module)."""

    def __init__(self, per_endpoint: int = 8) -> None:
        self._limits = httpx.Limits(
            max_connections=per_endpoint, max_keepalive_connections=per_endpoint
        )
        # Loading the trust store takes ~0.1 s: once for every pool without a client
        # certificate, not once per pool.
        self._trust = httpx.create_ssl_context()
        # For token endpoints, which are not a configuration's receiver.
        self._shared = httpx.AsyncClient(
            verify=self._trust, limits=self._limits, follow_redirects=False
        )
        self._clients: dict[int, tuple[datetime, httpx.AsyncClient]] = {}
        self._retired: list[httpx.AsyncClient] = []
        self._urls: dict[int, httpx.URL] = {}
        self._lock = asyncio.Lock()
        self.credentials = Credentials()

    async def close(self) -> None:
        clients = [self._shared, *self._retired, *(client for _, client in self._clients.values())]
        self._clients.clear()
        self._retired.clear()
        for client in clients:
            await client.aclose()

    async def forget(self, keep: set[int]) -> None:
        """Close the pools of configurations that no longer have anything to send, and those
        replaced by an edit of their configuration a while ago."""
        retired, self._retired = self._retired, []
        for config_id in [c for c in self._clients if c not in keep]:
            retired.append(self._clients.pop(config_id)[1])
            self._urls.pop(config_id, None)
        for client in retired:
            await client.aclose()

    async def _client_for(self, endpoint: Endpoint) -> httpx.AsyncClient:
        known = self._clients.get(endpoint.id)
        if known is not None and known[0] == endpoint.updated_at:
            return known[1]
        async with self._lock:
            known = self._clients.get(endpoint.id)
            if known is not None and known[0] == endpoint.updated_at:
                return known[1]
            mtls = [m for m in endpoint.methods if m["type"] == AuthenticationType.MTLS.value]
            verify = self._trust
            if mtls:
                verify = await asyncio.to_thread(ssl_context, mtls[0]["parameters"])
            client = httpx.AsyncClient(verify=verify, limits=self._limits, follow_redirects=False)
            self._clients[endpoint.id] = (endpoint.updated_at, client)
            # Parsed once per version of the configuration, not once per request.
            url = httpx.URL(endpoint.url)
            self._urls[endpoint.id] = (
                url.copy_merge_params(endpoint.params) if endpoint.params else url
            )
        if known is not None:
            # Requests may still be under way on the old pool: close it later.
            self._retired.append(known[1])
        return client

    async def send(self, endpoint: Endpoint, event_id: str, body: str, tuning: Tuning) -> Result:
        attempted_at = utcnow()
        started = time.perf_counter()
        timeout = httpx.Timeout(tuning.timeout_seconds, connect=tuning.connect_timeout_seconds)

        def result(**fields: Any) -> Result:
            latency = (time.perf_counter() - started) * 1000
            return Result(attempted_at=attempted_at, latency_ms=latency, **fields)

        content = body.encode()
        try:
            async with asyncio.timeout(tuning.timeout_seconds + tuning.connect_timeout_seconds):
                headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
                headers.update(endpoint.headers)
                headers.update(
                    await self.credentials.headers(endpoint.methods, self._shared, timeout)
                )
                now = int(time.time())
                headers["webhook-id"] = event_id
                headers["webhook-timestamp"] = str(now)
                headers["webhook-signature"] = signing.signature_header(
                    list(endpoint.secrets), event_id, now, content
                )
                client = await self._client_for(endpoint)
                url = self._urls[endpoint.id]
                request = client.build_request(
                    endpoint.method, url, content=content, headers=headers, timeout=timeout
                )
                response = await client.send(request, stream=True)
                try:
                    text = await _read_some(response)
                finally:
                    await response.aclose()
        except CredentialError as exc:
            return result(error=str(exc))
        except (TimeoutError, httpx.TimeoutException):
            return result(error=f"no answer within {tuning.timeout_seconds:g} s")
        except ssl.SSLError as exc:
            return result(error=f"TLS: {exc.reason or exc}")
        except httpx.HTTPError as exc:
            return result(error=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        status = response.status_code
        if 200 <= status < 300:
            return result(status_code=status)
        if status == 401:
            self.credentials.forget(endpoint.methods)
        retry_after = (
            _retry_after(response.headers.get("retry-after")) if status in (429, 503) else None
        )
        snippet = " ".join(text.split())[:200]
        error = f"HTTP {status}" + (f": {snippet}" if snippet else "")
        return result(status_code=status, error=error, retry_after=retry_after)


async def _read_some(response: httpx.Response) -> str:
    """The start of the answer (for the delivery log); the rest is not worth the memory."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _RESPONSE_BYTES:
            break
    return b"".join(chunks)[:1024].decode("utf-8", "replace")
