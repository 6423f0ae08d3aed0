"""Bearer tokens: fetched once, reused until they expire or a 401 says so, never too often."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import httpx
from pydantic import ValidationError

from freightdesk.api.errors import ConnectionFailed, ProtocolError, error_from_response
from freightdesk.models.auth import TokenResponse

log = logging.getLogger(__name__)

TOKEN_PATH = "/api/v4/oauth2/token"
CredentialsIn = Literal["basic", "body"]


@dataclass(frozen=True)
class Token:
    value: str
    expires_at: float  # on the manager's monotonic clock


class TokenManager:
    """Holds the current token; at most one task fetches a new one at a time.

    The interface allows 5 new tokens per client application per minute; the manager keeps
    under that by itself (it waits rather than being refused), and a new token is fetched
    only when the current one is about to expire or the service said it is no longer valid.
    """

    REFRESH_MARGIN = 60.0

    def __init__(
        self,
        http: httpx.AsyncClient,
        client_id: str,
        client_secret: str,
        *,
        credentials_in: CredentialsIn = "basic",
        token_path: str = TOKEN_PATH,
        per_minute: int = 5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._http = http
        self._client_id = client_id
        self._client_secret = client_secret
        self._credentials_in = credentials_in
        self._token_path = token_path
        self._per_minute = per_minute
        self._clock = clock
        self._token: Token | None = None
        self._lock = asyncio.Lock()
        self._fetched: deque[float] = deque()

    @property
    def current(self) -> str | None:
        return self._token.value if self._token is not None else None

    async def get(self) -> str:
        token = self._token
        if token is not None and token.expires_at - self.REFRESH_MARGIN > self._clock():
            return token.value
        async with self._lock:
            token = self._token
            if token is not None and token.expires_at - self.REFRESH_MARGIN > self._clock():
                return token.value
            self._token = await self._fetch()
            return self._token.value

    def invalidate(self, value: str) -> None:
        """Forget `value` (the service refused it); a newer token fetched meanwhile stays."""
        if self._token is not None and self._token.value == value:
            self._token = None

    async def _fetch(self) -> Token:
        await self._respect_limit()
        data = {"grant_type": "client_credentials"}
        auth: httpx.Auth | None = None
        if self._credentials_in == "basic":
            auth = httpx.BasicAuth(self._client_id, self._client_secret)
        else:
            data |= {"client_id": self._client_id, "client_secret": self._client_secret}
        for _ in range(3):
            self._fetched.append(self._clock())
            try:
                response = await self._http.post(
                    self._token_path, data=data, auth=auth or httpx.USE_CLIENT_DEFAULT
                )
            except httpx.TransportError as exc:
                raise ConnectionFailed(f"cannot reach the token endpoint: {exc}") from exc
            if response.status_code == 429:
                wait = float(response.headers.get("retry-after", "5") or 5)
                log.warning("token endpoint asks to wait %.0f s", wait)
                await asyncio.sleep(min(wait, 60.0))
                continue
            if response.status_code >= 400:
                raise error_from_response(response)
            try:
                parsed = TokenResponse.model_validate_json(response.content)
            except ValidationError as exc:
                raise ProtocolError(
                    f"the token endpoint answered an unexpected body: {exc.errors()[0]['msg']}",
                    status=response.status_code,
                    body=response.content,
                ) from exc
            return Token(parsed.access_token, self._clock() + parsed.expires_in)
        raise error_from_response(response)

    async def _respect_limit(self) -> None:
        now = self._clock()
        while self._fetched and now - self._fetched[0] >= 60.0:
            self._fetched.popleft()
        if len(self._fetched) >= self._per_minute:
            wait = 60.0 - (now - self._fetched[0]) + 0.05
            log.info("waiting %.1f s to stay within %d tokens a minute", wait, self._per_minute)
            await asyncio.sleep(wait)
            self._fetched.popleft()
