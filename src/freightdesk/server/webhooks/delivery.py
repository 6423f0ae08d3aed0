"""The webhook delivery worker (registered in `app.WORKER_MODULES` through `WORKERS`).

One cycle, every `poll_interval_seconds` or sooner when a request finishes:
1. store the outcomes of finished requests (outbox.record),
2. fan out new rows of the shipment change journal (outbox.fan_out),
3. start requests for due messages (outbox.due), within the concurrency of each
   configuration and in all: a slow receiver fills only its own slots.

Database work runs on one thread of our own, never on the event loop. Requests go out with one
`httpx.AsyncClient` (plus one per MTLS configuration, for its client certificate). A message
stays PENDING in the database until its outcome is stored, so a restart resends what was in
flight (at least once; receivers deduplicate by `webhook-id`) and never loses anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import ssl
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx

from freightdesk import __version__
from freightdesk.models.webhooks import AuthenticationType
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.webhooks import outbox, signing
from freightdesk.server.webhooks.credentials import CredentialError, Credentials, ssl_context
from freightdesk.server.webhooks.outbox import Claim, Endpoint, Outcome
from freightdesk.server.webhooks.tuning import Tuning, current
from freightdesk.server.workers import Worker

log = logging.getLogger(__name__)

USER_AGENT = f"FreightDesk-Webhooks/{__version__}"
BASE_URL_KEY = "webhooks.base_url"
_RESPONSE_BYTES = 64 * 1024
_PURGE_EVERY_SECONDS = 600.0
_SHUTDOWN_GRACE_SECONDS = 1.0

T = TypeVar("T")


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


def base_url(context: ServiceContext) -> str | None:
    """Where receivers can reach this service, for `shipmentShareLink`."""
    configured = context.settings.extra.get("public_base_url")
    found = configured or context.services.get(BASE_URL_KEY)
    return str(found) if found else None


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
    """Sends one message to one endpoint: signed, authenticated, bounded in time."""

    def __init__(self, max_connections: int = 300) -> None:
        self._limits = httpx.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections
        )
        self._client = httpx.AsyncClient(limits=self._limits, follow_redirects=False)
        self._tls: dict[int, tuple[str, httpx.AsyncClient]] = {}
        self._tls_lock = asyncio.Lock()
        self.credentials = Credentials()

    async def close(self) -> None:
        clients = [self._client, *(client for _, client in self._tls.values())]
        self._tls.clear()
        for client in clients:
            await client.aclose()

    async def _client_for(self, endpoint: Endpoint) -> httpx.AsyncClient:
        mtls = [m for m in endpoint.methods if m["type"] == AuthenticationType.MTLS.value]
        if not mtls:
            return self._client
        parameters = mtls[0]["parameters"]
        fingerprint = f"{endpoint.updated_at.isoformat()}"
        async with self._tls_lock:
            known = self._tls.get(endpoint.id)
            if known is not None and known[0] == fingerprint:
                return known[1]
            context = await asyncio.to_thread(ssl_context, parameters)
            client = httpx.AsyncClient(verify=context, limits=self._limits, follow_redirects=False)
            self._tls[endpoint.id] = (fingerprint, client)
        if known is not None:
            await known[1].aclose()
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
                    await self.credentials.headers(endpoint.methods, self._client, timeout)
                )
                now = int(time.time())
                headers["webhook-id"] = event_id
                headers["webhook-timestamp"] = str(now)
                headers["webhook-signature"] = signing.signature_header(
                    list(endpoint.secrets), event_id, now, content
                )
                url = httpx.URL(endpoint.url)
                if endpoint.params:
                    url = url.copy_merge_params(endpoint.params)
                client = await self._client_for(endpoint)
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


class DeliveryWorker:
    def __init__(self, context: ServiceContext) -> None:
        self.context = context
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="webhooks-db")
        self.sender = Sender(max_connections=current(context).total_concurrency + 16)
        self._in_flight: dict[int, asyncio.Task[None]] = {}
        self._per_config: Counter[int] = Counter()
        self._finished: list[Outcome] = []
        self._wake = asyncio.Event()
        self._last_purge = 0.0

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args))

    async def run(self, stop: asyncio.Event) -> None:
        try:
            while not stop.is_set():
                tuning = current(self.context)
                try:
                    more = await self._cycle(tuning)
                except Exception:
                    log.exception("webhook delivery cycle failed; retrying shortly")
                    more = False
                    await _wait(stop, asyncio.Event(), tuning.poll_interval_seconds * 10)
                if not more:
                    await _wait(stop, self._wake, tuning.poll_interval_seconds)
                self._wake.clear()
        finally:
            await self._shutdown()

    async def _cycle(self, tuning: Tuning) -> bool:
        """One round of store, fan out, start; True when more journal rows are waiting."""
        finished, self._finished = self._finished, []
        # Taken here, on the loop: tasks change these while the thread works.
        busy = set(self._in_flight)
        slots = {
            config: tuning.per_endpoint_concurrency - count
            for config, count in self._per_config.items()
            if count > 0
        }
        free = tuning.total_concurrency - len(busy)
        try:
            read, claims, endpoints = await self._db(
                self._sync_cycle, finished, tuning, busy, slots, free
            )
        except BaseException:
            self._finished = finished + self._finished  # stored next time
            raise
        for claim in claims:
            endpoint = endpoints[claim.config_id]
            self._per_config[claim.config_id] += 1
            task = asyncio.create_task(self._deliver(claim, endpoint, tuning))
            self._in_flight[claim.message_id] = task
        return read >= tuning.journal_batch

    def _sync_cycle(
        self,
        finished: list[Outcome],
        tuning: Tuning,
        busy: set[int],
        slots: dict[int, int],
        free: int,
    ) -> tuple[int, list[Claim], dict[int, Endpoint]]:
        sessions = self.context.sessions
        now = utcnow()
        if finished:
            with transaction(sessions) as session:
                outbox.record(session, finished, tuning, now)
        with transaction(sessions) as session:
            read = outbox.fan_out(
                session,
                tuning,
                now,
                base_url=base_url(self.context),
                max_positions=self.context.settings.max_positions_returned,
            )
        if time.monotonic() - self._last_purge > _PURGE_EVERY_SECONDS:
            self._last_purge = time.monotonic()
            with transaction(sessions) as session:
                outbox.purge(session, tuning, now)
        if free <= 0:
            return read, [], {}
        with sessions() as session:
            claims, endpoints = outbox.due(
                session,
                utcnow(),
                busy=busy,
                free_slots=slots,
                default_slots=tuning.per_endpoint_concurrency,
                limit=free,
            )
        return read, claims, endpoints

    async def _deliver(self, claim: Claim, endpoint: Endpoint, tuning: Tuning) -> None:
        try:
            result = await self.sender.send(endpoint, claim.event_id, claim.body, tuning)
            self._finished.append(
                Outcome(
                    message_id=claim.message_id,
                    config_id=claim.config_id,
                    attempted_at=result.attempted_at,
                    latency_ms=result.latency_ms,
                    status_code=result.status_code,
                    error=result.error,
                    failed_attempts_before=claim.failed_attempts,
                    retry_after=result.retry_after,
                )
            )
        except Exception:
            log.exception("webhook message %d could not be sent", claim.message_id)
        finally:
            self._in_flight.pop(claim.message_id, None)
            self._per_config[claim.config_id] -= 1
            if self._per_config[claim.config_id] <= 0:
                del self._per_config[claim.config_id]
            self._wake.set()

    async def _shutdown(self) -> None:
        tasks = list(self._in_flight.values())
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=_SHUTDOWN_GRACE_SECONDS)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        try:
            if self._finished:
                finished, self._finished = self._finished, []
                tuning = current(self.context)
                await self._db(_store, self.context, finished, tuning)
        except Exception:
            log.exception("could not store the last webhook outcomes; they will be resent")
        finally:
            self._executor.shutdown(wait=True)
            await self.sender.close()


def _store(context: ServiceContext, finished: list[Outcome], tuning: Tuning) -> None:
    with transaction(context.sessions) as session:
        outbox.record(session, finished, tuning, utcnow())


async def _wait(stop: asyncio.Event, wake: asyncio.Event, seconds: float) -> None:
    """Until stop, wake or the timeout, whichever comes first."""
    waiters = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*waiters, return_exceptions=True)


async def deliver_webhooks(context: ServiceContext, stop: asyncio.Event) -> None:
    await DeliveryWorker(context).run(stop)


WORKERS: list[Worker] = [deliver_webhooks]
