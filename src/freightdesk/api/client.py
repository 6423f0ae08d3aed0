"""`ApiClient`: the async client of the interface, one attribute per area."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self

import httpx

from freightdesk import __version__
from freightdesk.api.account_groups import AccountGroupsApi
from freightdesk.api.addresses import AddressesApi
from freightdesk.api.bookings import BookingsApi
from freightdesk.api.capacity import CapacityApi
from freightdesk.api.carrier_push import CarrierPushApi
from freightdesk.api.carriers import CarriersApi
from freightdesk.api.client_applications import ClientApplicationsApi
from freightdesk.api.documents import DocumentsApi
from freightdesk.api.errors import (
    FreightDeskError,
    error_from_response,
    parse_retry_after,
    transport_failure,
)
from freightdesk.api.fleet import FleetApi
from freightdesk.api.packaging import PackagingApi
from freightdesk.api.rail import RailApi
from freightdesk.api.rating import RatingApi
from freightdesk.api.schedules import SchedulesApi
from freightdesk.api.slots import SlotsApi
from freightdesk.api.stop_locations import StopLocationsApi
from freightdesk.api.tenant import TenantApi
from freightdesk.api.tokens import CredentialsIn, TokenKeeper, TokenManager
from freightdesk.api.tracking import TrackingApi
from freightdesk.api.transport import DEFAULT_TIMEOUT, IDEMPOTENT_METHODS, RetryPolicy
from freightdesk.api.vehicles import VehiclesApi
from freightdesk.api.vltl import VltlApi
from freightdesk.api.webhooks import WebhooksApi

log = logging.getLogger(__name__)


USER_AGENT = f"FreightDesk/{__version__}"
# The service's extensions, listed (server/openapi.py: EXTENSIONS_PATH).
EXTENSIONS_PATH = "/services/meta/v1/extensions"


class ApiClient:
    """The interface over HTTPS (or the local service over loopback).

    Use it as an async context manager::

        async with ApiClient(url, client_id=..., client_secret=...) as client:
            group = await client.account_groups.create(AccountGroupCreate(code="A", name="B"))
    """

    def __init__(
        self,
        base_url: str,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        credentials_in: CredentialsIn = "basic",
        admin: tuple[str, str] | None = None,
        retry: RetryPolicy | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
        token_keeper: TokenKeeper | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        )
        self.tokens: TokenManager | None = None
        if client_id and client_secret:
            self.tokens = TokenManager(
                self._http,
                client_id,
                client_secret,
                credentials_in=credentials_in,
                keeper=token_keeper,
            )
        self.admin_auth = httpx.BasicAuth(*admin) if admin else None
        self._extensions: frozenset[str] | None = None
        self._extensions_lock = asyncio.Lock()
        self.client_applications = ClientApplicationsApi(self)
        self.account_groups = AccountGroupsApi(self)
        self.tracking = TrackingApi(self)
        self.tenant = TenantApi(self)
        self.documents = DocumentsApi(self)
        self.stop_locations = StopLocationsApi(self)
        self.addresses = AddressesApi(self)
        self.webhooks = WebhooksApi(self)
        self.fleet = FleetApi(self)
        self.rating = RatingApi(self)
        self.bookings = BookingsApi(self)
        self.packaging = PackagingApi(self)
        self.carriers = CarriersApi(self)
        self.carrier_push = CarrierPushApi(self)
        self.vltl = VltlApi(self)
        self.rail = RailApi(self)
        self.capacity = CapacityApi(self)
        self.schedules = SchedulesApi(self)
        self.vehicles = VehiclesApi(self)
        self.slots = SlotsApi(self)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def move_to(self, base_url: str) -> None:
        """Send what comes next to `base_url`: the same service at another address (the
        Local sandbox's, restarted on another port). Its token stays; requests under way end
        as they would have."""
        self.base_url = base_url.rstrip("/")
        self._http.base_url = self.base_url

    @property
    def http(self) -> httpx.AsyncClient:
        """The underlying httpx client (for streaming downloads and uploads)."""
        return self._http

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        content: bytes | None = None,
        data: Mapping[str, Any] | None = None,
        files: Any = None,
        headers: Mapping[str, str] | None = None,
        idempotent: bool | None = None,
        admin: bool = False,
        anonymous: bool = False,
        ok_statuses: tuple[int, ...] = (),
    ) -> httpx.Response:
        """Send one operation under the transport policy; error answers raise typed errors.
        `anonymous` sends no credentials (what a public link's reader sends)."""
        method = method.upper()
        safe = method in IDEMPOTENT_METHODS if idempotent is None else idempotent
        clean_params = _clean_params(params)
        attempt = 0
        refreshed = False
        while True:
            attempt += 1
            request_headers = dict(headers or {})
            auth: httpx.Auth | None = None
            token: str | None = None
            if admin:
                if self.admin_auth is None:
                    raise FreightDeskError(
                        "managing client applications needs the admin's user name and password"
                    )
                auth = self.admin_auth
            elif self.tokens is not None and not anonymous:
                token = await self.tokens.get()
                request_headers["Authorization"] = f"Bearer {token}"
            try:
                response = await self._http.request(
                    method,
                    path,
                    params=clean_params,
                    json=json,
                    content=content,
                    data=data,
                    files=files,
                    headers=request_headers,
                    auth=auth,
                )
            except httpx.TransportError as exc:
                if attempt < self.retry.attempts and self.retry.retry_on_exception(exc, safe):
                    delay = self.retry.delay(attempt)
                    log.info("%s %s failed (%s); retry in %.2f s", method, path, exc, delay)
                    await asyncio.sleep(delay)
                    continue
                raise transport_failure(f"{method} {path}", exc, self._http.timeout.read) from exc
            status = response.status_code
            if status == 401 and token is not None and not refreshed and self.tokens is not None:
                # The token expired or was revoked early: one fresh token, then give up.
                self.tokens.invalidate(token)
                refreshed = True
                attempt -= 1
                continue
            if (
                status >= 400
                and status not in ok_statuses
                and attempt < self.retry.attempts
                and self.retry.retry_on_status(status, safe)
            ):
                delay = self.retry.delay(
                    attempt, parse_retry_after(response.headers.get("retry-after"))
                )
                log.info("%s %s answered %d; retry in %.2f s", method, path, status, delay)
                await asyncio.sleep(delay)
                continue
            if status >= 400 and status not in ok_statuses:
                raise error_from_response(response)
            return response

    async def extensions(self) -> frozenset[str]:
        """`METHOD path` of the local service's extensions the server offers (empty elsewhere)."""
        async with self._extensions_lock:
            if self._extensions is None:
                self._extensions = await self._read_extensions()
            return self._extensions

    async def _read_unauthenticated(self, path: str) -> httpx.Response:
        """GET `path` once, without credentials; a 5xx raises (the service in trouble says
        nothing of its extensions: not remembered as none)."""
        try:
            response = await self._http.get(path)
        except httpx.TransportError as exc:
            raise transport_failure(f"GET {path}", exc, self._http.timeout.read) from exc
        if response.status_code >= 500:
            raise error_from_response(response)
        return response

    async def has_extension(self, method: str, path: str) -> bool:
        return f"{method.upper()} {path}" in await self.extensions()

    async def _read_extensions(self) -> frozenset[str]:
        # The list, where the service has it (a FreightDesk service of this version or
        # later): its OpenAPI document, read otherwise, takes the service seconds to build.
        response = await self._read_unauthenticated(EXTENSIONS_PATH)
        if response.status_code == 200:
            try:
                listed = response.json()["extensions"]
                if isinstance(listed, list):
                    return frozenset(str(operation) for operation in listed)
            except (ValueError, KeyError, TypeError):
                pass
        response = await self._read_unauthenticated("/openapi.json")
        if response.status_code != 200:
            return frozenset()
        try:
            document = response.json()
            found = {
                f"{method.upper()} {path}"
                for path, operations in document.get("paths", {}).items()
                for method, operation in operations.items()
                if isinstance(operation, dict) and operation.get("x-freightdesk-extension")
            }
        except (ValueError, AttributeError):
            return frozenset()
        return frozenset(found)


def _clean_params(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Drop None values and spell booleans as the interface does."""
    if params is None:
        return None
    cleaned: dict[str, Any] = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            cleaned[key] = "true" if value else "false"
        else:
            cleaned[key] = value
    return cleaned


__all__ = ["ApiClient"]
